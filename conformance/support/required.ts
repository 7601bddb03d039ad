/**
 * Never a request built from a missing value (D-FINDINGS): a check that needs a value the target
 * should have given (a Location, an id, a link) takes it through `required`, which fails the check
 * with that absence as its finding, naming the answer that lacked it, instead of sending to the API
 * root or to a path with `undefined` in it. The answer is noted as breaking the requirement that
 * governs the value, so the failure is reported as a consequence of it.
 */
import type { HttpResponse } from '../transport/message.ts';
import { exchangeText } from './problem.ts';
import { noteBreaks } from '../transport/exchange-log.ts';

/** A value a check needs was not in the target's answer. */
export class MissingValueError extends Error {
  override readonly name = 'MissingValueError';
}

/**
 * `value`, or the check failed: `from` gave no `what` (which `requirement` governs). `what` reads
 * after "no": "Location header or `id` naming the created item".
 */
export function required<T>(value: T | undefined | null | '', what: string, from: HttpResponse, requirement: string): T {
  if (value !== undefined && value !== null && value !== '') return value;
  noteBreaks(from, requirement, `a ${what}`);
  throw new MissingValueError(`the answer gave no ${what} (${requirement}), so the check cannot go on: ${exchangeText(from)}`);
}
