/**
 * Declared features are verified before use: a profile that declares fault injection, a slow
 * window or rate-limit tokens the target ignores would otherwise turn one setting into a dozen MUST
 * failures. Each check sends the request the suite itself would send, once, and a mismatch becomes
 * one line naming the profile field, what the target did, and the fix. The run then stops with
 * exit 2 before the suite starts (cli/run/target.ts). A server defect is never blamed
 * on the profile: a target that admits a made-up token gets no word on its tokens here, and the
 * suite runs, so the authentication MUSTs fail it (exit 1).
 */
import { delay, send, TransportError } from '../transport/http.ts';
import type { HttpResponse } from '../transport/message.ts';
import { fillTemplate } from '../support/template.ts';
import type { TargetProfile } from './profile.ts';
import { prepared, sendingOf } from '../transport/sending.ts';
import { requestSchemas } from '../support/request-schemas.ts';
import type { RequestSchema } from '../support/request-schemas.ts';

export interface FeatureProblem {
  /** The profile field, as a JSON path (`features.faultInjection.header`). */
  field: string;
  /** What the target did instead. */
  problem: string;
  fix: string;
  /**
   * True when the check's request got no usable answer (no answer, a stall, a body too large or
   * endless, not HTTP): the server's fault, not the profile's (D-BOUNDED-RUN); `problem` then names
   * the request and what the server did.
   */
  transport?: boolean;
}

/** The slow window the profile schema promises (target-profile.schema.json `slowValue`: at least 300 ms). */
export const SLOW_WINDOW_MS = 300;
/** Timer and clock granularity allowed below the promised window (setTimeout may fire 1 ms early). */
const SLOW_TOLERANCE_MS = 10;

function answerLine(response: HttpResponse): string {
  return `${response.request.method} ${new URL(response.request.url).pathname} answered ${response.status}`;
}

/** `features.faultInjection.header`: the suite sends `<header>: 500` and expects the injected 500. */
async function checkFaultInjection(profile: TargetProfile, base: string): Promise<FeatureProblem[]> {
  const fault = profile.features?.faultInjection;
  const first = profile.collections[0];
  if (!fault || !first) return [];
  const sent = prepared(sendingOf(profile), first.path, { [fault.header.toLowerCase()]: '500' }, first.auth?.read === false ? null : profile.tokens.valid);
  const response = await send(base, 'GET', sent.path, { headers: sent.headers, timeoutMs: 10_000 });
  if (response.status === 500) return [];
  return [
    {
      field: 'features.faultInjection',
      problem: `the target ignores ${fault.header}: 500 (${answerLine(response)}, not 500)`,
      fix: 'turn fault injection on in the target (reference server: `npm start`, or `serve --fault-injection`), or remove features.faultInjection ' +
        'from the profile (the checks that need it are then skipped)',
    },
  ];
}

/** `features.faultInjection.slowValue`: a keyed POST carrying it stays in flight at least 300 ms. */
async function checkSlowValue(profile: TargetProfile, base: string): Promise<FeatureProblem[]> {
  const fault = profile.features?.faultInjection;
  const idem = profile.idempotency;
  if (!fault?.slowValue || !idem) return [];
  const key = `hac-verify-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const sent = prepared(sendingOf(profile), idem.path, { 'idempotency-key': key, [fault.header.toLowerCase()]: fault.slowValue }, profile.tokens.valid);
  const response = await send(base, 'POST', sent.path, { headers: sent.headers, json: fillTemplate(idem.body), timeoutMs: 15_000 });
  if (response.status >= 200 && response.status < 300 && response.durationMs >= SLOW_WINDOW_MS - SLOW_TOLERANCE_MS) return [];
  const answer = answerLine(response);
  const what = response.status >= 300 ? answer : `${answer} after ${Math.round(response.durationMs)} ms, not at least ${SLOW_WINDOW_MS} ms`;
  return [
    {
      field: 'features.faultInjection.slowValue',
      problem: `the target does not hold a request carrying ${fault.header}: ${fault.slowValue} (${what})`,
      fix: 'make the target delay such requests (reference server: fault injection on, slowValue "delay-500"), or remove slowValue from the profile ' +
        '(the in-flight checks then run without it, or are skipped)',
    },
  ];
}

/** What a refusal says of the body it refused: the problem's `errors` (field and message), else its `detail`, else the start of its body. */
function refusalText(response: HttpResponse): string {
  const body = response.json as { detail?: unknown; errors?: unknown; title?: unknown } | undefined;
  if (Array.isArray(body?.errors) && body.errors.length > 0) {
    const shown = body.errors.slice(0, 3).map((e: unknown) => {
      // The document's item is {field, message}; RFC 9457's examples and other APIs say pointer and detail.
      const { field, pointer, detail, message } = (e ?? {}) as Record<string, unknown>;
      return [field ?? pointer, message ?? detail].filter((x) => typeof x === 'string').join(': ') || JSON.stringify(e);
    });
    return `: ${shown.join('; ')}${body.errors.length > 3 ? `; and ${body.errors.length - 3} more` : ''}`;
  }
  const said = body?.detail ?? body?.title;
  if (typeof said === 'string') return `: ${said}`;
  return response.text ? `: ${response.text.slice(0, 200)}` : '';
}

/**
 * `collections[].create` and `idempotency.body`: the bodies every creating check sends. A body the
 * target refuses as a bad request (400, 422) is the profile's to fix, and one message before the suite
 * says so (D-FINDINGS); otherwise each check that creates would report the refusal as its own failure.
 * One POST per body, without a key; any other answer (a 401, a 429, a 5xx, none) is the suite's to judge.
 * A server defect is never blamed on the profile: a body the API's own document (the profile's
 * `openapi`) accepts is left to VALIDATION-SCHEMA-VALID-ACCEPTED, and the suite runs.
 */
async function checkProfileBodies(profile: TargetProfile, base: string): Promise<FeatureProblem[]> {
  const documented = await requestSchemas(profile);
  const schemaOf = (path: string): RequestSchema | undefined =>
    'schemas' in documented ? documented.schemas.find((r) => r.collection.path === path) : undefined;
  const bodies = [
    ...profile.collections.flatMap((c, index) =>
      c.create && c.methods.includes('POST')
        ? [{ field: `collections[${index}].create`, path: c.path, body: c.create, anonymous: c.auth?.write === false }]
        : [],
    ),
    ...(profile.idempotency ? [{ field: 'idempotency.body', path: profile.idempotency.path, body: profile.idempotency.body, anonymous: false }] : []),
  ];
  const problems: FeatureProblem[] = [];
  for (const { field, path, body, anonymous } of bodies) {
    const sent = prepared(sendingOf(profile), path, {}, anonymous ? null : profile.tokens.valid);
    const filled = fillTemplate(body);
    // No usable answer (a body past the size limit, a stall) is the server's fault, which the suite's own requests then show.
    const response = await send(base, 'POST', sent.path, { headers: sent.headers, json: filled, timeoutMs: 10_000 }).catch((error: unknown) => {
      if (error instanceof TransportError) return undefined;
      throw error;
    });
    if (response === undefined || (response.status !== 400 && response.status !== 422)) continue;
    const invalid = schemaOf(path)?.invalidFields(filled);
    if (invalid !== undefined && invalid.length === 0) continue;
    const alsoDocument = invalid === undefined ? '' : `; the API's own document refuses ${invalid.join(', ')} too`;
    problems.push({
      field,
      problem: `the target refuses the body the checks create with (${answerLine(response)}${refusalText(response)}${alsoDocument})`,
      fix: `make ${field} a body the API accepts (its schema in the API's OpenAPI document; \`init\` fills required members from it), ` +
        'or remove it (the checks that create there are then skipped)',
    });
  }
  return problems;
}

/**
 * `tokens.rateLimit`, `tokens.rateLimitPool` and `tokens.rateLimitSlow`: each token is known and,
 * when the profile gives its plan's capacity, the target's RateLimit-Limit says the same. One
 * request per token (the rate-limit checks read the bucket's state from its headers before they burst).
 * Where the header and the profile disagree, a burst measures the plan before either is blamed
 * (D-TRAFFIC): a target enforcing the profile's capacity while announcing another has a wrong header,
 * which the suite reports (RATE-LIMIT-HEADER-LIMIT, exit 1); one enforcing what it announces shows the
 * profile wrong (exit 2, with what was measured).
 */
async function checkRateLimitTokens(profile: TargetProfile, base: string): Promise<FeatureProblem[]> {
  const { rateLimit, rateLimitPool, rateLimitSlow } = profile.tokens;
  if (!rateLimit && !rateLimitSlow) return [];
  // A target that admits a token nobody configured tells nothing about the profile's tokens (every token
  // is "known", each on whatever plan the target gives strangers): that is the server's defect, which
  // AUTH-401-INVALID reports, so the suite must run rather than stop blaming the profile.
  if (await admitsMadeUpToken(profile, base)) return [];
  const capacity = profile.rateLimit?.capacity;
  // The refill a burst may see while it lasts: a bucket's rate; a window gives nothing back within it.
  const refill = profile.rateLimit?.windowSeconds === undefined ? (profile.rateLimit?.refillPerSecond ?? 0) : 0;
  const tokens: { field: string; token: string; capacity?: number; capacityField: string; refill: number }[] = [
    ...(rateLimit ? [{ field: 'tokens.rateLimit', token: rateLimit, capacity, capacityField: 'rateLimit.capacity', refill }] : []),
    ...(rateLimitPool ?? []).map((token, index) => ({ field: `tokens.rateLimitPool[${index}]`, token, capacity, capacityField: 'rateLimit.capacity', refill })),
    ...(rateLimitSlow
      ? [{
        field: 'tokens.rateLimitSlow.token',
        token: rateLimitSlow.token,
        capacity: rateLimitSlow.capacity,
        capacityField: 'tokens.rateLimitSlow.capacity',
        refill: rateLimitSlow.refillPerSecond,
      }]
      : []),
  ];
  const problems = await Promise.all(
    tokens.map(async ({ field, token, capacity: declared, capacityField, refill: rate }): Promise<FeatureProblem[]> => {
      const response = await protectedRequest(profile, base, token);
      if (response.status === 401) {
        return [
          {
            field,
            problem: `the target does not know this token (${answerLine(response)})`,
            fix: `configure the token in the target, or name a token it knows in ${field}`,
          },
        ];
      }
      const limit = response.headers['ratelimit-limit']?.trim();
      if (declared === undefined || limit === undefined || !/^\d+$/.test(limit) || Number(limit) === declared) return [];
      // D-TRAFFIC: the header and the profile disagree; a burst tells which of the two the target enforces.
      const burst = await measuredCapacity(profile, base, token, response, Math.max(declared, Number(limit)));
      // Lateness only lengthens a burst: what refilled while it lasted (at the profile's rate) is allowed above a capacity.
      const slack = burst === undefined ? 0 : Math.ceil(rate * burst.seconds) + 1;
      const enforces = (capacity: number): boolean => burst !== undefined && burst.admitted >= capacity - 1 && burst.admitted <= capacity + slack;
      if (enforces(declared) && !enforces(Number(limit))) return [];
      const measured = burst === undefined ? '' : `; a burst from a full bucket admitted ${burst.admitted} requests in ${burst.seconds.toFixed(2)} s`;
      return [
        {
          field,
          problem: `the target limits this token at RateLimit-Limit ${limit}, the profile says ${capacityField} ${declared}${measured}`,
          fix: `put the token on the plan the profile describes, or set ${capacityField} (and the refill rate) to the target's plan`,
        },
      ];
    }),
  );
  return problems.flat();
}

/** A burst larger than this is not sent to measure a plan: the header and the profile are compared as they are. */
const MAX_MEASURED_BURST = 200;
/** The longest wait for a bucket to be full before it is measured (the target's own RateLimit-Reset). */
const MAX_FILL_WAIT_SECONDS = 30;

/**
 * How many requests `token`'s plan admits from a full bucket (D-TRAFFIC), measured: when `probe` says
 * the bucket is not full, its RateLimit-Reset is waited out and it is probed again; then `largest` + 2
 * requests go at once, and the admitted ones are counted with the probe, with the seconds from the probe
 * sent to the last answer (what may have refilled meanwhile). Undefined when the plan is too
 * large to measure here or the bucket cannot be seen full: an inconclusive measurement blames nobody.
 */
async function measuredCapacity(
  profile: TargetProfile,
  base: string,
  token: string,
  probe: HttpResponse,
  largest: number,
): Promise<{ admitted: number; seconds: number } | undefined> {
  if (largest + 2 > MAX_MEASURED_BURST) return undefined;
  const announced = Number(probe.headers['ratelimit-limit']);
  let first = probe;
  const remaining = Number(first.headers['ratelimit-remaining']);
  if (!(remaining + 1 >= announced)) {
    const reset = Number(first.headers['ratelimit-reset']);
    if (!Number.isFinite(reset) || reset > MAX_FILL_WAIT_SECONDS) return undefined;
    await delay(reset * 1000 + 100);
    first = await protectedRequest(profile, base, token);
  }
  if (first.status === 429) return undefined;
  const burst = await Promise.all(Array.from({ length: largest + 2 }, () => protectedRequest(profile, base, token)));
  const seconds = (Math.max(...burst.map((r) => r.receivedAt)) - first.sentAt) / 1000;
  return { admitted: 1 + burst.filter((r) => r.status !== 429).length, seconds };
}

/** Whether the target admits the protected request with a token nobody configured (anything but 401 or 403). */
async function admitsMadeUpToken(profile: TargetProfile, base: string): Promise<boolean> {
  const madeUp = `hac-made-up-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  const response = await protectedRequest(profile, base, madeUp);
  return response.status < 400;
}

function protectedRequest(profile: TargetProfile, base: string, token: string): Promise<HttpResponse> {
  const sent = prepared(sendingOf(profile), profile.protected.path, {}, token);
  return send(base, profile.protected.method, sent.path, {
    headers: sent.headers,
    ...(profile.protected.body !== undefined ? { json: fillTemplate(profile.protected.body) } : {}),
    timeoutMs: 10_000,
  });
}

/**
 * Verifies every declared feature the suite relies on against the first base URL; an empty list
 * means all hold. The slow window is checked only when the fault header itself works (one cause,
 * one message).
 */
export async function verifyFeatures(profile: TargetProfile): Promise<FeatureProblem[]> {
  const base = profile.baseUrls[0];
  if (base === undefined) return [];
  const guarded = (check: (p: TargetProfile, b: string) => Promise<FeatureProblem[]>, field: string) =>
    check(profile, base).catch((error: unknown): FeatureProblem[] => {
      const message = (error as Error).message.split('\n')[0] ?? '';
      if (error instanceof TransportError) {
        return [{ field, problem: message, fix: 'make the target answer this request whole and in time, then run again', transport: true }];
      }
      return [{ field, problem: `could not be verified: ${message}`, fix: 'make sure the target answers, then run again' }];
    });
  const [fault, tokens] = await Promise.all([guarded(checkFaultInjection, 'features.faultInjection'), guarded(checkRateLimitTokens, 'tokens')]);
  const slow = fault.length === 0 ? await guarded(checkSlowValue, 'features.faultInjection.slowValue') : [];
  // Last: its POSTs spend the valid caller's tokens (all callers', on a limiter with one global bucket), which the slow value's POST needs.
  const bodies = await guarded(checkProfileBodies, 'collections');
  return [...bodies, ...fault, ...slow, ...tokens];
}

/**
 * The message the CLI prints once: the requests the target did not answer usably first (its fault,
 * one line per distinct failure), then one block per feature it does not provide.
 */
export function formatFeatureProblems(problems: readonly FeatureProblem[]): string {
  const transport = [...new Set(problems.filter((p) => p.transport).map((p) => p.problem))];
  const declared = problems.filter((p) => !p.transport);
  return [
    ...(transport.length > 0
      ? ['the target gave no usable answer to the feature check (a fault of the server, not of the profile):', ...transport.map((line) => `  ${line}`)]
      : []),
    ...(declared.length > 0
      ? ['the profile declares what the target does not provide:', ...declared.map((p) => `  ${p.field}: ${p.problem}\n    fix: ${p.fix}`)]
      : []),
  ].join('\n');
}

