/**
 * Orders, payments and transfers (spec/decisions.md D-FIELDS, D-ORDER-STATES, D-SUCCESS-STATUS):
 * links offered only while legal, transitions by following them, 409 illegal-transition, the
 * payment and transfer created by `pay`.
 */
import { expect, test } from '@playwright/test';
import { ALICE, type TestServer, client, startTestServer } from './support/harness.ts';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => {
  await server.close();
});

async function newOrder(total = 12.34): Promise<{ id: number; _links: Record<string, { href: string; method?: string }> }> {
  const reply = await client(server.url).post('/orders', { token: ALICE, body: { total, currency: 'eur' } });
  expect(reply.status).toBe(201);
  expect(reply.headers.get('location')).toBe(`/orders/${reply.json.id}`);
  return reply.json;
}

test('a new order is pending and offers cancel and pay with POST; self has no method', async () => {
  const order = await newOrder();
  expect(order).toMatchObject({ status: 'pending', total: 12.34, currency: 'eur', userId: 1 });
  expect(order._links.self).toEqual({ href: `/orders/${order.id}` });
  expect(order._links.cancel).toEqual({ href: `/orders/${order.id}/cancel`, method: 'POST' });
  expect(order._links.pay).toEqual({ href: `/orders/${order.id}/payment`, method: 'POST' });
});

test('following cancel gives 200 cancelled without action links; a second transition is 409', async () => {
  const api = client(server.url);
  const order = await newOrder();
  const cancelled = await api.send(order._links.cancel?.method ?? '', order._links.cancel?.href ?? '', { token: ALICE });
  expect(cancelled.status).toBe(200);
  expect(cancelled.json.status).toBe('cancelled');
  expect(Object.keys(cancelled.json._links)).toEqual(['self']);
  for (const link of [order._links.cancel, order._links.pay]) {
    const again = await api.post(link?.href ?? '', { token: ALICE });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toBe('application/problem+json');
    expect(again.json).toMatchObject({
      type: 'https://http-api-conformance.dev/problems/illegal-transition',
      currentStatus: 'cancelled',
      transition: link === order._links.cancel ? 'cancel' : 'pay',
    });
  }
  expect((await api.get(`/orders/${order.id}`, { token: ALICE })).json.status).toBe('cancelled');
});

test('following pay creates a payment of the total in minor units and its transfer', async () => {
  const api = client(server.url);
  const order = await newOrder(19.99);
  const paid = await api.post(order._links.pay?.href ?? '', { token: ALICE, body: {} });
  expect(paid.status).toBe(200);
  expect(paid.json.status).toBe('paid');
  expect(paid.json._links.cancel).toBeUndefined();
  const payment = await api.get(paid.json._links.payment.href, { token: ALICE });
  expect(payment.json).toMatchObject({ amount: 1999, currency: 'eur', status: 'succeeded', userId: 1 });
  const transfer = await api.get(payment.json._links.transfer.href, { token: ALICE });
  expect(transfer.json).toMatchObject({ paymentId: payment.json.id, amount: 1999, status: 'completed' });
  expect(transfer.json._links.payment).toEqual({ href: `/payments/${payment.json.id}` });
  const again = await api.post(order._links.pay?.href ?? '', { token: ALICE });
  expect(again.status).toBe(409);
  expect(again.json.currentStatus).toBe('paid');
});

test('concurrent pays of one order create exactly one payment', async () => {
  const api = client(server.url);
  const order = await newOrder(5);
  const before = (await api.get('/payments?limit=100', { token: ALICE })).json.page.total as number;
  const replies = await Promise.all(Array.from({ length: 10 }, () => api.post(order._links.pay?.href ?? '', { token: ALICE })));
  expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
  expect(replies.filter((reply) => reply.status === 409)).toHaveLength(9);
  expect((await api.get('/payments?limit=100', { token: ALICE })).json.page.total).toBe(before + 1);
});

test('an action with a non-empty body is 422; with a non-JSON body 415', async () => {
  const api = client(server.url);
  const order = await newOrder();
  const members = await api.post(order._links.cancel?.href ?? '', { token: ALICE, body: { reason: 'x' } });
  expect(members.status).toBe(422);
  expect(members.json.errors[0].field).toBe('reason');
  const text = await api.post(order._links.cancel?.href ?? '', { token: ALICE, raw: 'please', headers: { 'Content-Type': 'text/plain' } });
  expect(text.status).toBe(415);
});

test('an invalid order is 422 listing total and currency', async () => {
  const reply = await client(server.url).post('/orders', { token: ALICE, body: { total: 0.001, currency: 'EURO' } });
  expect(reply.status).toBe(422);
  expect((reply.json.errors as { field: string }[]).map((error) => error.field).sort()).toEqual(['currency', 'total']);
});

test('orders of a user are listed under /users/{id}/orders and filter by status', async () => {
  const api = client(server.url);
  const order = await newOrder();
  const nested = await api.get('/users/1/orders?status=pending&limit=100', { token: ALICE });
  expect(nested.status).toBe(200);
  expect((nested.json.items as { id: number; status: string }[]).some((item) => item.id === order.id)).toBe(true);
  expect((nested.json.items as { status: string }[]).every((item) => item.status === 'pending')).toBe(true);
  expect((await api.get('/orders?status=shipped', { token: ALICE })).status).toBe(400);
  const sorted = await api.get('/orders?sort=-total&limit=100', { token: ALICE });
  const totals = (sorted.json.items as { total: number }[]).map((item) => item.total);
  expect(totals).toEqual([...totals].sort((a, b) => b - a));
});

test('POST /payments creates a payment with its transfer; both are listed for the owner', async () => {
  const api = client(server.url);
  const created = await api.post('/payments', { token: ALICE, body: { amount: 4200, currency: 'gbp', description: 'books' } });
  expect(created.status).toBe(201);
  expect(created.headers.get('location')).toBe(`/payments/${created.json.id}`);
  expect(created.json).toMatchObject({ amount: 4200, currency: 'gbp', description: 'books', status: 'succeeded' });
  expect(created.json._links.self).toEqual({ href: `/payments/${created.json.id}` });
  const transfers = await api.get('/transfers?currency=gbp&limit=100', { token: ALICE });
  expect((transfers.json.items as { paymentId: number }[]).some((item) => item.paymentId === created.json.id)).toBe(true);
  const payments = await api.get('/payments?currency=gbp&sort=-amount', { token: ALICE });
  expect((payments.json.items as { currency: string }[]).every((item) => item.currency === 'gbp')).toBe(true);
});
