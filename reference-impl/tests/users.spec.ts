/**
 * Users (spec/decisions.md D-FIELDS, D-QUERY, D-CONCURRENCY, D-SUCCESS-STATUS, D-CACHE):
 * list with filters, sorting and paging; create, replace, delete; version and email conflicts.
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

const unique = (): string => Math.random().toString(36).slice(2, 10);

test('the seeded users are listed with a page document and public caching', async () => {
  const reply = await client(server.url).get('/users?sort=id');
  expect(reply.status).toBe(200);
  expect(reply.headers.get('cache-control')).toBe('public, max-age=5');
  const names = (reply.json.items as { name: string }[]).map((user) => user.name);
  expect(names.slice(0, 4)).toEqual(['alice', 'bob', 'carol', 'dave']);
  expect(reply.json.page).toMatchObject({ limit: 20, offset: 0 });
  expect(reply.json._links.self.href).toContain('/users?');
  expect(reply.json.items[0]._links).toEqual({ self: { href: '/users/1' }, orders: { href: '/users/1/orders' } });
});

test('a read sent with a token is never public', async () => {
  const reply = await client(server.url).get('/users/1', { token: ALICE });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('cache-control')).toBe('no-store');
});

test('a created user is 201 with Location, readable, and version 1', async () => {
  const api = client(server.url);
  const email = `${unique()}@example.com`;
  const reply = await api.post('/users', { token: ALICE, body: { name: 'Erin', email } });
  expect(reply.status).toBe(201);
  expect(reply.headers.get('location')).toBe(`/users/${reply.json.id}`);
  expect(reply.json).toMatchObject({ name: 'Erin', email, version: 1 });
  expect(new Date(reply.json.createdAt).toISOString()).toBe(reply.json.createdAt);
  const read = await api.get(reply.headers.get('location') ?? '');
  expect(read.json).toEqual(reply.json);
});

test('POST /users does not accept a version', async () => {
  const reply = await client(server.url).post('/users', { token: ALICE, body: { name: 'V', email: `${unique()}@example.com`, version: 3 } });
  expect(reply.status).toBe(422);
  expect(reply.json.errors).toEqual([{ field: 'version', message: expect.any(String) }]);
});

test('an email already in use is 409 email-taken, on create and on replace', async () => {
  const api = client(server.url);
  const taken = await api.post('/users', { token: ALICE, body: { name: 'Dup', email: 'alice@example.com' } });
  expect(taken.status).toBe(409);
  expect(taken.json.type).toBe('https://http-api-conformance.dev/problems/email-taken');
  const other = await api.post('/users', { token: ALICE, body: { name: 'Other', email: `${unique()}@example.com` } });
  const replace = await api.put(`/users/${other.json.id}`, { token: ALICE, body: { name: 'Other', email: 'bob@example.com' } });
  expect(replace.status).toBe(409);
  expect(replace.json.type).toBe('https://http-api-conformance.dev/problems/email-taken');
});

test('concurrent creates with one email create exactly one user', async () => {
  const email = `${unique()}@example.com`;
  const replies = await Promise.all(
    Array.from({ length: 10 }, () => client(server.url).post('/users', { token: ALICE, body: { name: 'Race', email } })),
  );
  expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
  expect(replies.filter((reply) => reply.status === 409)).toHaveLength(9);
});

test('concurrent PUTs with one version: exactly one succeeds, the others are version conflicts', async () => {
  const api = client(server.url);
  const user = await api.post('/users', { token: ALICE, body: { name: 'Conc', email: `${unique()}@example.com` } });
  const replies = await Promise.all(
    Array.from({ length: 8 }, (_, index) =>
      api.put(`/users/${user.json.id}`, { token: ALICE, body: { name: `Conc ${index}`, email: user.json.email, version: 1 } }),
    ),
  );
  expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
  const conflicts = replies.filter((reply) => reply.status === 409);
  expect(conflicts).toHaveLength(7);
  for (const reply of conflicts) expect(reply.json).toMatchObject({ type: 'https://http-api-conformance.dev/problems/version-conflict', currentVersion: 2 });
});

test('PUT replaces, increments the version, and a stale version is 409 version-conflict that changes nothing', async () => {
  const api = client(server.url);
  const user = await api.post('/users', { token: ALICE, body: { name: 'Frank', email: `${unique()}@example.com` } });
  const path = `/users/${user.json.id}`;
  const first = await api.put(path, { token: ALICE, body: { name: 'Franklin', email: user.json.email, version: 1 } });
  expect(first.status).toBe(200);
  expect(first.json).toMatchObject({ name: 'Franklin', version: 2 });
  const stale = await api.put(path, { token: ALICE, body: { name: 'Stale', email: user.json.email, version: 1 } });
  expect(stale.status).toBe(409);
  expect(stale.json).toMatchObject({ type: 'https://http-api-conformance.dev/problems/version-conflict', currentVersion: 2 });
  expect((await api.get(path)).json.name).toBe('Franklin');
  const unconditional = await api.put(path, { token: ALICE, body: { name: 'Frankie', email: user.json.email } });
  expect(unconditional.json).toMatchObject({ name: 'Frankie', version: 3 });
});

test('PUT never creates and DELETE is 204 then 404', async () => {
  const api = client(server.url);
  expect((await api.put('/users/98765', { token: ALICE, body: { name: 'Ghost', email: `${unique()}@example.com` } })).status).toBe(404);
  const user = await api.post('/users', { token: ALICE, body: { name: 'Gone', email: `${unique()}@example.com` } });
  const removed = await api.delete(`/users/${user.json.id}`, { token: ALICE });
  expect(removed.status).toBe(204);
  expect(removed.text).toBe('');
  expect((await api.delete(`/users/${user.json.id}`, { token: ALICE })).status).toBe(404);
  expect((await api.get(`/users/${user.json.id}`)).status).toBe(404);
});

test('HEAD answers like GET without a body', async () => {
  const api = client(server.url);
  const get = await api.get('/users/1');
  const head = await api.send('HEAD', '/users/1');
  expect(head.status).toBe(200);
  expect(head.text).toBe('');
  expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
  expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
});

test('filters, sorting and paging follow the query, with next and prev links', async () => {
  const api = client(server.url);
  const name = `pager-${unique()}`;
  for (let index = 0; index < 5; index += 1) {
    await api.post('/users', { token: ALICE, body: { name, email: `${unique()}-${index}@example.com` } });
  }
  const page = await api.get(`/users?name=${name}&limit=2&offset=2&sort=-id`);
  expect(page.status).toBe(200);
  expect(page.json.page).toEqual({ limit: 2, offset: 2, total: 5 });
  const ids = (page.json.items as { id: number }[]).map((user) => user.id);
  expect(ids[0]).toBeGreaterThan(ids[1] ?? Infinity);
  expect(page.json._links.next.href).toContain('offset=4');
  expect(page.json._links.prev.href).toContain('offset=0');
  const next = await api.get(page.json._links.next.href);
  expect(next.json.items).toHaveLength(1);
  expect(next.json._links.next).toBeUndefined();
  const first = await api.get(page.json._links.prev.href);
  expect(first.json._links.prev).toBeUndefined();
  const all = [...first.json.items, ...page.json.items, ...next.json.items].map((user: { id: number }) => user.id);
  expect(all).toEqual([...all].sort((a, b) => b - a));
  const byEmail = await api.get(`/users?email=${encodeURIComponent('bob@example.com')}`);
  expect(byEmail.json.items.map((user: { id: number }) => user.id)).toEqual([2]);
});

test('a bad query is 400 invalid-query naming every bad parameter', async () => {
  const reply = await client(server.url).get('/users?limit=0&offset=-1&sort=password&colour=red');
  expect(reply.status).toBe(400);
  expect(reply.headers.get('content-type')).toBe('application/problem+json');
  expect(reply.json.type).toBe('https://http-api-conformance.dev/problems/invalid-query');
  const fields = (reply.json.errors as { field: string }[]).map((error) => error.field).sort();
  expect(fields).toEqual(['colour', 'limit', 'offset', 'sort']);
  expect((await client(server.url).get('/users?limit=101')).status).toBe(400);
  expect((await client(server.url).get('/users?limit=100')).status).toBe(200);
});
