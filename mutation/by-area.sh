#!/bin/sh
# Runs Stryker once per area of the mutation run (stryker.config.mjs), each with the part of the conformance suite that
# exercises it (faster than one run with every group), one after the other; reports go to
# reports/mutation/<area>/. Usage: sh mutation/by-area.sh [area ...]
# areas: auth tokens errors problem rate-limit bucket idempotency idempotency-store (default: all, in this order)
set -u
t() { printf '@%s(?![A-Za-z0-9-])' "$1"; }
join() { out=''; for id in "$@"; do out="${out:+$out|}$(t "$id")"; done; printf '%s' "$out"; }
run() {
  area=$1; files=$2; grep=$3
  echo "== $area: $files"
  HAC_MUTATE="$files" HAC_MUTATION_GREP="$grep" HAC_MUTATION_REPORT_DIR="reports/mutation/$area" npx stryker run stryker.config.mjs
}
areas=${*:-auth tokens errors problem rate-limit bucket idempotency idempotency-store}
for area in $areas; do
  case $area in
    auth) run auth reference-impl/middleware/auth.ts \
      "$(join AUTH-401-MISSING AUTH-401-INVALID AUTH-401-MALFORMED AUTH-WWW-AUTHENTICATE AUTH-403-PERMISSION AUTH-403-INSUFFICIENT-SCOPE AUTH-TOKEN-ALWAYS-CHECKED AUTH-PUBLIC-READS AUTH-BEARER-HEADER AUTH-STATELESS STATELESS-SELF-CONTAINED)" ;;
    tokens) run tokens reference-impl/tokens.ts \
      "$(join AUTH-401-MISSING AUTH-401-INVALID AUTH-401-MALFORMED AUTH-WWW-AUTHENTICATE AUTH-BEARER-HEADER AUTH-TOKEN-ALWAYS-CHECKED)" ;;
    idempotency) run idempotency reference-impl/middleware/idempotency.ts "$(t idempotency)" ;;
    # The memory adapters run only when the embedded server is on the memory store (with Redis answering,
    # the CLI embeds two instances on Redis, whose scripts are not these modules).
    idempotency-store) (export HAC_EMBEDDED=memory; run idempotency-store reference-impl/stores/memory/idempotency.ts "$(t idempotency)") ;;
    errors) run errors reference-impl/middleware/errors.ts \
      "$(join PROBLEM-CONTENT-TYPE PROBLEM-MEMBERS PROBLEM-STATUS-MATCHES PROBLEM-TYPE-URI PROBLEM-INSTANCE PROBLEM-SAME-ENVELOPE PROBLEM-ABOUT-BLANK PROBLEM-TYPE-CATALOGUE STATUS-500-GENERIC STATUS-5XX-SERVER-FAULT STATUS-503-RETRY-AFTER STATUS-404-UNKNOWN-ROUTE STATUS-404-UNKNOWN-RESOURCE STATUS-400-MALFORMED-JSON STATUS-415-MEDIA-TYPE STATUS-413-BODY-TOO-LARGE STATUS-422-INVALID-VALUES VALIDATION-ALL-FIELDS VALIDATION-FIELD-NAMES VALIDATION-BODY-NOT-OBJECT METHOD-NOT-ALLOWED-405 METHOD-ALLOW-HEADER CACHE-CONTROL-DECLARED CACHE-NO-STORE-DYNAMIC RATE-LIMIT-PROBLEM-MEMBERS)" ;;
    problem) run problem reference-impl/problem.ts \
      "$(join PROBLEM-CONTENT-TYPE PROBLEM-MEMBERS PROBLEM-STATUS-MATCHES PROBLEM-TYPE-URI PROBLEM-INSTANCE PROBLEM-SAME-ENVELOPE STATUS-500-GENERIC STATUS-503-RETRY-AFTER VALIDATION-ALL-FIELDS RATE-LIMIT-PROBLEM-MEMBERS)" ;;
    rate-limit) run rate-limit reference-impl/middleware/rate-limit.ts \
      "$(join RATE-LIMIT-HEADERS-EVERY-RESPONSE RATE-LIMIT-429 RATE-LIMIT-PROBLEM-BODY RATE-LIMIT-HEADER-LIMIT RATE-LIMIT-HEADER-REMAINING RATE-LIMIT-RETRY-AFTER RATE-LIMIT-PROBLEM-MEMBERS RATE-LIMIT-PER-CALLER RATE-LIMIT-CALLER-IDENTITY RATE-LIMIT-EVERY-ROUTE)" ;;
    bucket) (export HAC_EMBEDDED=memory; run bucket reference-impl/rate-limit/token-bucket.ts,reference-impl/rate-limit/rounding.ts "$(t rate-limit)") ;;
    *) echo "unknown area $area" >&2; exit 2 ;;
  esac
done
