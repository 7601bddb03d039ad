/** The shapes of one benchmark run, as written to bench/results/<timestamp>.json. */
import type { LoadStats } from './load.ts';

/** `cluster`: a local 3-primary Redis Cluster started by the bench (reference-impl/tools/local-cluster.ts). */
export type StoreKind = 'memory' | 'redis' | 'cluster';

export interface ThroughputCell {
  store: StoreKind;
  route: string;
  expectedStatus: number;
  reference: LoadStats;
  baseline: LoadStats;
  /** reference req/s divided by baseline req/s. */
  ratio: number;
  /** CPU time (user + system) of each server process per request sent, in µs. */
  cpuMicrosPerRequest: { reference: number; baseline: number };
  /** baseline CPU per request divided by the reference's: the throughput ratio both would reach on a CPU of their own. */
  cpuRatio: number;
  /** Share of the reference's responses that had the expected status. */
  expectedShare: number;
  target: number;
  /** Redis commands the reference server sent per request during the measurement, by name and `total`. */
  redisCommandsPerRequest?: Record<string, number>;
  /**
   * On Redis: bare Koa making the route's budget of Redis round trips per request, measured in the same
   * alternating rounds. Its ratios bound what any server that keeps its limits in Redis can reach.
   */
  floor?: { redisRoundTrips: number; load: LoadStats; ratio: number; cpuMicrosPerRequest: number; cpuRatio: number };
}

export interface ExactnessResult {
  store: StoreKind;
  instances: number;
  capacity: number;
  requests: number;
  admitted: number;
  rejected: number;
  other: number;
  elapsedMs: number;
}

export interface RefillResult {
  store: StoreKind;
  capacity: number;
  configuredPerSecond: number;
  durationMs: number;
  sent: number;
  admitted: number;
  /** Time removed from the axis because no request took a token for longer than the fill time. */
  lostMs: number;
  maxGapMs: number;
  /** (admitted - capacity) / elapsed seconds, over the time the pressure held. */
  countRatePerSecond: number;
  /** Least-squares slope of the admitted responses after the burst. */
  fitRatePerSecond: number;
  countError: number;
  fitError: number;
}

export interface SuiteTimeResult {
  name: string;
  args: string[];
  wallMs: number;
  /** User + system CPU time of the whole process tree (GNU time), when available. */
  cpuMs?: number;
  exitCode: number | null;
  summary: string;
}

export interface ProfileFrame {
  functionName: string;
  location: string;
  selfMs: number;
  selfShare: number;
}

export interface ProfileResult {
  route: string;
  store: StoreKind;
  /** Requests answered in the profiled window, and the server process's CPU time per request (profiling included). */
  requests: number;
  cpuMicrosPerRequest: number;
  totalMs: number;
  topFrames: ProfileFrame[];
  /** reference-impl frames by inclusive time (synchronous stacks only: time after an await is not attributed). */
  projectInclusive: ProfileFrame[];
  byArea: Record<string, number>;
  file: string;
}

/** One Redis client library on the hot path (phases/clients.ts), or why it was not measured. */
export interface ClientResult {
  client: string;
  version: string;
  /** The limiter-and-read script (EVALSHA) and a plain GET: operations per second and client CPU µs per operation. */
  script?: { opsPerSecond: number; cpuMicrosPerOp: number };
  /** The same takes 16 to a batch script (the server's form under load): takes per second and CPU µs per take. */
  batch?: { opsPerSecond: number; cpuMicrosPerOp: number };
  get?: { opsPerSecond: number; cpuMicrosPerOp: number };
  skipped?: string;
}

/** One cell of the durability phase (bench/phases/durability.ts, D-STORE-DURABILITY). */
export interface DurabilityCell {
  store: 'redis' | 'cluster';
  durability: 'off' | 'on';
  /** `http`: keyed POST /payments through a server, `concurrency` at a time; `store`: the store's creation call alone, one at a time. */
  via: 'http' | 'store';
  writes: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Answers other than 201 (a 503 is a wait that timed out). */
  failed: number;
}

/** One target on one route of the stacks phase (phases/stacks.ts): medians over alternating rounds. */
export interface StackRow {
  target: string;
  /** `baseline` (bare Koa), `reference-redis`, `reference-memory`, or a stack of fixtures/stacks/. */
  kind: string;
  route: string;
  expectedStatus: number;
  rounds: number;
  /** Median over the rounds, and each round's figure. */
  requestsPerSecond: number;
  roundsRequestsPerSecond: number[];
  /** Median over the rounds of the server process's CPU time (user + system) per request sent, µs. */
  cpuMicrosPerRequest: number;
  /** Median over the rounds of redis-server's CPU time per request sent, µs (the shared Redis: other clients' work included). */
  redisCpuMicrosPerRequest?: number;
  /** Median over the rounds of the Redis commands the server sent per request. */
  redisCommandsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Share of the responses with the expected status. */
  expectedShare: number;
  statusCounts: Record<string, number>;
  /** Median of the 1-minute load average at the end of each round. */
  loadAverage: number;
}

/** One limiter's exactness trial: 500 requests at once over two instances sharing Redis. */
export interface StackExactness {
  target: string;
  limiter: string;
  /** `fresh`: an untouched key; `window-edge`: fired just before the window a priming request opened ends. */
  mode: 'fresh' | 'window-edge';
  instances: number;
  requests: number;
  capacity: number;
  admitted: number;
  rejected: number;
  other: number;
  elapsedMs: number;
  /** window-edge: the most a limiter of `capacity` per window may admit over the burst's time (capacity + rate × time). */
  envelope?: number;
  loadAverage: number;
}

export interface StacksResult {
  roundSeconds: number;
  rounds: number;
  connections: number;
  rows: StackRow[];
  exactness: StackExactness[];
  notes: string[];
}

/** One timed run of the suite or of its peer on a stack (bench/phases/peer.ts). */
export interface PeerRun {
  stack: string;
  tool: 'suite' | 'schemathesis';
  round: number;
  wallMs: number;
  cpuMs?: number;
  exitCode: number | null;
  summary: string;
}

export interface BenchRun {
  startedAt: string;
  host: { node: string; cpus: number; platform: string };
  options: { durationSeconds: number; warmupSeconds: number; connections: number; quick: boolean; phases: string[]; stores: StoreKind[] };
  serverMode: 'child-process' | 'child-process-compiled';
  throughput: ThroughputCell[];
  exactness: ExactnessResult[];
  refill: RefillResult[];
  suite: SuiteTimeResult[];
  profile?: ProfileResult;
  clients?: ClientResult[];
  /** Latency per write with store.durability off and on (bench/phases/durability.ts). */
  durability?: DurabilityCell[];
  /** The reference against the idiomatic stacks of fixtures/stacks/ (bench/phases/stacks.ts). */
  stacks?: StacksResult;
  /** The suite and Schemathesis alternating on the stacks (bench/phases/peer.ts). */
  peer?: PeerRun[];
  notes: string[];
}
