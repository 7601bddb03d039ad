/**
 * The reference server against its peers (`--phases stacks`): the idiomatic stacks of fixtures/stacks/
 * (Express + express-rate-limit/rate-limit-redis + passport-http-bearer + express-idempotency; Fastify +
 * @fastify/rate-limit + @fastify/bearer-auth; Hono + hono-rate-limiter; Koa + koa-ratelimit), each on the
 * shared Redis under a key prefix of its own, beside the reference server on Redis (and on memory for the
 * item GET) and bare Koa + @koa/router (the floor). Every target runs in its own child process
 * (servers.ts), which reports its own CPU time, so CPU per request is per server process.
 *
 * The same work for each target:
 * - `GET item`: an authenticated item GET, the limiter and the item in Redis (the reference: GET /users/1
 *   with a bearer token; a stack: GET /widgets/<id> of a widget created before the measurement);
 * - `POST create (keyed)`: a create with a fresh Idempotency-Key per request (POST /payments; POST /widgets);
 * - `429`: a caller whose limit is exhausted (the reference: capacity 1, ~0 refill; a stack: 10 per 5 s window).
 *
 * Rounds alternate (the order rotates every round) and each figure is the median of the rounds. The
 * stacks' limits are raised without touching the fixtures: the child adds bench callers to the stacks'
 * CALLERS (servers.ts, StackSpec). koa-ratelimit's `max` is a constant of the Koa fixture (1000 per 5 s),
 * so the open calls rotate over OPEN_TOKENS callers (one limiter key each) on every stack alike.
 *
 * Limiter exactness: 500 GETs at once, each on its own connection, split over two instances sharing Redis,
 * on a fresh key with a limit of 100 (Koa: 10, its fixture's small plan is the only limit below 500).
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { BENCH_TOKEN, EXACTNESS, EXACT_TOKEN, LIMITED_TOKEN, WINDOW_EDGE, WINDOW_TOKEN, benchConfig, storeConfig } from '../bench-config.ts';
import { burst, get } from '../http-burst.ts';
import { median, runLoad, type LoadRequest, type LoadStats } from '../load.ts';
import { startBenchServer, type BenchServer, type StackSpec } from '../servers.ts';
import type { StackExactness, StackRow, StacksResult } from '../types.ts';

export const STACK_NAMES = ['express', 'fastify', 'hono', 'koa'] as const;
export type StackName = (typeof STACK_NAMES)[number];

export const STACK_ROUTES = ['GET item', 'POST create (keyed)', '429'] as const;
export type StackRoute = (typeof STACK_ROUTES)[number];

/** What each stack is built from (fixtures/stacks/<name>/index.ts) and its limiter's algorithm. */
export const STACK_LIBRARIES: Record<StackName, { limiter: string; algorithm: string; idempotency: string }> = {
  express: { limiter: 'express-rate-limit + rate-limit-redis', algorithm: 'fixed window', idempotency: 'express-idempotency (Redis adapter)' },
  fastify: { limiter: '@fastify/rate-limit (Redis)', algorithm: 'fixed window', idempotency: 'fixture glue (no maintained plugin)' },
  hono: { limiter: 'hono-rate-limiter RedisStore', algorithm: 'fixed window', idempotency: 'fixture glue (no maintained plugin)' },
  koa: { limiter: 'koa-ratelimit (redis driver)', algorithm: 'sliding log', idempotency: 'fixture glue (no maintained plugin)' },
};

/** Open callers per stack: Koa's limiter allows 1000 per 5 s per key, so OPEN_TOKENS keys allow 200 × OPEN_TOKENS req/s. */
const OPEN_TOKENS = 256;
const OPEN_LIMIT = 1_000_000_000;
/** The stacks' 429 caller: the fixtures' small plan (Koa's small limiter applies to a limit of exactly 10). */
const LIMITED_STACK_TOKEN = 'bench-stack-limited';
const SMALL_LIMIT = 10;
/** Koa's exactness limit: koa-ratelimit's `max` is fixed in the fixture (10 or 1000). */
const KOA_EXACT_LIMIT = 10;

const openToken = (i: number): string => `bench-stack-open-${i}`;
const exactToken = (trial: number): string => `bench-stack-exact-${trial}`;
const windowToken = (trial: number): string => `bench-stack-window-${trial}`;
/** The window-edge burst starts this long before the window that the priming request opened ends. */
const EDGE_LEAD_MS = 150;

export interface StacksOptions {
  redisUrl: string;
  keyPrefix: string;
  /** Seconds per measured round of one target. */
  roundSeconds: number;
  rounds: number;
  warmupSeconds: number;
  connections: number;
  stacks: readonly StackName[];
  routes?: readonly StackRoute[];
  exactnessTrials: number;
  log: (line: string) => void;
}

type TargetKind = 'baseline' | 'reference-redis' | 'reference-memory' | StackName;

interface Target {
  kind: TargetKind;
  label: string;
  servers: BenchServer[];
  /** The request of each route, or why the target has none. */
  requests: Partial<Record<StackRoute, { request: LoadRequest; expectedStatus: number }>>;
}

const PAYMENT_BODY = JSON.stringify({ amount: 1250, currency: 'eur' });
const WIDGET_BODY = JSON.stringify({ name: 'bench widget', color: 'red' });

function stackCallers(trials: number): Record<string, number> {
  const callers: Record<string, number> = { [LIMITED_STACK_TOKEN]: SMALL_LIMIT };
  for (let i = 0; i < OPEN_TOKENS; i++) callers[openToken(i)] = OPEN_LIMIT;
  for (let i = 0; i < trials; i++) {
    callers[exactToken(i)] = EXACTNESS.capacity;
    callers[windowToken(i)] = WINDOW_EDGE.capacity;
  }
  return callers;
}

function stackSpec(stack: StackName, redisUrl: string, prefix: string, trials: number): StackSpec {
  return { kind: 'stack', stack, redisUrl, prefix, callers: stackCallers(trials) };
}

/** Creates the widget the item GET reads (owned by user 1, the owner of every bench caller). */
async function seedWidget(url: string): Promise<number> {
  const response = await fetch(`${url}/widgets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${openToken(0)}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: WIDGET_BODY,
  });
  const body = (await response.json()) as { id?: number };
  if (response.status !== 201 || typeof body.id !== 'number') throw new Error(`seeding a widget answered ${response.status}`);
  return body.id;
}

function stackRequests(widgetId: number): Target['requests'] {
  let next = 0;
  const rotating = (): Record<string, string> => ({ authorization: `Bearer ${openToken(next++ % OPEN_TOKENS)}` });
  return {
    'GET item': { expectedStatus: 200, request: { method: 'GET', path: `/widgets/${widgetId}`, perRequestHeaders: rotating } },
    'POST create (keyed)': {
      expectedStatus: 201,
      request: {
        method: 'POST',
        path: '/widgets',
        headers: { 'content-type': 'application/json' },
        body: WIDGET_BODY,
        perRequestHeaders: () => ({ ...rotating(), 'idempotency-key': randomUUID() }),
      },
    },
    '429': { expectedStatus: 429, request: { method: 'GET', path: `/widgets/${widgetId}`, headers: { authorization: `Bearer ${LIMITED_STACK_TOKEN}` } } },
  };
}

const REFERENCE_REQUESTS: Target['requests'] = {
  // The header per request (setupRequest) as for the stacks' rotating tokens, so the load generator does the same work for all.
  'GET item': { expectedStatus: 200, request: { method: 'GET', path: '/users/1', perRequestHeaders: () => ({ authorization: `Bearer ${BENCH_TOKEN}` }) } },
  'POST create (keyed)': {
    expectedStatus: 201,
    request: {
      method: 'POST',
      path: '/payments',
      headers: { 'content-type': 'application/json' },
      body: PAYMENT_BODY,
      perRequestHeaders: () => ({ authorization: `Bearer ${BENCH_TOKEN}`, 'idempotency-key': randomUUID() }),
    },
  },
  '429': { expectedStatus: 429, request: { method: 'GET', path: '/users/1', headers: { authorization: `Bearer ${LIMITED_TOKEN}` } } },
};

/**
 * Bare Koa answers every route with a constant body (no auth, limiter or store): the floor, whatever its
 * status. It is sent the reference's GET and POST, so the load generator does the same work.
 */
const BASELINE_REQUESTS: Target['requests'] = {
  'GET item': REFERENCE_REQUESTS['GET item'],
  'POST create (keyed)': REFERENCE_REQUESTS['POST create (keyed)'],
};

/** redis-server's CPU time so far (INFO cpu: used_cpu_user + used_cpu_sys, main thread and others), µs. */
async function redisCpuMicros(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string): number => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

interface RoundFigure {
  load: LoadStats;
  cpuMicrosPerRequest: number;
  /** redis-server's CPU time (INFO cpu, user + sys) over the round per request sent, µs; other clients of the shared Redis included. */
  redisCpuMicrosPerRequest: number;
  redisCommandsPerRequest: number;
  load1: number;
}

/** One measured round of one target: load, the server's CPU time per request sent and its Redis commands per request. */
async function measureRound(target: Target, route: StackRoute, options: StacksOptions, redis: Redis): Promise<RoundFigure | undefined> {
  const spec = target.requests[route];
  const server = target.servers[0];
  if (!spec || !server) return undefined;
  await server.resetRedisCommands();
  const redisBefore = await redisCpuMicros(redis);
  const before = await server.mark();
  const load = await runLoad({ url: server.url, request: spec.request, durationSeconds: options.roundSeconds, connections: options.connections });
  const after = await server.mark();
  const redisAfter = await redisCpuMicros(redis);
  const commands = Object.values(await server.redisCommands()).reduce((sum, n) => sum + n, 0);
  const sent = Math.max(1, load.sent);
  return {
    load,
    cpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / sent,
    redisCpuMicrosPerRequest: (redisAfter - redisBefore) / sent,
    redisCommandsPerRequest: commands / sent,
    load1: loadavg()[0] ?? 0,
  };
}

function rowOf(target: Target, route: StackRoute, figures: RoundFigure[]): StackRow {
  const spec = target.requests[route];
  const statusCounts: Record<string, number> = {};
  for (const figure of figures) {
    for (const [code, count] of Object.entries(figure.load.statusCounts)) statusCounts[code] = (statusCounts[code] ?? 0) + count;
  }
  const total = Object.values(statusCounts).reduce((sum, n) => sum + n, 0);
  const expected = spec ? (statusCounts[String(spec.expectedStatus)] ?? 0) : 0;
  return {
    target: target.label,
    kind: target.kind,
    route,
    expectedStatus: spec?.expectedStatus ?? 0,
    rounds: figures.length,
    requestsPerSecond: Math.round(median(figures.map((f) => f.load.requestsPerSecond))),
    roundsRequestsPerSecond: figures.map((f) => Math.round(f.load.requestsPerSecond)),
    cpuMicrosPerRequest: Math.round(median(figures.map((f) => f.cpuMicrosPerRequest)) * 10) / 10,
    redisCpuMicrosPerRequest: Math.round(median(figures.map((f) => f.redisCpuMicrosPerRequest)) * 10) / 10,
    redisCommandsPerRequest: Math.round(median(figures.map((f) => f.redisCommandsPerRequest)) * 100) / 100,
    p50Ms: median(figures.map((f) => f.load.p50Ms)),
    p99Ms: median(figures.map((f) => f.load.p99Ms)),
    errors: figures.reduce((sum, f) => sum + f.load.errors, 0),
    expectedShare: total > 0 ? Math.round((expected / total) * 10000) / 10000 : 0,
    statusCounts,
    loadAverage: Math.round(median(figures.map((f) => f.load1)) * 100) / 100,
  };
}

async function startTargets(options: StacksOptions): Promise<Target[]> {
  const targets: Target[] = [];
  const trials = options.exactnessTrials;
  try {
    targets.push({ kind: 'baseline', label: 'bare Koa (floor)', servers: [await startBenchServer({ kind: 'baseline' })], requests: BASELINE_REQUESTS });
    const redis = storeConfig('redis', options.redisUrl, `${options.keyPrefix}ref:`);
    targets.push({
      kind: 'reference-redis',
      label: 'reference (redis)',
      servers: [await startBenchServer({ kind: 'reference', config: benchConfig(redis) })],
      requests: REFERENCE_REQUESTS,
    });
    targets.push({
      kind: 'reference-memory',
      label: 'reference (memory)',
      servers: [await startBenchServer({ kind: 'reference', config: benchConfig({ kind: 'memory' }) })],
      requests: { 'GET item': REFERENCE_REQUESTS['GET item'] },
    });
    for (const stack of options.stacks) {
      const server = await startBenchServer(stackSpec(stack, options.redisUrl, `${options.keyPrefix}${stack}:`, trials));
      targets.push({ kind: stack, label: `${stack} (redis)`, servers: [server], requests: {} });
      const target = targets[targets.length - 1];
      if (target) target.requests = stackRequests(await seedWidget(server.url));
    }
  } catch (error) {
    await Promise.allSettled(targets.flatMap((t) => t.servers.map((s) => s.close())));
    throw error;
  }
  return targets;
}

/** Throughput rows: per route, every target that has the route, warmed up, then alternating rounds. */
async function throughput(targets: Target[], options: StacksOptions, redis: Redis): Promise<StackRow[]> {
  const rows: StackRow[] = [];
  for (const route of options.routes ?? STACK_ROUTES) {
    const taking = targets.filter((t) => t.requests[route]);
    if (options.warmupSeconds > 0) {
      for (const target of taking) {
        const spec = target.requests[route];
        const server = target.servers[0];
        if (spec && server) await runLoad({ url: server.url, request: spec.request, durationSeconds: options.warmupSeconds, connections: options.connections });
      }
    }
    const figures: RoundFigure[][] = taking.map(() => []);
    for (let round = 0; round < options.rounds; round++) {
      for (let j = 0; j < taking.length; j++) {
        const index = (round + j) % taking.length;
        const target = taking[index];
        if (!target) continue;
        const figure = await measureRound(target, route, options, redis);
        if (figure) figures[index]?.push(figure);
      }
    }
    for (const [index, target] of taking.entries()) {
      const row = rowOf(target, route, figures[index] ?? []);
      rows.push(row);
      options.log(
        `  ${route.padEnd(20)} ${target.label.padEnd(20)} ${String(row.requestsPerSecond).padStart(6)} req/s ` +
          `(rounds ${row.roundsRequestsPerSecond.join(', ')})  CPU ${row.cpuMicrosPerRequest} µs/req  redis ${row.redisCommandsPerRequest}/req ` +
          `${row.redisCpuMicrosPerRequest} µs/req  ` +
          `statuses ${JSON.stringify(row.statusCounts)}  load ${row.loadAverage}`,
      );
    }
  }
  return rows;
}

/** A limiter under the exactness trial: how to start one instance, what to ask and the limit it must hold. */
interface ExactnessSubject {
  label: string;
  limiter: string;
  spec: (prefix: string) => Parameters<typeof startBenchServer>[0];
  path: string;
  token: (trial: number) => string;
  capacity: number;
  /** The window-edge trial: its token and limit per window of WINDOW_EDGE.windowMs. */
  edgeToken: (trial: number) => string;
  edgeCapacity: number;
}

/**
 * One trial on two fresh instances sharing a fresh key prefix. `fresh`: 500 GETs at once on an untouched
 * limiter key (exact: admitted = the limit). `window-edge`: one priming GET opens the window (the stacks'
 * fixed windows start at a key's first hit), and the 500 are fired EDGE_LEAD_MS before that window ends; a
 * limiter holding "limit per window" over any span admits at most limit + rate × burst time (rate =
 * limit / window, the reference's bucket refill), while a fixed window admits the rest of the old window and
 * a whole new one.
 */
async function exactnessTrial(subject: ExactnessSubject, mode: 'fresh' | 'window-edge', trial: number, options: StacksOptions): Promise<StackExactness> {
  const prefix = `${options.keyPrefix}${mode}-${trial}-${subject.label.split(' ')[0]}:`;
  const servers: BenchServer[] = [];
  try {
    servers.push(await startBenchServer(subject.spec(prefix)), await startBenchServer(subject.spec(prefix)));
    const urls = servers.map((s) => s.url);
    const edge = mode === 'window-edge';
    const token = edge ? subject.edgeToken(trial) : subject.token(trial);
    const capacity = edge ? subject.edgeCapacity : subject.capacity;
    const headers = { authorization: `Bearer ${token}` };
    if (edge) {
      const sent = performance.now();
      const primed = await get(`${urls[0]}${subject.path}`, headers, false);
      if (primed.status !== 200) throw new Error(`${subject.label}: the priming request answered ${primed.status}`);
      await sleep(Math.max(0, (sent + primed.at) / 2 + WINDOW_EDGE.windowMs - EDGE_LEAD_MS - performance.now()));
    }
    const started = performance.now();
    const replies = await burst(urls, subject.path, headers, EXACTNESS.requests);
    const elapsedMs = Math.round(performance.now() - started);
    const admitted = replies.filter((r) => r.status === 200).length;
    const rejected = replies.filter((r) => r.status === 429).length;
    return {
      target: subject.label,
      limiter: subject.limiter,
      mode,
      instances: servers.length,
      requests: EXACTNESS.requests,
      capacity,
      admitted,
      rejected,
      other: replies.length - admitted - rejected,
      elapsedMs,
      ...(edge ? { envelope: Math.floor(capacity + (capacity / (WINDOW_EDGE.windowMs / 1000)) * (elapsedMs / 1000)) } : {}),
      loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    };
  } finally {
    await Promise.allSettled(servers.map((s) => s.close()));
  }
}

/** Every limiter, fresh and at the window's edge, `exactnessTrials` times. */
async function exactness(options: StacksOptions): Promise<StackExactness[]> {
  const results: StackExactness[] = [];
  const subjects: ExactnessSubject[] = [
    {
      label: 'reference (redis)',
      limiter: 'token bucket (reference-impl)',
      spec: (prefix) => ({ kind: 'reference', config: benchConfig(storeConfig('redis', options.redisUrl, prefix)) }),
      path: '/users/1',
      token: () => EXACT_TOKEN,
      capacity: EXACTNESS.capacity,
      edgeToken: () => WINDOW_TOKEN,
      edgeCapacity: WINDOW_EDGE.capacity,
    },
    ...options.stacks.map((stack) => ({
      label: `${stack} (redis)`,
      limiter: `${STACK_LIBRARIES[stack].limiter}, ${STACK_LIBRARIES[stack].algorithm}`,
      spec: (prefix: string) => stackSpec(stack, options.redisUrl, prefix, options.exactnessTrials),
      path: '/me',
      token: (trial: number) => (stack === 'koa' ? LIMITED_STACK_TOKEN : exactToken(trial)),
      capacity: stack === 'koa' ? KOA_EXACT_LIMIT : EXACTNESS.capacity,
      edgeToken: (trial: number) => (stack === 'koa' ? LIMITED_STACK_TOKEN : windowToken(trial)),
      edgeCapacity: stack === 'koa' ? KOA_EXACT_LIMIT : WINDOW_EDGE.capacity,
    })),
  ];
  for (let trial = 0; trial < options.exactnessTrials; trial++) {
    for (const mode of ['fresh', 'window-edge'] as const) {
      for (const subject of subjects) {
        const result = await exactnessTrial(subject, mode, trial, options);
        results.push(result);
        options.log(
          `  ${mode.padEnd(11)} ${subject.label.padEnd(20)} x2  ${result.requests} at once, limit ${result.capacity}: admitted ${result.admitted}, ` +
            `429 ${result.rejected}, other ${result.other}${result.envelope !== undefined ? `, envelope ${result.envelope}` : ''} ` +
            `(${result.elapsedMs} ms, load ${result.loadAverage})`,
        );
      }
    }
  }
  return results;
}

/** Runs the throughput rows and the exactness trials; the caller deletes the keys under `keyPrefix`. */
export async function stacksPhase(options: StacksOptions): Promise<StacksResult> {
  const notes: string[] = [];
  const targets = await startTargets(options);
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  let rows: StackRow[];
  try {
    rows = await throughput(targets, options, redis);
  } finally {
    redis.disconnect();
    await Promise.allSettled(targets.flatMap((t) => t.servers.map((s) => s.close())));
  }
  const exact = options.exactnessTrials > 0 ? await exactness(options) : [];
  if (options.stacks.includes('koa')) {
    notes.push(
      `koa-ratelimit's max is a constant of fixtures/stacks/koa (10 or 1000 per 5 s): its open calls rotate over ${OPEN_TOKENS} callers, ` +
        `and its exactness is measured at its limit of ${KOA_EXACT_LIMIT}.`,
    );
  }
  return {
    roundSeconds: options.roundSeconds,
    rounds: options.rounds,
    connections: options.connections,
    rows,
    exactness: exact,
    notes,
  };
}
