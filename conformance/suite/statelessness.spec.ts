/**
 * Statelessness across instances (document section 1 rule 3 "any server instance can handle any
 * request", section 8.5 shared store), when the profile lists two or more base URLs of one service.
 * The shared rate limit is checked in rate-limit.spec.ts (it needs the rate-limit token's lock).
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import type { MultiTarget } from '../fixtures.ts';
import { describe } from '../support/problem.ts';
import { Target } from '../support/target.ts';
import { fillTemplate, uniqueValue } from '../support/template.ts';
import { succeeded } from '../support/collection.ts';
import type { TargetProfile } from '../target/profile.ts';

function instances(multi: MultiTarget): Target[] {
  const profile = multi.profile as TargetProfile;
  return profile.baseUrls.map((url) => new Target(profile, url));
}

test('a resource created through one instance is read, changed and deleted through the others', req('STATELESS-ANY-INSTANCE', '@multi-target'), async ({ multi }) => {
  test.skip(!multi.profile, multi.skip ?? '');
  const [a, b] = instances(multi);
  if (!a || !b) return;
  const collections = a.profile.collections.filter((c) => c.create && c.methods.includes('POST') && c.itemPath);
  test.skip(collections.length === 0, 'no collection of the profile has a create body and an item path');
  for (const [from, to] of [[a, b], [b, a]] as const) {
    for (const collection of collections) {
      const created = await from.create(collection);
      expect(succeeded(created.response), describe(created.response)).toBe(true);
      const read = await to.client.get(created.path ?? '');
      expect(read.status, `created on ${from.baseUrl}, read on ${to.baseUrl}: ${describe(read)}`).toBe(200);
      expect(read.json).toEqual(created.response.json);
    }
  }
  const deletable = a.collectionsWithItems().find((c) => c.create && c.itemMethods.includes('DELETE') && c.methods.includes('POST'));
  if (deletable) {
    const created = await a.create(deletable);
    const removed = await b.client.delete(created.path ?? '');
    expect(removed.status, describe(removed)).toBeLessThan(300);
    expect((await a.client.get(created.path ?? '')).status, 'deleted on one, gone on the other').toBe(404);
  }
});

test('a key used on one instance replays on another', req(['IDEMPOTENCY-REPLAY', 'STATELESS-ANY-INSTANCE'], '@multi-target', '@idempotency'), async ({ multi }) => {
  test.skip(!multi.profile, multi.skip ?? '');
  const [a, b] = instances(multi);
  if (!a || !b) return;
  const idem = a.profile.idempotency;
  test.skip(!idem, 'the profile names no endpoint accepting Idempotency-Key');
  if (!idem) return;
  const body = fillTemplate(idem.body);
  const key = `hac-${uniqueValue()}`;
  const first = await a.client.post(idem.path, body, { headers: { 'idempotency-key': key } });
  expect(succeeded(first), describe(first)).toBe(true);
  const replay = await b.client.post(idem.path, body, { headers: { 'idempotency-key': key } });
  expect(replay.status, describe(replay)).toBe(first.status);
  expect(replay.json).toEqual(first.json);
  expect(replay.headers.location).toBe(first.headers.location);
  const mismatch = await b.client.post(idem.path, fillTemplate(idem.otherBody), { headers: { 'idempotency-key': key } });
  expect(mismatch.status, `the other instance knows the key's payload: ${describe(mismatch)}`).toBe(422);
});

test('concurrent requests with one key spread over instances produce one result', req('IDEMPOTENCY-CONCURRENT-ONE-RESULT', '@multi-target', '@idempotency'), async ({ multi }) => {
  test.skip(!multi.profile, multi.skip ?? '');
  const targets = instances(multi);
  const idem = targets[0]?.profile.idempotency;
  test.skip(!idem, 'the profile names no endpoint accepting Idempotency-Key');
  if (!idem) return;
  const body = fillTemplate(idem.body);
  const key = `hac-${uniqueValue()}`;
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (targets[i % targets.length] as Target).client.post(idem.path, body, { headers: { 'idempotency-key': key } })),
  );
  const successes = responses.filter((r) => r.status < 300);
  for (const r of responses.filter((x) => x.status >= 300)) expect(r.status, describe(r)).toBe(409);
  expect(successes.length).toBeGreaterThanOrEqual(1);
  expect(new Set(successes.map((r) => JSON.stringify(r.json))).size, 'every instance answered the same result').toBe(1);
});
