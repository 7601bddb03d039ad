/**
 * Statelessness across instances (document section 1 rule 3 "any server instance can handle any
 * request", section 8.5 shared store), when the profile lists two or more base URLs of one service
 * (the `instances` fixture skips the checks otherwise). The shared rate limit is checked in
 * rate-limit.spec.ts (it needs the rate-limit token's lock).
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { exchangeText } from '../support/problem.ts';
import { fillTemplate } from '../support/template.ts';
import { succeeded } from '../support/collection.ts';
import { CONCURRENT_WAVES, freshKey, isStoredResult, keyed, NO_IDEMPOTENT_ENDPOINT } from '../support/idempotency.ts';
import type { Target } from '../support/target.ts';
import type { HttpResponse } from '../transport/message.ts';
import { skipCheck } from '../support/skip.ts';

test(
  'a resource created through one instance is read, changed and deleted through the others',
  req('STATELESS-ANY-INSTANCE', '@multi-target'),
  async ({ instances }) => {
    const [a, b] = instances;
    const collections = a.profile.collections.filter((c) => c.create && c.methods.includes('POST') && c.itemPath);
    if (collections.length === 0) skipCheck('no collection of the profile has a create body and an item path (collections[].create, .itemPath)');
    for (const [from, to] of [[a, b], [b, a]] as const) {
      for (const collection of collections) {
        const created = await from.create(collection);
        expect(succeeded(created.response), exchangeText(created.response)).toBe(true);
        const read = await to.client.get(from.itemOf(created));
        expect(read.status, `created on ${from.baseUrl}, read on ${to.baseUrl}: ${exchangeText(read)}`).toBe(200);
        expect(read.json).toEqual(created.response.json);
      }
    }
    const deletable = a.collectionsWithItems().find((c) => c.create && c.itemMethods.includes('DELETE') && c.methods.includes('POST'));
    if (deletable) {
      const created = await a.create(deletable);
      const path = a.itemOf(created);
      const removed = await b.client.delete(path);
      expect(removed.status, exchangeText(removed)).toBeLessThan(300);
      expect((await a.client.get(path)).status, 'deleted on one, gone on the other').toBe(404);
    }
  },
);

/** A keyed POST on the first instance and its replay on the second (skips without an idempotent endpoint). */
async function replayAcross(instances: readonly Target[]): Promise<{ first: HttpResponse; replay: HttpResponse; other: () => Promise<HttpResponse> }> {
  const [a, b] = instances as [Target, Target];
  const idem = a.profile.idempotency;
  if (idem === undefined) skipCheck(NO_IDEMPOTENT_ENDPOINT);
  const body = fillTemplate(idem.body);
  const key = freshKey();
  const first = await a.client.post(idem.path, body, keyed(key));
  expect(succeeded(first), exchangeText(first)).toBe(true);
  const replay = await b.client.post(idem.path, body, keyed(key));
  return { first, replay, other: () => b.client.post(idem.path, fillTemplate(idem.otherBody), keyed(key)) };
}

test(
  'a key used on one instance is known to another',
  req('STATELESS-ANY-INSTANCE', '@multi-target', '@idempotency'),
  async ({ instances }) => {
    // The other instance knows the key: it answers the stored status and body. Whether the replay repeats
    // every header (Location) and how a reused key is refused are IDEMPOTENCY-REPLAY's to report, not a
    // second failure here (D-SUITE-TRUST).
    const { first, replay } = await replayAcross(instances);
    expect(replay.status, exchangeText(replay)).toBe(first.status);
    expect(replay.json).toEqual(first.json);
  },
);

test(
  'a key used on one instance replays on another, Location included',
  req('IDEMPOTENCY-REPLAY', '@multi-target', '@idempotency'),
  async ({ instances }) => {
    const { first, replay, other } = await replayAcross(instances);
    expect(replay.status, exchangeText(replay)).toBe(first.status);
    expect(replay.json).toEqual(first.json);
    expect(replay.headers.location).toBe(first.headers.location);
    const mismatch = await other();
    // Any 4xx refusal, or the stored result (IDEMPOTENCY-KEY-REUSE-MISMATCH, D-IDEMPOTENCY): never the other
    // payload run; the project's 422 is IDEMPOTENCY-REUSE-422's to ask.
    const stored = isStoredResult(mismatch, first);
    const refused = mismatch.status >= 400 && mismatch.status < 500;
    expect(stored || refused, `the other instance knows the key's payload: ${exchangeText(mismatch)}`).toBe(true);
  },
);

test(
  'concurrent requests with one key spread over instances produce one result',
  req('IDEMPOTENCY-CONCURRENT-ONE-RESULT', '@multi-target', '@idempotency'),
  async ({ instances }) => {
    const idem = instances[0].profile.idempotency;
    if (idem === undefined) skipCheck(NO_IDEMPOTENT_ENDPOINT);
    const body = fillTemplate(idem.body);
    const instance = (i: number): Target => instances[i % instances.length] as Target;
    // As on one instance: the first wave that shows a defect is judged (a busy machine may serialise one).
    for (let wave = 1; wave <= CONCURRENT_WAVES; wave += 1) {
      const key = freshKey();
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => instance(i).client.post(idem.path, body, keyed(key))));
      const successes = responses.filter((r) => r.status < 300);
      const others = responses.filter((r) => r.status >= 300);
      const results = new Set(successes.map((r) => JSON.stringify(r.json))).size;
      if (successes.length > 0 && others.every((r) => r.status === 409) && results === 1 && wave < CONCURRENT_WAVES) continue;
      for (const r of others) expect(r.status, `wave ${wave}: ${exchangeText(r)}`).toBe(409);
      expect(successes.length, `wave ${wave}: at least one request ran`).toBeGreaterThanOrEqual(1);
      expect(results, `wave ${wave}: every instance answered the same result (${successes.slice(0, 2).map(exchangeText).join('; ')})`).toBe(1);
      return;
    }
  },
);
