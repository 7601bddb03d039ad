import type { Stores } from '../types.ts';
import { createRedisCombined } from './combined.ts';
import { connectRedis } from './connection.ts';
import { createRedisIdempotency } from './idempotency.ts';
import { redisKeys } from './keys.ts';
import { createRedisRateLimits } from './rate-limits.ts';
import { type Durability, withReplicaWaits } from './replica-waits.ts';
import { createRedisResources } from './resources.ts';
import { createTokenTakes } from './token-takes.ts';

/** Options of the Redis adapter. */
export interface RedisStoresOptions {
  url: string;
  /** Seed nodes (`host:port`) of a Redis Cluster; when given, `url` is not used. */
  cluster?: readonly string[];
  /** Prepended to every key (default `hac:`), so several deployments or tests can share one Redis. */
  keyPrefix?: string;
  /** A command that takes longer fails with StoreUnavailableError (default 1000 ms, D-STORE-DOWN). */
  commandTimeoutMs?: number;
  /** Connection attempt timeout (default: the command timeout). */
  connectTimeoutMs?: number;
  /** Replicas that must confirm every write an answer promises, and how long to wait (D-STORE-DURABILITY; default: none). */
  durability?: Durability;
}

/**
 * The Redis adapter of the store interface: several server instances sharing one Redis, or one
 * Redis Cluster, behave as one server. Every failure to reach Redis in time rejects with
 * StoreUnavailableError; the connection keeps retrying in the background.
 */
export function createRedisStores(options: RedisStoresOptions): Stores {
  const keys = redisKeys(options.keyPrefix ?? 'hac:');
  const connection = withReplicaWaits(connectRedis(options), options.durability);
  const tokenTakes = createTokenTakes(connection, keys);
  const rateLimits = createRedisRateLimits(connection, keys, tokenTakes);
  const idempotency = createRedisIdempotency(connection, keys);
  const resources = createRedisResources(connection, keys);
  return {
    rateLimits,
    idempotency,
    resources,
    ...createRedisCombined(connection, keys, { rateLimits, idempotency, resources }, tokenTakes),
    async ping() {
      await connection.run((c) => c.ping());
    },
    close: () => connection.close(),
  };
}
