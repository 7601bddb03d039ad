/**
 * The document's own example API (section 4 endpoint table, D-PATHS, D-FIELDS, D-METHODS, D-QUERY):
 * every endpoint answers as decided and every representation validates against spec/schemas.
 * Runs only when the profile declares features.exampleApi.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { validationErrors } from '../../spec/schemas.ts';
import { created, createdItem, json, NO_EXAMPLE_API, schemaIssues, selfPath, userOrdersPath, world } from '../support/example-api.ts';
import type { HttpResponse } from '../transport/message.ts';
import { allPages, itemsOf, succeeded } from '../support/collection.ts';
import type { World } from '../support/example-api.ts';
import { errorFields, exchangeText, problemIssues } from '../support/problem.ts';
import { linkOf } from '../support/links.ts';
import { uniqueValue } from '../support/template.ts';
import { skipCheck } from '../support/skip.ts';
import type { Target } from '../support/target.ts';

// The whole file needs the feature: skipped before any check's own fixtures (Playwright runs beforeAll first).
test.beforeAll(({ profile }) => {
  if (!profile.features?.exampleApi) skipCheck(NO_EXAMPLE_API);
});

test('GET /users returns a page of users', req('ENDPOINT-USERS-LIST', '@example-api', '@smoke'), async ({ target }) => {
  // D-SUITE-TRUST: with the valid token (which reads are public is a MAY), any page envelope (COLLECTION-PAGE-SHAPE is a SHOULD).
  await created(target, '/users', { name: `listed ${uniqueValue()}`, email: `l-${uniqueValue()}@example.com` });
  const response = await target.client.get('/users');
  expect(response.status, exchangeText(response)).toBe(200);
  expect(itemsOf(response.json)?.length ?? 0, `a collection of users: ${exchangeText(response)}`).toBeGreaterThan(0);
});

test('GET /users/{id} returns one user', req('ENDPOINT-USER-READ', '@example-api'), async ({ target }) => {
  const u = uniqueValue();
  const made = await created(target, '/users', { name: `read ${u}`, email: `rd-${u}@example.com` });
  const response = await target.client.get(createdItem(target, '/users', made));
  expect(response.status, exchangeText(response)).toBe(200);
  expect(response.json, exchangeText(response)).toEqual(expect.objectContaining({ name: `read ${u}`, email: `rd-${u}@example.com` }));
});

test('POST /users creates a user and returns it', req('ENDPOINT-USER-CREATE', '@example-api'), async ({ target }) => {
  const u = uniqueValue();
  const response = await created(target, '/users', { name: `user ${u}`, email: `c-${u}@example.com` });
  expect(response.json, 'the created user is returned').toEqual(expect.objectContaining({ name: `user ${u}`, email: `c-${u}@example.com` }));
  const read = await target.client.get(createdItem(target, '/users', response));
  expect(read.json, exchangeText(read)).toEqual(expect.objectContaining({ name: `user ${u}`, email: `c-${u}@example.com` }));
});

test('PUT /users/{id} replaces the user and returns it', req('ENDPOINT-USER-REPLACE', '@example-api'), async ({ target }) => {
  const { user } = await world(target);
  const u = uniqueValue();
  const response = await target.client.put(user, { name: `renamed ${u}`, email: `r-${u}@example.com` });
  expect(succeeded(response), exchangeText(response)).toBe(true);
  if (response.text !== '') expect(response.json, 'the updated user is returned').toEqual(expect.objectContaining({ name: `renamed ${u}` }));
  expect(json(await target.client.get(user))).toEqual(expect.objectContaining({ name: `renamed ${u}`, email: `r-${u}@example.com` }));
});

test('DELETE /users/{id} removes the user', req('ENDPOINT-USER-DELETE', '@example-api'), async ({ target }) => {
  const { user } = await world(target);
  const response = await target.client.delete(user);
  // D-SUITE-TRUST: 204 is STATUS-204-DELETE (a SHOULD); 200 with the deleted user is as valid.
  expect(succeeded(response) && response.status !== 202, `the delete is done: ${exchangeText(response)}`).toBe(true);
  expect((await target.client.get(user)).status).toBe(404);
});

test('GET /users/{id}/orders lists only that user\'s orders', req('ENDPOINT-USER-ORDERS', '@example-api'), async ({ target, profile }) => {
  const { order } = await world(target);
  const path = await userOrdersPath(target);
  if (path === undefined) skipCheck('the account names neither an orders link nor its user id, so the caller\'s /users/{id}/orders is unknown');
  // Every page, by the server's own next links (D-SUITE-TRUST: never assumed parameter names).
  const { pages, items } = await allPages(target, target.client, path);
  expect(pages[0]?.status, exchangeText(pages[0] as HttpResponse)).toBe(200);
  const paths = items.map((o) => selfPath(target, o, '/orders'));
  expect(paths, 'the caller\'s new order is listed').toContain(order);
  const stranger = profile.tokens.other ? await target.as(profile.tokens.other).post('/orders', { total: 4, currency: 'eur' }) : undefined;
  if (stranger && succeeded(stranger)) {
    const after = (await allPages(target, target.client, path)).items.map((o) => selfPath(target, o, '/orders'));
    expect(after, 'another caller\'s order is not listed').not.toContain(createdItem(target, '/orders', stranger));
  }
});

test('a nested collection lists only the items of its owner', req('URL-NESTED-RELATIONSHIP', '@example-api'), async ({ target }) => {
  const a = await world(target);
  const b = await world(target);
  // Each post's nested collection holds exactly the comment made under it (its own data, D-SUITE-TRUST).
  for (const w of [a, b]) {
    const { items } = await allPages(target, target.client, w.comments);
    expect(items.map((c) => selfPath(target, c, w.comments)), w.comments).toEqual([w.comment]);
  }
});

test('GET /account requires the token and returns the caller\'s own account', req('ENDPOINT-ACCOUNT', '@example-api'), async ({ target, profile }) => {
  const mine = await target.client.get('/account');
  expect(mine.status, exchangeText(mine)).toBe(200);
  expect(typeof mine.json, exchangeText(mine)).toBe('object');
  expect((await target.anonymous.get('/account')).status).toBe(401);
  const other = profile.tokens.other;
  if (other) {
    const theirs = await target.as(other).get('/account');
    expect(theirs.status, exchangeText(theirs)).toBe(200);
    expect(theirs.json, 'another caller gets another account').not.toEqual(mine.json);
  }
});

test('POST /payments with amount and currency creates a payment', req('ENDPOINT-PAYMENT-CREATE', '@example-api', '@smoke'), async ({ target }) => {
  const response = await created(target, '/payments', { amount: 1250, currency: 'eur' });
  expect(response.json, 'the created payment is returned').toEqual(expect.objectContaining({ amount: 1250, currency: 'eur' }));
  const read = await target.client.get(createdItem(target, '/payments', response));
  expect(read.json).toEqual(response.json);
});

test('GET /transfers/{id} returns one transfer, or a problem document', req('ENDPOINT-TRANSFER-READ', '@example-api'), async ({ target }) => {
  const { transfer, payment } = await world(target);
  const response = await target.client.get(transfer);
  expect(response.status, exchangeText(response)).toBe(200);
  expect(typeof response.json, exchangeText(response)).toBe('object');
  const back = linkOf(response.json, 'payment');
  if (back) expect(target.pathOf(back.href), 'the transfer links its payment').toBe(payment);
  const missing = await target.client.get('/transfers/999999999999');
  expect(missing.status).toBe(404);
  expect(problemIssues(missing)).toEqual([]);
});

test(
  'posts, authors and comments have collection and item URLs, comments nested under posts',
  req('ENDPOINT-POSTS-COMMENTS-AUTHORS', '@example-api'),
  async ({ target }) => {
    const w = await world(target);
    for (const path of ['/authors', '/posts', w.comments]) {
      const response = await target.client.get(path);
      expect(response.status, exchangeText(response)).toBe(200);
      expect(itemsOf(response.json), `${path} is a collection: ${exchangeText(response)}`).toBeDefined();
    }
    for (const path of [w.author, w.post, w.comment]) {
      const response = await target.client.get(path);
      expect(response.status, exchangeText(response)).toBe(200);
      expect(typeof response.json, exchangeText(response)).toBe('object');
    }
    expect(w.comment.startsWith(`${w.post}/`), `a comment lives beneath its post: ${w.comment}`).toBe(true);
  },
);

test('every path of the example API exists', req('ENDPOINT-EXAMPLE-PATHS', '@example-api'), async ({ target }) => {
  const w = await world(target);
  const paths = [
    '/users', w.user, `${w.user}/orders`, '/account', '/orders', w.order, '/payments', w.payment,
    '/transfers', w.transfer, '/authors', w.author, '/posts', w.post, w.comments, w.comment,
  ];
  for (const path of paths) {
    const response = await target.client.get(path.replace(w.user, '/users/1'));
    expect(response.status, exchangeText(response)).toBe(200);
  }
});

/** D-METHODS: the methods each path of the example API allows. */
function methodTable(w: World): [string, string[]][] {
  const collection = ['GET', 'HEAD', 'POST', 'OPTIONS'];
  const readOnly = ['GET', 'HEAD', 'OPTIONS'];
  return [
    ['/users', collection], ['/authors', collection], ['/posts', collection], [w.comments, collection], ['/orders', collection], ['/payments', collection],
    ['/users/1', ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']],
    [w.author, ['GET', 'HEAD', 'DELETE', 'OPTIONS']], [w.post, ['GET', 'HEAD', 'DELETE', 'OPTIONS']], [w.comment, ['GET', 'HEAD', 'DELETE', 'OPTIONS']],
    ['/users/1/orders', readOnly], ['/account', readOnly], [w.order, readOnly], [w.payment, readOnly], ['/transfers', readOnly], [w.transfer, readOnly],
    [`${w.order}/cancel`, ['POST', 'OPTIONS']], [`${w.order}/payment`, ['POST', 'OPTIONS']],
  ];
}

test('each path allows exactly the methods of the decided table', req('METHOD-ALLOWED-SET', '@example-api'), async ({ target }) => {
  const w = await world(target);
  for (const [path, allowed] of methodTable(w)) {
    const response = await target.client.request('OPTIONS', path);
    const allow = (response.headers.allow ?? '').split(',').map((m) => m.trim()).filter(Boolean).sort();
    expect(allow, `${path}: ${exchangeText(response)}`).toEqual([...allowed].sort());
    const patch = await target.client.request('PATCH', path, { json: {} });
    expect(patch.status, `PATCH ${path}`).toBe(405);
  }
});

test('every representation and page validates against its schema', req('REPRESENTATION-SCHEMAS', '@example-api'), async ({ target }) => {
  const w = await world(target);
  const checks: [string, string][] = [
    [w.user, 'user'], [w.order, 'order'], [w.payment, 'payment'], [w.transfer, 'transfer'], [w.author, 'author'], [w.post, 'post'], [w.comment, 'comment'],
    ['/account', 'account'], ['/users', 'users-page'], ['/orders', 'orders-page'], ['/payments', 'payments-page'], ['/transfers', 'transfers-page'],
    ['/authors', 'authors-page'], ['/posts', 'posts-page'], [w.comments, 'comments-page'],
  ];
  for (const [path, schema] of checks) {
    const response = await target.client.get(path);
    expect(schemaIssues(schema, response.json), `${path}: ${exchangeText(response)}`).toEqual([]);
  }
  for (const [name, response] of Object.entries(w.responses)) expect(schemaIssues(name, response.json), `created ${name}`).toEqual([]);
});

test('timestamps are RFC 3339 date-times in UTC', req('REPRESENTATION-TIMESTAMPS', '@example-api'), async ({ target }) => {
  const w = await world(target);
  for (const response of Object.values(w.responses)) {
    const body = json<Record<string, unknown>>(response);
    for (const key of ['createdAt', 'updatedAt'].filter((k) => k in body)) {
      expect(String(body[key]), key).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    }
  }
});

test('identifiers are positive integers, never reused', req('RESOURCE-ID-POSITIVE-INTEGER', '@example-api'), async ({ target }) => {
  const u = uniqueValue();
  const first = await created(target, '/authors', { name: `a ${u}` });
  const id = json<{ id: number }>(first).id;
  expect(Number.isInteger(id) && id > 0).toBe(true);
  await target.client.delete(`/authors/${id}`);
  const second = await created(target, '/authors', { name: `b ${u}` });
  expect(json<{ id: number }>(second).id, 'a deleted id is not reused').toBeGreaterThan(id);
});

test('a non-canonical id segment names no resource', req('URL-NON-CANONICAL-ID-404', '@example-api'), async ({ target }) => {
  for (const segment of ['abc', '-1', '01', '1.5', '0', '1e0']) {
    const response = await target.client.get(`/users/${segment}`);
    expect(response.status, exchangeText(response)).toBe(404);
    expect(problemIssues(response)).toEqual([]);
  }
});

test('paths match exactly: a trailing slash or another case is a 404', req('URL-EXACT-PATHS', '@example-api'), async ({ target }) => {
  for (const path of ['/users/', '/Users', '/USERS/1', '/users/1/']) {
    const response = await target.client.get(path);
    expect(response.status, exchangeText(response)).toBe(404);
  }
});

test('amount must be an integer in minor units', req('PAYMENT-AMOUNT-MINOR-UNITS', '@example-api'), async ({ target }) => {
  for (const amount of [12.5, '1250', 0.01, null, true]) {
    const response = await target.client.post('/payments', { amount, currency: 'eur' });
    expect(response.status, exchangeText(response)).toBe(422);
    expect(errorFields(response.json)).toEqual(['amount']);
  }
  const valid = await target.client.post('/payments', { amount: 1, currency: 'eur' });
  expect(succeeded(valid), exchangeText(valid)).toBe(true);
});

test('currency must be a lowercase ISO 4217 code', req('PAYMENT-CURRENCY-LOWERCASE', '@example-api'), async ({ target }) => {
  for (const currency of ['EUR', 'Eur', 'xyz', 'euro', '', 978]) {
    const response = await target.client.post('/payments', { amount: 100, currency });
    expect(response.status, exchangeText(response)).toBe(422);
    expect(errorFields(response.json)).toEqual(['currency']);
  }
  for (const currency of ['eur', 'usd', 'jpy']) {
    const valid = await target.client.post('/payments', { amount: 100, currency });
    expect(succeeded(valid), exchangeText(valid)).toBe(true);
  }
});

test('a post referencing an unknown author is a 422 naming authorId', req('VALIDATION-REFERENCE-EXISTS', '@example-api'), async ({ target }) => {
  const response = await target.client.post('/posts', { authorId: 999999999, title: 't', body: 'b' });
  expect(response.status, exchangeText(response)).toBe(422);
  expect(errorFields(response.json)).toContain('authorId');
});

test('error fields are member names, dotted paths when nested, as the schemas name them', req('VALIDATION-FIELD-NAMES', '@example-api'), async ({ target }) => {
  for (const body of [{ currency: 'eur' }, { amount: 'x', currency: 'EUR', extra: 1 }, {}]) {
    const response = await target.client.post('/payments', body);
    expect(response.status).toBe(422);
    expect(errorFields(response.json).sort(), exchangeText(response)).toEqual(validationErrors('payment-request', body).map((e) => e.field).sort());
  }
});

/** A user replaced once with its current version, then replaced again with that now stale version. */
async function staleReplace(target: Target): Promise<{ user: string; current: { version?: unknown }; stale: HttpResponse; kept: string }> {
  const { user } = await world(target);
  const u = uniqueValue();
  const current = json<{ version?: unknown; name: string }>(await target.client.get(user));
  if (typeof current.version !== 'number') skipCheck('the user carries no `version` member: no version to mismatch (D-CONCURRENCY)');
  expect((await target.client.put(user, { name: `v ${u}`, email: `v-${u}@example.com`, version: current.version })).status).toBe(200);
  const stale = await target.client.put(user, { name: `stale ${u}`, email: `s-${u}@example.com`, version: current.version });
  return { user, current, stale, kept: `v ${u}` };
}

test(
  'a PUT carrying a version the resource no longer has is a 409 and changes nothing',
  // The document's status table: "Edit conflict or version mismatch → 409", whatever the problem says (D-TRAFFIC).
  req('STATUS-409-CONFLICT', '@example-api'),
  async ({ target }) => {
    const { user, stale, kept } = await staleReplace(target);
    expect(stale.status, `a stale version applied: ${exchangeText(stale)}`).toBe(409);
    expect(json<{ name: string }>(await target.client.get(user)).name).toBe(kept);
  },
);

test('a PUT with a stale version is a version-conflict problem naming the current version', req('CONCURRENCY-VERSION-409', '@example-api'), async ({
  target,
}) => {
  const { current, stale } = await staleReplace(target);
  expect(stale.status, exchangeText(stale)).toBe(409);
  const currentVersion = (current.version as number) + 1;
  expect(stale.json).toEqual(expect.objectContaining({ type: expect.stringMatching(/\/version-conflict$/), currentVersion }));
});

test('an email used by another user is a 409', req('STATUS-409-EMAIL-TAKEN', '@example-api'), async ({ target }) => {
  const u = uniqueValue();
  await created(target, '/users', { name: 'first', email: `dup-${u}@example.com` });
  const again = await target.client.post('/users', { name: 'second', email: `dup-${u}@example.com` });
  expect(again.status, exchangeText(again)).toBe(409);
  expect(String(json<{ type?: string }>(again).type)).toMatch(/\/email-taken$/);
});
