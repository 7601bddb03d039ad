import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { createMemoryStores } from '../stores/memory/index.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import type { Stores } from '../stores/types.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix for one test, so tests never touch each other's (or anyone's) keys. */
export function uniquePrefix(): string {
  return `hac-test:${randomBytes(6).toString('hex')}:`;
}

/** Whether a Redis answers PING at `target` (a URL or connection options) within `connectTimeout` ms. */
export async function redisAnswers(target: string | RedisOptions = REDIS_URL, connectTimeout = 1000): Promise<boolean> {
  const options: RedisOptions = { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout, retryStrategy: () => null };
  const probe = typeof target === 'string' ? new Redis(target, options) : new Redis({ ...target, ...options });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Deletes every key under `prefix` (SCAN, never FLUSHDB). */
export async function deleteKeys(prefix: string): Promise<void> {
  const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await admin.connect();
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
}

/** One adapter under the contract: how to open instances that share one backing store. */
export interface AdapterUnderTest {
  name: 'memory' | 'redis';
  /** Opens a backing store and returns a factory of instances on it (memory: the same object). */
  open(): { instance(): Stores; cleanup(): Promise<void> };
}

export const adapters: AdapterUnderTest[] = [
  {
    name: 'memory',
    open() {
      const stores = createMemoryStores();
      return { instance: () => stores, cleanup: () => stores.close() };
    },
  },
  {
    name: 'redis',
    open() {
      const keyPrefix = uniquePrefix();
      const opened: Stores[] = [];
      return {
        instance() {
          const stores = createRedisStores({ url: REDIS_URL, keyPrefix });
          opened.push(stores);
          return stores;
        },
        async cleanup() {
          await Promise.all(opened.map((s) => s.close()));
          await deleteKeys(keyPrefix);
        },
      };
    },
  },
];

/** Resolves after `ms` milliseconds. */
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `gone` every 10 ms and returns when it first reports true: the start time of that probe and
 * whether some earlier probe saw the value still present (times from performance.now()).
 */
export async function firstTimeGone(gone: () => Promise<boolean>, giveUpMs: number): Promise<{ goneAt: number; seenBefore: boolean }> {
  const start = performance.now();
  let seenBefore = false;
  while (performance.now() - start < giveUpMs) {
    const probeAt = performance.now();
    if (await gone()) return { goneAt: probeAt, seenBefore };
    seenBefore = true;
    await delay(10);
  }
  throw new Error(`still present after ${giveUpMs} ms`);
}
