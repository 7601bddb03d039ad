import { test, expect } from '@playwright/test';
import { createClient } from '../index.ts';
import { backoffSeconds, rateLimitWaitSeconds, retryAfterSeconds } from '../index.ts';
import { fakeTime, json, problem, randomSequence, scriptedFetch } from './support/fakes.ts';

const baseUrl = 'http://api.test';

test.describe('CLIENT-BACKOFF-EXPONENTIAL and CLIENT-BACKOFF-JITTER', () => {
  test('waits are 2^attempt seconds plus the jitter, attempt counted from 0', async () => {
    const time = fakeTime();
    const { fetch, calls } = scriptedFetch([problem(500)], time.clock);
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep, random: randomSequence(0.1, 0.9, 0.3, 0.6) });
    await client.get('/resource');
    expect(time.sleeps).toHaveLength(4);
    expect(time.sleeps[0]).toBeCloseTo(1100, 6);
    expect(time.sleeps[1]).toBeCloseTo(2900, 6);
    expect(time.sleeps[2]).toBeCloseTo(4300, 6);
    expect(time.sleeps[3]).toBeCloseTo(8600, 6);
    const gaps = calls.slice(1).map((c, i) => c.at - (calls[i]?.at ?? 0));
    expect(gaps.map((g) => Math.round(g))).toEqual([1100, 2900, 4300, 8600]);
  });

  test('the jitter comes from the random source on every wait', async () => {
    const time = fakeTime();
    let draws = 0;
    const { fetch } = scriptedFetch([problem(503)], time.clock);
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep, random: () => (draws++ % 2 === 0 ? 0 : 0.75) });
    await client.get('/resource');
    expect(draws).toBe(4);
    expect(time.sleeps.map((ms, k) => ms - 2 ** k * 1000)).toEqual([0, 750, 0, 750]);
  });

  test('the jitter stays in [0, 1) even when the random source misbehaves', () => {
    expect(backoffSeconds(0, () => 1)).toBeLessThan(2);
    expect(backoffSeconds(0, () => 1)).toBeGreaterThanOrEqual(1.99);
    expect(backoffSeconds(2, () => -5)).toBe(4);
    expect(backoffSeconds(3, () => 0.5)).toBe(8.5);
  });

  test('the default random source gives different jitters', async () => {
    const time = fakeTime();
    const { fetch } = scriptedFetch([problem(503)], time.clock);
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep, maxAttempts: 20 });
    await client.get('/resource');
    const jitters = time.sleeps.map((ms, k) => ms / 1000 - 2 ** k);
    expect(jitters.every((j) => j >= 0 && j < 1)).toBe(true);
    expect(new Set(jitters.map((j) => j.toFixed(6))).size).toBeGreaterThan(10);
  });

  test('timeScale multiplies every wait', async () => {
    const time = fakeTime();
    const { fetch } = scriptedFetch([problem(503), problem(429, { 'retry-after': '3' }), json(200, {})], time.clock);
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep, random: randomSequence(0.5), timeScale: 0.01 });
    await client.get('/resource');
    expect(time.sleeps).toHaveLength(2);
    expect(time.sleeps[0]).toBeCloseTo(15, 6);
    expect(time.sleeps[1]).toBeCloseTo(30, 6);
  });
});

test.describe('CLIENT-RETRY-AFTER', () => {
  test('Retry-After delta-seconds replaces the backoff', async () => {
    const time = fakeTime();
    const { fetch, calls } = scriptedFetch([problem(429, { 'retry-after': '7' }), problem(503, { 'retry-after': '0' }), json(200, {})], time.clock);
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep, random: randomSequence(0.5) });
    const res = await client.get('/resource');
    expect(res.status).toBe(200);
    expect(time.sleeps).toEqual([7000]);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBe(7000);
    expect((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0)).toBe(0);
  });

  test('Retry-After as an HTTP-date waits until that date', async () => {
    const time = fakeTime();
    const date = new Date(time.clock() + 12_000).toUTCString();
    const { fetch, calls } = scriptedFetch([problem(503, { 'retry-after': date }), json(200, {})], time.clock);
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep });
    await client.get('/resource');
    expect(time.sleeps).toEqual([12_000]);
    expect(calls[1]?.at).toBe(Date.parse(date));
  });

  test('an HTTP-date in the past means no wait', () => {
    expect(retryAfterSeconds('Thu, 01 Jan 2026 11:59:00 GMT', Date.UTC(2026, 0, 1, 12))).toBe(0);
  });

  test('an unparseable Retry-After falls back to the backoff', async () => {
    const time = fakeTime();
    const { fetch } = scriptedFetch([problem(503, { 'retry-after': 'soon' }), problem(503, { 'retry-after': '-3' }), json(200, {})], time.clock);
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep, random: randomSequence(0.25) });
    await client.get('/resource');
    expect(time.sleeps).toEqual([1250, 2250]);
  });

  test('retryAfterSeconds parses both forms', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 5 ', now)).toBe(5);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('1.5', now)).toBeUndefined();
  });
});

test.describe('CLIENT-RATELIMIT-REMAINING-WAIT', () => {
  test('RateLimit-Remaining 0 delays the next operation by RateLimit-Reset seconds', async () => {
    const time = fakeTime();
    const { fetch, calls } = scriptedFetch(
      [json(200, {}, { 'ratelimit-remaining': '0', 'ratelimit-reset': '4' }), json(200, {}, { 'ratelimit-remaining': '9', 'ratelimit-reset': '1' })],
      time.clock,
    );
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep });
    await client.get('/resource');
    await client.get('/resource');
    await client.get('/resource');
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBe(4000);
    expect((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0)).toBe(0);
  });

  test('a 429 without Retry-After but with RateLimit-Remaining 0 waits the reset before retrying', async () => {
    const time = fakeTime();
    const { fetch, calls } = scriptedFetch(
      [problem(429, { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '6' }), json(200, {})],
      time.clock,
    );
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep, random: randomSequence(0.5) });
    await client.get('/resource');
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBe(6000);
  });

  test('the longer of Retry-After and RateLimit-Reset wins', async () => {
    const time = fakeTime();
    const { fetch, calls } = scriptedFetch(
      [problem(429, { 'retry-after': '9', 'ratelimit-remaining': '0', 'ratelimit-reset': '3' }), json(200, {})],
      time.clock,
    );
    const client = createClient({ baseUrl, fetch, clock: time.clock, sleep: time.sleep });
    await client.get('/resource');
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBe(9000);
  });

  test('a non-zero remaining count causes no wait', () => {
    expect(rateLimitWaitSeconds('1', '30')).toBeUndefined();
    expect(rateLimitWaitSeconds('0', '30')).toBe(30);
    expect(rateLimitWaitSeconds('0', undefined)).toBeUndefined();
    expect(rateLimitWaitSeconds(undefined, '30')).toBeUndefined();
  });
});
