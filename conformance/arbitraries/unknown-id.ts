/**
 * Item ids no target has handed out: far beyond any id a counter reaches in a test run. The reference
 * server's Redis ids carry the clock (about 1.8·10^15, D-IDS): the chance that a draw names one of the
 * few thousand a run creates is about 10^-12.
 */
import fc from 'fast-check';

/** Positive integers from 10^12 to 2^53 − 1. */
export function unknownId(): fc.Arbitrary<number> {
  return fc.integer({ min: 1_000_000_000_000, max: Number.MAX_SAFE_INTEGER });
}
