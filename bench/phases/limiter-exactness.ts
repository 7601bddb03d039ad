/**
 * Phase 2 (RATE-LIMIT-BURST-CAPACITY, RATE-LIMIT-SHARED-STORE): N concurrent requests on a fresh bucket of capacity C must admit
 * exactly C: the memory store on one instance, and Redis (one, or a cluster) shared by two instances.
 */
import { EXACTNESS, EXACT_TOKEN, benchConfig, storeConfig } from '../bench-config.ts';
import { burst } from '../http-burst.ts';
import { startBenchServer, type BenchServer } from '../servers.ts';
import type { ExactnessResult, StoreKind } from '../types.ts';

export interface ExactnessOptions {
  stores: StoreKind[];
  redisUrl: string;
  /** Seed nodes of the local cluster (the `cluster` store). */
  clusterNodes?: readonly string[];
  keyPrefix: string;
  trials: number;
  log: (line: string) => void;
}

/** One trial on fresh servers (memory: one instance; Redis and the cluster: two instances on a fresh key prefix). */
async function trial(store: StoreKind, prefix: string, redisUrl: string, clusterNodes?: readonly string[]): Promise<ExactnessResult> {
  const instances = store === 'memory' ? 1 : 2;
  const targets: BenchServer[] = [];
  try {
    for (let i = 0; i < instances; i++) {
      targets.push(await startBenchServer({ kind: 'reference', config: benchConfig(storeConfig(store, redisUrl, prefix, clusterNodes)) }));
    }
    const started = performance.now();
    const replies = await burst(
      targets.map((t) => t.url),
      '/users/1',
      { authorization: `Bearer ${EXACT_TOKEN}` },
      EXACTNESS.requests,
    );
    const elapsedMs = Math.round(performance.now() - started);
    const admitted = replies.filter((r) => r.status === 200).length;
    const rejected = replies.filter((r) => r.status === 429).length;
    return {
      store,
      instances,
      capacity: EXACTNESS.capacity,
      requests: EXACTNESS.requests,
      admitted,
      rejected,
      other: replies.length - admitted - rejected,
      elapsedMs,
    };
  } finally {
    await Promise.all(targets.map((t) => t.close()));
  }
}

/** Runs `trials` trials per store. */
export async function exactnessPhase(options: ExactnessOptions): Promise<ExactnessResult[]> {
  const results: ExactnessResult[] = [];
  for (const store of options.stores) {
    for (let i = 0; i < options.trials; i++) {
      const result = await trial(store, `${options.keyPrefix}exact${i}:`, options.redisUrl, options.clusterNodes);
      results.push(result);
      options.log(
        `  ${store.padEnd(6)} x${result.instances}  ${result.requests} requests, capacity ${result.capacity}: ` +
          `admitted ${result.admitted}, 429 ${result.rejected}, other ${result.other} (${result.elapsedMs} ms)`,
      );
    }
  }
  return results;
}
