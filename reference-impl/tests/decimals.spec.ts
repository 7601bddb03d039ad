/**
 * Decimal order totals (spec/decisions.md D-FIELDS: a total 0.01 … 1 000 000 with at most two
 * decimals). One rule, `x-maxDecimalPlaces` in spec/schemas.ts, serves the schemas and the server;
 * `multipleOf: 0.01` rejected 10.2 % of the two-decimal totals (the first was 111848.18).
 */
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { getSchema, getValidator, hasAtMostDecimalPlaces, schemaNames, validationErrors } from '../../spec/schemas.ts';
import { ALICE, type TestServer, client, startTestServer } from './support/harness.ts';

/** The schema's maximum in hundredths: every two-decimal total is `cents / 100` for 1 ≤ cents ≤ MAX_CENTS. */
const totalSchema = (getSchema('order-request').properties as Record<string, { minimum: number; maximum: number; 'x-maxDecimalPlaces': number }>).total;
const MAX_CENTS = Math.round((totalSchema?.maximum ?? 0) * 100);

test('the order total schemas use x-maxDecimalPlaces 2 up to 1 000 000, and no schema uses multipleOf', () => {
  expect(totalSchema).toMatchObject({ minimum: 0.01, maximum: 1_000_000, 'x-maxDecimalPlaces': 2 });
  expect(MAX_CENTS).toBe(100_000_000);
  expect((getSchema('order').properties as Record<string, unknown>).total).toEqual(totalSchema);
  expect(schemaNames.filter((name) => JSON.stringify(getSchema(name)).includes('"multipleOf"'))).toEqual([]);
});

test('every two-decimal value from 0.01 to the maximum passes the rule (100 000 000 values)', () => {
  // cents / 100 is the double nearest to the decimal cents/100, the same double JSON.parse gives for
  // its text (both are correctly rounded); the next test checks that equality on random values.
  let rejected = 0;
  let first = 0;
  for (let cents = 1; cents <= MAX_CENTS; cents += 1) {
    if (!hasAtMostDecimalPlaces(cents / 100, 2)) {
      rejected += 1;
      first ||= cents;
    }
  }
  expect({ rejected, first }).toEqual({ rejected: 0, first: 0 });
});

test('the schema validator agrees: every 997th two-decimal value, written as JSON text, is valid', () => {
  const validate = getValidator('order-request');
  let checked = 0;
  const failures: string[] = [];
  for (let cents = 1; cents <= MAX_CENTS; cents += 997) {
    const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    const body = JSON.parse(`{"total":${text},"currency":"usd"}`) as { total: number };
    if (body.total !== cents / 100 || validate(body) !== true) failures.push(text);
    checked += 1;
  }
  expect(failures).toEqual([]);
  expect(checked).toBe(Math.ceil(MAX_CENTS / 997));
});

test('a value with three or more decimals, or out of range, is rejected with a named field', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: MAX_CENTS - 1 }), fc.integer({ min: 1, max: 9 }), (cents, extra) => {
      const total = Number(`${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}${extra}`);
      expect(validationErrors('order-request', { total, currency: 'usd' })).toEqual([
        { field: 'total', message: 'must have at most 2 decimal places' },
      ]);
    }),
  );
  for (const total of [0, 0.001, 1_000_000.01, 1e-7])
    expect(validationErrors('order-request', { total, currency: 'usd' }).map((e) => e.field)).toEqual(['total']);
  expect(hasAtMostDecimalPlaces(Number.NaN, 2)).toBe(false);
  expect(hasAtMostDecimalPlaces(1e21, 2)).toBe(true);
});

test.describe('the server', () => {
  let server: TestServer;
  test.beforeAll(async () => {
    server = await startTestServer();
  });
  test.afterAll(async () => {
    await server.close();
  });

  test('accepts 111848.18 and random two-decimal totals, and echoes them unchanged', async () => {
    const api = client(server.url);
    const samples = [111848.18, 0.01, 1_000_000, 19.99, ...fc.sample(fc.integer({ min: 1, max: MAX_CENTS }), { numRuns: 20, seed: 17 }).map((c) => c / 100)];
    for (const total of samples) {
      const reply = await api.post('/orders', {
        token: ALICE,
        raw: `{"total":${String(total)},"currency":"usd"}`,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(reply.status, `${total}: ${reply.text}`).toBe(201);
      expect(reply.json.total).toBe(total);
    }
  });

  test('refuses 12.345 with 422 naming total', async () => {
    const reply = await client(server.url).post('/orders', { token: ALICE, body: { total: 12.345, currency: 'usd' } });
    expect(reply.status).toBe(422);
    expect(reply.json.errors).toEqual([{ field: 'total', message: 'must have at most 2 decimal places' }]);
  });
});
