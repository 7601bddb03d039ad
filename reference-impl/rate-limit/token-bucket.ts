import type { RateLimitDecision, RateLimitPolicy } from '../stores/types.ts';
import { EPSILON, assertPolicy, wholeSecondsUntil, wholeUnits } from './rounding.ts';

/** The persisted state of one token bucket. */
export interface TokenBucketState {
  /** Tokens in the bucket at `updatedAtMs` (may be fractional). */
  tokens: number;
  updatedAtMs: number;
}

/** Result of one request against a bucket: the state to persist and the decision for the headers. */
export interface BucketStep<S> {
  state: S;
  decision: RateLimitDecision;
}

/**
 * Tokens available at `nowMs`: continuous refill at `refillPerSecond`, capped at capacity
 * (document section 8.3). A missing state is a full bucket.
 */
export function tokensAt(state: TokenBucketState | undefined, policy: RateLimitPolicy, nowMs: number): number {
  if (state === undefined) return policy.capacity;
  const elapsedMs = Math.max(0, nowMs - state.updatedAtMs);
  return Math.min(policy.capacity, state.tokens + (elapsedMs * policy.refillPerSecond) / 1000);
}

/** Whether `tokens` is enough for one request. */
export function hasToken(tokens: number): boolean {
  return tokens >= 1 - EPSILON;
}

/** Seconds until the bucket holding `tokens` (at the current time) is full again, rounded up; 0 when full. */
function resetSeconds(tokens: number, policy: RateLimitPolicy): number {
  const estimate = (policy.capacity - tokens) / policy.refillPerSecond;
  return wholeSecondsUntil(estimate, 0, (s) => tokens + s * policy.refillPerSecond >= policy.capacity - EPSILON);
}

/**
 * Takes one token for one request at `nowMs` (requirement RATE-LIMIT-TOKEN-BUCKET, D-RATE-LIMIT).
 * Starts full, refills continuously, rejects when fewer than one token is available. On rejection
 * `retryAfterSeconds` is the smallest whole number of seconds after which `takeToken` on the
 * returned state admits (at least 1).
 */
export function takeToken(state: TokenBucketState | undefined, policy: RateLimitPolicy, nowMs: number): BucketStep<TokenBucketState> {
  assertPolicy(policy);
  const at = state === undefined ? nowMs : Math.max(nowMs, state.updatedAtMs);
  const available = tokensAt(state, policy, at);
  if (hasToken(available)) {
    const left = Math.max(0, available - 1);
    return {
      state: { tokens: left, updatedAtMs: at },
      decision: {
        allowed: true,
        limit: policy.capacity,
        remaining: wholeUnits(left, policy.capacity),
        resetSeconds: resetSeconds(left, policy),
        retryAfterSeconds: 0,
      },
    };
  }
  const next: TokenBucketState = { tokens: available, updatedAtMs: at };
  const retryAfterSeconds = wholeSecondsUntil((1 - available) / policy.refillPerSecond, 1, (s) =>
    hasToken(tokensAt(next, policy, at + s * 1000)),
  );
  return {
    state: next,
    decision: {
      allowed: false,
      limit: policy.capacity,
      remaining: 0,
      resetSeconds: resetSeconds(available, policy),
      retryAfterSeconds,
    },
  };
}

/** Milliseconds after `state.updatedAtMs` at which the bucket is full again, so its state can be forgotten. */
export function tokenBucketIdleAfterMs(state: TokenBucketState, policy: RateLimitPolicy): number {
  return Math.ceil(((policy.capacity - state.tokens) * 1000) / policy.refillPerSecond);
}
