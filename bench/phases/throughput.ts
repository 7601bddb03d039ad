/**
 * Phase 1: throughput and latency of the reference server beside the bare Koa
 * baseline, per route and store, measured in the same run; both servers run in child processes.
 */
import { randomUUID } from 'node:crypto';
import { BENCH_TOKEN, LIMITED_TOKEN, benchConfig, storeConfig } from '../bench-config.ts';
import { combineRounds, runLoad, type LoadRequest, type LoadStats } from '../load.ts';
import { startTarget, type Target } from '../target.ts';
import { throughputGoal } from '../goals.ts';
import type { StoreKind, ThroughputCell } from '../types.ts';

export interface ThroughputOptions {
  stores: StoreKind[];
  redisUrl: string;
  /** Seed nodes of the local cluster (the `cluster` store). */
  clusterNodes?: readonly string[];
  keyPrefix: string;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  /** Alternating baseline/reference rounds per cell; `durationSeconds` is split among them. */
  rounds: number;
  /** Names of the routes to run (default: all of ROUTES). */
  routes?: string[];
  log: (line: string) => void;
}

interface Route {
  name: string;
  expectedStatus: number;
  request: LoadRequest;
}

const PAYMENT_BODY = JSON.stringify({ amount: 1250, currency: 'eur' });

/** The four routes of the phase; the 429 one uses a token whose plan has capacity 1 and ~0 refill. */
export const ROUTES: Route[] = [
  { name: 'GET /users/1', expectedStatus: 200, request: { method: 'GET', path: '/users/1' } },
  {
    name: 'POST /payments',
    expectedStatus: 201,
    request: {
      method: 'POST',
      path: '/payments',
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
      body: PAYMENT_BODY,
      perRequestHeaders: () => ({ 'idempotency-key': randomUUID() }),
    },
  },
  { name: '404 problem', expectedStatus: 404, request: { method: 'GET', path: '/no-such-collection/1' } },
  {
    name: '429 (rate-limited)',
    expectedStatus: 429,
    request: { method: 'GET', path: '/users/1', headers: { authorization: `Bearer ${LIMITED_TOKEN}` } },
  },
];

/**
 * Warms both targets up, then measures them in alternating rounds (baseline first in even rounds,
 * reference first in odd ones) so that load from other processes on a shared machine falls on
 * both alike.
 */
async function measurePair(
  baseline: Target,
  reference: Target,
  request: LoadRequest,
  options: ThroughputOptions,
): Promise<{ base: LoadStats; ref: LoadStats; commands: Record<string, number>; baseCpu: number; refCpu: number }> {
  const { connections } = options;
  const baseUrl = baseline.url;
  const refUrl = reference.url;
  if (options.warmupSeconds > 0) {
    await runLoad({ url: baseUrl, request, durationSeconds: options.warmupSeconds, connections });
    await runLoad({ url: refUrl, request, durationSeconds: options.warmupSeconds, connections });
  }
  await reference.resetRedisCommands();
  const [base0, ref0] = await Promise.all([baseline.mark(), reference.mark()]);
  const slice = Math.max(1, Math.round(options.durationSeconds / options.rounds));
  const base: LoadStats[] = [];
  const ref: LoadStats[] = [];
  for (let i = 0; i < options.rounds; i++) {
    const order = i % 2 === 0 ? [baseUrl, refUrl] : [refUrl, baseUrl];
    for (const url of order) {
      const stats = await runLoad({ url, request, durationSeconds: slice, connections });
      (url === baseUrl ? base : ref).push(stats);
    }
  }
  const [base1, ref1] = await Promise.all([baseline.mark(), reference.mark()]);
  return {
    base: combineRounds(base),
    ref: combineRounds(ref),
    commands: await reference.redisCommands(),
    baseCpu: base1.cpuMicros - base0.cpuMicros,
    refCpu: ref1.cpuMicros - ref0.cpuMicros,
  };
}

function perRequest(commands: Record<string, number>, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [name, count] of Object.entries(commands)) {
    out[name] = Math.round((count / Math.max(1, requests)) * 100) / 100;
    total += count;
  }
  out.total = Math.round((total / Math.max(1, requests)) * 100) / 100;
  return out;
}

/** Runs every route on every store, the baseline right before the reference each time. */
export async function throughputPhase(options: ThroughputOptions): Promise<ThroughputCell[]> {
  const cells: ThroughputCell[] = [];
  const baseline = await startTarget({ kind: 'baseline' });
  try {
    for (const store of options.stores) {
      let reference: Target | undefined;
      try {
        reference = await startTarget({ kind: 'reference', config: benchConfig(storeConfig(store, options.redisUrl, options.keyPrefix, options.clusterNodes)) });
        for (const route of ROUTES.filter((r) => !options.routes || options.routes.includes(r.name))) {
          const { base, ref, commands, baseCpu, refCpu } = await measurePair(baseline, reference, route.request, options);
          const baseCpuPerRequest = Math.round(baseCpu / Math.max(1, base.sent));
          const refCpuPerRequest = Math.round(refCpu / Math.max(1, ref.sent));
          const expected = ref.statusCounts[String(route.expectedStatus)] ?? 0;
          const cell: ThroughputCell = {
            store,
            route: route.name,
            expectedStatus: route.expectedStatus,
            reference: ref,
            baseline: base,
            ratio: base.requestsPerSecond > 0 ? Math.round((ref.requestsPerSecond / base.requestsPerSecond) * 1000) / 1000 : 0,
            expectedShare: ref.total > 0 ? expected / ref.total : 0,
            target: throughputGoal(store, route.name),
            cpuMicrosPerRequest: { reference: refCpuPerRequest, baseline: baseCpuPerRequest },
            cpuRatio: refCpuPerRequest > 0 ? Math.round((baseCpuPerRequest / refCpuPerRequest) * 1000) / 1000 : 0,
          };
          if (store !== 'memory') cell.redisCommandsPerRequest = perRequest(commands, ref.sent);
          cells.push(cell);
          options.log(
            `  ${store.padEnd(6)} ${route.name.padEnd(20)} ref ${ref.requestsPerSecond.toFixed(0).padStart(6)} req/s  base ${base.requestsPerSecond
              .toFixed(0)
              .padStart(6)} req/s  ratio ${cell.ratio.toFixed(2)}  CPU/req ${refCpuPerRequest}/${baseCpuPerRequest} µs (ratio ${cell.cpuRatio.toFixed(2)})  statuses ${JSON.stringify(ref.statusCounts)}${
              cell.redisCommandsPerRequest ? `  redis/req ${JSON.stringify(cell.redisCommandsPerRequest)}` : ''
            }`,
          );
        }
      } finally {
        await reference?.close();
      }
    }
  } finally {
    await baseline.close();
  }
  return cells;
}
