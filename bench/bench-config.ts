/**
 * The reference-server configurations of the benchmarks: a token on a huge plan so the limiter
 * admits everything in the throughput cells, a token whose plan has capacity 1 and almost no
 * refill for the 429 cell, and per-run tokens for the exactness and refill phases.
 */
import type { StoreConfig } from '../reference-impl/config.ts';
import type { StoreKind } from './types.ts';

export const BENCH_TOKEN = 'bench-token-open';
export const LIMITED_TOKEN = 'bench-token-limited';
export const EXACT_TOKEN = 'bench-token-exact';
export const REFILL_TOKEN = 'bench-token-refill';
export const WINDOW_TOKEN = 'bench-token-window';

/** Limiter exactness (RATE-LIMIT-BURST-CAPACITY): capacity C, N concurrent requests, a negligible refill. */
export const EXACTNESS = { capacity: 100, requests: 500, refillPerSecond: 0.001 } as const;
/**
 * The stacks phase's window-edge trial (phases/stacks.ts): 100 per 5 s, as the stacks' fixed windows, is a
 * bucket of capacity 100 refilled at 20/s.
 */
export const WINDOW_EDGE = { capacity: 100, windowMs: 5000, refillPerSecond: 20 } as const;
/** Refill accuracy (RATE-LIMIT-REFILL-RATE): the configured rate and burst. */
export const REFILL = { capacity: 5, refillPerSecond: 50 } as const;

const ALL = ['users:write', 'orders:read', 'orders:write', 'payments:read', 'payments:write', 'posts:write'];
const HUGE = { capacity: 1_000_000_000, refillPerSecond: 1_000_000_000 };

/** A unique Redis key prefix for one benchmark run; its keys are deleted afterwards. */
export function benchKeyPrefix(): string {
  return `hac-bench:${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}:`;
}

/** The store configuration of a phase: memory, Redis at `redisUrl`, or the Redis Cluster of `clusterNodes`, under `keyPrefix`. */
export function storeConfig(kind: StoreKind, redisUrl: string, keyPrefix: string, clusterNodes?: readonly string[]): StoreConfig {
  if (kind === 'memory') return { kind: 'memory' };
  if (kind === 'cluster') {
    if (!clusterNodes || clusterNodes.length === 0) throw new Error('the cluster store needs the nodes of a running cluster');
    return { kind: 'redis', url: redisUrl, cluster: [...clusterNodes], keyPrefix, commandTimeoutMs: 5000 };
  }
  return { kind: 'redis', url: redisUrl, keyPrefix, commandTimeoutMs: 5000 };
}

/**
 * The partial configuration (merged over the defaults by resolveConfig) of every reference
 * server the benchmarks start: port 0 on loopback, the bench tokens and plans, anonymous callers on
 * the huge plan.
 */
export function benchConfig(store: StoreConfig): Record<string, unknown> {
  return {
    host: '127.0.0.1',
    port: 0,
    store,
    tokens: [
      { token: BENCH_TOKEN, userId: 1, permissions: ALL, plan: 'bench-open' },
      { token: LIMITED_TOKEN, userId: 2, permissions: ALL, plan: 'bench-limited' },
      { token: EXACT_TOKEN, userId: 3, permissions: ALL, plan: 'bench-exact' },
      { token: REFILL_TOKEN, userId: 4, permissions: ALL, plan: 'bench-refill' },
      { token: WINDOW_TOKEN, userId: 3, permissions: ALL, plan: 'bench-window' },
    ],
    plans: {
      'bench-open': HUGE,
      'bench-anonymous': HUGE,
      'bench-limited': { capacity: 1, refillPerSecond: 0.001 },
      'bench-exact': { capacity: EXACTNESS.capacity, refillPerSecond: EXACTNESS.refillPerSecond },
      'bench-refill': { capacity: REFILL.capacity, refillPerSecond: REFILL.refillPerSecond },
      'bench-window': { capacity: WINDOW_EDGE.capacity, refillPerSecond: WINDOW_EDGE.refillPerSecond },
    },
    anonymousPlan: 'bench-anonymous',
  };
}
