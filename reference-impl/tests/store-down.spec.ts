/**
 * Upstream dependency down (spec/decisions.md D-STORE-DOWN): when Redis stops answering, requests
 * get 503 with Retry-After within the store timeout instead of hanging, and service resumes
 * without a restart when Redis is back. A TCP proxy in front of the real Redis plays the outage.
 */
import { type Server, type Socket, connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { createRedisStores } from '../stores/redis/index.ts';
import { ALICE, client, startTestServer } from './support/harness.ts';
import { deleteKeysWithPrefix, redisAnswers, sharedRedisUrl, uniqueKeyPrefix } from '../tools/redis-admin.ts';

const REDIS_URL = sharedRedisUrl();
const REDIS = { host: new URL(REDIS_URL).hostname, port: Number(new URL(REDIS_URL).port || 6379) };

/** A TCP proxy to Redis that can be cut and restored on the same port. */
async function startProxy(): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let port = 0;
  let server: Server | undefined;
  const listen = (): Promise<void> =>
    new Promise((resolve) => {
      server = createServer((inbound) => {
        const outbound = connect(REDIS.port, REDIS.host);
        for (const socket of [inbound, outbound]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server?.address() as AddressInfo).port;
        resolve();
      });
    });
  const cut = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      server?.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  };
  await listen();
  return { port, cut, restore: listen, stop: cut };
}

test('a Redis outage is 503 with Retry-After within the timeout, and service resumes without a restart', async () => {
  test.skip(!(await redisAnswers(REDIS_URL)), `Redis does not answer at ${REDIS_URL}`);
  const proxy = await startProxy();
  const keyPrefix = uniqueKeyPrefix('test');
  const stores = createRedisStores({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix, commandTimeoutMs: 500 });
  const server = await startTestServer({ seed: true }, stores);
  try {
    const api = client(server.url);
    expect((await api.get('/users/1')).status).toBe(200);
    await proxy.cut();
    const started = performance.now();
    const down = await api.post('/payments', { token: ALICE, body: { amount: 100, currency: 'eur' } });
    const elapsed = performance.now() - started;
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(down.headers.get('content-type')).toBe('application/problem+json');
    expect(down.json).toMatchObject({ status: 503, instance: '/payments' });
    expect(down.text).not.toContain('ECONNREFUSED');
    expect(elapsed).toBeLessThan(2500);
    await proxy.restore();
    await expect.poll(async () => (await api.get('/users/1')).status, { timeout: 10_000, intervals: [100, 250, 500] }).toBe(200);
  } finally {
    await server.close();
    await stores.close();
    await proxy.stop();
    await deleteKeysWithPrefix(keyPrefix, REDIS_URL);
  }
});
