/**
 * The Redis path's two savings (reference-impl/README.md, Hot paths): batching the calls of one
 * event-loop turn into one script (stores/redis/batcher.ts, token-takes.ts, combined.ts CREATE) and the
 * denial window (D-RATE-LIMIT, stores/redis/denials.ts). Both must change nothing a client sees.
 */
import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { takeToken } from '../rate-limit/token-bucket.ts';
import type { TokenBucketState } from '../rate-limit/token-bucket.ts';
import { Batcher, CallFailed } from '../stores/redis/batcher.ts';
import { createRedisCombined } from '../stores/redis/combined.ts';
import { connectRedis } from '../stores/redis/connection.ts';
import type { RedisConnection } from '../stores/redis/connection.ts';
import { CLOCK_RATE_MARGIN, Denials, MAX_ENTRIES, MAX_WINDOW_MS } from '../stores/redis/denials.ts';
import { redisKeys } from '../stores/redis/keys.ts';
import { TOKEN_BUCKET_BATCH } from '../stores/redis/rate-limit-scripts.ts';
import { createTokenTakes } from '../stores/redis/token-takes.ts';
import { CREATED_BY } from '../stores/types.ts';
import type { RateLimitPolicy } from '../stores/types.ts';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../tools/redis-admin.ts';

const REDIS_URL = sharedRedisUrl();
const POLICY: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 1, refillPerSecond: 0.5 };

test.describe('Batcher: the calls of one event-loop turn in one send', () => {
  test('calls added in one turn go out in one send, in order, each answered with its own result', async () => {
    const sends: number[][] = [];
    const batcher = new Batcher<number, string>(async (calls) => {
      sends.push(calls);
      return calls.map((n) => `r${n}`);
    });
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.add(n)));
    expect(results).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(sends).toEqual([[1, 2, 3, 4, 5]]);
    // A call of a later turn is a send of its own.
    expect(await batcher.add(6)).toBe('r6');
    expect(sends).toEqual([[1, 2, 3, 4, 5], [6]]);
  });

  test('a turn larger than the batch size is sent in chunks of at most that size', async () => {
    const sizes: number[] = [];
    const batcher = new Batcher<number, number>(async (calls) => {
      sizes.push(calls.length);
      return calls;
    }, 4);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.add(i)));
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(sizes).toEqual([4, 4, 2]);
  });

  test('a failed send, a synchronous throw or a wrong number of results fails every call of that send, and only those', async () => {
    const failing = new Batcher<number, number>(async () => {
      throw new Error('store down');
    });
    const outcomes = await Promise.allSettled([failing.add(1), failing.add(2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    const throwing = new Batcher<number, number>(() => {
      throw new Error('bug');
    });
    await expect(throwing.add(1)).rejects.toThrow('bug');
    const short = new Batcher<number, number>(async (calls) => calls.slice(1));
    await expect(short.add(1)).rejects.toThrow(/answered with 0 results/);
    let send = 0;
    const second = new Batcher<number, number>(async (calls) => {
      send += 1;
      if (send === 1) throw new Error('first chunk fails');
      return calls;
    }, 2);
    const mixed = await Promise.allSettled([1, 2, 3].map((n) => second.add(n)));
    expect(mixed.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    const one = new Batcher<number, number>(async (calls) => calls.map((n) => (n === 2 ? new CallFailed(new Error('cannot encode 2')) : n)));
    const alone = await Promise.allSettled([1, 2, 3].map((n) => one.add(n)));
    expect(alone.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});

test.describe('Denials: the 429s an instance answers without asking Redis (D-RATE-LIMIT, denial window)', () => {
  /** The bucket Redis holds at time `t` when it rejected at `scriptAt` with `available` tokens. */
  const truth = (available: number, scriptAt: number): TokenBucketState => ({ tokens: available, updatedAtMs: scriptAt });

  test('inside the window: a 429 never given when Redis would admit, and Retry-After never earlier than the truth (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0.001, max: 1000, noNaN: true, noDefaultInfinity: true }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1.2, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (capacity, refillPerSecond, available, rttMs, scriptShare, laterShares) => {
          const policy: RateLimitPolicy = { algorithm: 'token-bucket', capacity, refillPerSecond };
          let now = 1_000;
          const denials = new Denials(() => now);
          const sentAt = 1_000;
          const receivedAt = sentAt + rttMs;
          const scriptAt = sentAt + rttMs * scriptShare;
          denials.remember('b', policy, false, available, sentAt, receivedAt);
          const emptyMs = ((1 - available) * 1000) / refillPerSecond;
          for (const share of laterShares) {
            now = receivedAt + share * Math.min(emptyMs, MAX_WINDOW_MS * 1.5);
            const local = denials.decision('b', policy);
            const actual = takeToken(truth(available, scriptAt), policy, now).decision;
            if (local === undefined) continue;
            // Redis would reject too, with the same Remaining and a Retry-After no earlier. (Plain checks:
            // Playwright's expect records a stack per call, minutes over the property's ~10,000 moments.)
            const honest =
              !actual.allowed &&
              !local.allowed &&
              local.remaining === 0 &&
              local.limit === capacity &&
              local.retryAfterSeconds >= actual.retryAfterSeconds &&
              local.resetSeconds >= actual.resetSeconds;
            if (!honest) throw new Error(`at ${now}: local ${JSON.stringify(local)} against Redis ${JSON.stringify(actual)}`);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  test('the window ends where a token may exist (less the margins), at most MAX_WINDOW_MS; then Redis decides', () => {
    let now = 0;
    const denials = new Denials(() => now);
    denials.remember('b', POLICY, false, 0.5, 0, 2);
    // (1 - 0.5) / 0.5 per second = 1000 ms, less 0.1 % and 1 ms, from when the script was sent.
    const until = 1000 * (1 - CLOCK_RATE_MARGIN) - 1;
    now = until - 0.01;
    expect(denials.decision('b', POLICY)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    now = until;
    expect(denials.decision('b', POLICY)).toBeUndefined();
    expect(denials.size).toBe(0);

    const slow: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 1, refillPerSecond: 0.001 };
    denials.remember('s', slow, false, 0, now, now);
    now += MAX_WINDOW_MS - 1;
    expect(denials.decision('s', slow)?.retryAfterSeconds).toBe(996);
    now += 1;
    expect(denials.decision('s', slow)).toBeUndefined();
  });

  test('an admission, another policy, a reply without tokens or a full table opens or keeps no window', () => {
    const now = 0;
    const denials = new Denials(() => now);
    denials.remember('b', POLICY, false, 0, 0, 0);
    expect(denials.decision('b', { ...POLICY, capacity: 2 })).toBeUndefined();
    denials.remember('b', POLICY, false, 0, 0, 0);
    denials.remember('b', POLICY, true, 0, 0, 0);
    expect(denials.decision('b', POLICY)).toBeUndefined();
    denials.remember('b', POLICY, false, Number.NaN, 0, 0);
    expect(denials.size).toBe(0);
    for (let i = 0; i < MAX_ENTRIES + 10; i++) denials.remember(`k${i}`, POLICY, false, 0, 0, 0);
    expect(denials.size).toBe(MAX_ENTRIES);
  });
});

test.describe('on Redis', () => {
  const prefix = uniqueKeyPrefix('test', 'batching');
  let connection: RedisConnection;
  let redis: Redis;
  test.beforeAll(() => {
    connection = connectRedis({ url: REDIS_URL, commandTimeoutMs: 5000 });
    redis = new Redis(REDIS_URL);
  });
  test.afterAll(async () => {
    await connection.close();
    redis.disconnect();
    await deleteKeysWithPrefix(prefix, REDIS_URL);
  });

  /** The connection, counting the scripts sent through it. */
  function counting(): { connection: RedisConnection; scripts: () => number } {
    let scripts = 0;
    return {
      connection: {
        ...connection,
        script: (...args: Parameters<RedisConnection['script']>) => {
          scripts += 1;
          return connection.script(...args);
        },
      },
      scripts: () => scripts,
    };
  }

  test('takes started in one turn are one script that admits exactly the capacity, in arrival order', async () => {
    const counted = counting();
    const takes = createTokenTakes(counted.connection, redisKeys(`${prefix}order:`));
    const policy: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 7, refillPerSecond: 0.001 };
    const decisions = await Promise.all(Array.from({ length: 20 }, () => takes.take('ip:10.0.0.1', policy)));
    expect(counted.scripts()).toBe(1);
    expect(decisions.map((d) => d.decision.allowed)).toEqual(Array.from({ length: 20 }, (_, i) => i < 7));
    expect(decisions.slice(0, 7).map((d) => d.decision.remaining)).toEqual([6, 5, 4, 3, 2, 1, 0]);
  });

  test('a batch mixing takes and reads gives each call what its own script gives', async () => {
    const keys = redisKeys(`${prefix}mixed:`);
    const takes = createTokenTakes(connection, keys, new Denials(() => 0));
    const item = keys.item('users', 1);
    await redis.set(item, '{"id":1}');
    const open: RateLimitPolicy = { algorithm: 'token-bucket', capacity: 100, refillPerSecond: 1 };
    const [read, plain, again, other, missing] = await Promise.all([
      takes.take('ip:10.0.0.2', open, { kind: 'get', key: item }),
      takes.take('ip:10.0.0.2', open),
      takes.take('ip:10.0.0.2', open, { kind: 'get', key: keys.item('users', 2) }),
      takes.take('ip:10.0.0.3', POLICY),
      takes.take('ip:10.0.0.3', POLICY, { kind: 'get', key: item }),
    ]);
    expect(read).toEqual({ decision: expect.objectContaining({ allowed: true, remaining: 99 }), along: '{"id":1}' });
    expect(plain).toEqual({ decision: expect.objectContaining({ allowed: true, remaining: 98 }) });
    // An absent item reads as '' (the script's reply element for a missing key).
    expect(again).toEqual({ decision: expect.objectContaining({ allowed: true, remaining: 97 }), along: '' });
    expect(other.decision).toMatchObject({ allowed: true, remaining: 0 });
    // Rejected: nothing read.
    expect(missing).toEqual({ decision: expect.objectContaining({ allowed: false, retryAfterSeconds: 2 }) });
  });

  test('a bucket found empty answers from the instance until its window ends, then from Redis again', async () => {
    let now = 0;
    const counted = counting();
    const takes = createTokenTakes(counted.connection, redisKeys(`${prefix}window:`), new Denials(() => now));
    expect((await takes.take('ip:10.0.0.4', POLICY)).decision.allowed).toBe(true);
    const fromRedis = (await takes.take('ip:10.0.0.4', POLICY)).decision;
    expect(fromRedis).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 2, resetSeconds: 2 });
    expect(counted.scripts()).toBe(2);
    for (let i = 0; i < 5; i++) expect((await takes.take('ip:10.0.0.4', POLICY)).decision).toEqual(fromRedis);
    // What a Cluster's take-and-read asks before it sends the read to the resource's node.
    expect(takes.deniedNow('ip:10.0.0.4', POLICY)).toEqual(fromRedis);
    expect(takes.deniedNow('ip:10.0.0.5', POLICY)).toBeUndefined();
    expect(counted.scripts()).toBe(2);
    now = 1500;
    expect((await takes.take('ip:10.0.0.4', POLICY)).decision).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(counted.scripts()).toBe(2);
    // Past the window (2 s less the margins on this clock): Redis is asked, and on its clock little time passed.
    now = 2000;
    expect((await takes.take('ip:10.0.0.4', POLICY)).decision).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    expect(counted.scripts()).toBe(3);
  });

  test('creations of one turn are one script; one that cannot be planned fails alone', async () => {
    const counted = counting();
    const keys = redisKeys(`${prefix}create:`);
    const stores = createRedisCombined(counted.connection, keys, {} as never, createTokenTakes(counted.connection, keys));
    const creation = (broken: boolean) => ({
      kinds: ['users'] as const,
      build: ([id = 0]: readonly number[]) => ({
        entries: [['users', { id: broken ? 42 : id, name: 'n' }] as const],
        response: { status: 201, headers: {}, body: { id } },
      }),
    });
    const outcomes = await Promise.allSettled([false, true, false].map((broken) => stores.create(creation(broken))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(counted.scripts()).toBe(1);
    const ids = outcomes.flatMap((o) => (o.status === 'fulfilled' && o.value.created ? o.value.ids : []));
    // One script, one clock reading (D-IDS, clock-ids.ts): consecutive ids.
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe((ids[0] ?? 0) + 1);
    expect(await redis.get(keys.item('users', ids[1] ?? 0))).toBe(`{"id":${ids[1]},"name":"n"}`);
  });

  test('a creation stores exactly what build() gives for the real ids, and its marker answers a second attempt', async () => {
    const keys = redisKeys(`${prefix}texts:`);
    const connection = counting().connection;
    const stores = createRedisCombined(connection, keys, {} as never, createTokenTakes(connection, keys));
    // Ids as numbers and inside strings; texts and numbers that look like placeholder ids ("-1." and digits) stay as sent.
    const records = (paymentId: number, transferId: number, marker = 'caller:key-1') => ({
      transfer: { id: transferId, paymentId, note: `-1.5 -1.25 /payments/${paymentId}`, rate: -1.2 },
      payment: { id: paymentId, transferId, self: `/payments/${paymentId}`, [CREATED_BY]: marker },
      response: { status: 201, headers: { location: `/payments/${paymentId}` }, body: { id: paymentId, transfer: `/transfers/${transferId}` } },
    });
    const creation = {
      kinds: ['payments', 'transfers'] as const,
      marker: { kind: 'payments' as const, value: 'caller:key-1' },
      build: ([paymentId = 0, transferId = 0]: readonly number[]) => {
        const { transfer, payment, response } = records(paymentId, transferId);
        return { entries: [['transfers', transfer] as const, ['payments', payment] as const], response };
      },
    };
    const first = await stores.create(creation);
    if (!first.created) throw new Error('the first attempt must create');
    const [paymentId = 0, transferId = 0] = first.ids;
    const { transfer, payment, response } = records(paymentId, transferId);
    expect(first.response).toEqual(response);
    expect(await redis.get(keys.item('transfers', transferId))).toBe(JSON.stringify(transfer));
    expect(await redis.get(keys.item('payments', paymentId))).toBe(JSON.stringify(payment));
    expect(await redis.get(keys.marker('payments', 'caller:key-1'))).toBe(String(paymentId));
    // In one turn (one script): the repeated attempt returns early, and the plans after it still read their own arguments.
    const other = {
      ...creation,
      marker: { kind: 'payments' as const, value: 'caller:key-2' },
      build: ([paymentId = 0, transferId = 0]: readonly number[]) => {
        const { transfer, payment, response } = records(paymentId, transferId, 'caller:key-2');
        return { entries: [['transfers', transfer] as const, ['payments', payment] as const], response };
      },
    };
    const [second, third] = await Promise.all([stores.create(creation), stores.create(other)]);
    expect(second).toEqual({ created: false, existing: payment });
    if (!third.created) throw new Error('a new marker must create');
    const next = records(third.ids[0] ?? 0, third.ids[1] ?? 0, 'caller:key-2');
    const [nextPayment = 0, nextTransfer = 0] = third.ids;
    expect(nextPayment).toBeGreaterThan(paymentId);
    expect(nextTransfer).toBeGreaterThan(transferId);
    expect(await redis.get(keys.item('transfers', nextTransfer))).toBe(JSON.stringify(next.transfer));
    expect(await redis.get(keys.marker('payments', 'caller:key-2'))).toBe(String(nextPayment));
  });

  test('the batch script decides as the TypeScript bucket does, call after call at one instant (property)', async () => {
    const source = TOKEN_BUCKET_BATCH.source;
    const clock = "local time = redis.call('TIME')\nlocal now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000";
    expect(source).toContain(clock);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ bucket: fc.integer({ min: 0, max: 2 }), capacity: fc.integer({ min: 1, max: 4 }), rate: fc.constantFrom(0.5, 2, 100) }), {
          minLength: 2,
          maxLength: 30,
        }),
        async (calls) => {
          run += 1;
          const now = 1_763_700_000_000 + run * 10_000_000;
          const script = source.replace(clock, `local now = ${now}`);
          const keys = calls.map((c) => `${prefix}prop:${run}:${c.bucket}:${c.capacity}:${c.rate}`);
          const args: (string | number)[] = [calls.length];
          for (const c of calls) args.push('t', c.capacity, c.rate);
          const replies = (await redis.eval(script, keys.length, ...keys, ...args)) as unknown[][];
          const states = new Map<string, TokenBucketState>();
          calls.forEach((c, i) => {
            const policy: RateLimitPolicy = { algorithm: 'token-bucket', capacity: c.capacity, refillPerSecond: c.rate };
            const step = takeToken(states.get(keys[i] ?? ''), policy, now);
            states.set(keys[i] ?? '', step.state);
            const reply = replies[i] ?? [];
            const lua = [reply[0] === 1, reply[1], reply[2], reply[3]];
            const ts = [step.decision.allowed, step.decision.remaining, step.decision.resetSeconds, step.decision.retryAfterSeconds];
            if (JSON.stringify(lua) !== JSON.stringify(ts)) throw new Error(`call ${i}: Lua ${JSON.stringify(lua)} vs TypeScript ${JSON.stringify(ts)}`);
            if (!step.decision.allowed && Math.abs(Number(reply[4]) - step.state.tokens) > 1e-12) {
              throw new Error(`call ${i}: Lua reports ${String(reply[4])} tokens available, TypeScript ${step.state.tokens}`);
            }
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
