/**
 * The error envelope (document section 7 "Error body", D-ERRORS) on every error the suite can
 * provoke from the profile: media type, members and types, status, instance, one envelope.
 */
import { STATUS_CODES } from 'node:http';
import { test, expect, faultInjectionOf, NO_FAULT_INJECTION } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { PROBLEM_TYPE_BASE } from '../../spec/problem-types.ts';
import { getValidator } from '../../spec/schemas.ts';
import { fillTemplate } from '../support/template.ts';
import { contentTypeIssue, envelopeShape, exchangeText, membersIssue, problemIssues, statusIssue } from '../support/problem.ts';
import { acceptedText, provokeAll } from '../support/provocations.ts';
import type { Provocation } from '../support/provocations.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Target } from '../support/target.ts';
import { freshKey, keyed, secondWhileSlow } from '../support/idempotency.ts';
import { skipCheck } from '../support/skip.ts';

/** What `issue` finds wrong with each error provoked from the profile, one line each, named by its provocation. */
async function provokedIssues(target: Target, issue: (response: HttpResponse, provocation: Provocation) => string | undefined): Promise<string[]> {
  return (await provokeAll(target)).flatMap(({ provocation, response }) => {
    const found = issue(response, provocation);
    return found ? [`${provocation.name}: ${found}`] : [];
  });
}

test('every provoked error is served as application/problem+json', req('PROBLEM-CONTENT-TYPE', '@generic', '@smoke'), async ({ target }) => {
  expect(await provokedIssues(target, contentTypeIssue), 'responses not served as problem documents').toEqual([]);
});

test('every provoked error carries the problem members with their types', req('PROBLEM-MEMBERS', '@generic', '@smoke'), async ({ target }) => {
  expect(await provokedIssues(target, membersIssue), 'problem documents with missing or mistyped members').toEqual([]);
});

test('the problem status equals the HTTP status of every provoked error', req('PROBLEM-STATUS-MATCHES', '@generic', '@smoke'), async ({ target }) => {
  const issues = await provokedIssues(target, (response, provocation) =>
    provocation.accepted.includes(response.status) ? statusIssue(response) : `expected HTTP ${acceptedText(provocation)}: ${exchangeText(response)}`);
  expect(issues).toEqual([]);
});

test('the problem type is an absolute URI or about:blank', req('PROBLEM-TYPE-URI', '@generic'), async ({ target }) => {
  const results = await provokeAll(target);
  const issues: string[] = [];
  for (const { provocation, response } of results) {
    const type = (response.json as { type?: unknown } | undefined)?.type;
    if (typeof type !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(type)) {
      issues.push(`${provocation.name}: type ${JSON.stringify(type)} is not an absolute URI: ${exchangeText(response)}`);
    }
  }
  expect(issues).toEqual([]);
  const unknown401 = results.filter((r) => r.response.status === 401).map((r) => (r.response.json as { type?: unknown }).type);
  expect(new Set(unknown401).size, 'two 401s of the same kind name different types').toBeLessThanOrEqual(1);
});

test('the problem instance is the request path', req('PROBLEM-INSTANCE', '@generic'), async ({ target }) => {
  const issues = await provokedIssues(target, (response) => {
    const path = new URL(response.request.url).pathname;
    const instance = (response.json as { instance?: unknown } | undefined)?.instance;
    return instance === path ? undefined : `instance ${JSON.stringify(instance)} is not ${path}: ${exchangeText(response)}`;
  });
  expect(issues).toEqual([]);
});

test('every provoked error uses one and the same envelope', req('PROBLEM-SAME-ENVELOPE', '@generic'), async ({ target }) => {
  const results = await provokeAll(target);
  expect(results.length).toBeGreaterThanOrEqual(4);
  const issues = results.flatMap(({ provocation, response }) => problemIssues(response).map((i) => `${provocation.name}: ${i}`));
  expect(issues, 'errors outside the problem envelope').toEqual([]);
  const shapes = new Map<string, string[]>();
  for (const { provocation, response } of results) {
    const shape = envelopeShape(response.json);
    shapes.set(shape, [...(shapes.get(shape) ?? []), provocation.name]);
  }
  expect([...shapes.entries()].map(([shape, names]) => `${shape} ← ${names.join(', ')}`), 'envelopes differ between errors').toHaveLength(1);
});

test('client errors are 4xx and the corrected request succeeds', req('STATUS-4XX-CLIENT-FAULT', '@generic'), async ({ target }) => {
  const results = await provokeAll(target);
  const clientErrors = results.filter(({ provocation }) => provocation.status < 500);
  for (const { provocation, response } of clientErrors) {
    expect(provocation.accepted, `${provocation.name}: expected ${acceptedText(provocation)}: ${exchangeText(response)}`).toContain(response.status);
  }
  const prot = target.profile.protected;
  const corrected = await target.client.request(prot.method, prot.path);
  expect(corrected.status, `the same request with the valid token: ${exchangeText(corrected)}`).toBeLessThan(400);
});

test(
  'server faults are 5xx, bad requests never are, and the unchanged request then succeeds',
  req('STATUS-5XX-SERVER-FAULT', '@generic'),
  async ({ target }) => {
    const results = await provokeAll(target);
    for (const { provocation, response } of results.filter((r) => r.provocation.status < 500)) {
      expect(response.status, `${provocation.name} is a client error: ${exchangeText(response)}`).toBeLessThan(500);
    }
    // Only now, so that a client error answered as a 5xx fails the check even without fault injection.
    const fault = faultInjectionOf(target.profile);
    if (fault === undefined) skipCheck(NO_FAULT_INJECTION);
    const failed = await target.client.get(fault.path, { headers: { [fault.header]: '500' } });
    expect(failed.status, exchangeText(failed)).toBe(500);
    const again = await target.client.get(fault.path);
    expect(again.status, `the unchanged request after the fault: ${exchangeText(again)}`).toBe(200);
  },
);

test(
  'a 5xx body is generic: no stack trace, no error message, no internals',
  req('STATUS-500-GENERIC', '@generic'),
  async ({ target, faultInjection: fault }) => {
    for (const status of [500, 503]) {
      const response = await target.client.get(fault.path, { headers: { [fault.header]: String(status) } });
      expect(response.status, exchangeText(response)).toBe(status);
      expect(problemIssues(response)).toEqual([]);
      const text = response.text;
      expect(text, 'a stack frame').not.toMatch(/\bat [\w.<>]+ \(|at .*:\d+:\d+/);
      expect(text, 'a file path').not.toMatch(/(\/[\w.-]+){2,}\.(ts|js|mjs|cjs)\b|node_modules|file:\/\//);
      expect(text, 'an error class name').not.toMatch(/\b(TypeError|ReferenceError|SyntaxError|Error:|StoreUnavailableError|ECONNREFUSED)\b/);
      // Extension members may be added (document section 7; a trace id is fine, D-SUITE-TRUST); members that carry an error's internals may not.
      const members = Object.keys(response.json as object);
      const internals = members.filter((m) => /^(stack|stacktrace|trace|exception|cause|error|errors|message|errormessage|sql|query)$/i.test(m));
      expect(internals, 'members carrying internals on a 5xx').toEqual([]);
    }
  },
);

test('a 503 for an unavailable dependency carries Retry-After', req('STATUS-503-RETRY-AFTER', '@generic'), async ({ target, faultInjection: fault }) => {
  const response = await target.client.get(fault.path, { headers: { [fault.header]: '503' } });
  expect(response.status, exchangeText(response)).toBe(503);
  expect(response.headers['retry-after'], exchangeText(response)).toMatch(/^\d+$/);
});

test('plain status errors use type about:blank with the reason phrase as title', req('PROBLEM-ABOUT-BLANK', '@generic'), async ({ target }) => {
  const plain = (await provokeAll(target)).filter(({ provocation }) => provocation.status !== 422);
  expect(plain.length).toBeGreaterThan(0);
  for (const { provocation, response } of plain) {
    const body = response.json as { type?: unknown; title?: unknown } | undefined;
    expect(body?.type, `${provocation.name}: ${exchangeText(response)}`).toBe('about:blank');
    expect(body?.title, `${provocation.name}: ${exchangeText(response)}`).toBe(STATUS_CODES[response.status]);
  }
});

test('typed problems use the decided type URIs', req('PROBLEM-TYPE-CATALOGUE', '@generic'), async ({ target, profile }) => {
  const invalid = profile.collections.find((c) => c.invalid && c.methods.includes('POST'));
  const idem = profile.idempotency;
  if (!invalid && !idem) skipCheck('the profile gives neither an invalid body (collections[].invalid) nor an idempotent endpoint (idempotency)');
  if (invalid?.invalid) {
    const response = await target.client.post(invalid.path, invalid.invalid.body);
    expect((response.json as { type?: unknown }).type, exchangeText(response)).toBe(`${PROBLEM_TYPE_BASE}validation-error`);
  }
  if (idem) {
    const key = freshKey();
    await target.client.post(idem.path, fillTemplate(idem.body), keyed(key));
    const reused = await target.client.post(idem.path, fillTemplate(idem.otherBody), keyed(key));
    expect((reused.json as { type?: unknown }).type, exchangeText(reused)).toBe(`${PROBLEM_TYPE_BASE}idempotency-key-reused`);
    const badKey = await target.client.post(idem.path, fillTemplate(idem.body), keyed('x'.repeat(256)));
    expect((badKey.json as { type?: unknown }).type, exchangeText(badKey)).toBe(`${PROBLEM_TYPE_BASE}invalid-idempotency-key`);
    const fault = profile.features?.faultInjection;
    if (fault?.slowValue) {
      // IDEMPOTENCY-IN-FLIGHT-409 (SHOULD) asks that a 409 comes at all; this checks only its type.
      const slowFault = { header: fault.header, slowValue: fault.slowValue };
      const during = await secondWhileSlow(target.client, idem.path, fillTemplate(idem.body), slowFault);
      if (during.status !== 409) skipCheck(`no request was caught in flight in 3 tries: ${exchangeText(during)}`);
      expect((during.json as { type?: unknown }).type, exchangeText(during)).toBe(`${PROBLEM_TYPE_BASE}idempotency-key-in-flight`);
    }
  }
});

test('extension members add context without changing the standard members', req('PROBLEM-EXTENSION-MEMBERS', '@generic'), async ({ target, profile }) => {
  const invalid = profile.collections.find((c) => c.invalid && c.methods.includes('POST'));
  if (invalid === undefined) skipCheck('the profile gives no invalid body (collections[].invalid)');
  const response = await target.client.post(invalid.path, invalid.invalid?.body);
  const extensions = Object.keys(response.json as object).filter((k) => !['type', 'title', 'status', 'detail', 'instance'].includes(k));
  if (extensions.length === 0) skipCheck('feature not used (MAY): the 422 carries no extension member');
  expect(problemIssues(response)).toEqual([]);
  expect(getValidator('validation-problem')(response.json), exchangeText(response)).toBe(true);
});
