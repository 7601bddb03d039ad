/**
 * The response rules (D-TRAFFIC, conformance/traffic/): each rule holds on the answer the document asks
 * for and names the violation on one that breaks it, never fills in a header the server did not send,
 * and leaves to another rule what that one reports; violations group per rule and producer; the
 * Remaining watch allows what the plan refilled and nothing more.
 */
import { test, expect } from '@playwright/test';
import { judgeExchange, RESPONSE_RULES } from '../traffic/rules.ts';
import type { ObservedExchange } from '../traffic/rules.ts';
import { producerOf, routeTemplates } from '../traffic/producer.ts';
import { plansOf, RemainingWatch } from '../traffic/remaining.ts';
import { trafficVerdicts } from '../report/traffic.ts';
import { exchangeOf } from '../transport/exchange.ts';
import type { TrafficLog } from '../traffic/recorder.ts';
import type { HttpResponse } from '../transport/message.ts';
import { referenceProfile } from '../target/embedded.ts';

const PROBLEM = 'application/problem+json';

/** An exchange: `METHOD path → status` with the given response headers and JSON body (a problem by default for an error). */
function exchange(
  method: string,
  path: string,
  status: number,
  options: { headers?: Record<string, string>; body?: unknown; text?: string; request?: Record<string, string>; sent?: string } = {},
): HttpResponse {
  const problem = status >= 400 ? { type: 'about:blank', title: 'Error', status, detail: 'd', instance: path.split('?')[0] } : undefined;
  const body = 'body' in options ? options.body : problem;
  const text = options.text ?? (body === undefined ? '' : JSON.stringify(body));
  const contentType = status >= 400 ? PROBLEM : 'application/json';
  return {
    status,
    headers: { 'cache-control': 'no-store', ...(text === '' ? {} : { 'content-type': contentType }), ...(options.headers ?? {}) },
    text,
    json: text === '' ? undefined : (() => { try { return JSON.parse(text) as unknown; } catch { return undefined; } })(),
    request: {
      method,
      url: `http://127.0.0.1:3000${path}`,
      headers: { authorization: 'Bearer dev-token-alice', ...(options.request ?? {}) },
      ...(options.sent !== undefined ? { body: options.sent } : {}),
    },
    sentAt: 0,
    flushedAt: 0,
    receivedAt: 1,
    durationMs: 1,
  };
}

const context = { invalidBodies: [{ body: { name: '', email: 'x' }, fields: ['name', 'email'] }] };

/** The violations of `e`, as `rule: text`. */
function violations(e: ObservedExchange): string[] {
  return judgeExchange(e, context).flatMap(({ rule, judgement }) => (judgement === 'holds' ? [] : [`${rule.name}: ${judgement.violation}`]));
}

const RATE = { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '5', 'retry-after': '1' };

test('well-formed answers break no rule', () => {
  expect(violations(exchange('GET', '/users', 200, { body: { items: [] } }))).toEqual([]);
  expect(violations(exchange('DELETE', '/users/1', 204))).toEqual([]);
  expect(violations(exchange('GET', '/users/9?x=1', 404))).toEqual([]);
  // error=invalid_token as a token is the same auth-param as its quoted form (RFC 9110 §11.2; werkzeug sends it so).
  const unquoted = { 'www-authenticate': 'Bearer realm="api", error=invalid_token' };
  expect(violations(exchange('GET', '/account', 401, { headers: unquoted, request: { authorization: 'Bearer nope' } }))).toEqual([]);
  const basic = exchange('GET', '/account', 401, { headers: { 'www-authenticate': 'Bearer realm="api"' }, request: { authorization: 'Basic x' } });
  expect(violations(basic)).toEqual([]);
  expect(violations(exchange('PATCH', '/users', 405, { headers: { allow: 'GET, HEAD, POST, OPTIONS' } }))).toEqual([]);
  expect(violations(exchange('GET', '/account', 429, { headers: RATE }))).toEqual([]);
  expect(violations(exchange('POST', '/users', 201, { body: { id: 1 }, headers: { location: '/users/1' } }))).toEqual([]);
});

test('each rule names its own violation, one per defect', () => {
  const bare204 = exchange('DELETE', '/users/1', 204, { headers: { 'cache-control': '' } });
  expect(violations(bare204)).toEqual(['cache-control-declared: a 204 without Cache-Control']);
  // A text/plain 401 breaks the media type only: the members, status and instance rules leave it alone.
  const plainHeaders = { 'content-type': 'text/plain', 'www-authenticate': 'Bearer error="invalid_token"' };
  const plain = exchange('POST', '/users', 401, { text: 'Unauthorized', headers: plainHeaders });
  expect(violations(plain)).toEqual(['error-is-problem-json: a 401 served as text/plain']);
  const json409 = exchange('PUT', '/users/1', 409, { headers: { 'content-type': 'application/json' } });
  expect(violations(json409)).toEqual(['error-is-problem-json: a 409 served as application/json']);
  const unknownToken = { authorization: 'Bearer nope' };
  expect(violations(exchange('GET', '/users/1', 401, { request: unknownToken }))).toEqual(['401-has-bearer-challenge: a 401 with WWW-Authenticate none']);
  expect(violations(exchange('GET', '/users/1', 401, { headers: { 'www-authenticate': 'Bearer realm="api"' }, request: unknownToken }))).toEqual([
    '401-has-bearer-challenge: a 401 for a bearer token with WWW-Authenticate "Bearer realm=\\"api\\"", without error="invalid_token"',
  ]);
  expect(violations(exchange('POST', '/orders/1/cancel', 405, { headers: { allow: 'GET, POST' } }))).toEqual([
    '405-allow-omits-refused-method: a 405 for POST whose Allow (GET, POST) names POST',
  ]);
  const notFound = (instance: string, status = 404): Record<string, unknown> => ({ type: 'about:blank', title: 'Not Found', status, detail: 'd', instance });
  const template = exchange('GET', '/orders/7?sort=x', 404, { body: notFound('/orders/{id}') });
  expect(violations(template)).toEqual(['problem-instance-is-request-path: instance "/orders/{id}" is not the request path /orders/7']);
  const withQuery = exchange('GET', '/orders/7?sort=x', 404, { body: notFound('/orders/7?sort=x') });
  expect(violations(withQuery)).toHaveLength(1);
  const status = exchange('GET', '/x', 404, { body: notFound('/x', 400) });
  expect(violations(status)).toEqual(['problem-status-is-http-status: the problem says status 400, the answer is 404']);
  const textAction = exchange('POST', '/orders/1/cancel', 200, { text: 'ok', headers: { 'content-type': 'text/plain' } });
  expect(violations(textAction)).toEqual(['body-is-json: a 200 with a body served as text/plain']);
  expect(violations(exchange('GET', '/users', 200, { body: [], headers: { 'cache-control': 'public, max-age=5' } }))).toEqual([
    'authorized-not-public: Cache-Control: public, max-age=5 on an answer to a request with Authorization',
  ]);
  expect(violations(exchange('POST', '/users', 201, { body: {}, headers: { location: 'https://elsewhere.example/users/1' } }))).toHaveLength(1);
});

test('a 429 is judged on what it carries, nothing filled in', () => {
  const without = (name: string): Record<string, string> => Object.fromEntries(Object.entries(RATE).filter(([k]) => k !== name));
  expect(violations(exchange('POST', '/payments', 429, { headers: without('retry-after') }))).toEqual(['429-has-retry-after: a 429 without Retry-After']);
  expect(violations(exchange('POST', '/payments', 429, { headers: { ...RATE, 'retry-after': '0' } }))).toEqual([
    '429-has-retry-after: Retry-After 0: retrying at once is refused again',
  ]);
  const date = violations(exchange('POST', '/payments', 429, { headers: { ...RATE, 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' } }));
  expect(date).toEqual([
    '429-has-retry-after: Retry-After "Wed, 21 Oct 2026 07:28:00 GMT" is not delta-seconds (an HTTP-date: the document asks for delta-seconds)',
  ]);
  expect(violations(exchange('GET', '/account', 429, { headers: { ...RATE, 'ratelimit-reset': '1796161113' } }))).toEqual([
    '429-has-ratelimit-reset: RateLimit-Reset 1796161113 is a timestamp, not the seconds until the limit is restored',
  ]);
  expect(violations(exchange('GET', '/account', 429, { headers: { ...RATE, 'ratelimit-remaining': '11' } }))).toEqual([
    '429-has-ratelimit-remaining: RateLimit-Remaining 11 is over RateLimit-Limit 10',
  ]);
  // The draft's structured field is one violation, naming the fix, not three.
  const draft = violations(exchange('GET', '/account', 429, { headers: { ratelimit: 'limit=10, remaining=0, reset=5', 'retry-after': '1' } }));
  expect(draft).toHaveLength(1);
  expect(draft[0]).toMatch(/^429-has-ratelimit-limit: .*draft-ietf-httpapi-ratelimit-headers-07.*standardHeaders: 'draft-6'/);
});

test('a 422 to a declared invalid body names every field, from a PUT as from a POST', () => {
  const sent = JSON.stringify({ name: '', email: 'x' });
  const one = { type: 'about:blank', title: 'Unprocessable', status: 422, detail: 'd', instance: '/users/1',
    errors: [{ field: 'name', message: 'm' }] };
  const named = violations(exchange('PUT', '/users/1', 422, { sent, body: one }));
  expect(named).toEqual(['422-names-every-invalid-field: the 422 does not name email (of name, email)']);
  const both = { ...one, errors: [{ field: 'name', message: 'm' }, { field: 'email', message: 'm' }] };
  expect(violations(exchange('PUT', '/users/1', 422, { sent, body: both }))).toEqual([]);
  // Another body is not judged: the rule knows only what the profile declares.
  expect(violations(exchange('PUT', '/users/1', 422, { sent: '{"name":7}', body: one }))).toEqual([]);
});

test("an answer of the HTTP parser to an unknown method is judged by no rule (D-SUITE-TRUST)", () => {
  expect(judgeExchange(exchange('BREW', '/users', 400, { body: undefined, headers: { 'cache-control': '' } }), context)).toEqual([]);
  expect(violations(exchange('GET', '/users', 400, { body: undefined, headers: { 'cache-control': '' } }))).toHaveLength(2);
});

test('every rule names a catalogue requirement and a unique name', () => {
  expect(new Set(RESPONSE_RULES.map((r) => r.name)).size).toBe(RESPONSE_RULES.length);
  for (const rule of RESPONSE_RULES) expect(rule.requirement).toMatch(/^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/);
});

test('producers group by status, method and the route template the profile declares', () => {
  const templates = routeTemplates(referenceProfile());
  expect(producerOf(401, 'get', 'http://h/users/12', templates)).toBe('401 GET /users/{id}');
  expect(producerOf(404, 'GET', 'http://h/hac-no-such-route-abc', templates)).toBe('404 GET /{…}');
  expect(producerOf(405, 'PUT', 'http://h/orders/3/cancel', templates)).toBe('405 PUT /orders/{…}/cancel');
  expect(producerOf(200, 'GET', 'http://h/account', templates)).toBe('200 GET /account');
});

test('violations merge over the run per rule and producer: a thousand identical ones are one record', () => {
  const e = exchange('GET', '/users/1', 401, { request: { authorization: 'Bearer nope' } });
  const violation = {
    rule: '401-has-bearer-challenge',
    requirement: 'AUTH-WWW-AUTHENTICATE',
    says: 'every 401 carries a Bearer challenge',
    producer: '401 GET /users/{id}',
    count: 500,
    violation: 'a 401 with WWW-Authenticate none',
    exchange: exchangeOf(e.request, e),
  };
  const log = (count: number): TrafficLog => ({ exchanges: 900, judged: { '401-has-bearer-challenge': 600 }, violations: [{ ...violation, count }] });
  const { summary, records } = trafficVerdicts([{ title: 'check a', log: log(500) }, { title: 'check b', log: log(500) }]);
  const list = records.get('AUTH-WWW-AUTHENTICATE') ?? [];
  expect(list).toHaveLength(1);
  expect(list[0]?.status).toBe('failed');
  expect(list[0]?.error).toContain('1000 of the run\'s 1200 exchanges');
  expect(list[0]?.headline).toMatch(/^GET \/users\/1 → 401: a 401 with WWW-Authenticate none; expected: .*\(AUTH-WWW-AUTHENTICATE, 1000 such exchanges\)$/);
  expect(summary.exchanges).toBe(1800);
  const rule = summary.rules.find((r) => r.rule === '401-has-bearer-challenge');
  expect(rule).toEqual(expect.objectContaining({ judged: 1200, violations: 1000, producers: ['401 GET /users/{id}'] }));
});

test("a caller's RateLimit-Remaining may rise by the plan's refill, never more", () => {
  const plans = plansOf({ tokens: { valid: 'v', rateLimit: 'rl' }, rateLimit: { capacity: 10, refillPerSecond: 2 } });
  const at = (remaining: number, sentAt: number, receivedAt: number, reset = 5): HttpResponse => ({
    ...exchange('GET', '/account', 200, {
      headers: { 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(reset) },
      request: { authorization: 'Bearer rl' },
    }),
    sentAt,
    receivedAt,
  });
  const watch = new RemainingWatch(plans);
  expect(watch.judge(at(3, 0, 10), '/account')).toBe('not-applicable');
  // 1 s later at 2/s: at most 3 + 2 + 1.
  expect(watch.judge(at(6, 1000, 1010), '/account')).toBe('holds');
  const risen = watch.judge(at(9, 1020, 1030), '/account');
  expect(risen).toEqual({ violation: expect.stringMatching(/^RateLimit-Remaining rose from 6 to 9/) });
  // Overlapping requests are not ordered, and a caller without a declared plan is not judged.
  expect(new RemainingWatch(plans).judge(at(9, 0, 10), '/account')).toBe('not-applicable');
  const unplanned = { ...at(9, 0, 10), request: { ...at(9, 0, 10).request, headers: { authorization: 'Bearer v' } } };
  expect(new RemainingWatch(plans).judge(unplanned, '/account')).toBe('not-applicable');
});

test('a rule that cannot judge an answer is named as a suite failure, never as the server\'s violation', () => {
  const broken = exchange('GET', '/x', 404);
  const failures: string[] = [];
  const judged = judgeExchange({ ...broken, request: { ...broken.request, url: 'not a URL' } }, context, failures);
  expect(judged.filter((j) => j.judgement !== 'holds')).toEqual([]);
  expect(failures).toEqual([expect.stringMatching(/^problem-instance-is-request-path could not judge GET not a URL: /)]);
});
