import { test, expect } from '@playwright/test';
import { sequenced } from '../../stores/sequences.ts';
import { creationMarker, replayNamesItsWork } from '../../stores/replay-check.ts';
import { CREATED_BY } from '../../stores/types.ts';
import type { RateLimitPolicy, StoredResource, StoredResponse, Stores } from '../../stores/types.ts';
import { type AdapterUnderTest, type Backing, delay, firstTimeGone, openStoresPerTest } from '../stores-helpers.ts';

const response: StoredResponse = {
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8', location: '/payments/7' },
  body: { id: 7, amount: 1250, currency: 'eur', nested: { ok: true } },
};
const bucket = (capacity: number, refillPerSecond: number, algorithm: RateLimitPolicy['algorithm'] = 'token-bucket'): RateLimitPolicy => ({
  algorithm,
  capacity,
  refillPerSecond,
});

/**
 * The store contract (stores/types.ts), one suite for every adapter: memory, Redis, and Redis Cluster
 * (redis-cluster.spec.ts). `backing.instance()` opens another instance on the same backing store.
 */
export function describeStoreContract(adapter: AdapterUnderTest): void {
  test.describe(`store contract: ${adapter.name}`, () => {
    let backing: Backing;
    let stores: Stores;
    openStoresPerTest(adapter, (b, s) => {
      backing = b;
      stores = s;
    });
    // D-IDS: the memory store counts 1, 2, 3, …; the Redis adapter's ids also carry its clock
    // (stores/redis/clock-ids.ts), so there they only increase. Both: never reused, gaps allowed.
    const counts = adapter.name === 'memory';
    const ascending = (ids: number[]): void => {
      for (const id of ids) expect(Number.isSafeInteger(id) && id >= 1, `id ${id}`).toBe(true);
      for (let i = 1; i < ids.length; i += 1) expect(ids[i]!).toBeGreaterThan(ids[i - 1]!);
    };

    test.describe('resources', () => {
      test('put, get, overwrite and delete round-trip a resource', async () => {
        await stores.resources.put('users', { id: 1, name: 'alice', tags: ['a'] });
        expect(await stores.resources.get('users', 1)).toEqual({ id: 1, name: 'alice', tags: ['a'] });
        await stores.resources.put('users', { id: 1, name: 'alicia', tags: [] });
        expect(await stores.resources.get('users', 1)).toEqual({ id: 1, name: 'alicia', tags: [] });
        expect(await stores.resources.get('users', 2)).toBeUndefined();
        expect(await stores.resources.get('orders', 1)).toBeUndefined();
        expect(await stores.resources.delete('users', 1)).toBe(true);
        expect(await stores.resources.get('users', 1)).toBeUndefined();
        expect(await stores.resources.delete('users', 1)).toBe(false);
        expect(await stores.resources.list('users')).toEqual([]);
      });

      test('findCreatedBy finds a resource by its creation marker, per kind, and forgets it once deleted', async () => {
        await stores.resources.put('payments', { id: 4, amount: 1, [CREATED_BY]: 'token:a:key-1 POST /payments abc' });
        await stores.resources.put('payments', { id: 5, amount: 2 });
        expect(await stores.resources.findCreatedBy('payments', 'token:a:key-1 POST /payments abc')).toEqual({
          id: 4,
          amount: 1,
          [CREATED_BY]: 'token:a:key-1 POST /payments abc',
        });
        expect(await stores.resources.findCreatedBy('payments', 'token:a:key-2 POST /payments abc')).toBeUndefined();
        expect(await stores.resources.findCreatedBy('orders', 'token:a:key-1 POST /payments abc')).toBeUndefined();
        await stores.resources.delete('payments', 4);
        expect(await stores.resources.findCreatedBy('payments', 'token:a:key-1 POST /payments abc')).toBeUndefined();
      });

      test('ids increase per kind (from 1 on memory) and are never reused, even after a delete', async () => {
        const users = [await stores.resources.nextId('users'), await stores.resources.nextId('users'), await stores.resources.nextId('users')];
        ascending(users);
        if (counts) expect(users).toEqual([1, 2, 3]);
        const order = await stores.resources.nextId('orders');
        if (counts) expect(order).toBe(1);
        await stores.resources.put('users', { id: users[2]! });
        await stores.resources.delete('users', users[2]!);
        const next = await stores.resources.nextId('users');
        expect(next).toBeGreaterThan(users[2]!);
        if (counts) expect(next).toBe(4);
      });

      test('reserveIds raises the sequence and never lowers it', async () => {
        await stores.resources.reserveIds('authors', 10);
        const first = await stores.resources.nextId('authors');
        expect(first).toBeGreaterThan(10);
        await stores.resources.reserveIds('authors', 5);
        await stores.resources.reserveIds('authors', first);
        const second = await stores.resources.nextId('authors');
        expect(second).toBeGreaterThan(first);
        if (counts) expect([first, second]).toEqual([11, 12]);
      });

      test('100 concurrent nextId calls return 100 distinct ids (1..100 on memory)', async () => {
        const ids = await Promise.all(Array.from({ length: 100 }, () => stores.resources.nextId('comments')));
        const sorted = [...ids].sort((a, b) => a - b);
        ascending(sorted);
        if (counts) expect(sorted).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      });

      test('list returns every resource of the kind in ascending id order', async () => {
        for (const id of [5, 2, 9, 12, 1]) await stores.resources.put('posts', { id, title: `p${id}` });
        await stores.resources.put('authors', { id: 3 });
        const posts = await stores.resources.list('posts');
        expect(posts.map((p) => p.id)).toEqual([1, 2, 5, 9, 12]);
        expect(posts[2]).toEqual({ id: 5, title: 'p5' });
        await stores.resources.delete('posts', 9);
        expect((await stores.resources.list('posts')).map((p) => p.id)).toEqual([1, 2, 5, 12]);
      });

      test('callers get copies: mutating a returned or stored object changes nothing stored', async () => {
        const original = { id: 1, name: 'x', nested: { n: 1 } };
        await stores.resources.put('users', original);
        original.nested.n = 99;
        const read = await stores.resources.get('users', 1);
        expect(read).toEqual({ id: 1, name: 'x', nested: { n: 1 } });
        (read!.nested as { n: number }).n = 42;
        (await stores.resources.list('users'))[0]!.name = 'changed';
        expect(await stores.resources.get('users', 1)).toEqual({ id: 1, name: 'x', nested: { n: 1 } });
      });

      test('resources are stored as JSON: undefined members are dropped the same way in both adapters', async () => {
        await stores.resources.put('users', { id: 1, name: 'x', bio: undefined, list: [1, 'two', null] });
        const read = await stores.resources.get('users', 1);
        expect(read).toStrictEqual({ id: 1, name: 'x', list: [1, 'two', null] });
        expect(Object.keys(read!)).toEqual(['id', 'name', 'list']);
      });

      test('update applies the change and returns what is stored; undefined leaves it unchanged', async () => {
        await stores.resources.put('orders', { id: 4, status: 'pending' });
        const paid = await stores.resources.update('orders', 4, (o) => ({ ...o, status: 'paid' }));
        expect(paid).toEqual({ id: 4, status: 'paid' });
        const same = await stores.resources.update('orders', 4, () => undefined);
        expect(same).toEqual({ id: 4, status: 'paid' });
        expect(await stores.resources.get('orders', 4)).toEqual({ id: 4, status: 'paid' });
        expect(await stores.resources.update('orders', 5, (o) => ({ ...o, status: 'x' }))).toBeUndefined();
        expect(await stores.resources.get('orders', 5)).toBeUndefined();
      });

      test('50 concurrent increments through update lose no write', async () => {
        await stores.resources.put('users', { id: 1, version: 0 });
        const second = adapter.name !== 'memory' ? backing.instance() : stores;
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 === 0 ? stores : second).resources.update('users', 1, (u) => ({ ...u, version: (u.version as number) + 1 })),
          ),
        );
        expect((await stores.resources.get('users', 1))?.version).toBe(50);
        expect(results.map((r) => r?.version).sort((a, b) => (a as number) - (b as number))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      });
    });

    test.describe('idempotency', () => {
      test('claim, then in-flight for a repeat, then complete, then replay of the stored result', async () => {
        expect(await stores.idempotency.claim('alice:k1', 'fp-a', 30)).toEqual({ state: 'claimed' });
        expect(await stores.idempotency.claim('alice:k1', 'fp-a', 30)).toEqual({ state: 'in-flight' });
        await stores.idempotency.complete('alice:k1', 'fp-a', response, 60);
        expect(await stores.idempotency.claim('alice:k1', 'fp-a', 30)).toEqual({ state: 'completed', response });
        expect(await stores.idempotency.claim('alice:k1', 'fp-a', 30)).toEqual({ state: 'completed', response });
      });

      test('another fingerprint under a used key is a mismatch, in flight or completed', async () => {
        await stores.idempotency.claim('k', 'fp-a', 30);
        expect(await stores.idempotency.claim('k', 'fp-b', 30)).toEqual({ state: 'mismatch' });
        await stores.idempotency.complete('k', 'fp-a', response, 60);
        expect(await stores.idempotency.claim('k', 'fp-b', 30)).toEqual({ state: 'mismatch' });
        expect(await stores.idempotency.claim('k', 'fp-a', 30)).toMatchObject({ state: 'completed' });
      });

      test('keys are independent of each other', async () => {
        await stores.idempotency.claim('alice:k', 'fp', 30);
        expect(await stores.idempotency.claim('bob:k', 'fp', 30)).toEqual({ state: 'claimed' });
      });

      test('release frees our claim so a retry runs the work, but never frees another fingerprint', async () => {
        await stores.idempotency.claim('k', 'fp-a', 30);
        await stores.idempotency.release('k', 'fp-b');
        expect(await stores.idempotency.claim('k', 'fp-a', 30)).toEqual({ state: 'in-flight' });
        await stores.idempotency.release('k', 'fp-a');
        expect(await stores.idempotency.claim('k', 'fp-a', 30)).toEqual({ state: 'claimed' });
      });

      test('release does not delete a completed result, and complete never overwrites another request', async () => {
        await stores.idempotency.claim('k', 'fp-a', 30);
        await stores.idempotency.complete('k', 'fp-a', response, 60);
        await stores.idempotency.release('k', 'fp-a');
        expect(await stores.idempotency.claim('k', 'fp-a', 30)).toEqual({ state: 'completed', response });
        await stores.idempotency.complete('k', 'fp-b', { status: 500, headers: {}, body: null }, 60);
        expect(await stores.idempotency.claim('k', 'fp-a', 30)).toEqual({ state: 'completed', response });
      });

      test('50 concurrent claims of one key yield exactly one claimed', async () => {
        const second = adapter.name !== 'memory' ? backing.instance() : stores;
        const claims = await Promise.all(
          Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? stores : second).idempotency.claim('race', 'fp', 30)),
        );
        expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
        expect(claims.filter((c) => c.state === 'in-flight')).toHaveLength(49);
      });

      test('an abandoned claim expires after the lock time', async () => {
        const lockMs = 300;
        const before = performance.now();
        await stores.idempotency.claim('lock', 'fp', lockMs / 1000);
        const after = performance.now();
        const { goneAt, seenBefore } = await firstTimeGone(async () => (await stores.idempotency.claim('lock', 'fp', 30)).state === 'claimed', 5_000);
        expect(seenBefore).toBe(true);
        expect(goneAt).toBeGreaterThanOrEqual(before + lockMs - 15);
        expect(goneAt).toBeLessThanOrEqual(after + lockMs + 2_000);
      });

      test('a completed result is kept for its retention time, then forgotten', async () => {
        const ttlMs = 400;
        await stores.idempotency.claim('ttl', 'fp', 30);
        const before = performance.now();
        await stores.idempotency.complete('ttl', 'fp', response, ttlMs / 1000);
        const after = performance.now();
        const { goneAt, seenBefore } = await firstTimeGone(async () => (await stores.idempotency.claim('ttl', 'fp', 30)).state === 'claimed', 5_000);
        expect(seenBefore).toBe(true);
        expect(goneAt).toBeGreaterThanOrEqual(before + ttlMs - 15);
        expect(goneAt).toBeLessThanOrEqual(after + ttlMs + 2_000);
      });
    });

    test.describe('rate limits', () => {
      test(`200 concurrent takes on a fresh bucket of capacity 50 admit exactly 50${adapter.name !== 'memory' ? ' across two instances' : ''}`, async () => {
        const second = adapter.name !== 'memory' ? backing.instance() : stores;
        await second.ping();
        const policy = bucket(50, 0.01);
        const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? stores : second).rateLimits.take('burst', policy)));
        expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
        const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((a, b) => a - b);
        expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => i));
        for (const d of decisions.filter((x) => !x.allowed)) {
          expect(d).toMatchObject({ limit: 50, remaining: 0 });
          expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        }
      });

      test('remaining falls by one per take and the limit is the capacity', async () => {
        const policy = bucket(20, 0.01);
        const seen: number[] = [];
        for (let i = 0; i < 5; i += 1) {
          const d = await stores.rateLimits.take('steady', policy);
          expect(d).toMatchObject({ allowed: true, limit: 20, retryAfterSeconds: 0 });
          seen.push(d.remaining);
        }
        expect(seen).toEqual([19, 18, 17, 16, 15]);
      });

      test('buckets of different keys are independent', async () => {
        const policy = bucket(1, 0.01);
        expect((await stores.rateLimits.take('a', policy)).allowed).toBe(true);
        expect((await stores.rateLimits.take('a', policy)).allowed).toBe(false);
        expect((await stores.rateLimits.take('b', policy)).allowed).toBe(true);
      });

      test('an emptied bucket refills at its rate over real time', async () => {
        const rate = 20;
        const policy = bucket(10, rate);
        const drainStart = performance.now();
        const drain = await Promise.all(Array.from({ length: 12 }, () => stores.rateLimits.take('refill', policy)));
        const drainEnd = performance.now();
        expect(drain.filter((d) => d.allowed).length).toBeGreaterThanOrEqual(10);
        for (const rejected of drain.filter((d) => !d.allowed)) expect(rejected.resetSeconds).toBe(1);
        await delay(300);
        const burstStart = performance.now();
        const burst = await Promise.all(Array.from({ length: 10 }, () => stores.rateLimits.take('refill', policy)));
        const burstEnd = performance.now();
        const admitted = burst.filter((d) => d.allowed).length;
        // Tokens gained between the end of the drain and the burst, ±5 ms of clock disagreement.
        const fewest = Math.floor(((burstStart - drainEnd - 5) * rate) / 1000);
        const most = Math.ceil(((burstEnd - drainStart + 5) * rate) / 1000);
        expect(admitted).toBeGreaterThanOrEqual(Math.max(0, fewest - 1));
        expect(admitted).toBeLessThanOrEqual(most);
        expect(admitted).toBeGreaterThan(0);
      });

      test('a request sent Retry-After seconds after a rejection is admitted', async () => {
        const policy = bucket(1, 0.5);
        expect((await stores.rateLimits.take('honest', policy)).allowed).toBe(true);
        const rejected = await stores.rateLimits.take('honest', policy);
        expect(rejected.allowed).toBe(false);
        expect(rejected.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(rejected.retryAfterSeconds).toBeLessThanOrEqual(2);
        await delay(rejected.retryAfterSeconds * 1000);
        expect((await stores.rateLimits.take('honest', policy)).allowed).toBe(true);
      });

      test('the leaky bucket queues a burst up to capacity and spaces it at the rate', async () => {
        const policy = bucket(4, 10, 'leaky-bucket');
        const start = performance.now();
        const decisions = await Promise.all(Array.from({ length: 7 }, () => stores.rateLimits.take('leaky', policy)));
        // Arrivals spread over at most the burst's duration; each one waits 100 ms less that spread.
        const spread = performance.now() - start;
        const admitted = decisions.filter((d) => d.allowed);
        // While the arrivals spread (a loaded machine, the first connection to a cluster node), the
        // queue drains one request per 100 ms, and exactly that many more may be admitted.
        expect(admitted.length).toBeGreaterThanOrEqual(4);
        expect(admitted.length).toBeLessThanOrEqual(4 + Math.floor(spread / 100));
        const delays = admitted.map((d) => d.delayMs!).sort((a, b) => a - b);
        expect(delays[0]).toBe(0);
        for (let i = 1; i < delays.length; i += 1) {
          expect(delays[i]! - delays[i - 1]!).toBeGreaterThanOrEqual(100 - spread - 1);
          expect(delays[i]! - delays[i - 1]!).toBeLessThanOrEqual(100 + 1);
        }
        expect(delays[3]).toBeGreaterThanOrEqual(300 - spread - 1);
        for (const d of decisions.filter((x) => !x.allowed)) expect(d).toMatchObject({ limit: 4, remaining: 0, retryAfterSeconds: 1 });
      });
    });

    test.describe('request operations (types.ts RequestOperations): the result of the sub-store calls they stand for', () => {
      const TOKEN = 'token:0a1b2c';
      /** A payment and its transfer, as POST /payments builds them. */
      const paymentCreation = (marker: string, complete?: { key: string; fingerprint: string; ttlSeconds: number }) => ({
        kinds: ['payments', 'transfers'] as const,
        marker: { kind: 'payments' as const, value: marker },
        build([paymentId = 0, transferId = 0]: readonly number[]) {
          const payment: StoredResource = { id: paymentId, transferId, amount: 1250, note: `see /transfers/${transferId}`, [CREATED_BY]: marker };
          const transfer: StoredResource = { id: transferId, paymentId, amount: 1250 };
          return {
            entries: [['transfers', transfer] as const, ['payments', payment] as const],
            response: { status: 201, headers: { location: `/payments/${paymentId}` }, body: { id: paymentId, transfer: `/transfers/${transferId}` } },
          };
        },
        ...(complete === undefined ? {} : { complete }),
      });

      test('takeAndGet takes one token and reads the resource; a rejected take reads nothing', async () => {
        await stores.resources.put('users', { id: 3, name: 'cy' });
        const policy = bucket(2, 0.001);
        const first = await stores.takeAndGet(TOKEN, policy, { kind: 'users', id: 3 });
        expect(first).toEqual({ decision: expect.objectContaining({ allowed: true, remaining: 1 }), resource: { id: 3, name: 'cy' } });
        const absent = await stores.takeAndGet(TOKEN, policy, { kind: 'users', id: 4 });
        expect(absent.decision).toMatchObject({ allowed: true, remaining: 0 });
        expect(absent.resource).toBeUndefined();
        const rejected = await stores.takeAndGet(TOKEN, policy, { kind: 'users', id: 3 });
        expect(rejected.decision).toMatchObject({ allowed: false, retryAfterSeconds: expect.any(Number) });
        expect(rejected.resource).toBeUndefined();
      });

      test('create allocates ids, writes the records with their marker and completes the key with the response', async () => {
        await stores.resources.reserveIds('payments', 41);
        const key = `${TOKEN}:create`;
        await stores.idempotency.claim(key, 'fp', 30);
        const outcome = await stores.create(paymentCreation('m-1', { key, fingerprint: 'fp', ttlSeconds: 60 }));
        if (!outcome.created) throw new Error('nothing was created');
        const [p = 0, t = 0] = outcome.ids;
        expect(p).toBeGreaterThan(41);
        expect(t).toBeGreaterThanOrEqual(1);
        if (counts) expect(outcome.ids).toEqual([42, 1]);
        const payment = { id: p, transferId: t, amount: 1250, note: `see /transfers/${t}`, [CREATED_BY]: 'm-1' };
        expect(await stores.resources.get('payments', p)).toEqual(payment);
        expect(await stores.resources.get('transfers', t)).toEqual({ id: t, paymentId: p, amount: 1250 });
        expect(await stores.resources.list('payments')).toEqual([payment]);
        expect(await stores.resources.findCreatedBy('payments', 'm-1')).toEqual(payment);
        const recorded = { status: 201, headers: { location: `/payments/${p}` }, body: { id: p, transfer: `/transfers/${t}` } };
        expect(outcome.response).toEqual(recorded);
        expect(await stores.idempotency.claim(key, 'fp', 30)).toEqual({ state: 'completed', response: recorded });
        expect(await stores.resources.nextId('payments')).toBeGreaterThan(p);
      });

      test('create returns what an earlier attempt created under the same marker, and creates nothing', async () => {
        const first = await stores.create(paymentCreation('m-2'));
        const again = await stores.create(paymentCreation('m-2'));
        expect(first.created).toBe(true);
        expect(again).toEqual({ created: false, existing: expect.objectContaining({ id: first.created ? first.ids[0] : 0, [CREATED_BY]: 'm-2' }) });
        expect(await stores.resources.list('payments')).toHaveLength(1);
        expect(await stores.resources.list('transfers')).toHaveLength(1);
      });

      test('a replay names its own work only: not once the resource is gone (rollback), nor when its id holds another key\'s resource', async () => {
        const key = `${TOKEN}:replay-check`;
        const marker = creationMarker(key, 'fp');
        await stores.idempotency.claim(key, 'fp', 30);
        const outcome = await stores.create(paymentCreation(marker, { key, fingerprint: 'fp', ttlSeconds: 60 }));
        if (!outcome.created) throw new Error('nothing was created');
        const claim = await stores.idempotency.claim(key, 'fp', 30);
        if (claim.state !== 'completed') throw new Error(`the key is ${claim.state}`);
        expect(await replayNamesItsWork(stores.resources, marker, claim.response)).toBe(true);
        // Another key's request never gets this receipt, even with the same fingerprint.
        expect(await replayNamesItsWork(stores.resources, creationMarker(`${TOKEN}:other`, 'fp'), claim.response)).toBe(false);
        // A rollback: the record survived, the payment did not (a replica that was behind was promoted).
        const payment = await stores.resources.get('payments', outcome.ids[0]!);
        await stores.resources.delete('payments', outcome.ids[0]!);
        expect(await replayNamesItsWork(stores.resources, marker, claim.response)).toBe(false);
        // Then the id was handed out again, to another key's payment.
        await stores.resources.put('payments', { ...payment!, [CREATED_BY]: creationMarker(`${TOKEN}:thief`, 'fp2') });
        expect(await replayNamesItsWork(stores.resources, marker, claim.response)).toBe(false);
        // A stored answer that names no resource (a 4xx, a 200) is replayed as it is.
        expect(await replayNamesItsWork(stores.resources, marker, { status: 422, headers: {}, body: null })).toBe(true);
      });

      test('a decorated sub-store is used through sequenced, never bypassed', async () => {
        await stores.resources.put('users', { id: 5 });
        const seen: string[] = [];
        const decorated: Stores = sequenced({
          ...stores,
          rateLimits: { take: async (key, policy) => (seen.push(key), stores.rateLimits.take(key, policy)) },
          resources: { ...stores.resources, putAll: async (entries) => (seen.push(`putAll ${entries.length}`), stores.resources.putAll(entries)) },
        });
        await decorated.takeAndGet(TOKEN, bucket(5, 1), { kind: 'users', id: 5 });
        await decorated.create(paymentCreation('m-3'));
        expect(seen).toEqual([TOKEN, 'putAll 2']);
      });
    });
  });
}
