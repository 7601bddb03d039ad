/**
 * Phase 1: throughput and latency of the reference server beside the bare Koa
 * baseline, per route and store, measured in the same run; both servers run in child processes.
 */
import { randomUUID } from 'node:crypto';
import { BENCH_TOKEN, LIMITED_TOKEN, benchConfig, storeConfig } from '../bench-config.ts';
import { combineRounds, runLoad, type LoadRequest, type LoadStats } from '../load.ts';
import { startBenchServer, type BenchServer } from '../servers.ts';
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
  /** Redis round trips the route may cost on one Redis (the store's budget): the floor cell makes as many. */
  redisRoundTrips: number;
}

const PAYMENT_BODY = JSON.stringify({ amount: 1250, currency: 'eur' });

/** The four routes of the phase; the 429 one uses a token whose plan has capacity 1 and ~0 refill. */
export const ROUTES: Route[] = [
  { name: 'GET /users/1', expectedStatus: 200, redisRoundTrips: 1, request: { method: 'GET', path: '/users/1' } },
  {
    name: 'POST /payments',
    expectedStatus: 201,
    redisRoundTrips: 2,
    request: {
      method: 'POST',
      path: '/payments',
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
      body: PAYMENT_BODY,
      perRequestHeaders: () => ({ 'idempotency-key': randomUUID() }),
    },
  },
  { name: '404 problem', expectedStatus: 404, redisRoundTrips: 1, request: { method: 'GET', path: '/no-such-collection/1' } },
  {
    name: '429 (rate-limited)',
    expectedStatus: 429,
    redisRoundTrips: 1,
    request: { method: 'GET', path: '/users/1', headers: { authorization: `Bearer ${LIMITED_TOKEN}` } },
  },
];

/**
 * Warms the targets up, then measures them in alternating rounds (the order rotates every round:
 * baseline first, then the reference first, …) so that load from other processes on a shared
 * machine falls on all of them alike. Returns each target's combined load and CPU time.
 */
async function measureTargets(
  targets: readonly BenchServer[],
  request: LoadRequest,
  options: ThroughputOptions,
): Promise<{ load: LoadStats; cpu: number }[]> {
  const { connections } = options;
  if (options.warmupSeconds > 0) {
    for (const target of targets) await runLoad({ url: target.url, request, durationSeconds: options.warmupSeconds, connections });
  }
  // Redis commands are counted over the measured rounds only.
  for (const target of targets) await target.resetRedisCommands();
  const before = await Promise.all(targets.map((target) => target.mark()));
  const slice = Math.max(1, Math.round(options.durationSeconds / options.rounds));
  const rounds: LoadStats[][] = targets.map(() => []);
  for (let i = 0; i < options.rounds; i++) {
    for (let j = 0; j < targets.length; j++) {
      const index = (i + j) % targets.length;
      const target = targets[index];
      if (target) rounds[index]?.push(await runLoad({ url: target.url, request, durationSeconds: slice, connections }));
    }
  }
  const after = await Promise.all(targets.map((target) => target.mark()));
  return targets.map((_, index) => ({
    load: combineRounds(rounds[index] ?? []),
    cpu: (after[index]?.cpuMicros ?? 0) - (before[index]?.cpuMicros ?? 0),
  }));
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

/**
 * Runs every route on every store: the baseline, the reference and, on Redis, the floor (bare Koa with
 * the route's Redis round trips) in alternating rounds of one cell.
 */
export async function throughputPhase(options: ThroughputOptions): Promise<ThroughputCell[]> {
  const cells: ThroughputCell[] = [];
  const baseline = await startBenchServer({ kind: 'baseline' });
  try {
    for (const store of options.stores) {
      const started: BenchServer[] = [];
      try {
        const reference = await startBenchServer({
          kind: 'reference',
          config: benchConfig(storeConfig(store, options.redisUrl, options.keyPrefix, options.clusterNodes)),
        });
        started.push(reference);
        const floors = new Map<number, BenchServer>();
        const floorOf = async (roundTrips: number): Promise<BenchServer | undefined> => {
          if (store === 'memory') return undefined;
          const known = floors.get(roundTrips);
          if (known) return known;
          const redis = {
            url: options.redisUrl,
            keyPrefix: options.keyPrefix,
            ...(store === 'cluster' && options.clusterNodes ? { cluster: options.clusterNodes } : {}),
          };
          const floor = await startBenchServer({ kind: 'floor', redis, roundTrips });
          started.push(floor);
          floors.set(roundTrips, floor);
          return floor;
        };
        for (const route of ROUTES.filter((r) => !options.routes || options.routes.includes(r.name))) {
          const floor = await floorOf(route.redisRoundTrips);
          const [base, ref, low] = await measureTargets(floor ? [baseline, reference, floor] : [baseline, reference], route.request, options);
          if (!base || !ref) throw new Error('measureTargets returned fewer results than targets');
          const commands = await reference.redisCommands();
          const perSent = (cpu: number, load: LoadStats): number => Math.round(cpu / Math.max(1, load.sent));
          const baseCpuPerRequest = perSent(base.cpu, base.load);
          const refCpuPerRequest = perSent(ref.cpu, ref.load);
          const expected = ref.load.statusCounts[String(route.expectedStatus)] ?? 0;
          const ratioOf = (a: number, b: number): number => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);
          const cell: ThroughputCell = {
            store,
            route: route.name,
            expectedStatus: route.expectedStatus,
            reference: ref.load,
            baseline: base.load,
            ratio: ratioOf(ref.load.requestsPerSecond, base.load.requestsPerSecond),
            expectedShare: ref.load.total > 0 ? expected / ref.load.total : 0,
            target: throughputGoal(store, route.name),
            cpuMicrosPerRequest: { reference: refCpuPerRequest, baseline: baseCpuPerRequest },
            cpuRatio: ratioOf(baseCpuPerRequest, refCpuPerRequest),
          };
          if (low) {
            const lowCpu = perSent(low.cpu, low.load);
            cell.floor = {
              redisRoundTrips: route.redisRoundTrips,
              load: low.load,
              ratio: ratioOf(low.load.requestsPerSecond, base.load.requestsPerSecond),
              cpuMicrosPerRequest: lowCpu,
              cpuRatio: ratioOf(baseCpuPerRequest, lowCpu),
            };
          }
          if (store !== 'memory') cell.redisCommandsPerRequest = perRequest(commands, ref.load.sent);
          cells.push(cell);
          options.log(
            `  ${store.padEnd(6)} ${route.name.padEnd(20)} ref ${ref.load.requestsPerSecond.toFixed(0).padStart(6)} req/s  base ${base.load.requestsPerSecond
              .toFixed(0)
              .padStart(
                6,
              )} req/s  ratio ${cell.ratio.toFixed(2)}  CPU/req ${refCpuPerRequest}/${baseCpuPerRequest} µs (ratio ${cell.cpuRatio.toFixed(2)})` +
              (cell.floor
                ? `  floor (${cell.floor.redisRoundTrips} RT) ratio ${cell.floor.ratio.toFixed(2)} ` +
                  `CPU ${cell.floor.cpuMicrosPerRequest} µs (${cell.floor.cpuRatio.toFixed(2)})`
                : '') +
              `  statuses ${JSON.stringify(ref.load.statusCounts)}` +
              (cell.redisCommandsPerRequest ? `  redis/req ${JSON.stringify(cell.redisCommandsPerRequest)}` : ''),
          );
        }
      } finally {
        for (const target of started) await target.close();
      }
    }
  } finally {
    await baseline.close();
  }
  return cells;
}
