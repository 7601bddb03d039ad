/**
 * Collection queries (spec/decisions.md D-QUERY): every bad parameter is a 400 `invalid-query`
 * whose body the server's own query-problem schema accepts: enum filters checked against their
 * list, a parameter without a name, an offset beyond nine digits.
 */
import { expect, test } from '@playwright/test';
import { getValidator } from '../../spec/schemas.ts';
import { MAX_OFFSET, UNNAMED_PARAMETER_FIELD } from '../query.ts';
import { ALICE, type TestServer, client, startTestServer } from './support/harness.ts';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => {
  await server.close();
});

/** Sends `GET path` and expects a 400 invalid-query naming exactly `fields`, valid against query-problem. */
async function expectInvalidQuery(path: string, fields: string[]): Promise<{ field: string; message: string }[]> {
  const reply = await client(server.url).get(path, { token: ALICE });
  expect(reply.status, path).toBe(400);
  expect(reply.headers.get('content-type')).toBe('application/problem+json');
  const validate = getValidator('query-problem');
  expect(validate(reply.json), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
  const errors = reply.json.errors as { field: string; message: string }[];
  expect(errors.map((e) => e.field).sort(), path).toEqual([...fields].sort());
  return errors;
}

test('a currency filter outside the currency list is 400 on payments and transfers', async () => {
  for (const kind of ['payments', 'transfers']) {
    for (const value of ['AAA', 'usd ', 'USD', 'xts', '']) {
      const [error] = await expectInvalidQuery(`/${kind}?currency=${encodeURIComponent(value)}`, ['currency']);
      expect(error?.message).toBe('must be a lowercase ISO 4217 currency code');
    }
    expect((await client(server.url).get(`/${kind}?currency=usd`, { token: ALICE })).status).toBe(200);
  }
});

test('a query parameter without a name is 400 with a non-empty field', async () => {
  for (const path of ['/payments?=true', '/users?=', '/orders?limit=5&=x']) {
    const [error] = await expectInvalidQuery(path, [UNNAMED_PARAMETER_FIELD]);
    expect(error?.message).toBe('a query parameter needs a name');
  }
});

test(`offset is 0 to ${MAX_OFFSET}: the first value beyond is 400 with the range in the message`, async () => {
  const api = client(server.url);
  const last = await api.get(`/users?offset=${MAX_OFFSET}`);
  expect(last.status).toBe(200);
  expect(last.json.page).toMatchObject({ offset: MAX_OFFSET, total: expect.any(Number) });
  for (const value of [String(MAX_OFFSET + 1), '99999999999', '-1', '1.5']) {
    const [error] = await expectInvalidQuery(`/users?offset=${value}`, ['offset']);
    expect(error?.message, value).toBe(`must be an integer from 0 to ${MAX_OFFSET}`);
  }
});
