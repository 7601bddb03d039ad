import type { Stores } from '../types.ts';
import { connectRedis } from './connection.ts';
import { createRedisIdempotency } from './idempotency.ts';
import { createRedisRateLimits } from './rate-limits.ts';
import { createRedisResources } from './resources.ts';

/** Options of the Redis adapter. */
export interface RedisStoresOptions {
  url: string;
  /** Prepended to every key (default `hac:`), so several deployments or tests can share one Redis. */
  keyPrefix?: string;
  /** A command that takes longer fails with StoreUnavailableError (default 1000 ms, D-STORE-DOWN). */
  commandTimeoutMs?: number;
  /** Connection attempt timeout (default: the command timeout). */
  connectTimeoutMs?: number;
}

/**
 * The Redis adapter of the store interface (D-RATE-LIMIT shared store, STATELESS-ANY-INSTANCE): several server instances
 * sharing one Redis behave as one server. Every failure to reach Redis in time rejects with
 * StoreUnavailableError; the connection keeps retrying in the background.
 */
export function createRedisStores(options: RedisStoresOptions): Stores {
  const keyPrefix = options.keyPrefix ?? 'hac:';
  const connection = connectRedis(options);
  return {
    rateLimits: createRedisRateLimits(connection, keyPrefix),
    idempotency: createRedisIdempotency(connection, keyPrefix),
    resources: createRedisResources(connection, keyPrefix),
    async ping() {
      await connection.run((c) => c.ping());
    },
    close: () => connection.close(),
  };
}
