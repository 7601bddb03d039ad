import { test, expect } from '@playwright/test';
import { createMemoryStores } from '../stores/memory/index.ts';
import type { RateLimitPolicy } from '../stores/types.ts';

/** A memory store on a clock the test moves by hand. */
function storesAt(startMs = 1_700_000_000_000) {
  let now = startMs;
  const stores = createMemoryStores({ clock: () => now });
  return { stores, advance: (ms: number) => void (now += ms) };
}

const tokenBucket = (capacity: number, refillPerSecond: number): RateLimitPolicy => ({ algorithm: 'token-bucket', capacity, refillPerSecond });

test.describe('memory adapter with an injected clock', () => {
  test('an in-flight claim is held for exactly lockSeconds', async () => {
    const { stores, advance } = storesAt();
    await stores.idempotency.claim('k', 'fp', 30);
    advance(29_999);
    expect(await stores.idempotency.claim('k', 'fp', 30)).toEqual({ state: 'in-flight' });
    advance(1);
    expect(await stores.idempotency.claim('k', 'fp', 30)).toEqual({ state: 'claimed' });
  });

  test('a completed result is replayed for exactly ttlSeconds, counted from completion', async () => {
    const { stores, advance } = storesAt();
    await stores.idempotency.claim('k', 'fp', 30);
    advance(10_000);
    await stores.idempotency.complete('k', 'fp', { status: 201, headers: {}, body: { id: 1 } }, 86_400);
    advance(86_399_999);
    expect(await stores.idempotency.claim('k', 'fp', 30)).toMatchObject({ state: 'completed' });
    advance(1);
    expect(await stores.idempotency.claim('k', 'fp', 30)).toEqual({ state: 'claimed' });
  });

  test('a replayed response is a copy the caller cannot corrupt', async () => {
    const { stores } = storesAt();
    await stores.idempotency.claim('k', 'fp', 30);
    const body = { id: 1 };
    await stores.idempotency.complete('k', 'fp', { status: 201, headers: {}, body }, 60);
    body.id = 2;
    const first = await stores.idempotency.claim('k', 'fp', 30);
    if (first.state !== 'completed') throw new Error(`expected completed, got ${first.state}`);
    (first.response.body as { id: number }).id = 3;
    expect(await stores.idempotency.claim('k', 'fp', 30)).toEqual({ state: 'completed', response: { status: 201, headers: {}, body: { id: 1 } } });
  });

  test('resources under any number as id: far, negative and fractional ids beside the dense ones, listed in id order', async () => {
    const { stores } = storesAt();
    const ids = [3, 1, 5000, -2, 1.5, 2, 2 ** 40, 1030];
    for (const id of ids) await stores.resources.put('users', { id, name: `u${id}` });
    await stores.resources.put('users', { id: 5000, name: 'again' });
    expect((await stores.resources.list('users')).map((user) => user.id)).toEqual([...ids].sort((a, b) => a - b));
    expect(await stores.resources.get('users', 5000)).toEqual({ id: 5000, name: 'again' });
    expect(await stores.resources.get('users', 1.5)).toEqual({ id: 1.5, name: 'u1.5' });
    expect(await stores.resources.get('users', 4)).toBeUndefined();
    expect(await stores.resources.delete('users', 5000)).toBe(true);
    expect(await stores.resources.delete('users', 5000)).toBe(false);
    expect(await stores.resources.delete('users', 4)).toBe(false);
    expect(await stores.resources.get('users', 5000)).toBeUndefined();
    expect((await stores.resources.list('users')).length).toBe(ids.length - 1);
  });

  test('an id first stored far ahead of the others and written again once they reach it is listed once, with its last value', async () => {
    const { stores } = storesAt();
    await stores.resources.put('orders', { id: 1500, v: 1 });
    for (let id = 1; id <= 600; id += 1) await stores.resources.put('orders', { id });
    await stores.resources.put('orders', { id: 1500, v: 2 });
    const listed = await stores.resources.list('orders');
    expect(listed.filter((order) => order.id === 1500)).toEqual([{ id: 1500, v: 2 }]);
    expect(listed.length).toBe(601);
    expect(await stores.resources.delete('orders', 1500)).toBe(true);
    expect(await stores.resources.get('orders', 1500)).toBeUndefined();
  });

  test('the bucket refills on the injected clock: 2 tokens/s give one token per 500 ms', async () => {
    const { stores, advance } = storesAt();
    const policy = tokenBucket(10, 2);
    for (let i = 0; i < 10; i += 1) expect((await stores.rateLimits.take('c', policy)).allowed).toBe(true);
    const rejected = await stores.rateLimits.take('c', policy);
    expect(rejected).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1, resetSeconds: 5 });
    advance(499);
    expect((await stores.rateLimits.take('c', policy)).allowed).toBe(false);
    advance(1);
    expect(await stores.rateLimits.take('c', policy)).toMatchObject({ allowed: true, remaining: 0 });
  });

  test('an idle bucket is forgotten once full, and a later caller starts from a full bucket', async () => {
    const { stores, advance } = storesAt();
    const policy = tokenBucket(3, 1);
    for (let i = 0; i < 3; i += 1) await stores.rateLimits.take('idle', policy);
    advance(3_000);
    const decisions = await Promise.all(Array.from({ length: 4 }, () => stores.rateLimits.take('idle', policy)));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });

  test('the leaky bucket serves a burst one request per 1/rate on the injected clock', async () => {
    const { stores, advance } = storesAt();
    const policy: RateLimitPolicy = { algorithm: 'leaky-bucket', capacity: 3, refillPerSecond: 4 };
    const burst = await Promise.all(Array.from({ length: 4 }, () => stores.rateLimits.take('q', policy)));
    expect(burst.map((d) => [d.allowed, d.delayMs])).toEqual([[true, 0], [true, 250], [true, 500], [false, undefined]]);
    advance(250);
    expect(await stores.rateLimits.take('q', policy)).toMatchObject({ allowed: true, delayMs: 500, remaining: 0 });
  });
});
