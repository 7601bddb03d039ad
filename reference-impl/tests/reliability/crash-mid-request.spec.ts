/**
 * A store crash in the middle of idempotent POSTs (spec/decisions.md
 * D-IDEMPOTENCY, D-STORE-DOWN): a private Redis that fsyncs every write (AOF) is killed with
 * SIGKILL as soon as the first of 40 staggered keyed payments is answered, so the others are cut at arbitrary points (before the
 * claim, after it, between the work and the result). After Redis restarts with its data, retrying
 * every key yields exactly one payment per key, and replays return that payment.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { createRedisStores } from '../../stores/redis/index.ts';
import type { Stores } from '../../stores/types.ts';
import { ALICE, type TestServer, startTestServer } from '../support/harness.ts';
import { type RedisProcess, privateRedis } from './support/redis-process.ts';
import { pollUntil, timedRequest } from './support/timed.ts';

const KEYS = 40;
const LOCK_SECONDS = 2;

let dir: string;
let redis: RedisProcess;
let stores: Stores;
let server: TestServer;

test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hac-crash-'));
  redis = await privateRedis({ aofDir: dir });
  await redis.start();
  stores = createRedisStores({ url: redis.url, keyPrefix: 'hac-crash:', commandTimeoutMs: 1000 });
  server = await startTestServer(
    { store: { kind: 'redis', url: redis.url, keyPrefix: 'hac-crash:' }, idempotency: { ttlSeconds: 600, lockSeconds: LOCK_SECONDS } },
    stores,
  );
});

test.afterAll(async () => {
  await server?.close();
  await stores?.close();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('payments cut by a store crash run exactly once per Idempotency-Key after recovery', async () => {
  test.setTimeout(60_000);
  const run = Date.now().toString(36);
  const key = (i: number): string => `crash-${run}-${i}`;
  const body = (i: number) => ({ amount: 70_000 + i, currency: 'usd' });
  const post = (i: number) => timedRequest(`${server.url}/payments`, { method: 'POST', token: ALICE, body: body(i), headers: { 'Idempotency-Key': key(i) } });

  let killing: Promise<void> | undefined;
  const inFlight: ReturnType<typeof post>[] = [];
  for (let i = 0; i < KEYS; i += 1) {
    // Staggered sends; Redis is killed as soon as the first payment is answered, so the rest are cut mid-way.
    inFlight.push(post(i).then((reply) => ((killing ??= reply.status === 201 ? redis.kill() : undefined), reply)));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const during = await Promise.all(inFlight);
  await (killing ?? redis.kill());
  const statuses = during.reduce<Record<number, number>>((acc, reply) => ({ ...acc, [reply.status]: (acc[reply.status] ?? 0) + 1 }), {});
  expect(during.every((reply) => reply.status === 201 || reply.status === 503), JSON.stringify(statuses)).toBe(true);
  expect(Math.max(...during.map((reply) => reply.ms))).toBeLessThan(3000);

  await redis.start();
  const results = [];
  for (let i = 0; i < KEYS; i += 1) {
    const settled = await pollUntil(
      () => post(i),
      (reply) => reply.status !== 409 && reply.status !== 503,
      { everyMs: 250, limitMs: (LOCK_SECONDS + 5) * 1000 },
    );
    expect(settled.value.status, `key ${i}`).toBe(201);
    results.push(settled.value);
  }
  for (const [i, reply] of during.entries()) {
    if (reply.status === 201) expect(results[i]?.json, `key ${i} answered 201 before the crash`).toEqual(reply.json);
  }
  const list = await timedRequest(`${server.url}/payments?limit=100`, { token: ALICE });
  const amounts = (list.json?.items as { amount: number }[]).map((payment) => payment.amount).filter((amount) => amount >= 70_000 && amount < 70_000 + KEYS);
  const perKey = Array.from({ length: KEYS }, (_, i) => amounts.filter((amount) => amount === 70_000 + i).length);
  console.log(
    `[outage:crash] ${KEYS} keyed payments in flight at SIGKILL: ${JSON.stringify(statuses)}; after restart (AOF) payments per key: ${JSON.stringify(perKey)}`,
  );
  expect(perKey).toEqual(Array.from({ length: KEYS }, () => 1));
});
