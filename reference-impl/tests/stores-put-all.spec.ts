import { test, expect } from '@playwright/test';
import { Redis } from 'ioredis';
import { createMemoryStores } from '../stores/memory/index.ts';
import { CREATED_BY } from '../stores/types.ts';
import type { ResourceStore, Stores } from '../stores/types.ts';
import { adapters, type Backing, openStoresPerTest } from './stores-helpers.ts';

for (const adapter of adapters) {
  test.describe(`store contract putAll: ${adapter.name}`, () => {
    let backing: Backing;
    let stores: Stores;
    openStoresPerTest(adapter, (b, s) => {
      backing = b;
      stores = s;
    });

    test('putAll stores every entry under its kind, lists them in id order and indexes their markers', async () => {
      await stores.resources.putAll([
        ['transfers', { id: 3, paymentId: 9, amount: 100 }],
        ['payments', { id: 9, transferId: 3, amount: 100, [CREATED_BY]: 'token:a:k POST /payments x' }],
        ['payments', { id: 2, transferId: 1, amount: 5 }],
      ]);
      expect(await stores.resources.get('transfers', 3)).toEqual({ id: 3, paymentId: 9, amount: 100 });
      expect((await stores.resources.list('payments')).map((p) => p.id)).toEqual([2, 9]);
      expect(await stores.resources.list('transfers')).toHaveLength(1);
      expect((await stores.resources.findCreatedBy('payments', 'token:a:k POST /payments x'))?.id).toBe(9);
      expect(await stores.resources.findCreatedBy('transfers', 'token:a:k POST /payments x')).toBeUndefined();
    });

    test('putAll overwrites like put, drops undefined members and hands out copies', async () => {
      await stores.resources.put('users', { id: 1, name: 'alice' });
      await stores.resources.putAll([['users', { id: 1, name: 'alicia', bio: undefined, tags: ['a'] }]]);
      const read = await stores.resources.get('users', 1);
      expect(read).toEqual({ id: 1, name: 'alicia', tags: ['a'] });
      expect(read !== undefined && Object.hasOwn(read, 'bio')).toBe(false);
      (read?.tags as string[]).push('mutated');
      expect(await stores.resources.get('users', 1)).toEqual({ id: 1, name: 'alicia', tags: ['a'] });
    });

    test('putAll of no entries resolves and stores nothing', async () => {
      await stores.resources.putAll([]);
      expect(await stores.resources.list('payments')).toEqual([]);
    });

    test('a second instance on the same backing store reads what putAll wrote', async () => {
      const other = backing.instance();
      await stores.resources.putAll([
        ['transfers', { id: 1, paymentId: 1 }],
        ['payments', { id: 1, transferId: 1 }],
      ]);
      expect(await other.resources.get('payments', 1)).toEqual({ id: 1, transferId: 1 });
      expect(await other.resources.get('transfers', 1)).toEqual({ id: 1, paymentId: 1 });
    });
  });
}

test('the redis adapter writes all entries of putAll with one atomic script command', async () => {
  const redis = adapters.find((adapter) => adapter.name === 'redis');
  if (!redis) throw new Error('no redis adapter');
  const backing = redis.open();
  const stores = backing.instance();
  const sent: string[] = [];
  const original = Redis.prototype.sendCommand;
  try {
    await stores.ping();
    Redis.prototype.sendCommand = function spied(this: Redis, ...args: Parameters<Redis['sendCommand']>) {
      sent.push(String(args[0]?.name).toLowerCase());
      return original.apply(this, args);
    };
    await stores.resources.putAll([
      ['transfers', { id: 4, paymentId: 8 }],
      ['payments', { id: 8, transferId: 4, [CREATED_BY]: 'marker' }],
    ]);
    Redis.prototype.sendCommand = original;
    expect(sent.filter((name) => name !== 'eval')).toEqual(['evalsha']);
    expect(await stores.resources.findCreatedBy('payments', 'marker')).toEqual({ id: 8, transferId: 4, [CREATED_BY]: 'marker' });
  } finally {
    Redis.prototype.sendCommand = original;
    await backing.cleanup();
  }
});

test('the memory adapter runs putAll through put, so a store decorated by overriding put sees every write', async () => {
  const inner = createMemoryStores().resources;
  const seen: string[] = [];
  const decorated: ResourceStore = {
    ...inner,
    async put(kind, resource) {
      seen.push(`${kind}/${resource.id}`);
      if (kind === 'payments') throw new Error('refused');
      return inner.put(kind, resource);
    },
  };
  await expect(
    decorated.putAll([
      ['transfers', { id: 1 }],
      ['payments', { id: 1 }],
    ]),
  ).rejects.toThrow('refused');
  expect(seen).toEqual(['transfers/1', 'payments/1']);
  expect(await inner.get('transfers', 1)).toEqual({ id: 1 });
  expect(await inner.get('payments', 1)).toBeUndefined();
});
