/**
 * The seed users of spec/decisions.md D-AUTH (alice, bob, carol, dave with ids 1–4), created only
 * when absent, so restarting or starting a second instance on the same Redis is harmless.
 */
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
