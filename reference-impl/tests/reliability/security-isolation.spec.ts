/**
 * Callers are isolated (spec/decisions.md D-AUTH `AUTH-OTHERS-404`,
 * D-IDEMPOTENCY `IDEMPOTENCY-SCOPED-PER-CALLER`): bob can neither read nor act on alice's orders,
 * payments, transfers or account, and bob sending alice's Idempotency-Key gets his own result.
 */
import { expect, test } from '@playwright/test';
import { ALICE, BOB, type TestServer, client, startTestServer } from '../support/harness.ts';

let server: TestServer;

test.beforeAll(async () => {
  server = await startTestServer();
});

test.afterAll(async () => {
  await server?.close();
});

test('bob cannot read or act on alice’s orders, payments, transfers or account', async () => {
  const api = client(server.url);
  const order = await api.post('/orders', { token: ALICE, body: { total: 12.5, currency: 'usd' } });
  expect(order.status).toBe(201);
  const payable = await api.post('/orders', { token: ALICE, body: { total: 3, currency: 'usd' } });
  const payment = await api.post('/payments', { token: ALICE, body: { amount: 700, currency: 'eur' } });
  expect(payment.status).toBe(201);
  const orderId = order.json.id as number;
  const payableId = payable.json.id as number;
  const paymentId = payment.json.id as number;
  const transferId = payment.json.transferId as number;

  const hidden: [string, string][] = [
    ['GET', `/orders/${orderId}`],
    ['HEAD', `/orders/${orderId}`],
    ['POST', `/orders/${orderId}/cancel`],
    ['POST', `/orders/${payableId}/payment`],
    ['GET', `/payments/${paymentId}`],
    ['GET', `/transfers/${transferId}`],
    ['GET', '/users/1/orders'],
  ];
  for (const [method, path] of hidden) {
    const reply = await api.send(method, path, { token: BOB });
    expect(reply.status, `${method} ${path} as bob`).toBe(404);
    expect(reply.text).not.toContain('alice');
    if (method !== 'HEAD') expect(reply.json).toMatchObject({ status: 404, instance: path });
  }
  for (const path of ['/orders', '/payments', '/transfers']) {
    const list = await api.get(path, { token: BOB });
    expect(list.status).toBe(200);
    expect((list.json.items as { userId: number }[]).every((item) => item.userId === 2), path).toBe(true);
  }
  const account = await api.get('/account', { token: BOB });
  expect(account.json).toMatchObject({ userId: 2, name: 'bob' });

  const after = await api.get(`/orders/${orderId}`, { token: ALICE });
  expect(after.json.status).toBe('pending');
  const stillPayable = await api.get(`/orders/${payableId}`, { token: ALICE });
  expect(stillPayable.json.status).toBe('pending');
  const alicePayments = await api.get('/payments', { token: ALICE });
  expect(alicePayments.json.page.total).toBe(1);
});

test('an unknown id and another caller’s id get the same answer, so existence is not disclosed', async () => {
  const api = client(server.url);
  const order = await api.post('/orders', { token: ALICE, body: { total: 1, currency: 'usd' } });
  const others = await api.get(`/orders/${order.json.id as number}`, { token: BOB });
  const missing = await api.get('/orders/999999', { token: BOB });
  expect(others.status).toBe(missing.status);
  const strip = (doc: Record<string, unknown>): Record<string, unknown> => ({ ...doc, instance: undefined });
  expect(strip(others.json)).toEqual(strip(missing.json));
});

test('bob sending alice’s Idempotency-Key gets his own fresh result, never alice’s', async () => {
  const api = client(server.url);
  const key = `shared-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const body = { amount: 4200, currency: 'usd' };
  const alice = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(alice.status).toBe(201);
  const bob = await api.post('/payments', { token: BOB, body, headers: { 'Idempotency-Key': key } });
  expect(bob.status).toBe(201);
  expect(bob.headers.get('idempotent-replayed')).toBeNull();
  expect(bob.json.id).not.toBe(alice.json.id);
  expect(bob.json.userId).toBe(2);
  const members = ['_links', 'amount', 'createdAt', 'currency', 'id', 'status', 'transferId', 'userId'];
  expect(Object.keys(alice.json).sort(), 'no internal member (such as the idempotency marker) is exposed').toEqual(members);
  expect(Object.keys(bob.json).sort()).toEqual(members);
  const bobOther = await api.post('/payments', { token: BOB, body: { amount: 1, currency: 'usd' }, headers: { 'Idempotency-Key': `${key}-b` } });
  expect(bobOther.status).toBe(201);
  const aliceOtherBody = await api.post('/payments', { token: ALICE, body: { amount: 1, currency: 'usd' }, headers: { 'Idempotency-Key': `${key}-b` } });
  expect(aliceOtherBody.status, 'alice’s use of the key bob used first is her own first use').toBe(201);
  expect(aliceOtherBody.json.userId).toBe(1);

  const aliceReplay = await api.post('/payments', { token: ALICE, body, headers: { 'Idempotency-Key': key } });
  expect(aliceReplay.headers.get('idempotent-replayed')).toBe('true');
  expect(aliceReplay.json).toEqual(alice.json);
  const bobReplay = await api.post('/payments', { token: BOB, body, headers: { 'Idempotency-Key': key } });
  expect(bobReplay.json).toEqual(bob.json);
});
