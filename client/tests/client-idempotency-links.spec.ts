import { test, expect } from '@playwright/test';
import { createClient, LinkNotFoundError } from '../index.ts';
import { fakeTime, json, problem, randomSequence, scriptedFetch } from './support/fakes.ts';

const baseUrl = 'http://api.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function setup(steps: Parameters<typeof scriptedFetch>[0], extra: Record<string, unknown> = {}) {
  const time = fakeTime();
  const { fetch, calls } = scriptedFetch(steps, time.clock);
  const client = createClient({ baseUrl, token: 'secret-token', fetch, clock: time.clock, sleep: time.sleep, random: randomSequence(0.5), ...extra });
  return { client, calls };
}

test.describe('CLIENT-IDEMPOTENCY-KEY-PER-OPERATION and CLIENT-IDEMPOTENCY-KEY-STABLE', () => {
  test('a POST carries a generated key, unchanged on every retry', async () => {
    const { client, calls } = setup([problem(503), new TypeError('reset'), problem(500), json(201, { id: 1 })]);
    const res = await client.post('/payments', { amount: 100, currency: 'eur' });
    expect(res.status).toBe(201);
    expect(calls).toHaveLength(4);
    const keys = calls.map((c) => c.headers['idempotency-key']);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys).size).toBe(1);
    expect(res.idempotencyKey).toBe(keys[0]);
    expect(new Set(calls.map((c) => c.body))).toEqual(new Set(['{"amount":100,"currency":"eur"}']));
  });

  test('each logical POST gets its own key', async () => {
    const { client, calls } = setup([json(201, {})]);
    for (let i = 0; i < 5; i += 1) await client.post('/payments', { amount: i, currency: 'eur' });
    expect(new Set(calls.map((c) => c.headers['idempotency-key'])).size).toBe(5);
  });

  test('a key given by the caller is sent on every attempt', async () => {
    const { client, calls } = setup([problem(503), json(201, {})]);
    await client.post('/payments', { amount: 1, currency: 'eur' }, { idempotencyKey: 'order-42-payment' });
    expect(calls.map((c) => c.headers['idempotency-key'])).toEqual(['order-42-payment', 'order-42-payment']);
  });

  test('a POST without a key is never retried', async () => {
    const { client, calls } = setup([problem(503), json(201, {})]);
    const res = await client.post('/payments', { amount: 1, currency: 'eur' }, { idempotencyKey: false });
    expect(res.status).toBe(503);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers['idempotency-key']).toBeUndefined();
  });

  test('a POST without a key that meets a network error is not retried', async () => {
    const { client, calls } = setup([new TypeError('reset'), json(201, {})]);
    await expect(client.post('/payments', {}, { idempotencyKey: false })).rejects.toMatchObject({ name: 'ClientNetworkError', attempts: 1 });
    expect(calls).toHaveLength(1);
  });

  test('GET, PUT and DELETE send no key and are retried', async () => {
    const { client, calls } = setup([problem(503), json(200, {})]);
    await client.put('/resource', { a: 1 });
    expect(calls).toHaveLength(2);
    expect(calls.every((c) => c.headers['idempotency-key'] === undefined)).toBe(true);
  });

  test('the key generator is injectable', async () => {
    let n = 0;
    const { client, calls } = setup([json(201, {})], { generateKey: () => `key-${++n}` });
    await client.post('/payments', {});
    await client.request('PATCH', '/resource', { body: {} });
    expect(calls.map((c) => c.headers['idempotency-key'])).toEqual(['key-1', 'key-2']);
  });
});

test.describe('CLIENT-BEARER-EVERY-REQUEST', () => {
  test('every attempt carries the bearer token', async () => {
    const { client, calls } = setup([problem(429), problem(503), json(200, {})]);
    await client.get('/resource');
    await client.post('/payments', {});
    expect(calls).toHaveLength(4);
    expect(calls.every((c) => c.headers.authorization === 'Bearer secret-token')).toBe(true);
  });

  test('the token is never sent to another origin named by a link', async () => {
    const { client, calls } = setup([json(200, {})]);
    await client.follow({ _links: { elsewhere: { href: 'https://other.test/x' } } }, 'elsewhere');
    expect(calls[0]?.url).toBe('https://other.test/x');
    expect(calls[0]?.headers.authorization).toBeUndefined();
  });
});

test.describe('CLIENT-LINKS-FOLLOWED', () => {
  const order = { id: 7, status: 'pending', _links: { self: { href: '/orders/7' }, cancel: { href: '/q9x/orders/7/cancellation-zz', method: 'post' } } };

  test('follow uses the href and method of the link', async () => {
    const { client, calls } = setup([json(200, { id: 7, status: 'cancelled' })]);
    const res = await client.follow(order, 'cancel');
    expect(res.body).toEqual({ id: 7, status: 'cancelled' });
    expect(calls[0]?.method).toBe('POST');
    expect(calls[0]?.url).toBe('http://api.test/q9x/orders/7/cancellation-zz');
    expect(calls[0]?.headers['idempotency-key']).toMatch(UUID);
  });

  test('follow accepts a response and a link without method means GET', async () => {
    const { client, calls } = setup([json(200, order), json(200, order)]);
    const first = await client.get('/orders/7');
    await client.follow(first, 'self');
    expect(calls[1]?.method).toBe('GET');
    expect(calls[1]?.url).toBe('http://api.test/orders/7');
  });

  test('follow sends a body when given one', async () => {
    const { client, calls } = setup([json(200, {})]);
    await client.follow({ _links: { pay: { href: '/orders/7/payment', method: 'POST' } } }, 'pay', { note: 'x' });
    expect(calls[0]?.body).toBe('{"note":"x"}');
  });

  test('a missing relation throws a clear error and sends nothing', async () => {
    const { client, calls } = setup([json(200, {})]);
    expect(() => client.follow(order, 'pay')).toThrow(LinkNotFoundError);
    expect(() => client.follow(order, 'pay')).toThrow(/no "pay" link \(links offered: self, cancel\)/);
    expect(() => client.follow({ id: 1 }, 'self')).toThrow(/links offered: none/);
    expect(() => client.follow({ _links: { cancel: { method: 'POST' } } }, 'cancel')).toThrow(LinkNotFoundError);
    expect(calls).toHaveLength(0);
  });
});
