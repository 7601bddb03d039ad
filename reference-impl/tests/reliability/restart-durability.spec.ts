/**
 * Restart durability (D-IDEMPOTENCY, D-RATE-LIMIT): the server runs as a child process on the shared Redis
 * (own key prefix); payments are made with Idempotency-Keys and part of a slow rate-limit bucket is
 * burnt; the process is stopped with SIGTERM and started again. Replays return the original
 * results (same status, body and Location) and the bucket continues where it was.
 */
import { writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ALICE } from '../support/harness.ts';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../../tools/redis-admin.ts';

const SHARED_REDIS_URL = sharedRedisUrl();
import { type ServerProcess, startServerProcess } from '../../../soak/server-process.ts';
import { timedRequest } from './support/timed.ts';

const SLOW_TOKEN = 'restart-test-token-slow';
const SLOW_PLAN = { capacity: 30, refillPerSecond: 0.05 };

test.describe.configure({ mode: 'serial' });

let prefix: string;
let configFile: string;
let server: ServerProcess | undefined;

async function start(): Promise<ServerProcess> {
  return startServerProcess(['--store', 'redis', '--redis-url', SHARED_REDIS_URL, '--config', configFile], { HAC_REDIS_KEY_PREFIX: prefix });
}

test.beforeAll(async () => {
  prefix = uniqueKeyPrefix('test', 'restart');
  configFile = join(tmpdir(), `hac-restart-${process.pid}-${Date.now()}.json`);
  await writeFile(
    configFile,
    JSON.stringify({
      plans: { slow: SLOW_PLAN },
      tokens: [
        {
          token: 'dev-token-alice',
          userId: 1,
          permissions: ['users:write', 'orders:read', 'orders:write', 'payments:read', 'payments:write', 'posts:write'],
          plan: 'standard',
        },
        { token: SLOW_TOKEN, userId: 2, permissions: ['orders:read', 'payments:read'], plan: 'slow' },
      ],
    }),
  );
});

test.afterAll(async () => {
  await server?.stop();
  await rm(configFile, { force: true });
  await deleteKeysWithPrefix(prefix, SHARED_REDIS_URL);
});

test('after a SIGTERM restart, replays return the original results and the rate-limit bucket carries over', async () => {
  test.setTimeout(90_000);
  server = await start();
  const keys = Array.from({ length: 6 }, (_, i) => `restart-${i}-${Date.now()}`);
  const originals = [];
  for (const [i, key] of keys.entries()) {
    const reply = await timedRequest(`${server.url}/payments`, {
      method: 'POST',
      token: ALICE,
      body: { amount: 100 + i, currency: 'usd' },
      headers: { 'Idempotency-Key': key },
    });
    expect(reply.status).toBe(201);
    originals.push(reply);
  }
  const orderKey = `restart-order-${Date.now()}`;
  const order = await timedRequest(`${server.url}/orders`, {
    method: 'POST',
    token: ALICE,
    body: { total: 9.99, currency: 'eur' },
    headers: { 'Idempotency-Key': orderKey },
  });
  expect(order.status).toBe(201);

  let remainingBefore = Number.NaN;
  for (let i = 0; i < 12; i += 1) {
    const reply = await timedRequest(`${server.url}/account`, { token: SLOW_TOKEN });
    expect(reply.status).toBe(200);
    remainingBefore = Number(reply.headers.get('ratelimit-remaining'));
  }
  expect(remainingBefore).toBeLessThanOrEqual(SLOW_PLAN.capacity - 12);
  const lastBefore = performance.now();

  const firstPid = server.pid;
  expect(await server.stop()).toBe(0);
  server = await start();
  expect(server.pid).not.toBe(firstPid);

  const next = await timedRequest(`${server.url}/account`, { token: SLOW_TOKEN });
  const elapsedSeconds = (performance.now() - lastBefore) / 1000;
  expect(next.status).toBe(200);
  const remainingAfter = Number(next.headers.get('ratelimit-remaining'));
  const refill = SLOW_PLAN.refillPerSecond * elapsedSeconds;
  expect(remainingAfter).toBeGreaterThanOrEqual(remainingBefore - 1);
  expect(remainingAfter).toBeLessThanOrEqual(remainingBefore - 1 + Math.ceil(refill) + 1);

  let identical = 0;
  for (const [i, key] of keys.entries()) {
    const replay = await timedRequest(`${server.url}/payments`, {
      method: 'POST',
      token: ALICE,
      body: { amount: 100 + i, currency: 'usd' },
      headers: { 'Idempotency-Key': key },
    });
    const original = originals[i];
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(original?.headers.get('location'));
    expect(replay.json).toEqual(original?.json);
    identical += 1;
  }
  const orderReplay = await timedRequest(`${server.url}/orders`, {
    method: 'POST',
    token: ALICE,
    body: { total: 9.99, currency: 'eur' },
    headers: { 'Idempotency-Key': orderKey },
  });
  expect(orderReplay.json).toEqual(order.json);
  const list = await timedRequest(`${server.url}/payments?limit=100`, { token: ALICE });
  expect(list.json?.page).toMatchObject({ total: keys.length });
  const stored = await timedRequest(`${server.url}/payments/${String(originals[0]?.json?.id)}`, { token: ALICE });
  expect(stored.json).toEqual(originals[0]?.json);
  console.log(
    `[restart] ${identical + 1}/${keys.length + 1} replays identical after restart (status, body, Location); payments ${keys.length} (no repeat); ` +
    `RateLimit-Remaining ${remainingBefore} before → ${remainingAfter} after (${elapsedSeconds.toFixed(1)} s, refill ${refill.toFixed(2)} tokens)`,
  );
});
