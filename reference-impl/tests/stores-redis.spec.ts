import { test, expect } from '@playwright/test';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { createStores } from '../stores/index.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import { redisKeys } from '../stores/redis/keys.ts';
import { StoreUnavailableError } from '../stores/types.ts';
import type { Stores } from '../stores/types.ts';
import { delay } from './stores-helpers.ts';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../tools/redis-admin.ts';

const REDIS_URL = sharedRedisUrl();

/** A port on 127.0.0.1 that nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP proxy in front of the real Redis that the test can cut, stall and restore. */
class RedisProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  stalled = false;
  port = 0;

  async start(port = 0): Promise<void> {
    const target = new URL(REDIS_URL);
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => s.destroy());
        s.on('close', () => this.sockets.delete(s));
      }
      client.on('data', (chunk) => {
        if (!this.stalled) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => client.write(chunk));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Runs `operation`, expecting StoreUnavailableError; returns how long it took in ms. */
async function timeToFailure(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  const error = await operation().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreUnavailableError);
  return performance.now() - start;
}

const everyOperation = (stores: Stores): Array<[string, () => Promise<unknown>]> => [
  ['ping', () => stores.ping()],
  ['take', () => stores.rateLimits.take('k', { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 })],
  ['take (leaky)', () => stores.rateLimits.take('k', { algorithm: 'leaky-bucket', capacity: 5, refillPerSecond: 1 })],
  ['claim', () => stores.idempotency.claim('k', 'fp', 30)],
  ['complete', () => stores.idempotency.complete('k', 'fp', { status: 200, headers: {}, body: null }, 30)],
  ['release', () => stores.idempotency.release('k', 'fp')],
  ['nextId', () => stores.resources.nextId('users')],
  ['reserveIds', () => stores.resources.reserveIds('users', 3)],
  ['get', () => stores.resources.get('users', 1)],
  ['list', () => stores.resources.list('users')],
  ['put', () => stores.resources.put('users', { id: 1 })],
  ['delete', () => stores.resources.delete('users', 1)],
  ['update', () => stores.resources.update('users', 1, (u) => u)],
];

test.describe('Redis adapter specifics', () => {
  test('keys follow the documented layout and only idle-bounded keys expire', async () => {
    const keyPrefix = uniqueKeyPrefix('test');
    const stores = createStores({ kind: 'redis', url: REDIS_URL, keyPrefix });
    const admin = new Redis(REDIS_URL);
    try {
      await stores.rateLimits.take('caller', { algorithm: 'token-bucket', capacity: 10, refillPerSecond: 2 });
      await stores.rateLimits.take('caller', { algorithm: 'leaky-bucket', capacity: 10, refillPerSecond: 2 });
      await stores.idempotency.claim('alice:key', 'fp', 30);
      const id = await stores.resources.nextId('users');
      await stores.resources.put('users', { id });
      const keys = (await admin.keys(`${keyPrefix}*`)).map((k) => k.slice(keyPrefix.length)).sort();
      // Hash tags: a caller's bucket and records share one, every resource key shares `{res}` (keys.ts).
      expect(keys).toEqual(['idem:{alice:key}', 'rl:lb:{caller}', 'rl:tb:{caller}', '{res}:idx:users', `{res}:item:users:${id}`, '{res}:seq:users']);
      // One token missing at 2/s: full again after 500 ms, plus the 1 s margin.
      const bucketTtl = await admin.pttl(`${keyPrefix}rl:tb:{caller}`);
      expect(bucketTtl).toBeGreaterThan(0);
      expect(bucketTtl).toBeLessThanOrEqual(1_500);
      const queueTtl = await admin.pttl(`${keyPrefix}rl:lb:{caller}`);
      expect(queueTtl).toBeGreaterThan(0);
      expect(queueTtl).toBeLessThanOrEqual(1_500);
      const lockTtl = await admin.pttl(`${keyPrefix}idem:{alice:key}`);
      expect(lockTtl).toBeGreaterThan(20_000);
      expect(lockTtl).toBeLessThanOrEqual(30_000);
      expect(await admin.pttl(`${keyPrefix}{res}:item:users:${id}`)).toBe(-1);
      expect(JSON.parse((await admin.get(`${keyPrefix}idem:{alice:key}`))!)).toEqual({ state: 'in-flight', fingerprint: 'fp' });
    } finally {
      admin.disconnect();
      await stores.close();
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    }
  });

  test('key names stay the same however many callers come and go (the made-once names are bounded)', () => {
    const keys = redisKeys('p:');
    const first = keys.bucket('token:ab{12}', false);
    expect(first).toBe('p:rl:tb:{token:ab12}');
    const wrong: string[] = [];
    for (let i = 0; i < 10_050; i++) {
      const name = keys.bucket(`ip:10.0.${i >> 8}.${i & 255}`, false);
      if (name !== `p:rl:tb:{ip:10.0.${i >> 8}.${i & 255}}`) wrong.push(name);
    }
    expect(wrong).toEqual([]);
    expect(keys.bucket('token:ab{12}', false)).toBe(first);
    expect(keys.bucket('token:ab{12}', true)).toBe('p:rl:lb:{token:ab12}');
    expect([keys.item('users', 7), keys.itemPrefix('users'), keys.index('users'), keys.sequence('users')]).toEqual([
      'p:{res}:item:users:7',
      'p:{res}:item:users:',
      'p:{res}:idx:users',
      'p:{res}:seq:users',
    ]);
  });

  test('the bucket is stamped with the Redis clock, not the instance clock', async () => {
    const keyPrefix = uniqueKeyPrefix('test');
    const stores = createRedisStores({ url: REDIS_URL, keyPrefix });
    const admin = new Redis(REDIS_URL);
    try {
      const [before] = await admin.time();
      await stores.rateLimits.take('clock', { algorithm: 'token-bucket', capacity: 3, refillPerSecond: 1 });
      const [after] = await admin.time();
      const stamped = Number(await admin.hget(`${keyPrefix}rl:tb:{clock}`, 'u'));
      expect(stamped).toBeGreaterThanOrEqual(Number(before) * 1000);
      expect(stamped).toBeLessThanOrEqual((Number(after) + 1) * 1000);
    } finally {
      admin.disconnect();
      await stores.close();
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    }
  });

  test('two instances on one Redis share resources and idempotency results', async () => {
    const keyPrefix = uniqueKeyPrefix('test');
    const one = createRedisStores({ url: REDIS_URL, keyPrefix });
    const two = createRedisStores({ url: REDIS_URL, keyPrefix });
    try {
      const id = await one.resources.nextId('payments');
      await one.resources.put('payments', { id, amount: 100 });
      expect(await two.resources.get('payments', id)).toEqual({ id, amount: 100 });
      expect(await two.resources.nextId('payments')).toBeGreaterThan(id);
      await one.idempotency.claim('alice:pay', 'fp', 30);
      expect(await two.idempotency.claim('alice:pay', 'fp', 30)).toEqual({ state: 'in-flight' });
      await one.idempotency.complete('alice:pay', 'fp', { status: 201, headers: { location: `/payments/${id}` }, body: { id } }, 60);
      expect(await two.idempotency.claim('alice:pay', 'fp', 30)).toEqual({
        state: 'completed',
        response: { status: 201, headers: { location: `/payments/${id}` }, body: { id } },
      });
    } finally {
      await Promise.all([one.close(), two.close()]);
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    }
  });

  test('with nothing listening, every operation rejects with StoreUnavailableError within 2 s', async () => {
    const port = await closedPort();
    const stores = createRedisStores({ url: `redis://127.0.0.1:${port}`, keyPrefix: uniqueKeyPrefix('test'), commandTimeoutMs: 500 });
    try {
      const durations = await Promise.all(everyOperation(stores).map(([, op]) => timeToFailure(op)));
      for (const ms of durations) expect(ms).toBeLessThan(2_000);
    } finally {
      const closeStart = performance.now();
      await stores.close();
      expect(performance.now() - closeStart).toBeLessThan(1_000);
    }
  });

  test('a Redis that accepts connections but never answers fails within the timeout, not a hang', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const stores = createRedisStores({ url: `redis://127.0.0.1:${port}`, keyPrefix: uniqueKeyPrefix('test'), commandTimeoutMs: 500 });
    try {
      const durations = await Promise.all(everyOperation(stores).map(([, op]) => timeToFailure(op)));
      for (const ms of durations) expect(ms).toBeLessThan(2_000);
    } finally {
      await stores.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('service resumes without a restart when Redis comes back, and a stalled Redis times out', async () => {
    const keyPrefix = uniqueKeyPrefix('test');
    const proxy = new RedisProxy();
    await proxy.start();
    const stores = createRedisStores({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix, commandTimeoutMs: 500 });
    try {
      await stores.resources.put('users', { id: 1, name: 'kept' });

      proxy.stalled = true;
      expect(await timeToFailure(() => stores.resources.get('users', 1))).toBeLessThan(2_000);
      proxy.stalled = false;

      await proxy.stop();
      expect(await timeToFailure(() => stores.resources.get('users', 1))).toBeLessThan(2_000);
      expect(await timeToFailure(() => stores.ping())).toBeLessThan(2_000);

      await proxy.start(proxy.port);
      const back = performance.now();
      let value: unknown;
      while (performance.now() - back < 5_000) {
        value = await stores.resources.get('users', 1).catch((e: unknown) => e);
        if (!(value instanceof StoreUnavailableError)) break;
        await delay(20);
      }
      expect(value).toEqual({ id: 1, name: 'kept' });
      expect(performance.now() - back).toBeLessThan(5_000);
    } finally {
      await stores.close();
      await proxy.stop();
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    }
  });

  test('createStores builds either adapter from configuration', async () => {
    const memory = createStores({ kind: 'memory' });
    await memory.ping();
    await memory.resources.put('authors', { id: 1 });
    expect(await memory.resources.list('authors')).toEqual([{ id: 1 }]);
    await memory.close();
    const keyPrefix = uniqueKeyPrefix('test');
    const redis = createStores({ kind: 'redis', url: REDIS_URL, keyPrefix, commandTimeoutMs: 800 });
    try {
      await redis.ping();
      await redis.resources.put('authors', { id: 1 });
      expect(await redis.resources.list('authors')).toEqual([{ id: 1 }]);
    } finally {
      await redis.close();
      await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
    }
  });
});
