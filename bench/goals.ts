/** The benchmark goals (bench/README.md, Goals), and the PASS/FAIL verdict of each figure against them. */
import type { ExactnessResult, RefillResult, SuiteTimeResult, ThroughputCell } from './types.ts';

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
