/** Item ids no target has handed out: far beyond any id a test run creates. */
import fc from 'fast-check';

/** Positive integers from 10^12 to 2^53 − 1. */
export function unknownId(): fc.Arbitrary<number> {
  return fc.integer({ min: 1_000_000_000_000, max: Number.MAX_SAFE_INTEGER });
}
