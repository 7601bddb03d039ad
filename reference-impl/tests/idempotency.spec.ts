/**
 * Idempotency-Key on POST (spec/decisions.md D-IDEMPOTENCY): replay of the stored result, 422 for
 * another payload, 409 while in flight, 5xx not stored, keys scoped per caller, and exactly one
 * payment from 50 concurrent requests with one key.
 */
import { expect, test } from '@playwright/test';
import { createMemoryStores } from '../stores/memory/index.ts';
import { sequenced } from '../stores/sequences.ts';
import { StoreUnavailableError, type Stores } from '../stores/types.ts';
import { ALICE, BOB, type TestServer, client, startTestServer } from './support/harness.ts';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer({ faultInjection: true });
});
test.afterAll(async () => {
  await server.close();
});

const newKey = (): string => `key-${Math.random().toString(36).slice(2)}`;

async function paymentCount(base: string, token = ALICE): Promise<number> {
  return (await client(base).get('/payments?limit=1', { token })).json.page.total as number;
}

test('a repeated request replays status, body and Location without repeating the work', async () => {
  const api = client(server.url);
  const key = newKey();
  const before = await paymentCount(server.url);
  const body = { amount: 1500, currency: 'eur' };
  const first = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(first.status).toBe(201);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const second = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(second.status).toBe(201);
  expect(second.json).toEqual(first.json);
  expect(second.headers.get('location')).toBe(first.headers.get('location'));
  expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
  expect(second.headers.get('idempotent-replayed')).toBe('true');
  expect(await paymentCount(server.url)).toBe(before + 1);
});

test('the same key with another payload or path is 422 idempotency-key-reused', async () => {
  const api = client(server.url);
  const key = newKey();
  await api.post('/payments', { token: ALICE, body: { amount: 100, currency: 'eur' }, headers: { 'Idempotency-Key': key } });
  const other = await api.post('/payments', { token: ALICE, body: { amount: 101, currency: 'eur' }, headers: { 'Idempotency-Key': key } });
  expect(other.status).toBe(422);
  expect(other.headers.get('content-type')).toBe('application/problem+json');
  expect(other.json.type).toBe('https://http-api-conformance.dev/problems/idempotency-key-reused');
  const path = await api.post('/orders', { token: ALICE, body: { amount: 100, currency: 'eur' }, headers: { 'Idempotency-Key': key } });
  expect(path.status).toBe(422);
  expect(path.json.type).toBe('https://http-api-conformance.dev/problems/idempotency-key-reused');
});

test('keys are scoped per caller', async () => {
  const api = client(server.url);
  const key = newKey();
  const body = { amount: 700, currency: 'eur' };
  const alice = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  const bob = await api.post('/payments', { token: BOB, body, headers: { 'Idempotency-Key': key } });
  expect(bob.status).toBe(201);
  expect(bob.headers.get('idempotent-replayed')).toBeNull();
  expect(bob.json.userId).toBe(2);
  expect(bob.json.id).not.toBe(alice.json.id);
});

test('a malformed key is 400 invalid-idempotency-key', async () => {
  const api = client(server.url);
  for (const key of ['', 'has space', 'x'.repeat(256), 'tab\there']) {
    const reply = await api.post('/payments', { token: ALICE, body: { amount: 1, currency: 'eur' }, headers: { 'Idempotency-Key': key } });
    expect(reply.status, JSON.stringify(key)).toBe(400);
    expect(reply.json.type).toBe('https://http-api-conformance.dev/problems/invalid-idempotency-key');
  }
  const longest = await api.post('/payments', { token: ALICE, body: { amount: 1, currency: 'eur' }, headers: { 'Idempotency-Key': '~'.repeat(255) } });
  expect(longest.status).toBe(201);
});

test('a 4xx result is stored and replayed', async () => {
  const api = client(server.url);
  const key = newKey();
  const body = { amount: -5, currency: 'eur' };
  const first = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(first.status).toBe(422);
  const second = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(second.status).toBe(422);
  expect(second.json).toEqual(first.json);
  expect(second.headers.get('idempotent-replayed')).toBe('true');
  expect(second.headers.get('content-type')).toBe('application/problem+json');
});

test('a 5xx result is not stored: a retry with the same key runs the work', async () => {
  const api = client(server.url);
  const key = newKey();
  const body = { amount: 999, currency: 'eur' };
  const failed = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key, 'X-Fault-Inject': '500' } });
  expect(failed.status).toBe(500);
  const retried = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(retried.status).toBe(201);
  expect(retried.headers.get('idempotent-replayed')).toBeNull();
});

/** Memory stores whose payment id allocation waits until `open()` is called. */
function gatedStores(): { stores: Stores; open: () => void; entered: Promise<void> } {
  const base = createMemoryStores();
  let open!: () => void;
  let signal!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const entered = new Promise<void>((resolve) => (signal = resolve));
  const resources = {
    ...base.resources,
    nextId: async (kind: Parameters<Stores['resources']['nextId']>[0]) => {
      if (kind === 'payments') {
        signal();
        await gate;
      }
      return base.resources.nextId(kind);
    },
  };
  return { stores: sequenced({ ...base, resources }), open, entered };
}

test('a key whose first request is still running is 409 idempotency-key-in-flight with Retry-After: 1', async () => {
  const gated = gatedStores();
  const slow = await startTestServer({}, gated.stores);
  try {
    const api = client(slow.url);
    const key = newKey();
    const body = { amount: 300, currency: 'eur' };
    const first = api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
    await gated.entered;
    const second = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(second.json.type).toBe('https://http-api-conformance.dev/problems/idempotency-key-in-flight');
    gated.open();
    expect((await first).status).toBe(201);
    const third = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
    expect(third.status).toBe(201);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
  } finally {
    gated.open();
    await slow.close();
  }
});

test('50 concurrent POST /payments with one key create exactly one payment', async () => {
  const fresh = await startTestServer();
  try {
    const api = client(fresh.url);
    const key = newKey();
    const body = { amount: 5000, currency: 'usd' };
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } })),
    );
    const created = replies.filter((reply) => reply.status === 201);
    const inFlight = replies.filter((reply) => reply.status === 409);
    expect(created.length + inFlight.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((reply) => reply.json.id)).size).toBe(1);
    expect(created.filter((reply) => reply.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const reply of inFlight) expect(reply.json.type).toBe('https://http-api-conformance.dev/problems/idempotency-key-in-flight');
    expect(await paymentCount(fresh.url)).toBe(1);
    expect((await api.get('/transfers', { token: ALICE })).json.page.total).toBe(1);
  } finally {
    await fresh.close();
  }
});

test('when the result cannot be recorded, a retry after the lock expires returns the payment already made', async () => {
  const base = createMemoryStores();
  let failing = true;
  const down = async (): Promise<never> => {
    throw new StoreUnavailableError('injected');
  };
  const stores: Stores = sequenced({
    ...base,
    idempotency: {
      claim: (...args) => base.idempotency.claim(...args),
      complete: (...args) => (failing ? down() : base.idempotency.complete(...args)),
      release: (...args) => (failing ? down() : base.idempotency.release(...args)),
    },
  });
  const flaky = await startTestServer({ idempotency: { ttlSeconds: 600, lockSeconds: 1 } }, stores);
  try {
    const api = client(flaky.url);
    const body = { amount: 4321, currency: 'eur' };
    const headers = { 'Idempotency-Key': newKey() };
    const failed = await api.post('/payments', { token: ALICE, body, headers });
    expect(failed.status).toBe(503);
    failing = false;
    await expect
      .poll(async () => (await api.post('/payments', { token: ALICE, body, headers })).status, { timeout: 5000, intervals: [250] })
      .toBe(201);
    const list = await api.get('/payments', { token: ALICE });
    expect((list.json.items as { amount: number }[]).filter((payment) => payment.amount === 4321)).toHaveLength(1);
  } finally {
    await flaky.close();
  }
});

test('X-Fault-Inject: delay-<ms> holds a keyed request in flight: the same key meanwhile is 409, then replays the one result', async () => {
  const api = client(server.url);
  const key = newKey();
  const body = { amount: 4321, currency: 'eur' };
  const before = await paymentCount(server.url);
  const slow = api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key, 'X-Fault-Inject': 'delay-400' } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const during = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  const first = await slow;
  expect(first.status).toBe(201);
  expect(during.status).toBe(409);
  expect(during.json.type).toBe('https://http-api-conformance.dev/problems/idempotency-key-in-flight');
  expect(during.headers.get('retry-after')).toBe('1');
  const after = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(after.json).toEqual(first.json);
  expect(await paymentCount(server.url)).toBe(before + 1);
});

test('X-Fault-Inject values other than 500, 503 and delay-1..5000 change nothing', async () => {
  const api = client(server.url);
  for (const value of ['delay-0', 'delay-5001', 'delay-x', '200']) {
    const started = performance.now();
    const reply = await api.get('/users/1', { headers: { 'X-Fault-Inject': value } });
    expect(reply.status, value).toBe(200);
    // A held request would take over 5 s; an ignored value answers at once (generous bound for a loaded machine).
    expect(performance.now() - started, value).toBeLessThan(3000);
  }
});
