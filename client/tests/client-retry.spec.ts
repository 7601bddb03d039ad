import { test, expect } from '@playwright/test';
import { createClient } from '../index.ts';
import { fakeTime, problem, json, randomSequence, scriptedFetch } from './support/fakes.ts';

const baseUrl = 'http://api.test';

function setup(steps: Parameters<typeof scriptedFetch>[0], extra: Record<string, unknown> = {}) {
  const time = fakeTime();
  const { fetch, calls } = scriptedFetch(steps, time.clock);
  const client = createClient({ baseUrl, token: 't0k3n', fetch, clock: time.clock, sleep: time.sleep, random: randomSequence(0.5), ...extra });
  return { client, calls, time };
}

test.describe('CLIENT-RETRY-RETRYABLE', () => {
  for (const status of [429, 500, 502, 503, 504]) {
    test(`a ${status} is retried until success`, async () => {
      const { client, calls } = setup([problem(status), json(200, { ok: true })]);
      const res = await client.get('/resource');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect(calls).toHaveLength(2);
      expect(res.attempts).toBe(2);
    });
  }

  test('a network error is retried', async () => {
    const { client, calls } = setup([new TypeError('fetch failed'), json(200, { ok: true })]);
    const res = await client.get('/resource');
    expect(res.status).toBe(200);
    expect(calls).toHaveLength(2);
  });

  test('success after three failures takes four attempts', async () => {
    const { client, calls } = setup([problem(503), problem(500), new TypeError('reset'), json(200, {})]);
    const res = await client.get('/resource');
    expect(res.status).toBe(200);
    expect(calls.map((c) => c.method)).toEqual(['GET', 'GET', 'GET', 'GET']);
  });
});

test.describe('CLIENT-NO-RETRY-400-422 and CLIENT-NO-RETRY-OTHER-4XX', () => {
  for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 422]) {
    test(`a ${status} is final after one attempt`, async () => {
      const { client, calls, time } = setup([problem(status, { 'retry-after': '1' }), json(200, {})]);
      const res = await client.get('/resource');
      expect(res.status).toBe(status);
      expect(calls).toHaveLength(1);
      expect(time.sleeps).toEqual([]);
    });
  }

  test('a 422 on a POST with a key is not retried', async () => {
    const { client, calls } = setup([problem(422, {}, { errors: [{ field: 'amount', message: 'must be an integer' }] }), json(201, {})]);
    const res = await client.post('/payments', { amount: 'x', currency: 'eur' });
    expect(res.status).toBe(422);
    expect(calls).toHaveLength(1);
  });

  test('2xx and 3xx responses are final', async () => {
    for (const status of [200, 201, 204, 304]) {
      const { client, calls } = setup([new Response(null, { status }), problem(500)]);
      const res = await client.get('/resource');
      expect(res.status).toBe(status);
      expect(calls).toHaveLength(1);
    }
  });
});

test.describe('CLIENT-ATTEMPT-CAP and CLIENT-SURFACE-LAST-RESPONSE', () => {
  test('a 500 on every attempt stops after 5 attempts', async () => {
    const { client, calls } = setup([problem(500)]);
    const res = await client.get('/resource');
    expect(calls).toHaveLength(5);
    expect(res.attempts).toBe(5);
  });

  test('maxAttempts is configurable', async () => {
    const { client, calls } = setup([problem(503)], { maxAttempts: 3 });
    await client.get('/resource');
    expect(calls).toHaveLength(3);
  });

  test('maxAttempts 1 never retries', async () => {
    const { client, calls } = setup([problem(503)], { maxAttempts: 1 });
    await client.get('/resource');
    expect(calls).toHaveLength(1);
  });

  test('after the cap the caller gets the last response with its headers and parsed problem', async () => {
    let n = 0;
    const { client } = setup([
      () => {
        n += 1;
        return problem(500, { 'x-attempt': String(n) }, { type: 'https://example.test/problems/boom', detail: `attempt ${n}`, instance: '/resource' });
      },
    ]);
    const res = await client.get('/resource');
    expect(res.status).toBe(500);
    expect(res.ok).toBe(false);
    expect(res.headers['x-attempt']).toBe('5');
    expect(res.problem?.type).toBe('https://example.test/problems/boom');
    expect(res.problem?.detail).toBe('attempt 5');
    expect(res.problem?.instance).toBe('/resource');
    expect(res.problem?.status).toBe(500);
  });

  test('throwOnProblem throws the last problem, which carries the last response', async () => {
    const { client, calls } = setup([problem(503, { 'x-last': 'yes' }, { detail: 'down' })], { throwOnProblem: true, maxAttempts: 2 });
    const error = await client.get('/resource').then(
      () => null,
      (e: unknown) => e,
    );
    expect(calls).toHaveLength(2);
    expect(error).toMatchObject({ name: 'ProblemError', status: 503, detail: 'down' });
    expect((error as { response: { headers: Record<string, string> } }).response.headers['x-last']).toBe('yes');
  });

  test('network errors until the cap reject with ClientNetworkError holding the last response', async () => {
    const { client, calls } = setup([problem(503, {}, { detail: 'first' }), new TypeError('fetch failed')]);
    const error = await client.get('/resource').then(
      () => null,
      (e: unknown) => e,
    );
    expect(calls).toHaveLength(5);
    expect(error).toMatchObject({ name: 'ClientNetworkError', attempts: 5 });
    expect((error as { lastResponse?: { status: number } }).lastResponse?.status).toBe(503);
  });
});

test.describe('options', () => {
  test('invalid maxAttempts and timeoutMs are rejected', () => {
    expect(() => createClient({ baseUrl, maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => createClient({ baseUrl, maxAttempts: 2.5 })).toThrow(/maxAttempts/);
    expect(() => createClient({ baseUrl, timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => createClient({ baseUrl, timeScale: 0 })).toThrow(/timeScale/);
  });

  test('paths are appended to a base URL that has a path', async () => {
    const time = fakeTime();
    const { fetch, calls } = scriptedFetch([json(200, {})], time.clock);
    const client = createClient({ baseUrl: 'http://api.test/v2/', fetch });
    await client.get('/users?limit=2');
    await client.get('users/1');
    expect(calls.map((c) => c.url)).toEqual(['http://api.test/v2/users?limit=2', 'http://api.test/v2/users/1']);
  });

  test('JSON bodies are sent with their media type', async () => {
    const { client, calls } = setup([json(201, { id: 1 })]);
    const res = await client.put('/resource', { name: 'a' });
    expect(res.body).toEqual({ id: 1 });
    expect(calls[0]?.headers['content-type']).toBe('application/json');
    expect(calls[0]?.body).toBe('{"name":"a"}');
  });
});
