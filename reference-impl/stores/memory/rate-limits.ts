import type { RateLimitDecision, RateLimitPolicy, RateLimitStore } from '../types.ts';
import { takeToken, tokenBucketIdleAfterMs } from '../../rate-limit/token-bucket.ts';
import type { TokenBucketState } from '../../rate-limit/token-bucket.ts';
import { queueRequest } from '../../rate-limit/leaky-bucket.ts';
import type { LeakyBucketState } from '../../rate-limit/leaky-bucket.ts';
import { Sweeper } from './sweeper.ts';

interface Entry<S> {
  state: S;
  expiresAtMs: number;
}

/**
 * In-process rate limiting with the pure bucket functions (D-RATE-LIMIT). A bucket whose state
 * would be "full" (token bucket) or "empty" (leaky bucket) is forgotten, so idle callers cost nothing.
 * One map per algorithm, keyed by the caller key itself (no `<algorithm>:<key>` string built, copied
 * and hashed on every request), and a live entry is updated in place.
 */
export function createMemoryRateLimits(clock: () => number): RateLimitStore {
  const tokenBuckets = new Map<string, Entry<TokenBucketState>>();
  const leakyBuckets = new Map<string, Entry<LeakyBucketState>>();
  const sweeper = new Sweeper(clock, (now) => {
    for (const [key, entry] of tokenBuckets) if (entry.expiresAtMs <= now) tokenBuckets.delete(key);
    for (const [key, entry] of leakyBuckets) if (entry.expiresAtMs <= now) leakyBuckets.delete(key);
  });

  /** Stores a bucket's next state: into its entry in place when it has one, else as a new entry. */
  function keep<S>(buckets: Map<string, Entry<S>>, key: string, found: Entry<S> | undefined, state: S, expiresAtMs: number): void {
    if (found === undefined) {
      buckets.set(key, { state, expiresAtMs });
      return;
    }
    found.state = state;
    found.expiresAtMs = expiresAtMs;
  }

  function take(key: string, policy: RateLimitPolicy, now: number): RateLimitDecision {
    if (policy.algorithm === 'leaky-bucket') {
      const found = leakyBuckets.get(key);
      const live = found !== undefined && found.expiresAtMs > now ? found : undefined;
      const { state, decision } = queueRequest(live?.state, policy, now);
      keep(leakyBuckets, key, found, state, Math.max(now, state.drainAtMs) + 1);
      return decision;
    }
    const found = tokenBuckets.get(key);
    const live = found !== undefined && found.expiresAtMs > now ? found : undefined;
    const { state, decision } = takeToken(live?.state, policy, now);
    keep(tokenBuckets, key, found, state, state.updatedAtMs + tokenBucketIdleAfterMs(state, policy) + 1);
    return decision;
  }

  function takeNow(key: string, policy: RateLimitPolicy): RateLimitDecision {
    const now = clock();
    sweeper.maybeSweep(now);
    return take(key, policy, now);
  }

  return {
    async take(key, policy) {
      return takeNow(key, policy);
    },
  };
}
