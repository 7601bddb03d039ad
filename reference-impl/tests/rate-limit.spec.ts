/**
 * Rate limiting (spec/decisions.md D-RATE-LIMIT): exact burst admission, RateLimit-* headers on
 * every response, 429 `rate-limited` with an honest Retry-After, per-caller buckets, and the leaky
 * bucket's spacing.
 */
import { expect, test } from '@playwright/test';
import { ALICE, LIMITED, client, startTestServer } from './support/harness.ts';

test('200 concurrent requests against a fresh bucket of capacity 50 admit exactly 50', async () => {
  const server = await startTestServer({ anonymousPlan: 'burst', plans: { burst: { capacity: 50, refillPerSecond: 0.001 } } });
  try {
    const api = client(server.url);
    const replies = await Promise.all(Array.from({ length: 200 }, () => api.get('/users/1')));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(50);
    const rejected = replies.filter((reply) => reply.status === 429);
    expect(rejected).toHaveLength(150);
    for (const reply of rejected) {
      expect(reply.headers.get('content-type')).toBe('application/problem+json');
      expect(reply.headers.get('ratelimit-limit')).toBe('50');
      expect(reply.headers.get('ratelimit-remaining')).toBe('0');
      const retryAfter = Number(reply.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
      expect(reply.json).toMatchObject({
        type: 'https://http-api-conformance.dev/problems/rate-limited',
        status: 429,
        limit: 50,
        retryAfter,
      });
      expect(reply.headers.get('cache-control')).toBe('no-store');
    }
    const remaining = replies.filter((reply) => reply.status === 200).map((reply) => Number(reply.headers.get('ratelimit-remaining')));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index));
  } finally {
    await server.close();
  }
});

test('RateLimit headers are on every response, errors included', async () => {
  const server = await startTestServer();
  try {
    const api = client(server.url);
    const replies = [
      await api.get('/users'),
      await api.get('/nowhere'),
      await api.send('PATCH', '/users'),
      await api.get('/account'),
      await api.get('/account', { token: ALICE }),
      await api.send('OPTIONS', '/users'),
    ];
    for (const reply of replies) {
      expect(reply.headers.get('ratelimit-limit'), String(reply.status)).toBe('1000');
      expect(Number(reply.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(990);
      expect(Number(reply.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    }
  } finally {
    await server.close();
  }
});

test('a request sent Retry-After seconds after a 429 is admitted', async () => {
  const server = await startTestServer({ anonymousPlan: 'slow', plans: { slow: { capacity: 1, refillPerSecond: 1 } } });
  try {
    const api = client(server.url);
    expect((await api.get('/users/1')).status).toBe(200);
    const rejected = await api.get('/users/1');
    expect(rejected.status).toBe(429);
    const retryAfter = Number(rejected.headers.get('retry-after'));
    expect(retryAfter).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 20));
    const admitted = await api.get('/users/1');
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get('ratelimit-remaining')).toBe('0');
  } finally {
    await server.close();
  }
});

test('buckets are per caller: a known token has its own bucket and plan', async () => {
  const server = await startTestServer();
  try {
    const api = client(server.url);
    const limited = await Promise.all(Array.from({ length: 15 }, () => api.get('/account', { token: LIMITED })));
    expect(limited.filter((reply) => reply.status === 200)).toHaveLength(10);
    expect(limited[0]?.headers.get('ratelimit-limit')).toBe('10');
    const alice = await api.get('/account', { token: ALICE });
    expect(alice.status).toBe(200);
    expect(alice.headers.get('ratelimit-limit')).toBe('1000');
    expect((await api.get('/users')).status).toBe(200);
  } finally {
    await server.close();
  }
});

test('remaining falls by one per request and reset is 0 only when full', async () => {
  const server = await startTestServer({ anonymousPlan: 'tiny', plans: { tiny: { capacity: 5, refillPerSecond: 0.01 } } });
  try {
    const api = client(server.url);
    const seen: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      const reply = await api.get('/users/1');
      seen.push(Number(reply.headers.get('ratelimit-remaining')));
      expect(Number(reply.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);
  } finally {
    await server.close();
  }
});

test('the leaky bucket serves queued requests at the plan rate and rejects when the queue is full', async () => {
  const server = await startTestServer({
    rateLimit: { algorithm: 'leaky-bucket' },
    anonymousPlan: 'queue',
    plans: { queue: { capacity: 3, refillPerSecond: 5 } },
  });
  try {
    const api = client(server.url);
    const started = performance.now();
    const timed = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const reply = await api.get('/users/1');
        return { status: reply.status, at: performance.now() - started };
      }),
    );
    const admitted = timed.filter((entry) => entry.status === 200).map((entry) => entry.at).sort((a, b) => a - b);
    expect(admitted).toHaveLength(3);
    expect(timed.filter((entry) => entry.status === 429)).toHaveLength(1);
    const spread = (admitted[2] ?? 0) - (admitted[0] ?? 0);
    expect(spread).toBeGreaterThanOrEqual(300);
    expect(spread).toBeLessThan(2000);
  } finally {
    await server.close();
  }
});
