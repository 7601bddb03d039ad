/**
 * Payment request bodies that break D-FIELDS' payment rules in one or more ways: wrong types,
 * fractions, negatives, out of range, missing or extra members, uppercase or unknown currencies.
 * Which fields are invalid is decided by the schema (spec/schemas.ts), never by this file.
 */
import fc from 'fast-check';
import { validationErrors } from '../../spec/schemas.ts';

const wrongTypes: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constant({}),
);

/** Amounts that are not an integer in 1 … 100 000 000 (or, sometimes, a valid one). */
export const amountValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: 1, max: 100_000_000 }),
  fc.double({ min: 0.001, max: 1_000_000, noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  fc.integer({ min: -1_000_000, max: 0 }),
  fc.integer({ min: 100_000_001, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: 1, max: 100_000 }).map(String),
  wrongTypes,
);

/** Currencies: valid lowercase codes, their uppercase forms, unknown codes and wrong types. */
export const currencyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('eur', 'usd', 'gbp', 'jpy', 'chf'),
  fc.constantFrom('EUR', 'Usd', 'gBP', 'JPY'),
  fc.stringMatching(/^[a-z]{3}$/),
  fc.stringMatching(/^[a-z]{1,2}$|^[a-z]{4,6}$/),
  wrongTypes,
);

const descriptionValue: fc.Arbitrary<unknown> = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ minLength: 201, maxLength: 260 }), fc.integer());

/** Member names that the payment request does not define. */
const extraMember = fc.constantFrom('tip', 'userId', 'status', 'Amount', 'CURRENCY', 'id', 'note');

/** A payment body with at least one invalid field, according to the payment-request schema. */
export function invalidPaymentBody(): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record(
      {
        amount: amountValue,
        currency: currencyValue,
        description: descriptionValue,
        extra: fc.tuple(extraMember, fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: [] },
    )
    .map(({ extra, ...members }) => (extra ? { ...members, [extra[0]]: extra[1] } : members))
    .filter((body) => validationErrors('payment-request', body).length > 0);
}
