import { sequenced } from '../sequences.ts';
import type { Stores } from '../types.ts';
import { createMemoryIdempotency } from './idempotency.ts';
import { createMemoryRateLimits } from './rate-limits.ts';
import { createMemoryResources } from './resources.ts';

/** Options of the memory adapter. */
export interface MemoryStoresOptions {
  /** Milliseconds since the epoch; injected by tests. Defaults to `Date.now`. */
  clock?: () => number;
}

/**
 * The default, in-process adapter of the store interface. One instance may back
 * several app instances in the same process; it is not shared between processes.
 */
export function createMemoryStores(options: MemoryStoresOptions = {}): Stores {
  const clock = options.clock ?? Date.now;
  const rateLimits = createMemoryRateLimits(clock);
  const idempotency = createMemoryIdempotency(clock);
  const resources = createMemoryResources();
  return sequenced({
    rateLimits,
    idempotency,
    resources,
    async ping() {},
    async close() {},
  });
}
