/**
 * Authentication and ownership (spec/decisions.md D-AUTH): 401 for missing, malformed and unknown
 * credentials with the right WWW-Authenticate, 403 with insufficient_scope, public reads, and
 * another user's orders, payments and transfers answered 404.
 */
import { expect, test } from '@playwright/test';
import { ALICE, BOB, READER, type TestServer, call, client, startTestServer } from './support/harness.ts';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => {
  await server.close();
});

test('a missing Authorization header on a protected route is 401 with a plain Bearer challenge', async () => {
  const reply = await client(server.url).get('/account');
  expect(reply.status).toBe(401);
  expect(reply.headers.get('content-type')).toBe('application/problem+json');
  expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="api"');
  expect(reply.json).toMatchObject({ status: 401, instance: '/account', type: 'about:blank' });
});

test('an unknown token is 401 with error="invalid_token", even on a public route', async () => {
  for (const path of ['/account', '/users']) {
    const reply = await client(server.url).get(path, { token: 'dev-token-nobody' });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
    expect(reply.json.status).toBe(401);
  }
});

test('OPTIONS needs no token, but a token that is sent is checked: an unknown one is 401', async () => {
  const api = client(server.url);
  for (const path of ['/orders', '/users', '/orders/999999']) {
    const anonymous = await api.send('OPTIONS', path);
    expect(anonymous.status, path).toBe(204);
    expect(anonymous.headers.get('allow'), path).toContain('OPTIONS');
    const known = await api.send('OPTIONS', path, { token: ALICE });
    expect(known.status, path).toBe(204);
    for (const authorization of ['Bearer nope', 'Basic YWxpY2U6cHc=']) {
      const reply = await api.send('OPTIONS', path, { headers: { Authorization: authorization } });
      expect(reply.status, `${authorization} ${path}`).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
      expect(reply.json).toMatchObject({ status: 401, instance: path });
    }
  }
});

test('a malformed header or another scheme is 401 with error="invalid_token"', async () => {
  for (const authorization of ['Basic YWxpY2U6cHc=', 'Bearer', 'Bearer two tokens', 'dev-token-alice', 'Bearer dev-token-alice!']) {
    const reply = await client(server.url).get('/account', { headers: { Authorization: authorization } });
    expect(reply.status, authorization).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
  }
});

test('a valid token lacking the permission is 403 with insufficient_scope naming it', async () => {
  const api = client(server.url);
  const reply = await api.post('/orders', { token: READER, body: { total: 10, currency: 'eur' } });
  expect(reply.status).toBe(403);
  expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="api", error="insufficient_scope", scope="orders:write"');
  expect(reply.json).toMatchObject({ status: 403, instance: '/orders' });
  const payments = await api.post('/payments', { token: READER, body: { amount: 100, currency: 'eur' } });
  expect(payments.status).toBe(403);
  expect(payments.headers.get('www-authenticate')).toContain('scope="payments:write"');
  const read = await api.get('/orders', { token: READER });
  expect(read.status).toBe(200);
});

test('public reads need no token; writes do', async () => {
  const api = client(server.url);
  for (const path of ['/users', '/users/1', '/authors', '/posts']) expect((await api.get(path)).status, path).toBe(200);
  expect((await api.post('/authors', { body: { name: 'anon' } })).status).toBe(401);
  for (const path of ['/orders', '/payments', '/transfers', '/account', '/users/1/orders']) expect((await api.get(path)).status, path).toBe(401);
});

test('a token compared as a prefix or with different case is not accepted', async () => {
  for (const token of ['dev-token-alic', 'dev-token-alicee', 'DEV-TOKEN-ALICE']) {
    expect((await client(server.url).get('/account', { token })).status, token).toBe(401);
  }
  expect((await client(server.url).get('/account', { headers: { Authorization: `bearer ${ALICE}` } })).status).toBe(200);
});

test("another user's orders, payments and transfers are 404 like absent ones", async () => {
  const api = client(server.url);
  const order = await api.post('/orders', { token: ALICE, body: { total: 20, currency: 'eur' } });
  const payment = await api.post('/payments', { token: ALICE, body: { amount: 500, currency: 'usd' } });
  expect(order.status).toBe(201);
  expect(payment.status).toBe(201);
  const transferId = payment.json.transferId as number;
  for (const path of [`/orders/${order.json.id}`, `/payments/${payment.json.id}`, `/transfers/${transferId}`, '/users/1/orders']) {
    const reply = await api.get(path, { token: BOB });
    expect(reply.status, path).toBe(404);
    expect(reply.json.detail).toBe((await api.get(`${path.replace(/\d+$/, '99999')}`, { token: BOB })).json.detail);
    expect((await api.get(path, { token: ALICE })).status, path).toBe(200);
  }
  for (const action of ['cancel', 'payment']) {
    expect((await api.post(`/orders/${order.json.id}/${action}`, { token: BOB })).status).toBe(404);
  }
  const mine = await api.get('/orders', { token: BOB });
  expect((mine.json.items as { userId: number }[]).every((item) => item.userId === 2)).toBe(true);
  const theirs = await api.get('/payments', { token: BOB });
  expect((theirs.json.items as { id: number }[]).some((item) => item.id === payment.json.id)).toBe(false);
});

test('the account is the caller\'s own, seen through the token', async () => {
  const reply = await call(server.url, 'GET', '/account', { token: READER });
  expect(reply.status).toBe(200);
  expect(reply.json).toMatchObject({ id: 3, userId: 3, name: 'carol', permissions: ['orders:read', 'payments:read'], plan: 'standard' });
  expect(reply.json._links.self).toEqual({ href: '/account' });
  expect(reply.headers.get('cache-control')).toBe('no-store');
});
