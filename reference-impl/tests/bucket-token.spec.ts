import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { takeToken, tokensAt } from '../rate-limit/token-bucket.ts';
import type { TokenBucketState } from '../rate-limit/token-bucket.ts';
import type { RateLimitPolicy } from '../stores/types.ts';

const policy = (capacity: number, refillPerSecond: number): RateLimitPolicy => ({ algorithm: 'token-bucket', capacity, refillPerSecond });

/** Sends requests at the given times and returns every decision. */
function run(p: RateLimitPolicy, times: number[], start?: TokenBucketState) {
  let state = start;
  return times.map((t) => {
    const step = takeToken(state, p, t);
    state = step.state;
    return step;
  });
}

test.describe('token bucket arithmetic', () => {
  test('a full bucket of capacity 10 admits exactly 10 requests at one instant', () => {
    const steps = run(policy(10, 2), Array.from({ length: 15 }, () => 1_000));
    expect(steps.filter((s) => s.decision.allowed)).toHaveLength(10);
    expect(steps.slice(0, 10).every((s) => s.decision.allowed)).toBe(true);
    expect(steps.map((s) => s.decision.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0]);
  });

  test('awkward capacities and rates still admit exactly the capacity in a burst', () => {
    for (const [capacity, rate] of [[3, 0.1], [7, 3], [50, 0.3], [1000, 500], [1, 1 / 3]] as const) {
      const steps = run(policy(capacity, rate), Array.from({ length: capacity + 5 }, () => 0));
      expect(steps.filter((s) => s.decision.allowed).length, `capacity ${capacity}`).toBe(capacity);
    }
  });

  test('the limit header is the capacity on every decision', () => {
    for (const s of run(policy(4, 1), [0, 0, 0, 0, 0, 100, 2_000])) expect(s.decision.limit).toBe(4);
  });

  test('after an empty bucket, t seconds of refill admit floor(t × rate) more requests', () => {
    const p = policy(10, 2);
    const drained = run(p, Array.from({ length: 10 }, () => 0)).at(-1)!.state;
    expect(drained.tokens).toBe(0);
    const later = run(p, Array.from({ length: 10 }, () => 2_500), drained);
    expect(later.filter((s) => s.decision.allowed)).toHaveLength(5);
  });

  test('the bucket never holds more than its capacity, however long it idles', () => {
    const p = policy(5, 10);
    const first = takeToken(undefined, p, 0);
    expect(tokensAt(first.state, p, 3_600_000)).toBe(5);
    const steps = run(p, Array.from({ length: 8 }, () => 3_600_000), first.state);
    expect(steps.filter((s) => s.decision.allowed)).toHaveLength(5);
  });

  test('a rejection reports no remaining token and an honest Retry-After of at least one second', () => {
    const p = policy(2, 0.25);
    const [, , rejected] = run(p, [0, 0, 0]);
    expect(rejected!.decision).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 4 });
    expect(takeToken(rejected!.state, p, 3_999).decision.allowed).toBe(false);
    expect(takeToken(rejected!.state, p, 4_000).decision.allowed).toBe(true);
  });

  test('Retry-After is at least 1 even when the next token is milliseconds away', () => {
    const p = policy(1, 100);
    const [, rejected] = run(p, [0, 5]);
    expect(rejected!.decision.allowed).toBe(false);
    expect(rejected!.decision.retryAfterSeconds).toBe(1);
  });

  test('reset is 0 when full and the rounded-up time to refill otherwise', () => {
    const p = policy(10, 3);
    const first = takeToken(undefined, p, 0);
    expect(first.decision.resetSeconds).toBe(1);
    const steps = run(p, Array.from({ length: 9 }, () => 0), first.state);
    // 10 tokens missing at 3/s: 3.33 s, rounded up.
    expect(steps.at(-1)!.decision.resetSeconds).toBe(4);
    expect(tokensAt(steps.at(-1)!.state, p, 4_000)).toBe(10);
    expect(tokensAt(steps.at(-1)!.state, p, 3_000)).toBeLessThan(10);
  });

  test('Retry-After is honest for any policy and request times (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0.01, max: 1000, noNaN: true, noDefaultInfinity: true }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 300 }),
        (capacity, rate, gaps) => {
          const p = policy(capacity, rate);
          let state: TokenBucketState | undefined;
          let now = 1_700_000_000_000;
          for (const gap of gaps) {
            now += gap;
            const step = takeToken(state, p, now);
            state = step.state;
            if (!step.decision.allowed) {
              const retry = step.decision.retryAfterSeconds;
              expect(retry).toBeGreaterThanOrEqual(1);
              expect(takeToken(state, p, now + retry * 1000).decision.allowed).toBe(true);
              if (retry > 1) expect(takeToken(state, p, now + (retry - 1) * 1000).decision.allowed).toBe(false);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('reset is consistent with refill for any policy and request times (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0.01, max: 1000, noNaN: true, noDefaultInfinity: true }),
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 200 }),
        (capacity, rate, gaps) => {
          const p = policy(capacity, rate);
          let state: TokenBucketState | undefined;
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const step = takeToken(state, p, now);
            state = step.state;
            const { resetSeconds: reset, remaining } = step.decision;
            if (tokensAt(state, p, now + reset * 1000) < capacity - 1e-9) return false;
            if (reset > 0 && tokensAt(state, p, now + (reset - 1) * 1000) >= capacity - 1e-9) return false;
            if (remaining < 0 || remaining > capacity) return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a policy without capacity or rate is refused', () => {
    expect(() => takeToken(undefined, policy(0, 1), 0)).toThrow(RangeError);
    expect(() => takeToken(undefined, policy(5, 0), 0)).toThrow(RangeError);
  });
});
