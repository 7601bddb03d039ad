/**
 * The seed users of spec/decisions.md D-AUTH (alice, bob, carol, dave with ids 1–4), created only
 * when absent, so restarting or starting a second instance on the same Redis is harmless.
 */
import { StoreUnavailableError } from './stores/types.ts';
import type { ResourceStore, StoredResource } from './stores/types.ts';

const SEED_CREATED_AT = '2026-01-01T00:00:00.000Z';

export const SEED_USERS: readonly StoredResource[] = [
  { id: 1, name: 'alice', email: 'alice@example.com', version: 1, createdAt: SEED_CREATED_AT },
  { id: 2, name: 'bob', email: 'bob@example.com', version: 1, createdAt: SEED_CREATED_AT },
  { id: 3, name: 'carol', email: 'carol@example.com', version: 1, createdAt: SEED_CREATED_AT },
  { id: 4, name: 'dave', email: 'dave@example.com', version: 1, createdAt: SEED_CREATED_AT },
];

/**
 * Reserves ids 1–4 first (so `nextId` never hands them out), then writes each seed user that is
 * absent. Two instances seeding at once write identical records, so the result is the same.
 */
export async function seedUsers(store: ResourceStore): Promise<void> {
  await store.reserveIds('users', SEED_USERS.length);
  for (const user of SEED_USERS) {
    if (!(await store.get('users', user.id))) await store.put('users', structuredClone(user));
  }
}

/**
 * `seedUsers` at start-up: a store that is still connecting (the first Redis connection on a loaded
 * machine can take longer than the 1 s a request waits, D-STORE-DOWN) is retried every 100 ms for up
 * to `patienceMs`; then the last error is thrown. Requests keep failing fast; only start-up waits.
 */
export async function seedUsersAtStartup(store: ResourceStore, patienceMs = 10_000): Promise<void> {
  const deadline = performance.now() + patienceMs;
  for (;;) {
    try {
      await seedUsers(store);
      return;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || performance.now() + 100 > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
