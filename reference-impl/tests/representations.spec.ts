/**
 * Every representation and problem the reference server sends validates against the schemas of
 * `spec/schemas/` (spec/decisions.md D-FIELDS, D-QUERY, D-ERRORS): the server and the spec agree.
 */
import { expect, test } from '@playwright/test';
import { validationErrors } from '../../spec/schemas.ts';
import { ALICE, type TestServer, client, startTestServer } from './support/harness.ts';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => {
  await server.close();
});

function conforms(schema: string, data: unknown): void {
  expect(validationErrors(schema, data), `${schema}: ${JSON.stringify(data)}`).toEqual([]);
}

test('resources, pages and problems conform to their schemas', async () => {
  const api = client(server.url);
  const order = await api.post('/orders', { token: ALICE, body: { total: 99.95, currency: 'eur' } });
  conforms('order', order.json);
  const paid = await api.post(order.json._links.pay.href, { token: ALICE });
  conforms('order', paid.json);
  const payment = await api.post('/payments', { token: ALICE, body: { amount: 120, currency: 'chf', description: 'tea' } });
  conforms('payment', payment.json);
  conforms('transfer', (await api.get(payment.json._links.transfer.href, { token: ALICE })).json);
  conforms('user', (await api.get('/users/1')).json);
  conforms('account', (await api.get('/account', { token: ALICE })).json);
  const author = await api.post('/authors', { token: ALICE, body: { name: 'Iris', bio: 'poet' } });
  conforms('author', author.json);
  const post = await api.post('/posts', { token: ALICE, body: { authorId: author.json.id, title: 'T', body: 'B' } });
  conforms('post', post.json);
  conforms('comment', (await api.post(`/posts/${post.json.id}/comments`, { token: ALICE, body: { authorName: 'J', body: 'K' } })).json);
  const pages: [string, string][] = [
    ['users-page', '/users?limit=2'],
    ['orders-page', '/orders'],
    ['payments-page', '/payments'],
    ['transfers-page', '/transfers'],
    ['authors-page', '/authors'],
    ['posts-page', '/posts'],
    ['comments-page', `/posts/${post.json.id}/comments`],
  ];
  for (const [schema, path] of pages) conforms(schema, (await api.get(path, { token: ALICE })).json);
  conforms('collection-page', (await api.get('/users?limit=1&offset=1')).json);
  conforms('problem', (await api.get('/nowhere')).json);
  conforms('validation-problem', (await api.post('/payments', { token: ALICE, body: { amount: 0 } })).json);
  conforms('query-problem', (await api.get('/users?limit=0')).json);
});

test('a 429 conforms to the rate-limit problem schema', async () => {
  const limited = await startTestServer({ anonymousPlan: 'one', plans: { one: { capacity: 1, refillPerSecond: 0.01 } } });
  try {
    const api = client(limited.url);
    await api.get('/users');
    const reply = await api.get('/users');
    expect(reply.status).toBe(429);
    conforms('rate-limit-problem', reply.json);
  } finally {
    await limited.close();
  }
});
