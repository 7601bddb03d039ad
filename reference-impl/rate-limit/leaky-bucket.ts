import type { RateLimitPolicy } from '../stores/types.ts';
import { EPSILON, assertPolicy, wholeSecondsUntil, wholeUnits } from './rounding.ts';
import type { BucketStep } from './token-bucket.ts';

/** The persisted state of one leaky bucket (a meter): the time its queue is empty again. */
export interface LeakyBucketState {
  drainAtMs: number;
}

/** Requests (possibly fractional: one is being served) still queued at `nowMs`. */
export function queuedAt(state: LeakyBucketState | undefined, policy: RateLimitPolicy, nowMs: number): number {
  if (state === undefined) return 0;
  return (Math.max(0, state.drainAtMs - nowMs) * policy.refillPerSecond) / 1000;
}

/** Whether a queue holding `queued` requests has room for one more under `policy`. */
export function hasSlot(queued: number, policy: RateLimitPolicy): boolean {
  return queued <= policy.capacity - 1 + EPSILON;
}

/**
 * Queues one request at `nowMs` in a leaky bucket (document section 8.4, D-RATE-LIMIT
 * `leaky-bucket`): requests are served one every 1/rate seconds, so there are no bursts; a request
 * arriving when the queue already holds `capacity` requests is rejected. An admitted request gets
 * `delayMs`, the time it waits before being served. Headers: limit = capacity, remaining = free
 * slots, reset = seconds until the queue is empty, retryAfter = seconds until a slot frees.
 */
export function queueRequest(state: LeakyBucketState | undefined, policy: RateLimitPolicy, nowMs: number): BucketStep<LeakyBucketState> {
  assertPolicy(policy);
  const queued = queuedAt(state, policy, nowMs);
  const drainAtMs = Math.max(nowMs, state?.drainAtMs ?? nowMs);
  if (hasSlot(queued, policy)) {
    const next: LeakyBucketState = { drainAtMs: drainAtMs + 1000 / policy.refillPerSecond };
    const after = queuedAt(next, policy, nowMs);
    return {
      state: next,
      decision: {
        allowed: true,
        limit: policy.capacity,
        remaining: wholeUnits(policy.capacity - after, policy.capacity),
        resetSeconds: emptySeconds(next, policy, nowMs),
        retryAfterSeconds: 0,
        delayMs: Math.max(0, Math.ceil(drainAtMs - nowMs - EPSILON)),
      },
    };
  }
  const current: LeakyBucketState = { drainAtMs };
  const retryAfterSeconds = wholeSecondsUntil((queued - (policy.capacity - 1)) / policy.refillPerSecond, 1, (s) =>
    hasSlot(queuedAt(current, policy, nowMs + s * 1000), policy),
  );
  return {
    state: current,
    decision: {
      allowed: false,
      limit: policy.capacity,
      remaining: 0,
      resetSeconds: emptySeconds(current, policy, nowMs),
      retryAfterSeconds,
    },
  };
}

/** Seconds until the queue is empty, rounded up; 0 when it is. */
function emptySeconds(state: LeakyBucketState, policy: RateLimitPolicy, nowMs: number): number {
  return wholeSecondsUntil((state.drainAtMs - nowMs) / 1000, 0, (s) => queuedAt(state, policy, nowMs + s * 1000) <= EPSILON);
}
