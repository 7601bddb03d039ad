/**
 * Idempotency keys (document section 8 "Idempotency keys", D-IDEMPOTENCY,
 * draft-ietf-httpapi-idempotency-key-header-06). Every check sends as the counting caller
 * (`idempotentEndpoint.caller`: the profile's `other` caller, else `valid`), which the fixture holds
 * exclusively, so no other counting check creates in its collection meanwhile (fixtures.ts).
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { delay } from '../transport/http.ts';
import type { HttpResponse } from '../transport/message.ts';
import { exchangeText, problemIssues } from '../support/problem.ts';
import { Target } from '../support/target.ts';
import { fillTemplate } from '../support/template.ts';
import { succeeded } from '../support/collection.ts';
import { catchInFlight, CONCURRENT_WAVES, countItems, freshKey, idempotentEndpointOf, isStoredResult, keyed } from '../support/idempotency.ts';
import { skipCheck } from '../support/skip.ts';
import type { IdempotentEndpoint } from '../support/idempotency.ts';
import { idOf as shapedIdOf } from '../support/shape.ts';

// In file order in one worker: the checks hold the counting caller one after another anyway.
test.describe.configure({ mode: 'default' });

/** What names the created item: its id where the collection's shape puts it (D-SHAPES), else its Location. */
function idOf(response: HttpResponse, e: IdempotentEndpoint): unknown {
  return shapedIdOf(response.json, e.collection) ?? response.headers.location;
}

test('POST accepts an Idempotency-Key and works without one', req('IDEMPOTENCY-KEY-ACCEPTED', '@idempotency', '@smoke'), async ({ idempotentEndpoint: e }) => {
  const withKey = await e.send(freshKey());
  expect(succeeded(withKey), exchangeText(withKey)).toBe(true);
  const without = await e.send();
  expect(succeeded(without), exchangeText(without)).toBe(true);
});

test('a replay returns the stored status, body and Location', req('IDEMPOTENCY-REPLAY', '@idempotency', '@smoke'), async ({ idempotentEndpoint: e }) => {
  const key = freshKey();
  const first = await e.send(key);
  expect(succeeded(first), exchangeText(first)).toBe(true);
  for (let i = 0; i < 2; i += 1) {
    const replay = await e.send(key);
    expect(replay.status, exchangeText(replay)).toBe(first.status);
    expect(replay.json).toEqual(first.json);
    expect(replay.headers.location).toBe(first.headers.location);
  }
});

test('a replay does not repeat the work: the collection grows by one', req('IDEMPOTENCY-NO-REPEAT-WORK', '@idempotency'), async ({ idempotentEndpoint: e }) => {
  const key = freshKey();
  const before = await countItems(e);
  const first = await e.send(key);
  expect(succeeded(first), exchangeText(first)).toBe(true);
  expect(await countItems(e)).toBe(before + 1);
  for (let i = 0; i < 3; i += 1) await e.send(key);
  expect(await countItems(e), 'three replays created nothing').toBe(before + 1);
});

test(
  'concurrent requests with one key produce exactly one result',
  req('IDEMPOTENCY-CONCURRENT-ONE-RESULT', '@idempotency'),
  async ({ idempotentEndpoint: e }) => {
    for (let wave = 1; wave <= CONCURRENT_WAVES; wave += 1) {
      const key = freshKey();
      const before = await countItems(e);
      const responses = await Promise.all(Array.from({ length: 20 }, () => e.send(key)));
      const created = (await countItems(e)) - before;
      const successes = responses.filter((r) => r.status < 300);
      const others = responses.filter((r) => r.status >= 300);
      const results = new Set(successes.map((r) => JSON.stringify(r.json))).size;
      const defective = successes.length === 0 || others.some((r) => r.status !== 409) || results !== 1 || created !== 1;
      if (!defective && wave < CONCURRENT_WAVES) continue;
      const label = `wave ${wave} of 20 concurrent requests with one key`;
      expect(successes.length, `${label}: at least one request ran`).toBeGreaterThanOrEqual(1);
      for (const r of others) expect(r.status, `${label}: only in-flight 409s besides the result: ${exchangeText(r)}`).toBe(409);
      expect(results, `${label}: every success is the same result (${successes.slice(0, 2).map(exchangeText).join('; ')})`).toBe(1);
      expect(created, `${label}: one resource was created`).toBe(1);
      const later = await e.send(key);
      expect(later.json, 'a later replay returns that result').toEqual(successes[0]?.json);
      return;
    }
  },
);

test('different keys produce different results', req('METHOD-POST-NOT-IDEMPOTENT', '@idempotency'), async ({ idempotentEndpoint: e }) => {
  const before = await countItems(e);
  const a = await e.send(freshKey());
  const b = await e.send(freshKey());
  expect(succeeded(a), exchangeText(a)).toBe(true);
  expect(succeeded(b), exchangeText(b)).toBe(true);
  expect(idOf(b, e)).not.toEqual(idOf(a, e));
  expect(await countItems(e)).toBe(before + 2);
});

test('a key reused with another payload is a 422', req('IDEMPOTENCY-REUSE-422', '@idempotency'), async ({ idempotentEndpoint: e }) => {
  const key = freshKey();
  const first = await e.send(key);
  expect(succeeded(first), exchangeText(first)).toBe(true);
  const reused = await e.send(key, e.otherBody);
  expect(reused.status, exchangeText(reused)).toBe(422);
});

test(
  'a key reused with another payload is refused with a 4xx problem or answered with the stored result, and creates nothing',
  req('IDEMPOTENCY-KEY-REUSE-MISMATCH', '@idempotency'),
  async ({ idempotentEndpoint: e }) => {
    const key = freshKey();
    const first = await e.send(key);
    expect(succeeded(first), exchangeText(first)).toBe(true);
    const before = await countItems(e);
    const reused = await e.send(key, e.otherBody);
    // The document does not show the answer: any 4xx refusal is allowed (Stripe answers 400), and so is
    // the stored result ("When the same key arrives again, it returns the stored result"); the project's
    // 422 (draft-ietf-httpapi-idempotency-key-header) is IDEMPOTENCY-REUSE-422 (D-SUITE-TRUST, D-IDEMPOTENCY).
    if (!isStoredResult(reused, first)) {
      expect(reused.status >= 400 && reused.status < 500, `a 4xx or the stored result: ${exchangeText(reused)}`).toBe(true);
      expect(problemIssues(reused)).toEqual([]);
    }
    expect(await countItems(e), `the other payload was not run: ${exchangeText(reused)}`).toBe(before);
    const replay = await e.send(key);
    expect(replay.json, 'the stored result is untouched').toEqual(first.json);
  },
);

test(
  'a replayed 4xx result is the same problem document, media type included',
  req(['IDEMPOTENCY-REPLAY', 'PROBLEM-CONTENT-TYPE'], '@idempotency'),
  async ({ idempotentEndpoint: e }) => {
    const invalid = e.invalidBody;
    if (invalid === undefined) skipCheck('the profile gives no invalid body for the idempotent endpoint (collections[].invalid)');
    const key = freshKey();
    const first = await e.send(key, invalid);
    expect(first.status, exchangeText(first)).toBeGreaterThanOrEqual(400);
    expect(first.status, exchangeText(first)).toBeLessThan(500);
    const replay = await e.send(key, invalid);
    expect(replay.status, exchangeText(replay)).toBe(first.status);
    expect(replay.json).toEqual(first.json);
    expect(problemIssues(replay)).toEqual([]);
  },
);

test(
  'a request whose key is still in flight is a 409 problem with Retry-After',
  // The project's answer (D-IDEMPOTENCY); the document fixes only exactly one result, which
  // IDEMPOTENCY-CONCURRENT-ONE-RESULT checks and which a wait-and-replay also keeps (D-SUITE-TRUST).
  req('IDEMPOTENCY-IN-FLIGHT-409', '@idempotency'),
  async ({ idempotentEndpoint: e, profile, multi }) => {
    let inFlight = await catchInFlight(e, profile.features?.faultInjection);
    if (!inFlight && multi.profile) {
      // Two instances may overlap where one alone finishes too fast.
      const instance = new Target(multi.profile);
      const there = idempotentEndpointOf(instance.profile, instance.countingCaller());
      if (there) inFlight = await catchInFlight(there, instance.profile.features?.faultInjection);
    }
    const caught = inFlight;
    if (caught === undefined) {
      skipCheck('no request was observed while another with its key was in flight (the work finishes '
        + 'too fast to overlap, and the profile gives no features.faultInjection.slowValue)');
    }
    expect(caught.status, `a request whose key is in flight: ${exchangeText(caught)}`).toBe(409);
    expect(problemIssues(caught)).toEqual([]);
    expect(caught.headers['retry-after'], exchangeText(caught)).toMatch(/^\d+$/);
  },
);

test('keys are scoped per caller', req('IDEMPOTENCY-SCOPED-PER-CALLER', '@idempotency'), async ({ target, idempotentEndpoint: e, otherCaller }) => {
  const key = freshKey();
  const mine = await target.client.post(e.path, e.body, keyed(key));
  const theirs = await otherCaller.post(e.path, e.body, keyed(key));
  expect(succeeded(mine), exchangeText(mine)).toBe(true);
  expect(succeeded(theirs), `the same key from another caller is a new request: ${exchangeText(theirs)}`).toBe(true);
  expect(idOf(theirs, e)).not.toEqual(idOf(mine, e));
  const myReplay = await target.client.post(e.path, e.body, keyed(key));
  expect(myReplay.json).toEqual(mine.json);
});

test(
  'a replay carries Idempotent-Replayed: true and a first execution does not',
  req('IDEMPOTENCY-REPLAYED-HEADER', '@idempotency'),
  async ({ idempotentEndpoint: e }) => {
    const key = freshKey();
    const first = await e.send(key);
    const replay = await e.send(key);
    expect(first.headers['idempotent-replayed'], exchangeText(first)).toBeUndefined();
    expect(replay.headers['idempotent-replayed'], exchangeText(replay)).toBe('true');
  },
);

test(
  'an Idempotency-Key that is not 1-255 printable ASCII characters is a 400',
  req('IDEMPOTENCY-KEY-FORMAT', '@idempotency'),
  async ({ idempotentEndpoint: e }) => {
    for (const key of ['x'.repeat(256), 'has space', '']) {
      const response = await e.send(key);
      expect(response.status, `key ${JSON.stringify(key.slice(0, 20))}: ${exchangeText(response)}`).toBe(400);
      expect(problemIssues(response)).toEqual([]);
    }
    const longest = await e.send(freshKey().padEnd(255, 'k'));
    expect(succeeded(longest), exchangeText(longest)).toBe(true);
  },
);

test('every POST collection accepts an Idempotency-Key', req('IDEMPOTENCY-KEY-ALL-POSTS', '@idempotency'), async ({ target }) => {
  const collections = target.profile.collections.filter((c) => c.create && c.methods.includes('POST'));
  if (collections.length === 0) skipCheck('no collection of the profile has a create body (collections[].create)');
  for (const collection of collections) {
    const key = freshKey();
    const body = fillTemplate(collection.create);
    const first = await target.client.post(collection.path, body, keyed(key));
    const replay = await target.client.post(collection.path, body, keyed(key));
    expect(succeeded(first), exchangeText(first)).toBe(true);
    expect(replay.json, `${collection.path} replays: ${exchangeText(replay)}`).toEqual(first.json);
  }
});

test(
  'a 5xx result is not stored and a 4xx result is',
  req('IDEMPOTENCY-5XX-NOT-STORED', '@idempotency'),
  async ({ idempotentEndpoint: e, faultInjection: fault }) => {
    const key = freshKey();
    const failed = await e.send(key, e.body, { [fault.header]: '500' });
    expect(failed.status, exchangeText(failed)).toBe(500);
    const retried = await e.send(key);
    expect(succeeded(retried), `the retry after a 500 runs the work: ${exchangeText(retried)}`).toBe(true);
    if (e.invalidBody === undefined) return;
    const badKey = freshKey();
    const rejected = await e.send(badKey, e.invalidBody);
    await delay(0);
    const again = await e.send(badKey, e.invalidBody);
    expect(rejected.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.json).toEqual(rejected.json);
  },
);
