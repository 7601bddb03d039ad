import type { RateLimitDecision, RateLimitStore } from '../types.ts';
import { assertPolicy } from '../../rate-limit/rounding.ts';
import type { RedisConnection } from './connection.ts';
import { LEAKY_BUCKET, TOKEN_BUCKET } from './rate-limit-scripts.ts';

/**
 * Rate limiting in Redis (D-RATE-LIMIT, RATE-LIMIT-SHARED-STORE): one atomic Lua script per request, on the
 * Redis clock. Keys: `<prefix>rl:tb:<key>` (hash) and `<prefix>rl:lb:<key>` (string); each expires
 * when the bucket would be full (empty queue) again.
 */
export function createRedisRateLimits(connection: RedisConnection, keyPrefix: string): RateLimitStore {
  return {
    async take(key, policy) {
      assertPolicy(policy);
      const leaky = policy.algorithm === 'leaky-bucket';
      const redisKey = `${keyPrefix}rl:${leaky ? 'lb' : 'tb'}:${key}`;
      const reply = await connection.script(leaky ? LEAKY_BUCKET : TOKEN_BUCKET, [redisKey], [policy.capacity, policy.refillPerSecond]);
      if (!Array.isArray(reply) || reply.length !== 5) throw new Error('unexpected reply from the rate-limit script');
      const [allowed, remaining, resetSeconds, retryAfterSeconds, delayMs] = reply.map(Number) as [number, number, number, number, number];
      const decision: RateLimitDecision = {
        allowed: allowed === 1,
        limit: policy.capacity,
        remaining,
        resetSeconds,
        retryAfterSeconds,
      };
      if (leaky && decision.allowed) decision.delayMs = delayMs;
      return decision;
    },
  };
}
