import type { RateLimitDecision, RateLimitPolicy, RateLimitStore } from '../types.ts';
import { takeToken, tokenBucketIdleAfterMs } from '../../rate-limit/token-bucket.ts';
import type { TokenBucketState } from '../../rate-limit/token-bucket.ts';
import { queueRequest } from '../../rate-limit/leaky-bucket.ts';
import type { LeakyBucketState } from '../../rate-limit/leaky-bucket.ts';
import { Sweeper } from './sweeper.ts';

type Entry =
  | { algorithm: 'token-bucket'; state: TokenBucketState; expiresAtMs: number }
  | { algorithm: 'leaky-bucket'; state: LeakyBucketState; expiresAtMs: number };

/**
 * In-process rate limiting with the pure bucket functions (D-RATE-LIMIT). A bucket whose state
 * would be "full" (token bucket) or "empty" (leaky bucket) is forgotten, so idle callers cost nothing.
 */
export function createMemoryRateLimits(clock: () => number): RateLimitStore {
  const buckets = new Map<string, Entry>();
  const sweeper = new Sweeper(clock, (now) => {
    for (const [key, entry] of buckets) if (entry.expiresAtMs <= now) buckets.delete(key);
  });

  function take(key: string, policy: RateLimitPolicy, now: number): RateLimitDecision {
    const mapKey = `${policy.algorithm}:${key}`;
    const found = buckets.get(mapKey);
    const live = found !== undefined && found.expiresAtMs > now ? found : undefined;
    if (policy.algorithm === 'leaky-bucket') {
      const previous = live?.algorithm === 'leaky-bucket' ? live.state : undefined;
      const { state, decision } = queueRequest(previous, policy, now);
      buckets.set(mapKey, { algorithm: 'leaky-bucket', state, expiresAtMs: Math.max(now, state.drainAtMs) + 1 });
      return decision;
    }
    const previous = live?.algorithm === 'token-bucket' ? live.state : undefined;
    const { state, decision } = takeToken(previous, policy, now);
    buckets.set(mapKey, { algorithm: 'token-bucket', state, expiresAtMs: state.updatedAtMs + tokenBucketIdleAfterMs(state, policy) + 1 });
    return decision;
  }

  return {
    async take(key, policy) {
      const now = clock();
      sweeper.maybeSweep(now);
      return take(key, policy, now);
    },
  };
}
