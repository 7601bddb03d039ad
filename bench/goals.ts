/** The benchmark goals (bench/README.md, Goals), and the PASS/FAIL verdict of each figure against them. */
import type { ExactnessResult, PeerRun, RefillResult, StackExactness, StackRow, StacksResult, SuiteTimeResult, ThroughputCell } from './types.ts';

/**
 * Minimum reference/baseline ratio (req/s and CPU) per store and route (bench/README.md, Goals); the
 * baseline is bare Koa + @koa/router, the floor. On memory an item GET must reach 0.8× of it with the
 * reference on @koa/router and @koa/bodyparser. The cluster cells have none: three redis-servers
 * share the machine's cores with both servers. (The Redis goal against the idiomatic stacks of
 * fixtures/stacks, ≥ 1.1× the fastest and exact where they are not, needs them as bench targets.)
 */
export const THROUGHPUT_GOALS: Record<string, Record<string, number>> = {
  memory: { 'GET /users/1': 0.8, 'POST /payments': 0.6, '404 problem': 0.75, '429 (rate-limited)': 0.8 },
  redis: { 'GET /users/1': 0.7, 'POST /payments': 0.5, '404 problem': 0.7, '429 (rate-limited)': 0.8 },
};

/** The target of a store's route, or 0 when it has none. */
export function throughputGoal(store: string, route: string): number {
  return THROUGHPUT_GOALS[store]?.[route] ?? 0;
}
export const REFILL_MAX_ERROR = 0.05;
/**
 * Wall time of a whole `run` (full) and of `run --grep @smoke` against the embedded reference server, on a
 * quiet machine: from the repository and from an installed package.
 */
export const SUITE_MAX_MS: Record<string, number> = { full: 12_000, smoke: 3_000, 'full (installed)': 12_000, 'smoke (installed)': 3_000 };
/** A throughput cell only counts when at least this share of responses had the expected status. */
export const MIN_EXPECTED_SHARE = 0.99;

export type Verdict = 'PASS' | 'FAIL' | 'n/a';

/** Throughput: the ratio meets the route's target and the responses were the expected ones. */
export function throughputVerdict(cell: ThroughputCell): Verdict {
  if (cell.expectedShare < MIN_EXPECTED_SHARE || cell.reference.errors > 0) return 'FAIL';
  if (cell.target === 0) return 'n/a';
  return cell.ratio >= cell.target ? 'PASS' : 'FAIL';
}

/** The same target applied to the CPU-cost ratio, a figure that a busy machine disturbs less. */
export function cpuVerdict(cell: ThroughputCell): Verdict {
  if (cell.target === 0 || cell.cpuRatio === 0) return 'n/a';
  return cell.cpuRatio >= cell.target ? 'PASS' : 'FAIL';
}

/** Exactness: admitted equals capacity and every other request was a 429. */
export function exactnessVerdict(result: ExactnessResult): Verdict {
  return result.admitted === result.capacity && result.other === 0 ? 'PASS' : 'FAIL';
}

/** Refill: relative error of the fitted admitted rate within 5 %. */
export function refillVerdict(result: RefillResult): Verdict {
  return Math.abs(result.fitError) <= REFILL_MAX_ERROR && Math.abs(result.countError) <= REFILL_MAX_ERROR ? 'PASS' : 'FAIL';
}

/** Suite time: under its budget; a run that did not finish (signal, spawn failure) fails. */
export function suiteVerdict(result: SuiteTimeResult): Verdict {
  const budget = SUITE_MAX_MS[result.name];
  if (budget === undefined) return 'n/a';
  if (result.exitCode === null || result.exitCode > 1) return 'FAIL';
  return result.wallMs < budget ? 'PASS' : 'FAIL';
}

/**
 * The goals against the idiomatic stacks (the issue, per route on Redis): the reference at least 1.1× the
 * fastest stack's req/s (and, the same goal on the figure a busy machine disturbs less, at most 1/1.1 of the
 * cheapest stack's CPU per request), its limiter exact; on memory an item GET at least 0.8× bare Koa.
 */
export const STACK_GOALS = { overFastestStack: 1.1, memoryGetOverBareKoa: 0.8 } as const;

export interface StackVerdict {
  figure: string;
  value: number;
  goal: string;
  verdict: Verdict;
  detail: string;
}

const STACK_KINDS = new Set(['express', 'fastify', 'hono', 'koa']);

/** A row counts when its responses were the expected ones. */
export function stackRowValid(row: StackRow): boolean {
  return row.expectedShare >= MIN_EXPECTED_SHARE && row.errors === 0;
}

/** The verdicts of the stacks phase: per route the reference against the fastest (and the cheapest) stack, memory GET against bare Koa, exactness. */
export function stackVerdicts(result: StacksResult): StackVerdict[] {
  const verdicts: StackVerdict[] = [];
  const ratio = (a: number, b: number): number => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);
  const routes = [...new Set(result.rows.map((r) => r.route))];
  for (const route of routes) {
    const rows = result.rows.filter((r) => r.route === route);
    const reference = rows.find((r) => r.kind === 'reference-redis');
    const stacks = rows.filter((r) => STACK_KINDS.has(r.kind) && stackRowValid(r));
    if (!reference || stacks.length === 0) continue;
    const fastest = stacks.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
    const cheapest = stacks.reduce((a, b) => (b.cpuMicrosPerRequest < a.cpuMicrosPerRequest ? b : a));
    const valid = stackRowValid(reference);
    const rps = ratio(reference.requestsPerSecond, fastest.requestsPerSecond);
    verdicts.push({
      figure: `redis ${route}: reference / fastest stack, req/s`,
      value: rps,
      goal: `>= ${STACK_GOALS.overFastestStack}`,
      verdict: valid && rps >= STACK_GOALS.overFastestStack ? 'PASS' : 'FAIL',
      detail: `${reference.requestsPerSecond} vs ${fastest.target} ${fastest.requestsPerSecond}${valid ? '' : ' (reference answers not as expected)'}`,
    });
    const cpu = ratio(cheapest.cpuMicrosPerRequest, reference.cpuMicrosPerRequest);
    verdicts.push({
      figure: `redis ${route}: cheapest stack CPU / reference CPU per request`,
      value: cpu,
      goal: `>= ${STACK_GOALS.overFastestStack}`,
      verdict: valid && cpu >= STACK_GOALS.overFastestStack ? 'PASS' : 'FAIL',
      detail: `${reference.cpuMicrosPerRequest} µs vs ${cheapest.target} ${cheapest.cpuMicrosPerRequest} µs`,
    });
    if (reference.redisCpuMicrosPerRequest !== undefined) {
      // The reference moves work into Lua scripts: what redis-server spends on each request counts too.
      const total = (r: StackRow): number => r.cpuMicrosPerRequest + (r.redisCpuMicrosPerRequest ?? 0);
      const cheapestTotal = stacks.reduce((a, b) => (total(b) < total(a) ? b : a));
      const both = ratio(total(cheapestTotal), total(reference));
      verdicts.push({
        figure: `redis ${route}: cheapest stack / reference, server + redis-server CPU per request`,
        value: both,
        goal: `>= ${STACK_GOALS.overFastestStack}`,
        verdict: valid && both >= STACK_GOALS.overFastestStack ? 'PASS' : 'FAIL',
        detail: `${Math.round(total(reference))} µs vs ${cheapestTotal.target} ${Math.round(total(cheapestTotal))} µs`,
      });
    }
  }
  const memory = result.rows.find((r) => r.kind === 'reference-memory' && r.route === 'GET item');
  const koa = result.rows.find((r) => r.kind === 'baseline' && r.route === 'GET item');
  if (memory && koa) {
    const rps = ratio(memory.requestsPerSecond, koa.requestsPerSecond);
    const cpu = ratio(koa.cpuMicrosPerRequest, memory.cpuMicrosPerRequest);
    for (const [figure, value, detail] of [
      ['memory GET item: reference / bare Koa, req/s', rps, `${memory.requestsPerSecond} vs ${koa.requestsPerSecond}`],
      ['memory GET item: bare Koa CPU / reference CPU per request', cpu, `${koa.cpuMicrosPerRequest} µs vs ${memory.cpuMicrosPerRequest} µs`],
    ] as const) {
      verdicts.push({
        figure,
        value,
        goal: `>= ${STACK_GOALS.memoryGetOverBareKoa}`,
        verdict: stackRowValid(memory) && value >= STACK_GOALS.memoryGetOverBareKoa ? 'PASS' : 'FAIL',
        detail,
      });
    }
  }
  const referenceTrials = result.exactness.filter((r) => r.target.startsWith('reference') && r.mode === 'fresh');
  const edgeTrials = result.exactness.filter((r) => r.target.startsWith('reference') && r.mode === 'window-edge');
  if (edgeTrials.length > 0) {
    const within = edgeTrials.filter(withinEnvelope).length;
    verdicts.push({
      figure: 'redis limiter at a window edge: reference x2, 500 at once',
      value: within,
      goal: `${edgeTrials.length} of ${edgeTrials.length} within limit + rate x time`,
      verdict: within === edgeTrials.length ? 'PASS' : 'FAIL',
      detail: edgeTrials.map((r) => `${r.admitted}/${r.envelope ?? '?'}`).join(', '),
    });
  }
  if (referenceTrials.length > 0) {
    const exact = referenceTrials.filter((r) => r.admitted === r.capacity && r.other === 0).length;
    verdicts.push({
      figure: 'redis limiter exactness: reference x2, 500 at once',
      value: exact,
      goal: `${referenceTrials.length} of ${referenceTrials.length} trials exact`,
      verdict: exact === referenceTrials.length ? 'PASS' : 'FAIL',
      detail: `admitted ${referenceTrials.map((r) => r.admitted).join(', ')} of ${referenceTrials[0]?.capacity}`,
    });
  }
  return verdicts;
}

/** A limiter trial's verdict: fresh, admitted = the limit; at a window edge, admitted <= limit + rate x burst time. */
export function withinEnvelope(result: StackExactness): boolean {
  if (result.other !== 0) return false;
  return result.mode === 'window-edge' ? result.admitted <= (result.envelope ?? result.capacity) : result.admitted === result.capacity;
}

/** Per stack, the suite's median wall against the peer's (issue goal: at most the peer's, every check run). */
export interface PeerVerdict {
  stack: string;
  suiteMs: number;
  peerMs: number;
  verdict: Verdict;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The suite's median wall is at most the peer's on each stack; a run killed at its bound fails. */
export function peerVerdicts(runs: readonly PeerRun[]): PeerVerdict[] {
  return [...new Set(runs.map((r) => r.stack))].flatMap((stack) => {
    const of = (tool: PeerRun['tool']): PeerRun[] => runs.filter((r) => r.stack === stack && r.tool === tool);
    const suite = of('suite');
    const peer = of('schemathesis');
    if (suite.length === 0 || peer.length === 0) return [];
    const suiteMs = medianOf(suite.map((r) => r.wallMs));
    const peerMs = medianOf(peer.map((r) => r.wallMs));
    const killed = suite.some((r) => r.exitCode === null || r.exitCode > 1);
    return [{ stack, suiteMs, peerMs, verdict: !killed && suiteMs <= peerMs ? 'PASS' : 'FAIL' }];
  });
}
