/**
 * Store outage (spec/decisions.md D-STORE-DOWN, D-IDEMPOTENCY): the server runs on
 * its own private `redis-server`, which is killed (data lost, as with a crash without persistence)
 * or paused (CLIENT PAUSE: unavailable, data kept) mid-run. Requests get a 503 problem with
 * Retry-After within the store timeout, never a hang; service resumes without restarting the
 * server; an idempotent POST sent around the outage runs its work exactly once.
 */
import { expect, test } from '@playwright/test';
import { createRedisStores } from '../../stores/redis/index.ts';
import type { Stores } from '../../stores/types.ts';
import { ALICE, type TestServer, startTestServer } from '../support/harness.ts';
import { type RedisProcess, privateRedis } from './support/redis-process.ts';
import { type Timed, pollUntil, timedRequest } from './support/timed.ts';

const STORE_TIMEOUT_MS = 1000;
/** The server must answer within its store timeout plus scheduling slack, far below the client's 5 s. */
const ANSWER_BOUND_MS = STORE_TIMEOUT_MS + 1500;

let redis: RedisProcess;
let stores: Stores;
let server: TestServer;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  redis = await privateRedis();
  await redis.start();
  stores = createRedisStores({ url: redis.url, keyPrefix: 'hac-outage:', commandTimeoutMs: STORE_TIMEOUT_MS });
  server = await startTestServer(
    { store: { kind: 'redis', url: redis.url, keyPrefix: 'hac-outage:' }, idempotency: { ttlSeconds: 600, lockSeconds: 3 } },
    stores,
  );
});

test.afterAll(async () => {
  await server?.close();
  await stores?.close();
  await redis?.stop();
});

function expect503(reply: Timed, label: string): void {
  expect(reply.status, `${label}: ${reply.error ?? ''}`).toBe(503);
  expect(reply.ms, label).toBeLessThan(ANSWER_BOUND_MS);
  expect(reply.headers.get('retry-after')).toBe('2');
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.json).toMatchObject({ status: 503, type: 'about:blank', title: 'Service Unavailable' });
}

async function alicePayments(): Promise<{ amount: number }[]> {
  const reply = await timedRequest(`${server.url}/payments?limit=100`, { token: ALICE });
  expect(reply.status).toBe(200);
  return reply.json?.items as { amount: number }[];
}

test('a paused store answers 503 with Retry-After in bounded time and service resumes with the data kept', async () => {
  expect((await timedRequest(`${server.url}/account`, { token: ALICE })).status).toBe(200);
  const key = `pause-${Date.now()}`;
  const body = { amount: 1111, currency: 'usd' };
  const pauseMs = 4000;
  const pausedAt = performance.now();
  await redis.pause(pauseMs);
  const duringPause = await Promise.all([
    timedRequest(`${server.url}/account`, { token: ALICE }),
    timedRequest(`${server.url}/users/1`),
    timedRequest(`${server.url}/payments`, { method: 'POST', token: ALICE, body, headers: { 'Idempotency-Key': key } }),
  ]);
  duringPause.forEach((reply, i) => expect503(reply, `request ${i} during pause`));
  const detection = Math.max(...duringPause.map((reply) => reply.ms));

  const recovered = await pollUntil(() => timedRequest(`${server.url}/account`, { token: ALICE }), (reply) => reply.status === 200, { limitMs: 15_000 });
  expect(recovered.ok).toBe(true);
  const recoveryAfterPauseEnd = performance.now() - pausedAt - pauseMs;

  // The claim sent during the pause may have run once Redis resumed: 409 in-flight until it lapses (lockSeconds 3).
  const retried = await pollUntil(
    () => timedRequest(`${server.url}/payments`, { method: 'POST', token: ALICE, body, headers: { 'Idempotency-Key': key } }),
    (reply) => reply.status !== 409,
    { everyMs: 500, limitMs: 8_000 },
  );
  expect(retried.value.status).toBe(201);
  const replay = await timedRequest(`${server.url}/payments`, { method: 'POST', token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.json).toEqual(retried.value.json);
  expect((await alicePayments()).filter((payment) => payment.amount === body.amount)).toHaveLength(1);
  console.log(
    `[outage:pause] detection (slowest 503) ${Math.round(detection)} ms; recovery ${Math.max(0, Math.round(recoveryAfterPauseEnd))} ms after the ` +
    `pause ended; idempotent POST: 1 payment, key usable again after ${Math.round(retried.ms)} ms`,
  );
});

test('a killed store answers 503 with Retry-After in bounded time and a restarted one resumes service without a server restart', async () => {
  const before = await timedRequest(`${server.url}/payments`, {
    method: 'POST',
    token: ALICE,
    body: { amount: 2222, currency: 'usd' },
    headers: { 'Idempotency-Key': `kill-a-${Date.now()}` },
  });
  expect(before.status).toBe(201);
  const killedAt = performance.now();
  await redis.kill();
  const key = `kill-b-${Date.now()}`;
  const body = { amount: 3333, currency: 'usd' };
  const replies: Timed[] = [];
  for (let i = 0; i < 5; i += 1) {
    replies.push(await timedRequest(`${server.url}/account`, { token: ALICE }));
    replies.push(await timedRequest(`${server.url}/payments`, { method: 'POST', token: ALICE, body, headers: { 'Idempotency-Key': key } }));
  }
  replies.forEach((reply, i) => expect503(reply, `request ${i} while Redis is down`));
  const firstDetection = replies[0]?.ms ?? Number.NaN;
  const sinceKill = performance.now() - killedAt;

  const restartedAt = performance.now();
  await redis.start();
  const recovered = await pollUntil(() => timedRequest(`${server.url}/users`), (reply) => reply.status === 200, { limitMs: 15_000 });
  expect(recovered.ok, `last status ${recovered.value.status}`).toBe(true);
  const recovery = performance.now() - restartedAt;

  const after = await timedRequest(`${server.url}/payments`, { method: 'POST', token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(after.status).toBe(201);
  expect(after.headers.get('idempotent-replayed')).toBeNull();
  const replay = await timedRequest(`${server.url}/payments`, { method: 'POST', token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.json).toEqual(after.json);
  const payments = await alicePayments();
  expect(payments.filter((payment) => payment.amount === body.amount)).toHaveLength(1);
  console.log(
    `[outage:kill] first 503 after ${Math.round(firstDetection)} ms, ${replies.length} requests all 503 (slowest ` +
    `${Math.round(Math.max(...replies.map((r) => r.ms)))} ms, ${Math.round(sinceKill)} ms in total); recovery ${Math.round(recovery)} ms after the ` +
    `restart began (redis-server start ${Math.round(recovery - recovered.ms)} ms, then reconnect ${Math.round(recovered.ms)} ms); the idempotent ` +
    `POST ran once after recovery (the empty Redis lost the data written before the kill: no persistence)`,
  );
});
