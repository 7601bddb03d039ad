/**
 * Idempotency keys (document section 8 "Idempotency keys", D-IDEMPOTENCY,
 * draft-ietf-httpapi-idempotency-key-header-06). Tests that count the collection use the profile's
 * `other` caller (else `valid`) and hold one lock, so no other test creates in it meanwhile.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { delay } from '../support/http.ts';
import type { HttpResponse } from '../support/http.ts';
import { describe, problemIssues } from '../support/problem.ts';
import { collectionCount, Target } from '../support/target.ts';
import type { Client } from '../support/client.ts';
import { fillTemplate, uniqueValue } from '../support/template.ts';
import { succeeded } from '../support/collection.ts';

test.describe.configure({ mode: 'default', lock: 'hac-idempotency-counts' });

const noEndpoint = 'the profile names no endpoint accepting Idempotency-Key';

interface Endpoint {
  path: string;
  body: Record<string, unknown>;
  otherBody: Record<string, unknown>;
  collectionPath?: string;
  /** The caller whose collection the counting tests watch. */
  caller: Client;
}

function endpoint(target: Target): Endpoint | undefined {
  const idem = target.profile.idempotency;
  if (!idem) return undefined;
  const unique = uniqueValue();
  return {
    path: idem.path,
    body: fillTemplate(idem.body, unique),
    otherBody: fillTemplate(idem.otherBody, unique),
    ...(idem.collectionPath ? { collectionPath: idem.collectionPath } : {}),
    caller: target.as(target.profile.tokens.other ?? target.profile.tokens.valid),
  };
}

function keyed(key: string): { headers: Record<string, string> } {
  return { headers: { 'idempotency-key': key } };
}

async function count(e: Endpoint): Promise<number> {
  const response = await e.caller.get(e.collectionPath ?? e.path);
  const n = collectionCount(response.json);
  if (n === undefined) throw new Error(`cannot count the collection: ${describe(response)}`);
  return n;
}

function idOf(response: HttpResponse): unknown {
  return (response.json as { id?: unknown } | undefined)?.id ?? response.headers.location;
}

test('POST accepts an Idempotency-Key and works without one', req('IDEMPOTENCY-KEY-ACCEPTED', '@idempotency', '@smoke'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  const withKey = await e.caller.post(e.path, e.body, keyed(`hac-${uniqueValue()}`));
  expect(succeeded(withKey), describe(withKey)).toBe(true);
  const without = await e.caller.post(e.path, e.body);
  expect(succeeded(without), describe(without)).toBe(true);
});

test('a replay returns the stored status, body and Location', req('IDEMPOTENCY-REPLAY', '@idempotency', '@smoke'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  const key = `hac-${uniqueValue()}`;
  const first = await e.caller.post(e.path, e.body, keyed(key));
  expect(succeeded(first), describe(first)).toBe(true);
  for (let i = 0; i < 2; i += 1) {
    const replay = await e.caller.post(e.path, e.body, keyed(key));
    expect(replay.status, describe(replay)).toBe(first.status);
    expect(replay.json).toEqual(first.json);
    expect(replay.headers.location).toBe(first.headers.location);
  }
});

test('a replay does not repeat the work: the collection grows by one', req('IDEMPOTENCY-NO-REPEAT-WORK', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  const key = `hac-${uniqueValue()}`;
  const before = await count(e);
  const first = await e.caller.post(e.path, e.body, keyed(key));
  expect(succeeded(first), describe(first)).toBe(true);
  expect(await count(e)).toBe(before + 1);
  for (let i = 0; i < 3; i += 1) await e.caller.post(e.path, e.body, keyed(key));
  expect(await count(e), 'three replays created nothing').toBe(before + 1);
});

test('concurrent requests with one key produce exactly one result', req('IDEMPOTENCY-CONCURRENT-ONE-RESULT', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  const key = `hac-${uniqueValue()}`;
  const before = await count(e);
  const responses = await Promise.all(Array.from({ length: 20 }, () => e.caller.post(e.path, e.body, keyed(key))));
  const successes = responses.filter((r) => r.status < 300);
  const others = responses.filter((r) => r.status >= 300);
  expect(successes.length, 'at least one request ran').toBeGreaterThanOrEqual(1);
  for (const r of others) expect(r.status, `only in-flight 409s besides the result: ${describe(r)}`).toBe(409);
  expect(new Set(successes.map((r) => JSON.stringify(r.json))).size, 'every success is the same result').toBe(1);
  expect(await count(e), 'one resource was created').toBe(before + 1);
  const later = await e.caller.post(e.path, e.body, keyed(key));
  expect(later.json, 'a later replay returns that result').toEqual(successes[0]?.json);
});

test('different keys produce different results', req('METHOD-POST-NOT-IDEMPOTENT', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  const before = await count(e);
  const a = await e.caller.post(e.path, e.body, keyed(`hac-a-${uniqueValue()}`));
  const b = await e.caller.post(e.path, e.body, keyed(`hac-b-${uniqueValue()}`));
  expect(succeeded(a), describe(a)).toBe(true);
  expect(succeeded(b), describe(b)).toBe(true);
  expect(idOf(b)).not.toEqual(idOf(a));
  expect(await count(e)).toBe(before + 2);
});

test('a key reused with another payload is a 422 problem and creates nothing', req('IDEMPOTENCY-KEY-REUSE-MISMATCH', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  const key = `hac-${uniqueValue()}`;
  const first = await e.caller.post(e.path, e.body, keyed(key));
  expect(succeeded(first), describe(first)).toBe(true);
  const before = await count(e);
  const reused = await e.caller.post(e.path, e.otherBody, keyed(key));
  expect(reused.status, describe(reused)).toBe(422);
  expect(problemIssues(reused)).toEqual([]);
  expect(await count(e)).toBe(before);
  const replay = await e.caller.post(e.path, e.body, keyed(key));
  expect(replay.json, 'the stored result is untouched').toEqual(first.json);
});

test('a replayed 4xx result is the same problem document, media type included', req(['IDEMPOTENCY-REPLAY', 'PROBLEM-CONTENT-TYPE'], '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  const invalid = target.profile.collections.find((c) => c.path === e?.path && c.invalid)?.invalid;
  test.skip(!e || !invalid, !e ? noEndpoint : 'the profile gives no invalid body for the idempotent endpoint');
  if (!e || !invalid) return;
  const key = `hac-${uniqueValue()}`;
  const first = await e.caller.post(e.path, invalid.body, keyed(key));
  expect(first.status, describe(first)).toBeGreaterThanOrEqual(400);
  expect(first.status, describe(first)).toBeLessThan(500);
  const replay = await e.caller.post(e.path, invalid.body, keyed(key));
  expect(replay.status, describe(replay)).toBe(first.status);
  expect(replay.json).toEqual(first.json);
  expect(problemIssues(replay)).toEqual([]);
});

/** Tries to catch a request whose key is in flight: with the slow fault value, else by concurrency. */
async function catchInFlight(target: Target, e: Endpoint): Promise<HttpResponse | undefined> {
  const fault = target.profile.features?.faultInjection;
  if (fault?.slowValue) {
    // A few tries: on a loaded machine the second request may overtake the first before its claim.
    let second: HttpResponse | undefined;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const key = `hac-${uniqueValue()}`;
      const slow = e.caller.post(e.path, e.body, { headers: { 'idempotency-key': key, [fault.header]: fault.slowValue } });
      await delay(100 + attempt * 100);
      second = await e.caller.post(e.path, e.body, keyed(key));
      await slow;
      if (second.status === 409) return second;
    }
    // The profile promises a window in which the key is in flight: what answered instead is the failure.
    return second;
  }
  for (let round = 0; round < 5; round += 1) {
    const key = `hac-${uniqueValue()}`;
    const responses = await Promise.all(Array.from({ length: 20 }, () => e.caller.post(e.path, e.body, keyed(key))));
    const inFlight = responses.find((r) => r.status === 409);
    if (inFlight) return inFlight;
  }
  return undefined;
}

test('a request whose key is still in flight is a 409 problem with Retry-After', req('IDEMPOTENCY-IN-FLIGHT-409', '@idempotency'), async ({ target, multi }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  let inFlight = await catchInFlight(target, e);
  if (!inFlight && multi.profile) {
    const instance = new Target(multi.profile);
    const me = endpoint(instance);
    if (me) inFlight = await catchInFlight(instance, me);
  }
  test.skip(!inFlight, 'no request was observed while another with its key was in flight (the work finishes too fast to overlap, and the profile gives no faultInjection.slowValue)');
  if (!inFlight) return;
  expect(inFlight.status, `a request whose key is in flight: ${describe(inFlight)}`).toBe(409);
  expect(problemIssues(inFlight)).toEqual([]);
  expect(inFlight.headers['retry-after'], describe(inFlight)).toMatch(/^\d+$/);
});

test('keys are scoped per caller', req('IDEMPOTENCY-SCOPED-PER-CALLER', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  const other = target.profile.tokens.other;
  test.skip(!e || !other, !e ? noEndpoint : 'the profile names no second caller (tokens.other)');
  if (!e || !other) return;
  const key = `hac-${uniqueValue()}`;
  const mine = await target.client.post(e.path, e.body, keyed(key));
  const theirs = await target.as(other).post(e.path, e.body, keyed(key));
  expect(succeeded(mine), describe(mine)).toBe(true);
  expect(succeeded(theirs), `the same key from another caller is a new request: ${describe(theirs)}`).toBe(true);
  expect(idOf(theirs)).not.toEqual(idOf(mine));
  const myReplay = await target.client.post(e.path, e.body, keyed(key));
  expect(myReplay.json).toEqual(mine.json);
});

test('a replay carries Idempotent-Replayed: true and a first execution does not', req('IDEMPOTENCY-REPLAYED-HEADER', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  const key = `hac-${uniqueValue()}`;
  const first = await e.caller.post(e.path, e.body, keyed(key));
  const replay = await e.caller.post(e.path, e.body, keyed(key));
  expect(first.headers['idempotent-replayed'], describe(first)).toBeUndefined();
  expect(replay.headers['idempotent-replayed'], describe(replay)).toBe('true');
});

test('an Idempotency-Key that is not 1-255 printable ASCII characters is a 400', req('IDEMPOTENCY-KEY-FORMAT', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  test.skip(!e, noEndpoint);
  if (!e) return;
  for (const key of ['x'.repeat(256), 'has space', '']) {
    const response = await e.caller.post(e.path, e.body, keyed(key));
    expect(response.status, `key ${JSON.stringify(key.slice(0, 20))}: ${describe(response)}`).toBe(400);
    expect(problemIssues(response)).toEqual([]);
  }
  const longest = await e.caller.post(e.path, e.body, keyed(`hac-${uniqueValue()}`.padEnd(255, 'k')));
  expect(succeeded(longest), describe(longest)).toBe(true);
});

test('every POST collection accepts an Idempotency-Key', req('IDEMPOTENCY-KEY-ALL-POSTS', '@idempotency'), async ({ target }) => {
  const collections = target.profile.collections.filter((c) => c.create && c.methods.includes('POST'));
  test.skip(collections.length === 0, 'no collection of the profile has a create body');
  for (const collection of collections) {
    const key = `hac-${uniqueValue()}`;
    const body = fillTemplate(collection.create);
    const first = await target.client.post(collection.path, body, keyed(key));
    const replay = await target.client.post(collection.path, body, keyed(key));
    expect(succeeded(first), describe(first)).toBe(true);
    expect(replay.json, `${collection.path} replays: ${describe(replay)}`).toEqual(first.json);
  }
});

test('a 5xx result is not stored and a 4xx result is', req('IDEMPOTENCY-5XX-NOT-STORED', '@idempotency'), async ({ target }) => {
  const e = endpoint(target);
  const fault = target.profile.features?.faultInjection;
  test.skip(!e || !fault, !e ? noEndpoint : 'the profile declares no fault-injection header');
  if (!e || !fault) return;
  const key = `hac-${uniqueValue()}`;
  const failed = await e.caller.post(e.path, e.body, { headers: { 'idempotency-key': key, [fault.header]: '500' } });
  expect(failed.status, describe(failed)).toBe(500);
  const retried = await e.caller.post(e.path, e.body, keyed(key));
  expect(succeeded(retried), `the retry after a 500 runs the work: ${describe(retried)}`).toBe(true);
  const invalid = target.profile.collections.find((c) => c.path === e.path && c.invalid)?.invalid;
  if (!invalid) return;
  const badKey = `hac-${uniqueValue()}`;
  const rejected = await e.caller.post(e.path, invalid.body, keyed(badKey));
  await delay(0);
  const again = await e.caller.post(e.path, invalid.body, keyed(badKey));
  expect(rejected.status).toBe(422);
  expect(again.status).toBe(422);
  expect(again.json).toEqual(rejected.json);
});
