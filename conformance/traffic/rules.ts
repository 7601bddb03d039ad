/**
 * The response rules (D-TRAFFIC): every rule of the catalogue that holds for one response, whatever
 * request provoked it, written as a function of one exchange. They run on every exchange of a run
 * (conformance/traffic/recorder.ts), not only on the few a check's own script sends.
 *
 * A rule only reads what the server sent: a header it did not send is a violation of the rule that asks
 * for it, never a default (D-TRAFFIC). Each rule judges only the exchanges it applies to and leaves a
 * defect another rule reports alone, so one wrong answer is one violation (D-FINDINGS): a 4xx served as
 * text/plain breaks PROBLEM-CONTENT-TYPE and not also PROBLEM-MEMBERS; a 429 with the draft's `RateLimit`
 * field breaks RATE-LIMIT-HEADER-LIMIT and not the two other header rules.
 */
import { METHODS } from 'node:http';
import { getValidator } from '../../spec/schemas.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { otherRateLimitFields, rateHeaders } from '../support/rate-limit.ts';
import { BEARER_CHALLENGE, INVALID_TOKEN_ERROR } from '../support/challenge.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Credentials } from '../target/profile.ts';

/** What a rule reads of an exchange: the request as sent and the whole response. */
export type ObservedExchange = Pick<HttpResponse, 'status' | 'headers' | 'text' | 'json' | 'request'>;

/** A rule's judgement of one exchange: it does not apply, it holds, or the violation in one sentence. */
export type Judgement = 'not-applicable' | 'holds' | { violation: string };

/** The API's declared shapes a rule may read (from the profile). */
export interface RuleContext {
  /** Bodies the profile declares invalid, with the fields a 422 must name (collections[].invalid). */
  invalidBodies: readonly { body: unknown; fields: readonly string[] }[];
  /** How the API takes tokens (profile `credentials`, D-SHAPES); absent: the document's Bearer. */
  credentials?: Credentials;
}

export interface ResponseRule {
  /** Stable name, as results.json lists it (`traffic.rules[].rule`). */
  name: string;
  requirement: RequirementId;
  /** What the rule asks, in a few words: the title of its findings. */
  says: string;
  judge(exchange: ObservedExchange, context: RuleContext): Judgement;
}

const holds = 'holds';
const notApplicable = 'not-applicable';
const violation = (text: string): Judgement => ({ violation: text });
const verdict = (ok: boolean, text: () => string): Judgement => (ok ? holds : violation(text()));

/** The media type without parameters, lower-cased; '' when there is none. */
function mediaTypeOf(exchange: ObservedExchange): string {
  return (exchange.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

const KNOWN_METHODS = new Set(METHODS);

/**
 * An answer of the HTTP parser, not of the API: Node (and most servers' parsers) answer a method token
 * they do not know with a bare 400 and close, before any application code runs. D-SUITE-TRUST accepts
 * that answer for an unknown method (METHOD-NOT-ALLOWED-405); no response rule judges it.
 */
export function parserAnswer(exchange: ObservedExchange): boolean {
  return exchange.status === 400 && !KNOWN_METHODS.has(exchange.request.method.toUpperCase()) && exchange.text === '';
}

function isError(exchange: ObservedExchange): boolean {
  return exchange.status >= 400 && exchange.status <= 599;
}

/** A HEAD answer carries no body: the rules about bodies do not judge it. */
function hasBodyToJudge(exchange: ObservedExchange): boolean {
  return exchange.request.method.toUpperCase() !== 'HEAD';
}

function jsonObject(exchange: ObservedExchange): Record<string, unknown> | undefined {
  const body = exchange.json;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

function shown(value: string | undefined): string {
  return value === undefined ? 'none' : JSON.stringify(value);
}

/** PROBLEM-CONTENT-TYPE: an error is served as application/problem+json. */
const problemContentType: ResponseRule = {
  name: 'error-is-problem-json',
  requirement: 'PROBLEM-CONTENT-TYPE',
  says: 'every 4xx and 5xx is served as application/problem+json',
  judge(exchange) {
    if (!isError(exchange) || !hasBodyToJudge(exchange)) return notApplicable;
    const type = mediaTypeOf(exchange);
    if (type === 'application/problem+json') return holds;
    if (exchange.text === '') return violation(`a ${exchange.status} without a body (Content-Type ${shown(exchange.headers['content-type'])})`);
    return violation(`a ${exchange.status} served as ${type === '' ? 'no media type' : type}`);
  },
};

/**
 * PROBLEM-MEMBERS: the body of an error is a problem document (problem.schema.json). Judged where the
 * body is JSON or claims to be a problem document; a body of another media type is PROBLEM-CONTENT-TYPE's.
 */
const problemMembers: ResponseRule = {
  name: 'error-has-problem-members',
  requirement: 'PROBLEM-MEMBERS',
  says: 'every problem document has type, title, status, detail and instance with their types',
  judge(exchange) {
    if (!isError(exchange) || !hasBodyToJudge(exchange)) return notApplicable;
    if (exchange.json === undefined && mediaTypeOf(exchange) !== 'application/problem+json') return notApplicable;
    if (jsonObject(exchange) === undefined) return violation(`the problem document is not a JSON object: ${exchange.text.slice(0, 80) || '(empty body)'}`);
    const validate = getValidator('problem');
    if (validate(exchange.json)) return holds;
    // The value of a string `instance` is PROBLEM-INSTANCE's (a route template is not a URI reference either).
    const errors = (validate.errors ?? []).filter((e) => !(e.instancePath === '/instance' && e.keyword === 'format'));
    if (errors.length === 0) return holds;
    return violation(errors.map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}`).join('; '));
  },
};

/** PROBLEM-STATUS-MATCHES: the problem's `status` is the answer's (a missing or mistyped one is PROBLEM-MEMBERS'). */
const problemStatus: ResponseRule = {
  name: 'problem-status-is-http-status',
  requirement: 'PROBLEM-STATUS-MATCHES',
  says: 'the problem status equals the HTTP status',
  judge(exchange) {
    const status = isError(exchange) ? jsonObject(exchange)?.status : undefined;
    if (typeof status !== 'number') return notApplicable;
    return verdict(status === exchange.status, () => `the problem says status ${status}, the answer is ${exchange.status}`);
  },
};

/** The path of a URL, and the same path percent-decoded when it decodes. */
function pathForms(path: string): string[] {
  try {
    return [path, decodeURIComponent(path)];
  } catch {
    return [path];
  }
}

/** PROBLEM-INSTANCE: the problem's `instance` is the request path, without the query string. */
const problemInstance: ResponseRule = {
  name: 'problem-instance-is-request-path',
  requirement: 'PROBLEM-INSTANCE',
  says: 'the problem instance is the request path, without the query string',
  judge(exchange) {
    const instance = isError(exchange) ? jsonObject(exchange)?.instance : undefined;
    if (typeof instance !== 'string') return notApplicable;
    const path = new URL(exchange.request.url).pathname;
    const forms = pathForms(path);
    const same = pathForms(instance).some((form) => forms.includes(form));
    return verdict(same, () => `instance ${JSON.stringify(instance)} is not the request path ${path}`);
  },
};

/** A value of Authorization that is a well-formed bearer credential (RFC 6750 §2.1, any run of spaces). */
const BEARER_CREDENTIAL = /^bearer +[A-Za-z0-9\-._~+/]+=*\s*$/i;

/**
 * AUTH-WWW-AUTHENTICATE: every 401 carries a Bearer challenge, with `error="invalid_token"` when the
 * request carried a well-formed bearer token (RFC 6750 §3.1).
 */
const bearerChallenge: ResponseRule = {
  name: '401-has-bearer-challenge',
  requirement: 'AUTH-WWW-AUTHENTICATE',
  says: 'every 401 carries a Bearer challenge, with error="invalid_token" when a token was sent',
  judge(exchange, context) {
    // An API that takes another scheme fails AUTH-BEARER-HEADER once; its 401s are not held to a Bearer challenge (D-FINDINGS).
    if (exchange.status !== 401 || (context.credentials?.scheme ?? 'bearer') !== 'bearer') return notApplicable;
    const challenge = exchange.headers['www-authenticate'];
    if (challenge === undefined || !BEARER_CHALLENGE.test(challenge)) return violation(`a 401 with WWW-Authenticate ${shown(challenge)}`);
    const sentToken = BEARER_CREDENTIAL.test(exchange.request.headers.authorization ?? '');
    return verdict(
      !sentToken || INVALID_TOKEN_ERROR.test(challenge),
      () => `a 401 for a bearer token with WWW-Authenticate ${shown(challenge)}, without error="invalid_token"`,
    );
  },
};

/** METHOD-ALLOW-HEADER: every 405 carries `Allow`, and it does not name the method it refused. */
const allowHeader: ResponseRule = {
  name: '405-allow-omits-refused-method',
  requirement: 'METHOD-ALLOW-HEADER',
  says: 'every 405 carries Allow, which does not name the refused method',
  judge(exchange) {
    if (exchange.status !== 405) return notApplicable;
    const allow = exchange.headers.allow;
    if (allow === undefined) return violation('a 405 without Allow');
    const method = exchange.request.method.toUpperCase();
    const listed = allow.split(',').map((m) => m.trim().toUpperCase());
    return verdict(!listed.includes(method), () => `a 405 for ${method} whose Allow (${allow}) names ${method}`);
  },
};

/** A rate-limit header as `rateHeaders` reads it (NaN: sent, but not a non-negative integer) that is a non-negative integer. */
function integral(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value);
}

/** RateLimit-Reset over this many seconds is a timestamp, not delta-seconds (a year is 3.2e7 s; now is 1.8e9 s since the epoch). */
const RESET_TIMESTAMP_FLOOR = 100_000_000;

/** A 429 that carries the document's RateLimit-Limit (one with the draft fields instead is RATE-LIMIT-HEADER-LIMIT's). */
function documented429(exchange: ObservedExchange): boolean {
  return exchange.status === 429 && exchange.headers['ratelimit-limit'] !== undefined;
}

/** RATE-LIMIT-HEADER-LIMIT: every 429 carries RateLimit-Limit, a non-negative integer (the draft fields name the fix). */
const limitHeader: ResponseRule = {
  name: '429-has-ratelimit-limit',
  requirement: 'RATE-LIMIT-HEADER-LIMIT',
  says: 'every 429 carries RateLimit-Limit, a non-negative integer',
  judge(exchange) {
    if (exchange.status !== 429) return notApplicable;
    const other = otherRateLimitFields(exchange);
    if (other !== undefined) return violation(other);
    const limit = exchange.headers['ratelimit-limit'];
    if (limit === undefined) return violation('a 429 without RateLimit-Limit');
    return verdict(integral(rateHeaders(exchange).limit), () => `RateLimit-Limit ${shown(limit)} is not a non-negative integer`);
  },
};

/** RATE-LIMIT-HEADER-REMAINING: every 429 carries RateLimit-Remaining, an integer from 0 to the limit. */
const remainingHeader: ResponseRule = {
  name: '429-has-ratelimit-remaining',
  requirement: 'RATE-LIMIT-HEADER-REMAINING',
  says: 'every 429 carries RateLimit-Remaining, an integer no greater than RateLimit-Limit',
  judge(exchange) {
    if (!documented429(exchange)) return notApplicable;
    const value = exchange.headers['ratelimit-remaining'];
    if (value === undefined) return violation('a 429 without RateLimit-Remaining');
    const { remaining, limit } = rateHeaders(exchange);
    if (!integral(remaining)) return violation(`RateLimit-Remaining ${shown(value)} is not a non-negative integer`);
    return verdict(!integral(limit) || remaining <= limit, () => `RateLimit-Remaining ${remaining} is over RateLimit-Limit ${limit}`);
  },
};

/** RATE-LIMIT-HEADER-RESET: every 429 carries RateLimit-Reset in delta-seconds (not a timestamp). */
const resetHeader: ResponseRule = {
  name: '429-has-ratelimit-reset',
  requirement: 'RATE-LIMIT-HEADER-RESET',
  says: 'every 429 carries RateLimit-Reset in delta-seconds',
  judge(exchange) {
    if (!documented429(exchange)) return notApplicable;
    const value = exchange.headers['ratelimit-reset'];
    if (value === undefined) return violation('a 429 without RateLimit-Reset');
    const { reset } = rateHeaders(exchange);
    if (!integral(reset)) return violation(`RateLimit-Reset ${shown(value)} is not a non-negative integer`);
    return verdict(reset < RESET_TIMESTAMP_FLOOR, () => `RateLimit-Reset ${reset} is a timestamp, not the seconds until the limit is restored`);
  },
};

/** RATE-LIMIT-RETRY-AFTER: every 429 carries Retry-After in delta-seconds, at least 1. Never filled in (D-TRAFFIC). */
const retryAfter: ResponseRule = {
  name: '429-has-retry-after',
  requirement: 'RATE-LIMIT-RETRY-AFTER',
  says: 'every 429 carries Retry-After in delta-seconds, at least 1',
  judge(exchange) {
    if (exchange.status !== 429) return notApplicable;
    const value = exchange.headers['retry-after'];
    if (value === undefined) return violation('a 429 without Retry-After');
    const seconds = rateHeaders(exchange).retryAfter;
    if (!integral(seconds)) {
      const date = Number.isNaN(Date.parse(value)) ? '' : ' (an HTTP-date: the document asks for delta-seconds)';
      return violation(`Retry-After ${shown(value)} is not delta-seconds${date}`);
    }
    return verdict(seconds >= 1, () => `Retry-After ${seconds}: retrying at once is refused again`);
  },
};

/** JSON-REPRESENTATIONS: a body is JSON (errors are PROBLEM-CONTENT-TYPE's, which asks for more). */
const jsonMediaType: ResponseRule = {
  name: 'body-is-json',
  requirement: 'JSON-REPRESENTATIONS',
  says: 'every response with a body has a JSON media type',
  judge(exchange) {
    if (isError(exchange) || exchange.text === '' || !hasBodyToJudge(exchange)) return notApplicable;
    const type = mediaTypeOf(exchange);
    return verdict(type === 'application/json' || /^application\/[^/]+\+json$/.test(type), () => `a ${exchange.status} with a body served as ${type === '' ? 'no media type' : type}`);
  },
};

/** CACHE-CONTROL-DECLARED: every response declares its cacheability (D-CACHE). */
const cacheControl: ResponseRule = {
  name: 'cache-control-declared',
  requirement: 'CACHE-CONTROL-DECLARED',
  says: 'every response carries Cache-Control',
  judge(exchange) {
    return verdict(/\S/.test(exchange.headers['cache-control'] ?? ''), () => `a ${exchange.status} without Cache-Control`);
  },
};

/** CACHE-PRIVATE-NOT-PUBLIC: a response to a request that carried Authorization is never `public`. */
const notPublicWithAuthorization: ResponseRule = {
  name: 'authorized-not-public',
  requirement: 'CACHE-PRIVATE-NOT-PUBLIC',
  says: 'a response to a request with Authorization is never public',
  judge(exchange) {
    if (exchange.request.headers.authorization === undefined) return notApplicable;
    const value = exchange.headers['cache-control'] ?? '';
    return verdict(!/(^|,)\s*public\s*(,|$)/i.test(value), () => `Cache-Control: ${value} on an answer to a request with Authorization`);
  },
};

/** URL-ITEM-BY-ID: a created item's Location resolves on the API's own origin (a client follows it with its token). */
const locationSameOrigin: ResponseRule = {
  name: 'location-same-origin',
  requirement: 'URL-ITEM-BY-ID',
  says: "a 201's Location resolves on the API's own origin",
  judge(exchange) {
    const location = exchange.headers.location;
    if (exchange.status !== 201 || location === undefined) return notApplicable;
    const origin = new URL(exchange.request.url).origin;
    let resolved: string | undefined;
    try {
      resolved = new URL(location, exchange.request.url).origin;
    } catch {
      resolved = undefined;
    }
    const where = resolved === undefined ? 'is not a URI reference' : `resolves on ${resolved}, not ${origin}`;
    return verdict(resolved === origin, () => `Location ${JSON.stringify(location)} ${where}`);
  },
};

/** Deep equality of two JSON values (the profile's invalid bodies against a sent body). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * VALIDATION-ALL-FIELDS: a 422 to a body the profile declares invalid names every field the profile
 * lists, whatever write sent it (a POST or a PUT, any collection's path).
 */
const validationAllFields: ResponseRule = {
  name: '422-names-every-invalid-field',
  requirement: 'VALIDATION-ALL-FIELDS',
  says: 'a 422 to a declared invalid body names every invalid field',
  judge(exchange, context) {
    if (exchange.status !== 422 || exchange.request.body === undefined) return notApplicable;
    let sent: unknown;
    try {
      sent = JSON.parse(exchange.request.body.toString());
    } catch {
      return notApplicable;
    }
    const declared = context.invalidBodies.find((d) => sameJson(d.body, sent));
    if (declared === undefined) return notApplicable;
    const errors = jsonObject(exchange)?.errors;
    const named = new Set(Array.isArray(errors) ? errors.map((e) => (e as { field?: unknown } | null)?.field) : []);
    const missing = declared.fields.filter((field) => !named.has(field));
    return verdict(missing.length === 0, () => `the 422 does not name ${missing.join(', ')} (of ${declared.fields.join(', ')})`);
  },
};

/** Every response rule, in catalogue order of their requirements. */
export const RESPONSE_RULES: readonly ResponseRule[] = [
  jsonMediaType,
  cacheControl,
  notPublicWithAuthorization,
  locationSameOrigin,
  bearerChallenge,
  allowHeader,
  problemContentType,
  problemMembers,
  problemStatus,
  problemInstance,
  validationAllFields,
  limitHeader,
  remainingHeader,
  resetHeader,
  retryAfter,
];

/**
 * Judges one exchange by every rule: the rules that applied, and the violations among them. A rule that
 * throws is a bug of the suite, never the server's fault: it is left out and named in `failures`.
 */
export function judgeExchange(
  exchange: ObservedExchange,
  context: RuleContext,
  failures: string[] = [],
): { rule: ResponseRule; judgement: Exclude<Judgement, 'not-applicable'> }[] {
  if (parserAnswer(exchange)) return [];
  return RESPONSE_RULES.flatMap((rule) => {
    let judgement: Judgement;
    try {
      judgement = rule.judge(exchange, context);
    } catch (error) {
      failures.push(`${rule.name} could not judge ${exchange.request.method} ${exchange.request.url}: ${(error as Error).message}`);
      return [];
    }
    return judgement === 'not-applicable' ? [] : [{ rule, judgement }];
  });
}
