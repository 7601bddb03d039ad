import type { RateLimitStore } from '../types.ts';
import { decisionOf } from './decision.ts';
import { assertPolicy } from '../../rate-limit/rounding.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { LEAKY_BUCKET } from './rate-limit-scripts.ts';
import type { TokenTakes } from './token-takes.ts';

/**
 * Rate limiting in Redis (D-RATE-LIMIT): atomic Lua scripts on the Redis clock. Token-bucket takes go
 * through `tokenTakes` (batched per event-loop turn, empty buckets answered locally: token-takes.ts);
 * a leaky bucket is one script per request. Keys (keys.ts): a token-bucket hash or a leaky-bucket
 * string per caller, tagged with the caller; each expires when the bucket would be full (empty queue) again.
 */
export function createRedisRateLimits(connection: RedisConnection, keys: RedisKeys, tokenTakes: TokenTakes): RateLimitStore {
  return {
    async take(key, policy) {
      assertPolicy(policy);
      if (policy.algorithm === 'token-bucket') return (await tokenTakes.take(key, policy)).decision;
      const reply = await connection.script(LEAKY_BUCKET, [keys.bucket(key, true)], [policy.capacity, policy.refillPerSecond]);
      return decisionOf(reply, policy);
    },
  };
}
