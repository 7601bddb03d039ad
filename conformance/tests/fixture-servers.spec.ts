/**
 * The targets the proof tests rely on behave as intended: the stub answers `200 {}` to anything,
 * the widgets API's token bucket follows the conventions' reference algorithm (checked with an
 * injected clock), and the CLI's probe tells HTTP from everything else.
 */
import { test, expect } from '@playwright/test';
import { start as startStub } from '../../fixtures/stub-200/server.ts';
import { TokenBuckets } from '../../fixtures/widgets-api/rate-limit.ts';
import { start as startWidgets } from '../../fixtures/widgets-api/server.ts';
import { probeUrl } from '../target/probe.ts';
import { closedPortUrl, garbageServer } from './support/bad-targets.ts';
import { withServer } from './support/servers.ts';

test('the stub answers 200 {} to every method and path', async () => {
  await withServer(() => startStub(0), async (url) => {
    for (const [method, path] of [['GET', '/nothing'], ['DELETE', '/users/1'], ['PATCH', '/'], ['POST', '/payments']] as const) {
      const response = await fetch(`${url}${path}`, { method, body: method === 'POST' ? '{bad' : undefined });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({});
    }
  });
});

test('a token bucket admits its capacity at once, then one request per refill interval', () => {
  let now = 0;
  const buckets = new TokenBuckets(() => now);
  const plan = { capacity: 3, refillPerSecond: 2 };
  const remaining = [0, 1, 2].map(() => buckets.take('a', plan).headers['RateLimit-Remaining']);
  expect(remaining).toEqual(['2', '1', '0']);
  const refused = buckets.take('a', plan);
  expect(refused.admitted).toBe(false);
  expect(refused.headers['Retry-After']).toBe('1');
  expect(refused.headers['RateLimit-Reset']).toBe('2');
  expect(buckets.take('b', plan).admitted).toBe(true);
  now = 499;
  expect(buckets.take('a', plan).admitted).toBe(false);
  now = 1000;
  expect(buckets.take('a', plan).admitted).toBe(true);
  now = 10_000;
  expect(buckets.take('a', plan).headers['RateLimit-Remaining']).toBe('2');
});

test('the widgets API keeps each caller\'s widgets to itself and replays an idempotent POST', async () => {
  await withServer(() => startWidgets(0), async (url) => {
    const headers = (token: string, key?: string): Record<string, string> => ({
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key ? { 'idempotency-key': key } : {}),
    });
    const body = JSON.stringify({ name: 'gear', color: 'red' });
    const first = await fetch(`${url}/widgets`, { method: 'POST', headers: headers('widgets-admin-ann', 'k-1'), body });
    const replay = await fetch(`${url}/widgets`, { method: 'POST', headers: headers('widgets-admin-ann', 'k-1'), body });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(await first.json());
    const location = first.headers.get('location') ?? '';
    expect((await fetch(`${url}${location}`, { headers: headers('widgets-admin-ben') })).status).toBe(404);
    const mine = (await (await fetch(`${url}/widgets`, { headers: headers('widgets-admin-ann') })).json()) as { page: { total: number } };
    expect(mine.page.total).toBe(1);
  });
});

test('the probe accepts any HTTP answer and refuses a closed port or non-HTTP bytes', async () => {
  await withServer(() => startStub(0), async (url) => {
    expect(await probeUrl(url, 2000)).toMatchObject({ ok: true, status: 200 });
  });
  const closed = await probeUrl(await closedPortUrl(), 2000);
  expect(closed.ok).toBe(false);
  expect(closed.problem).toContain('connection refused');
  await withServer(garbageServer, async (url) => {
    const garbage = await probeUrl(url, 2000);
    expect(garbage.ok).toBe(false);
    expect(garbage.problem).toContain('did not answer with HTTP');
  });
});
