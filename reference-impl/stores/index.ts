import { createMemoryStores } from './memory/index.ts';
import { createRedisStores } from './redis/index.ts';
import type { Stores } from './types.ts';

export type { MemoryStoresOptions } from './memory/index.ts';
export type { RedisStoresOptions } from './redis/index.ts';
export { createMemoryStores, createRedisStores };
export { sequenced } from './sequences.ts';
export * from './types.ts';

/** Which store backs the server (D-RATE-LIMIT shared store, D-IDEMPOTENCY): `memory` (the default) or `redis`. */
export type StoreConfig =
  | { kind: 'memory' }
  | {
      kind: 'redis';
      url: string;
      cluster?: string[];
      keyPrefix?: string;
      commandTimeoutMs?: number;
      connectTimeoutMs?: number;
      /** D-STORE-DURABILITY: replicas that confirm each promised write (WAIT), and how long to wait. */
      durability?: { replicas: number; timeoutMs: number };
    };

/** Creates the stores named by the configuration. */
export function createStores(config: StoreConfig): Stores {
  if (config.kind === 'memory') return createMemoryStores();
  return createRedisStores(config);
}
