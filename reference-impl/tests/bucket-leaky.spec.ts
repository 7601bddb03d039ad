import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { queueRequest, queuedAt } from '../rate-limit/leaky-bucket.ts';
import type { LeakyBucketState } from '../rate-limit/leaky-bucket.ts';
import type { RateLimitPolicy } from '../stores/types.ts';

const policy = (capacity: number, refillPerSecond: number): RateLimitPolicy => ({ algorithm: 'leaky-bucket', capacity, refillPerSecond });

function run(p: RateLimitPolicy, times: number[], start?: LeakyBucketState) {
  let state = start;
  return times.map((t) => {
    const step = queueRequest(state, p, t);
    state = step.state;
    return { ...step, at: t };
  });
}

test.describe('leaky bucket arithmetic', () => {
  test('a burst fills the queue of capacity 5 and the rest is rejected', () => {
    const steps = run(policy(5, 2), Array.from({ length: 9 }, () => 0));
    expect(steps.map((s) => s.decision.allowed)).toEqual([true, true, true, true, true, false, false, false, false]);
    expect(steps.slice(0, 5).map((s) => s.decision.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(steps.every((s) => s.decision.limit === 5)).toBe(true);
  });

  test('admitted requests of a burst are served one every 1/rate seconds: no burst reaches the server', () => {
    const steps = run(policy(5, 4), Array.from({ length: 5 }, () => 1_000));
    expect(steps.map((s) => s.decision.delayMs)).toEqual([0, 250, 500, 750, 1000]);
  });

  test('service times stay spaced by at least 1/rate for any arrival pattern (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.double({ min: 0.1, max: 200, noNaN: true, noDefaultInfinity: true }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 2, maxLength: 200 }),
        (capacity, rate, gaps) => {
          const p = policy(capacity, rate);
          let now = 0;
          const times = gaps.map((g) => (now += g));
          const served = run(p, times)
            .filter((s) => s.decision.allowed)
            .map((s) => s.at + s.decision.delayMs!);
          for (let i = 1; i < served.length; i += 1) {
            expect(served[i]! - served[i - 1]!).toBeGreaterThanOrEqual(1000 / rate - 1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a drained queue admits again at the steady rate', () => {
    const p = policy(2, 1);
    const full = run(p, [0, 0, 0]);
    expect(full[2]!.decision).toMatchObject({ allowed: false, retryAfterSeconds: 1, resetSeconds: 2 });
    const later = run(p, [1_000, 1_000], full[2]!.state);
    expect(later.map((s) => s.decision.allowed)).toEqual([true, false]);
    expect(later[0]!.decision.delayMs).toBe(1_000);
  });

  test('Retry-After frees a slot and reset empties the queue, for any policy and arrivals (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0.01, max: 500, noNaN: true, noDefaultInfinity: true }),
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 200 }),
        (capacity, rate, gaps) => {
          const p = policy(capacity, rate);
          let state: LeakyBucketState | undefined;
          let now = 1_700_000_000_000;
          for (const gap of gaps) {
            now += gap;
            const step = queueRequest(state, p, now);
            state = step.state;
            const { retryAfterSeconds: retry, resetSeconds: reset } = step.decision;
            expect(queuedAt(state, p, now + reset * 1000)).toBeLessThanOrEqual(1e-9);
            if (!step.decision.allowed) {
              expect(retry).toBeGreaterThanOrEqual(1);
              expect(queueRequest(state, p, now + retry * 1000).decision.allowed).toBe(true);
              if (retry > 1) expect(queueRequest(state, p, now + (retry - 1) * 1000).decision.allowed).toBe(false);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
