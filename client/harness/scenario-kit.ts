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

/** Measured-time tolerances in real milliseconds (see client/README.md, "Judging time"). */
export interface Tolerance {
  /** Allowed shortfall below a minimum wait: `lowMs` + 2 % of the expected wait. */
  lowMs: number;
  /** Allowed excess above a maximum wait: `highMs` + `relative` × the expected wait. */
  highMs: number;
  relative: number;
}

export const DEFAULT_TOLERANCE: Tolerance = { lowMs: 15, highMs: 200, relative: 0.03 };

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
  /** Bounds of the first wait in seconds of the document, used to detect a client that ignores the time scale. */
  firstWaitSeconds?: [number, number];
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
  return expectedMs - (tol.lowMs + 0.02 * expectedMs);
}

/** Largest acceptable measurement for an expected maximum of `expectedMs`. */
export function upperBound(expectedMs: number, tol: Tolerance): number {
  return expectedMs + tol.highMs + tol.relative * expectedMs;
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
