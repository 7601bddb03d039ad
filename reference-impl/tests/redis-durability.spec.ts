/**
 * D-STORE-DURABILITY and D-IDS on one Redis: ids a rolled-back sequence cannot hand out twice, and
 * answers that wait for replicas (here a Redis without replicas, so every wait fails: 503 with
 * Retry-After, and the key is free for the retry). The failover itself: redis-failover.spec.ts.
 */
import { test, expect } from '@playwright/test';
import { Redis } from 'ioredis';
import { resolveConfig } from '../config.ts';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../tools/redis-admin.ts';
import { startServer } from '../server.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import { redisKeys } from '../stores/redis/keys.ts';
import { ReplicaWaitError } from '../stores/redis/replica-waits.ts';
import { CREATED_BY, StoreUnavailableError } from '../stores/types.ts';

const REDIS_URL = sharedRedisUrl();

test('a sequence rolled back (as a promoted replica that was behind has it) hands out no id twice', async () => {
  const keyPrefix = uniqueKeyPrefix('test', 'clock-ids');
  const stores = createRedisStores({ url: REDIS_URL, keyPrefix });
  const admin = new Redis(REDIS_URL);
  try {
    const before = [await stores.resources.nextId('payments'), await stores.resources.nextId('payments')];
    const created = await stores.create({
      kinds: ['payments'],
      build: ([id = 0]) => ({ entries: [['payments', { id }]], response: { status: 201, headers: {}, body: null } }),
    });
    if (!created.created) throw new Error('nothing was created');
    const handedOut = [...before, ...created.ids];
    // The rollback: the sequence is back where it was before these ids. A promotion comes at least the
    // cluster node timeout later (a second or more), so the clock has left the millisecond of the last id
    // (D-IDS guarantees ids of earlier milliseconds; a rollback within the same millisecond cannot happen).
    await new Promise((resolve) => setTimeout(resolve, 10));
    await admin.set(redisKeys(keyPrefix).sequence('payments'), '0');
    const after = [await stores.resources.nextId('payments')];
    const again = await stores.create({
      kinds: ['payments'],
      build: ([id = 0]) => ({ entries: [['payments', { id }]], response: { status: 201, headers: {}, body: null } }),
    });
    if (again.created) after.push(...again.ids);
    for (const id of after) expect(id).toBeGreaterThan(Math.max(...handedOut));
    // Within the schemas' id rule (D-IDS): positive integers that JSON carries exactly.
    for (const id of [...handedOut, ...after]) expect(Number.isSafeInteger(id) && id >= 1).toBe(true);
  } finally {
    admin.disconnect();
    await stores.close();
    await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
  }
});

test.describe('store.durability on a Redis without replicas', () => {
  test.beforeEach(async () => {
    const admin = new Redis(REDIS_URL);
    try {
      test.skip(/connected_slaves:[1-9]/.test(await admin.info('replication')), 'the shared Redis has replicas');
    } finally {
      admin.disconnect();
    }
  });

  test('every promised write fails its wait within the timeout as a StoreUnavailableError; a failed claim is freed', async () => {
    const keyPrefix = uniqueKeyPrefix('test', 'durability');
    const stores = createRedisStores({ url: REDIS_URL, keyPrefix, durability: { replicas: 1, timeoutMs: 50 } });
    try {
      const started = performance.now();
      const failure = await stores.create({
        kinds: ['payments'],
        marker: { kind: 'payments', value: 'm' },
        build: ([id = 0]) => ({ entries: [['payments', { id, [CREATED_BY]: 'm' }]], response: { status: 201, headers: {}, body: null } }),
      }).catch((error: unknown) => error);
      const waitedMs = performance.now() - started;
      expect(failure).toBeInstanceOf(ReplicaWaitError);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as ReplicaWaitError).confirmed).toBe(0);
      // WAIT's own 50 ms, plus up to 2 s for a loaded machine (the command timeout is 1 s).
      expect(waitedMs).toBeGreaterThanOrEqual(45);
      expect(waitedMs).toBeLessThan(2050);
      // The write happened on the primary: the retry finds it by its marker (and waits again).
      await expect(stores.resources.findCreatedBy('payments', 'm')).resolves.toMatchObject({ [CREATED_BY]: 'm' });

      const claim = { key: 'token:ab:k', fingerprint: 'fp', lockSeconds: 30 };
      await expect(stores.idempotency.claim(claim.key, claim.fingerprint, claim.lockSeconds)).rejects.toBeInstanceOf(ReplicaWaitError);
      // Freed: a claim left in flight would answer every retry 409 for the 30 s lock.
      const plain = createRedisStores({ url: REDIS_URL, keyPrefix });
      await expect(plain.idempotency.claim(claim.key, claim.fingerprint, 30)).resolves.toEqual({ state: 'claimed' });
      await plain.close();
    } finally {
      await stores.close();
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    }
  });

  test('the server answers 503 with Retry-After and a plain problem, and the retry is not blocked by a dead claim', async () => {
    const keyPrefix = uniqueKeyPrefix('test', 'durability-http');
    const store = { kind: 'redis', url: REDIS_URL, keyPrefix, durability: { replicas: 1, timeoutMs: 50 } } as const;
    // No seeding: its writes would wait for replicas too (they are not there).
    const config = resolveConfig({ host: '127.0.0.1', port: 0, seed: false, store });
    const stores = createRedisStores(store);
    const server = await startServer({ config, stores, logError: () => undefined });
    try {
      const pay = (): Promise<Response> =>
        fetch(`${server.url.replace(/\/+$/, '')}/payments`, {
          method: 'POST',
          headers: { authorization: 'Bearer dev-token-alice', 'content-type': 'application/json', 'idempotency-key': 'durable-1' },
          body: JSON.stringify({ amount: 100, currency: 'eur' }),
        });
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const response = await pay();
        expect(response.status).toBe(503);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(JSON.stringify(await response.json())).not.toMatch(/replica|WAIT/i);
      }
    } finally {
      await server.close();
      await stores.close();
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    }
  });
});

test('store.durability is refused with a memory store and with a wait as long as the command timeout, naming the fix', () => {
  expect(() => resolveConfig({ store: { kind: 'memory', durability: { replicas: 1, timeoutMs: 100 } } })).toThrow(/store\.durability needs store\.kind "redis"/);
  expect(() => resolveConfig({ store: { kind: 'redis', durability: { replicas: 1, timeoutMs: 1000 } } })).toThrow(
    /store\.durability\.timeoutMs \(1000\) must be below store\.commandTimeoutMs \(1000\).*raise store\.commandTimeoutMs/,
  );
  expect(() => resolveConfig({ store: { kind: 'redis', durability: { replicas: 0, timeoutMs: 100 } } })).toThrow(/store\.durability\.replicas/);
  expect(resolveConfig({ store: { kind: 'redis', commandTimeoutMs: 2000, durability: { replicas: 2, timeoutMs: 1500 } } }).store).toMatchObject({
    durability: { replicas: 2, timeoutMs: 1500 },
  });
});
