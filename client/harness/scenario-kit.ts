/**
 * Types and helpers shared by the harness scenarios: what a scenario is, what a judged check is,
 * the tolerances applied to measured waits, and builders for problem documents.
 */
import { ID } from './requirements.ts';
import type { AttemptRecord, Script } from './scripted-server.ts';
import type { AdapterRun } from './run-adapter.ts';

/** The one logical operation the adapter performs in a scenario. */
export interface Operation {
  /** `request`: one request; `follow`: GET `path`, then follow the link `rel` of the response body. */
  kind: 'request' | 'follow';
  method: string;
  path: string;
  body?: unknown;
  rel?: string;
}

/** Everything recorded about one scenario run. */
export interface ScenarioRun {
  scenario: string;
  attempts: AttemptRecord[];
  adapter: AdapterRun;
}

/** One judged check of one requirement. */
export interface Check {
  id: string;
  title: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Measured values, why it failed, or why it was skipped. */
  detail?: string;
}

/**
 * Measured-time tolerances in real milliseconds (see client/README.md, "Judging time"). A bound the
 * document sets (a jitter below 1 s, a wait of at least `Retry-After`) is enforced at its real value;
 * these allowances only cover what the measurement itself adds.
 */
export interface Tolerance {
  /**
   * Allowed shortfall below a minimum wait: `earlyMs` + 2 % of the expected wait. A timer never fires
   * early; this covers the client's clock against the server's (an HTTP-date computed with
   * `Date.now()`, a timer started a few ms before the response was fully sent).
   */
  earlyMs: number;
  /**
   * Allowed excess above a maximum, in real ms whatever the time scale: what the measurement adds to
   * the client's own wait (the end of the response reaching the client, its timer firing late on a
   * loaded machine, the next request reaching the server). Measured: see NOISE in client/README.md.
   */
  lateMs: number;
  /** Further allowance on the first wait of a run: the client's retry path runs for the first time (module loading, a new connection). */
  coldStartMs: number;
}

/**
 * Measured on the shared 2-core machine: clients that wait exactly what they are told (undici's
 * un-jittered backoff, the Retry-After waits of the reference client, got and ky) arrived at most
 * 51 ms late on warm waits and 196 ms late on a run's first wait in a matrix run at time scale 1
 * (load average 21); the reference client at time scale 0.25 with 8 scenarios at once arrived up
 * to 157 ms late on warm waits (load average 29). `lateMs` is 1.6 times the worst warm figure;
 * `lateMs + coldStartMs` is more than twice the first-wait figure. A timer never fires early, so
 * `earlyMs` is small.
 */
export const DEFAULT_TOLERANCE: Tolerance = { earlyMs: 15, lateMs: 250, coldStartMs: 300 };

/**
 * Granularity of a coarse timer, added to the upper bound of the timeout only: undici fires its
 * headers and body timeouts from a 500 ms tick ("an accuracy target of within 500ms",
 * undici lib/util/timers.js), so a correct 5 s timeout fires between 5.0 and 5.5 s.
 */
export const COARSE_TIMER_MS = 500;

export interface JudgeContext {
  /** Real milliseconds per second of the document (1000 × time scale). */
  msPerSecond: number;
  tolerance: Tolerance;
  token: string;
}

/** A jitter sample: the measured wait after attempt `attempt` of an exponential backoff, in seconds of the document minus 2^attempt. */
export interface JitterSample {
  scenario: string;
  attempt: number;
  jitterSeconds: number;
}

export interface Verdict {
  checks: Check[];
  jitter?: JitterSample[];
  /** Idempotency-Key of the logical POST operation, when the scenario performs one. */
  operationKey?: string | null;
}

export interface Scenario {
  name: string;
  description: string;
  operation: Operation;
  script: Script;
  judge: (run: ScenarioRun, ctx: JudgeContext) => Verdict;
  /** The longest a correct client should take, in seconds of the document (the kill budget). */
  budgetSeconds: number;
}

/** A problem document body (RFC 9457). */
export function problemBody(status: number, title: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'about:blank', title, status, detail: `${title} (scripted by the client harness)`, instance: path, ...extra };
}

/** The measured wait between the end of attempt `k` and the arrival of attempt `k + 1`, in ms. */
export function waitAfter(attempts: readonly AttemptRecord[], k: number): number | undefined {
  const end = attempts[k]?.endedAt;
  const next = attempts[k + 1]?.arrivedAt;
  return end === undefined || next === undefined ? undefined : next - end;
}

/** Smallest acceptable measurement for an expected minimum of `expectedMs`. */
export function lowerBound(expectedMs: number, tol: Tolerance): number {
  return expectedMs - (tol.earlyMs + 0.02 * expectedMs);
}

/** Largest acceptable measurement for an expected maximum of `expectedMs` (the first wait of a run also gets the cold-start allowance). */
export function upperBound(expectedMs: number, tol: Tolerance, firstWait = false): number {
  return expectedMs + tol.lateMs + (firstWait ? tol.coldStartMs : 0);
}

export function pass(id: string, title: string, detail?: string): Check {
  return detail === undefined ? { id, title, status: 'passed' } : { id, title, status: 'passed', detail };
}

export function fail(id: string, title: string, detail: string): Check {
  return { id, title, status: 'failed', detail };
}

export function skip(id: string, title: string, detail: string): Check {
  return { id, title, status: 'skipped', detail };
}

/** `ok ? pass : fail` with the same detail. */
export function verdict(id: string, title: string, ok: boolean, detail: string): Check {
  return ok ? pass(id, title, detail) : fail(id, title, detail);
}

/** Formats milliseconds for check details. */
export function ms(value: number | undefined): string {
  return value === undefined ? 'n/a' : `${Math.round(value)} ms`;
}

/** The status the adapter surfaced, or why there is none. */
export function surfacedStatus(run: ScenarioRun): string {
  const out = run.adapter.output;
  if (!out) return `no output (${run.adapter.outputError ?? 'unknown'})`;
  return out.status === null ? `error "${out.error ?? ''}"` : `status ${out.status}`;
}

/** The attempt statuses as a compact list (`503, 503, 200`, `reset`, `abandoned`). */
export function attemptSummary(attempts: readonly AttemptRecord[]): string {
  return attempts.map((a) => (a.outcome === 'responded' ? String(a.status) : a.outcome)).join(', ') || 'none';
}

/** CLIENT-IDEMPOTENCY-KEY-PER-OPERATION: the POST of `scenario` carried a key. */
export function keyPresent(scenario: string, key: string | undefined): Check {
  const title = `${scenario}: the POST carries an Idempotency-Key the client generated`;
  return key ? pass(ID.keyPerOperation, title, `key ${JSON.stringify(key)}`) : fail(ID.keyPerOperation, title, 'the POST carried no Idempotency-Key');
}
