import type { RateLimitDecision, RateLimitPolicy } from '../types.ts';

/**
 * The decision in a bucket script's reply `{ allowed, remaining, resetSeconds, retryAfterSeconds,
 * delayMs, … }` (rate-limit-scripts.ts); elements after the fifth belong to the caller.
 */
export function decisionOf(reply: unknown, policy: RateLimitPolicy): RateLimitDecision {
  if (!Array.isArray(reply) || reply.length < 5) throw new Error('unexpected reply from the rate-limit script');
  const decision: RateLimitDecision = {
    allowed: Number(reply[0]) === 1,
    limit: policy.capacity,
    remaining: Number(reply[1]),
    resetSeconds: Number(reply[2]),
    retryAfterSeconds: Number(reply[3]),
  };
  if (policy.algorithm === 'leaky-bucket' && decision.allowed) decision.delayMs = Number(reply[4]);
  return decision;
}
