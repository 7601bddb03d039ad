/**
 * Item ids no target has handed out, valid for the collection's id schema (D-SHAPES): the unknown-id
 * probes ask for a resource that does not exist, never for a segment the API refuses as malformed.
 * Integers are drawn far beyond any counter: the reference server's Redis ids carry the clock (about
 * 1.8·10^15, D-IDS), so the chance that a draw names one of the few thousand a run creates is about
 * 10^-12. Uuids are random version-4 ones, pattern ids are drawn to match the pattern (the longest of a
 * few draws, a short one being likelier to exist), other strings are letters and digits within the
 * declared lengths.
 */
import fc from 'fast-check';
import type { IdSchema } from '../target/profile.ts';

/** The project's own id: a positive integer (D-IDS). */
export const DEFAULT_ID_SCHEMA: IdSchema = { type: 'integer', minimum: 1 };

const ALPHANUMERIC = [...'abcdefghijklmnopqrstuvwxyz0123456789'];

/** Characters a path segment carries as they are (RFC 3986 unreserved). */
const UNRESERVED = /^[\w.~-]+$/;

/** Ids valid for `schema` (default: a positive integer) that no target has handed out. */
export function unknownId(schema: IdSchema = DEFAULT_ID_SCHEMA): fc.Arbitrary<number | string> {
  if (schema.type === 'integer' || schema.type === 'number') {
    const max = Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    const min = Math.max(schema.minimum ?? 1, Math.min(1_000_000_000_000, max));
    return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  }
  if (schema.format === 'uuid') return fc.uuid({ version: 4 });
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? Math.max(minLength, 24);
  const fits = (s: string): boolean => s.length >= minLength && s.length <= maxLength && UNRESERVED.test(s);
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern, 'u');
    return fc.array(fc.stringMatching(pattern), { minLength: 8, maxLength: 8 }).map((draws) => draws.filter(fits).sort((a, b) => b.length - a.length)[0] ?? '')
      .filter((s) => s !== '');
  }
  const length = Math.min(maxLength, Math.max(minLength, 24));
  return fc.string({ unit: fc.constantFrom(...ALPHANUMERIC), minLength: length, maxLength: length });
}
