import { test } from '@playwright/test';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../tools/redis-admin.ts';
import { createMemoryStores } from '../stores/memory/index.ts';
import { createRedisStores } from '../stores/redis/index.ts';
import type { Stores } from '../stores/types.ts';

const REDIS_URL = sharedRedisUrl();

/** One adapter under the contract: how to open instances that share one backing store. */
export interface AdapterUnderTest {
  name: 'memory' | 'redis' | 'redis-cluster';
  /** Opens a backing store and returns a factory of instances on it (memory: the same object). */
  open(): { instance(): Stores; cleanup(): Promise<void> };
}

export type Backing = ReturnType<AdapterUnderTest['open']>;

/**
 * Opens a fresh backing store and a first instance on it before each test of the enclosing describe
 * (waiting until it answers), hands both to `use`, and cleans the backing store up after the test.
 */
export function openStoresPerTest(adapter: AdapterUnderTest, use: (backing: Backing, stores: Stores) => void): void {
  let backing: Backing | undefined;
  test.beforeEach(async () => {
    backing = adapter.open();
    const stores = backing.instance();
    await stores.ping();
    use(backing, stores);
  });
  test.afterEach(async () => {
    await backing?.cleanup();
  });
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
      const keyPrefix = uniqueKeyPrefix('test');
      const opened: Stores[] = [];
      return {
        instance() {
          const stores = createRedisStores({ url: REDIS_URL, keyPrefix });
          opened.push(stores);
          return stores;
        },
        async cleanup() {
          await Promise.all(opened.map((s) => s.close()));
          await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
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
