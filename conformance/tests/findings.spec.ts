/**
 * D-FINDINGS without a run: findings grouped by the causes the suite recorded, headlines built from
 * the exchange, and the HTTP client refusing a request built from a missing value.
 */
import { test, expect } from '@playwright/test';
import { groupFindings } from '../report/findings.ts';
import { headlineOf } from '../report/headline.ts';
import { send, unsendable } from '../transport/http.ts';
import type { Exchange } from '../transport/exchange.ts';
import type { RequirementResult, TestRecord } from '../../spec/results.ts';

function failing(id: string, level: RequirementResult['level'], consequenceOf?: string): RequirementResult {
  const record: TestRecord = { title: `${id} check`, status: 'failed', durationMs: 1, headline: `headline of ${id}` };
  if (consequenceOf) record.consequenceOf = consequenceOf;
  return { id, level, outcome: level === 'MUST' ? 'failed' : 'warning', tests: [record] };
}

test('a failure that only repeats another broken requirement is listed under its finding and counted once', () => {
  const requirements = [
    failing('PROBLEM-CONTENT-TYPE', 'MUST', 'STATUS-415-MEDIA-TYPE'),
    failing('STATUS-415-MEDIA-TYPE', 'MUST'),
    failing('PROBLEM-STATUS-MATCHES', 'MUST', 'STATUS-415-MEDIA-TYPE'),
    failing('AUTH-WWW-AUTHENTICATE', 'MUST'),
  ];
  const findings = groupFindings(requirements);
  expect(findings.map((f) => [f.cause, f.breaks])).toEqual([
    ['STATUS-415-MEDIA-TYPE', ['STATUS-415-MEDIA-TYPE', 'PROBLEM-CONTENT-TYPE', 'PROBLEM-STATUS-MATCHES']],
    ['AUTH-WWW-AUTHENTICATE', ['AUTH-WWW-AUTHENTICATE']],
  ]);
  expect(findings[0]?.headline).toBe('headline of STATUS-415-MEDIA-TYPE');
  expect(requirements[0]?.consequenceOf).toBe('STATUS-415-MEDIA-TYPE');
  expect(requirements[1]?.consequenceOf).toBeUndefined();
});

test('a consequence of a requirement that did not fail is a finding of its own; a SHOULD cause breaking a MUST is a MUST finding', () => {
  const alone = [failing('METHOD-DELETE-IDEMPOTENT', 'MUST', 'STATUS-201-CREATED-LOCATION')];
  expect(groupFindings(alone).map((f) => f.cause)).toEqual(['METHOD-DELETE-IDEMPOTENT']);
  expect(alone[0]?.consequenceOf).toBeUndefined();
  const both = [failing('METHOD-DELETE-IDEMPOTENT', 'MUST', 'STATUS-201-CREATED-LOCATION'), failing('STATUS-201-CREATED-LOCATION', 'SHOULD')];
  const [finding] = groupFindings(both);
  expect(finding).toMatchObject({ cause: 'STATUS-201-CREATED-LOCATION', level: 'MUST', outcome: 'failed' });
  expect(finding?.breaks).toEqual(['STATUS-201-CREATED-LOCATION', 'METHOD-DELETE-IDEMPOTENT']);
});

test('a requirement whose failing checks are consequences of two broken requirements is listed under both findings, not as its own', () => {
  const property = failing('METHOD-NOT-ALLOWED-405', 'MUST', 'METHOD-ALLOW-HEADER');
  const media = failing('METHOD-NOT-ALLOWED-405', 'MUST', 'STATUS-415-MEDIA-TYPE').tests;
  property.tests.push(...media);
  const requirements = [failing('STATUS-415-MEDIA-TYPE', 'MUST'), property, failing('METHOD-ALLOW-HEADER', 'MUST')];
  expect(groupFindings(requirements).map((f) => [f.cause, f.breaks])).toEqual([
    ['STATUS-415-MEDIA-TYPE', ['STATUS-415-MEDIA-TYPE', 'METHOD-NOT-ALLOWED-405']],
    ['METHOD-ALLOW-HEADER', ['METHOD-ALLOW-HEADER', 'METHOD-NOT-ALLOWED-405']],
  ]);
  // One of its checks its own: a finding of its own.
  const own = failing('METHOD-NOT-ALLOWED-405', 'MUST', 'METHOD-ALLOW-HEADER');
  own.tests.push(...failing('METHOD-NOT-ALLOWED-405', 'MUST').tests);
  expect(groupFindings([own, failing('METHOD-ALLOW-HEADER', 'MUST')]).map((f) => f.cause)).toEqual(['METHOD-NOT-ALLOWED-405', 'METHOD-ALLOW-HEADER']);
});

/** A failed record about an error answer with `status`, served as `contentType`. */
function about(id: string, status: number, contentType: string, consequenceOf?: string): RequirementResult {
  const exchange: Exchange = {
    curl: 'curl …',
    request: { method: 'GET', url: 'http://127.0.0.1:1/me' },
    response: { status, headers: { 'content-type': contentType }, body: 'Unauthorized', bodyBytes: 12 },
  };
  const record: TestRecord = { title: `${id} check`, status: 'failed', durationMs: 1, headline: `${id} on a ${status}`, exchange };
  if (consequenceOf) record.consequenceOf = consequenceOf;
  return { id, level: 'MUST', outcome: 'failed', tests: [record] };
}

test('error answers that are no problem document are one finding per status that produced them, with the envelope rules they break', () => {
  const requirements = [
    about('PROBLEM-CONTENT-TYPE', 401, 'text/plain'),
    about('PROBLEM-MEMBERS', 401, 'text/plain'),
    about('JSON-REPRESENTATIONS', 401, 'text/plain'),
    about('AUTH-401-MISSING', 401, 'text/plain', 'PROBLEM-CONTENT-TYPE'),
    // The same rule broken by another producer (a limiter's text 429) is another defect.
    { ...about('PROBLEM-CONTENT-TYPE', 429, 'text/plain'), id: 'PROBLEM-CONTENT-TYPE' },
    about('RATE-LIMIT-PROBLEM-BODY', 429, 'text/plain', 'PROBLEM-CONTENT-TYPE'),
    // An envelope rule broken on a problem document is a defect of its own.
    about('PROBLEM-INSTANCE', 404, 'application/problem+json'),
    // Not an envelope rule: a missing challenge on the same text 401 is its own defect.
    about('AUTH-WWW-AUTHENTICATE', 401, 'text/plain'),
  ];
  // One requirement result per ID, as a run has: the two PROBLEM-CONTENT-TYPE records are one requirement's.
  const media = requirements.filter((r) => r.id === 'PROBLEM-CONTENT-TYPE');
  const merged: RequirementResult = { ...(media[0] as RequirementResult), tests: media.flatMap((r) => r.tests) };
  const run = [merged, ...requirements.filter((r) => r.id !== 'PROBLEM-CONTENT-TYPE')];
  const findings = groupFindings(run);
  expect(findings.map((f) => [f.cause, f.status, f.breaks])).toEqual([
    ['PROBLEM-CONTENT-TYPE', 401, ['PROBLEM-CONTENT-TYPE', 'PROBLEM-MEMBERS', 'JSON-REPRESENTATIONS', 'AUTH-401-MISSING']],
    ['PROBLEM-CONTENT-TYPE', 429, ['PROBLEM-CONTENT-TYPE', 'RATE-LIMIT-PROBLEM-BODY']],
    ['PROBLEM-INSTANCE', undefined, ['PROBLEM-INSTANCE']],
    ['AUTH-WWW-AUTHENTICATE', undefined, ['AUTH-WWW-AUTHENTICATE']],
  ]);
  expect(findings[1]?.headline).toBe('PROBLEM-CONTENT-TYPE on a 429');
});

test('an Allow check failing on an answer that is no 405 is the 405 rule\'s finding; on a 405 it is its own', () => {
  const run = [about('METHOD-NOT-ALLOWED-405', 404, 'application/json'), about('METHOD-ALLOW-HEADER', 404, 'application/json')];
  expect(groupFindings(run).map((f) => [f.cause, f.breaks])).toEqual([['METHOD-NOT-ALLOWED-405', ['METHOD-NOT-ALLOWED-405', 'METHOD-ALLOW-HEADER']]]);
  const on405 = [about('METHOD-NOT-ALLOWED-405', 404, 'application/json'), about('METHOD-ALLOW-HEADER', 405, 'application/problem+json')];
  expect(groupFindings(on405).map((f) => f.cause)).toEqual(['METHOD-NOT-ALLOWED-405', 'METHOD-ALLOW-HEADER']);
});

test('the headline says what was sent, what came back and what the rule expects', () => {
  const exchange: Exchange = {
    curl: 'curl …',
    request: { method: 'POST', url: 'http://127.0.0.1:1/widgets?x=1', bodyBytes: 2, headers: { 'content-type': 'text/plain', authorization: 'Bearer ***' } },
    response: { status: 200, headers: {}, body: '{}', bodyBytes: 2 },
  };
  const summaryOf = (id: string): string | undefined => (id === 'PROBLEM-CONTENT-TYPE' ? 'Every error is served as application/problem+json.' : undefined);
  expect(headlineOf({ ids: ['STATUS-415-MEDIA-TYPE'], title: 't', exchange, verdict: { expected: 'a 4xx' }, summaryOf })).toBe(
    'POST /widgets?x=1 with Content-Type: text/plain → 200; expected a 4xx (STATUS-415-MEDIA-TYPE)',
  );
  const consequence = { expected: 'a 4xx', consequenceOf: 'STATUS-415-MEDIA-TYPE' };
  expect(headlineOf({ ids: ['PROBLEM-CONTENT-TYPE'], title: 't', exchange, verdict: consequence, summaryOf })).toBe(
    'POST /widgets?x=1 with Content-Type: text/plain → 200; expected a 4xx (STATUS-415-MEDIA-TYPE); PROBLEM-CONTENT-TYPE fails as a consequence',
  );
  expect(headlineOf({ ids: ['PROBLEM-CONTENT-TYPE'], title: 't', exchange, summaryOf })).toBe(
    'POST /widgets?x=1 with Content-Type: text/plain → 200; expected: every error is served as application/problem+json (PROBLEM-CONTENT-TYPE)',
  );
  // The header form that was sent, when it is not `Bearer <token>` exactly (the token stays masked).
  const spaced: Exchange = { ...exchange, request: { method: 'GET', url: 'http://127.0.0.1:1/me', headers: { authorization: 'Bearer  ***' } } };
  expect(headlineOf({ ids: ['AUTH-BEARER-HEADER'], title: 't', exchange: spaced, verdict: { expected: '401' }, summaryOf })).toBe(
    'GET /me with Authorization "Bearer  ***" → 200; expected 401 (AUTH-BEARER-HEADER)',
  );
  // The rule's text whole: not cut at a colon inside a quoted header, nor after its first sentence.
  const whole = (): string => 'Identity is carried only by `Authorization: Bearer <token>`. No query parameter or cookie carries it.';
  expect(headlineOf({ ids: ['AUTH-BEARER-HEADER'], title: 't', exchange, summaryOf: whole })).toBe(
    'POST /widgets?x=1 with Content-Type: text/plain → 200; expected: identity is carried only by `Authorization: Bearer <token>`. ' +
      'No query parameter or cookie carries it (AUTH-BEARER-HEADER)',
  );
});

test('a request built from a missing value is refused and never sent', async () => {
  expect(unsendable('GET', '/widgets/undefined')).toMatch(/missing value/);
  expect(unsendable('GET', '/widgets?id=null')).toMatch(/missing value/);
  expect(unsendable('DELETE', '')).toMatch(/API root/);
  expect(unsendable('PUT', '/?a=1')).toMatch(/API root/);
  expect(unsendable('GET', '/')).toBeUndefined();
  expect(unsendable('GET', '/widgets/undefined-things')).toBeUndefined();
  // Port 9 (discard) on loopback: a request that were sent would fail with a connection error instead.
  await expect(send('http://127.0.0.1:9', 'DELETE', '')).rejects.toThrow(/refused to send DELETE : a DELETE of the API root/);
});
