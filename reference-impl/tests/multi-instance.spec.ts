/**
 * Several instances (STATELESS-ANY-INSTANCE; spec/decisions.md D-RATE-LIMIT shared store): two servers on
 * two ports, each with its own Redis connection and one shared key prefix, behave as one server.
 */
import { expect, test } from '@playwright/test';
import { ALICE, type TestServer, client, startTestServer } from './support/harness.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import type { Stores } from '../stores/types.ts';
import { deleteKeysWithPrefix, redisAnswers, sharedRedisUrl, uniqueKeyPrefix } from '../tools/redis-admin.ts';

const REDIS_URL = sharedRedisUrl();

interface Pair {
  one: TestServer;
  two: TestServer;
  stop(): Promise<void>;
}

/** Two servers, each with its own Redis connection, sharing one fresh key prefix. */
async function startPair(overrides: Record<string, unknown> = {}): Promise<Pair> {
  const keyPrefix = uniqueKeyPrefix('test');
  const store = { kind: 'redis', url: REDIS_URL, keyPrefix };
  const connections: Stores[] = [createRedisStores({ url: REDIS_URL, keyPrefix }), createRedisStores({ url: REDIS_URL, keyPrefix })];
  const [one, two] = await Promise.all(connections.map((stores) => startTestServer({ ...overrides, store }, stores)));
  if (!one || !two) throw new Error('two servers expected');
  return {
    one,
    two,
    async stop() {
      await Promise.all([one.close(), two.close()]);
      await Promise.all(connections.map((stores) => stores.close()));
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    },
  };
}

test.describe('two instances on one Redis', () => {
  test.beforeAll(async () => {
    test.skip(!(await redisAnswers(REDIS_URL)), `Redis does not answer at ${REDIS_URL}`);
  });

  test('a resource created through one instance is read through the other', async () => {
    const pair = await startPair();
    try {
      expect(pair.one.port).not.toBe(pair.two.port);
      const created = await client(pair.one.url).post('/users', { token: ALICE, body: { name: 'Shared', email: 'shared@example.com' } });
      expect(created.status).toBe(201);
      // After the four seeded users; Redis ids carry its clock (D-IDS), so only "later" is known.
      expect(created.json.id).toBeGreaterThan(4);
      const read = await client(pair.two.url).get(created.headers.get('location') ?? '');
      expect(read.status).toBe(200);
      expect(read.json).toEqual(created.json);
      const seeded = await client(pair.two.url).get('/users?limit=100');
      expect(seeded.json.page.total).toBe(5);
      const order = await client(pair.two.url).post('/orders', { token: ALICE, body: { total: 3.5, currency: 'eur' } });
      const paid = await client(pair.one.url).post(order.json._links.pay.href, { token: ALICE });
      expect(paid.json.status).toBe('paid');
      expect((await client(pair.two.url).post(order.json._links.cancel.href, { token: ALICE })).status).toBe(409);
    } finally {
      await pair.stop();
    }
  });

  test('a burst of 200 split across both instances admits exactly the capacity of 50', async () => {
    const pair = await startPair({ anonymousPlan: 'burst', plans: { burst: { capacity: 50, refillPerSecond: 0.001 } } });
    try {
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, index) => client(index % 2 === 0 ? pair.one.url : pair.two.url).get('/users/1')),
      );
      expect(replies.filter((reply) => reply.status === 200)).toHaveLength(50);
      expect(replies.filter((reply) => reply.status === 429)).toHaveLength(150);
    } finally {
      await pair.stop();
    }
  });

  test('an idempotency key used on one instance replays on the other', async () => {
    const pair = await startPair();
    try {
      const body = { amount: 2500, currency: 'eur' };
      const headers = { 'Idempotency-Key': 'multi-instance-key' };
      const first = await client(pair.one.url).post('/payments', { token: ALICE, body, headers });
      expect(first.status).toBe(201);
      const second = await client(pair.two.url).post('/payments', { token: ALICE, body, headers });
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.json).toEqual(first.json);
      expect((await client(pair.two.url).get('/payments', { token: ALICE })).json.page.total).toBe(1);
    } finally {
      await pair.stop();
    }
  });

  test('concurrent creates of one email across both instances create exactly one user', async () => {
    const pair = await startPair();
    try {
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          client(index % 2 === 0 ? pair.one.url : pair.two.url).post('/users', { token: ALICE, body: { name: 'Twin', email: 'twin@example.com' } }),
        ),
      );
      expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
      expect(replies.filter((reply) => reply.status === 409)).toHaveLength(9);
    } finally {
      await pair.stop();
    }
  });

  test('50 concurrent POST /payments with one key across both instances create exactly one payment', async () => {
    const pair = await startPair();
    try {
      const body = { amount: 900, currency: 'eur' };
      const headers = { 'Idempotency-Key': 'multi-instance-burst' };
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, index) => client(index % 2 === 0 ? pair.one.url : pair.two.url).post('/payments', { token: ALICE, body, headers })),
      );
      expect(replies.every((reply) => reply.status === 201 || reply.status === 409)).toBe(true);
      expect(new Set(replies.filter((reply) => reply.status === 201).map((reply) => reply.json.id)).size).toBe(1);
      expect((await client(pair.one.url).get('/payments', { token: ALICE })).json.page.total).toBe(1);
    } finally {
      await pair.stop();
    }
  });
});
