/**
 * Start-up seeding (reference-impl/seed.ts): a store that is still connecting is waited for, within
 * a bound; any other error, or a store that never comes, stops the start.
 */
import { test, expect } from '@playwright/test';
import { SEED_USERS, seedUsersAtStartup } from '../seed.ts';
import { createMemoryStores } from '../stores/memory/index.ts';
import { StoreUnavailableError } from '../stores/types.ts';
import type { ResourceStore } from '../stores/types.ts';

/** A memory resource store whose first `failures` calls of reserveIds throw `error`. */
function flaky(failures: number, error: () => Error): { store: ResourceStore; calls: () => number } {
  const inner = createMemoryStores().resources;
  let calls = 0;
  const store: ResourceStore = {
    ...inner,
    get: (kind, id) => inner.get(kind, id),
    put: (kind, resource) => inner.put(kind, resource),
    async reserveIds(kind, upTo) {
      calls += 1;
      if (calls <= failures) throw error();
      return inner.reserveIds(kind, upTo);
    },
  };
  return { store, calls: () => calls };
}

test('a store that is still connecting is retried until it answers, then seeded', async () => {
  const { store, calls } = flaky(3, () => new StoreUnavailableError('Redis not ready within 1000 ms'));
  await seedUsersAtStartup(store, 5_000);
  expect(calls()).toBe(4);
  for (const user of SEED_USERS) expect(await store.get('users', user.id)).toEqual(user);
});

test('a store that never answers stops the start after the patience, with its error', async () => {
  const { store } = flaky(Number.POSITIVE_INFINITY, () => new StoreUnavailableError('Redis is not connected (ECONNREFUSED)'));
  const started = performance.now();
  await expect(seedUsersAtStartup(store, 400)).rejects.toThrow('Redis is not connected (ECONNREFUSED)');
  const elapsed = performance.now() - started;
  expect(elapsed).toBeGreaterThanOrEqual(250);
  expect(elapsed).toBeLessThan(3_000);
});

test('any other error stops the start at once', async () => {
  const { store, calls } = flaky(1, () => new Error('WRONGTYPE Operation against a key holding the wrong kind of value'));
  await expect(seedUsersAtStartup(store, 5_000)).rejects.toThrow('WRONGTYPE');
  expect(calls()).toBe(1);
});
