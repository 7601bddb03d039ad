import type { RateLimitPolicy } from '../stores/types.ts';

/**
 * Tolerance, in tokens (or queued requests), under which two quantities count as equal.
 * It absorbs floating-point error so that, for example, a bucket of capacity 10 admits exactly 10.
 */
export const EPSILON = 1e-9;

/** Throws a RangeError unless `policy` describes a usable bucket (capacity ≥ 1, rate > 0, both finite). */
export function assertPolicy(policy: RateLimitPolicy): void {
  if (!Number.isFinite(policy.capacity) || policy.capacity < 1) {
    throw new RangeError(`rate-limit capacity must be a finite number ≥ 1, got ${policy.capacity}`);
  }
  if (!Number.isFinite(policy.refillPerSecond) || policy.refillPerSecond <= 0) {
    throw new RangeError(`rate-limit refillPerSecond must be a finite number > 0, got ${policy.refillPerSecond}`);
  }
}

/**
 * The smallest whole number of seconds n ≥ `minimum` for which `reached(n)` holds, starting from a
 * floating-point estimate and correcting it with the very predicate the next request will be judged by,
 * so a header computed this way is honest (D-RATE-LIMIT: Retry-After, RateLimit-Reset).
 * `reached` must be monotone in n and eventually true.
 */
export function wholeSecondsUntil(estimateSeconds: number, minimum: number, reached: (seconds: number) => boolean): number {
  let seconds = Math.max(minimum, Math.ceil(estimateSeconds - EPSILON));
  while (!reached(seconds)) seconds += 1;
  while (seconds - 1 >= minimum && reached(seconds - 1)) seconds -= 1;
  return seconds;
}

/** Whole units left, tolerant of floating-point error and clamped to [0, capacity]. */
export function wholeUnits(amount: number, capacity: number): number {
  return Math.min(Math.floor(capacity), Math.max(0, Math.floor(amount + EPSILON)));
}
