/**
 * Types and helpers shared by the harness scenarios: what a scenario is, what a judged check is,
 * the tolerances applied to measured waits, and builders for problem documents.
 */
import { ID } from './requirements.ts';
import type { AttemptRecord, Script } from './scripted-server.ts';
import type { AdapterRun } from './run-adapter.ts';
import type { LatenessProbe } from './lateness.ts';
import { heldOffCpuMs } from './run-queue.ts';
import type { RunQueueStamp } from './run-queue.ts';

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
  /**
   * Skipped because the lateness measured at that moment was too large to judge the timing
   * (D-CLIENT-TIMING): certifyClient plays the scenario again, and reports it inconclusive, with
   * its figures, when every play was.
   */
  inconclusive?: true;
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
   * loaded machine, the next request reaching the server). Measured: client/README.md, "Judging time".
   */
  lateMs: number;
  /**
   * The harness's own event-loop delay (99th percentile) measured during the run, set by
   * certifyClient: the end of an attempt is stamped by that event loop, so a wait after it may look
   * shorter by this much (lowerBound).
   */
  harnessLagMs?: number;
}

/**
 * Measured on the shared 2-core machine: clients that wait exactly what they are told (undici's
 * un-jittered backoff, the Retry-After waits of the reference client, got and ky) arrived at most
 * 51 ms late on warm waits in a matrix run at time scale 1 (load average 21); the reference client
 * at time scale 0.25 with 8 scenarios at once arrived up to 157 ms late on warm waits (load average
 * 29). `lateMs` is 1.6 times the worst warm figure. A run's first wait also holds the cold start of
 * the client's retry path: 196 ms at time scale 1 (load 21), 613 ms at time scale 0.25 (load 37),
 * too variable to bound, so only its minimum is judged (`upperBound`). A timer never fires early,
 * so `earlyMs` is small.
 */
export const DEFAULT_TOLERANCE: Tolerance = { earlyMs: 15, lateMs: 250 };

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
  /** The timer lateness the harness measured while the scenarios played (absent: none measured). */
  lateness?: LatenessProbe;
  /** Attempts the client made on 500-always before it stopped on its own: its cap, as this certification measured it. */
  attemptCap?: number;
}

/** A jitter sample: the measured wait after attempt `attempt` of an exponential backoff, in seconds of the document minus 2^attempt. */
export interface JitterSample {
  scenario: string;
  attempt: number;
  jitterSeconds: number;
  /** The wait followed an attempt the client abandoned (its timeout): see lowerBound. */
  afterAbandoned?: boolean;
  /** The lateness measured over the wait (latenessAfter: the harness's timers at its ends, the client's wait for a CPU), in real ms. */
  lateMs: number;
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

/**
 * Smallest acceptable measurement for an expected minimum of `expectedMs`. A wait is measured from
 * the end of an attempt as the harness's 'finish' event stamps it, which the harness's own event loop
 * can run late, so the wait may look shorter by the harness's measured event-loop delay
 * (`harnessLagMs`, its 99th percentile in this run: a few ms on a quiet machine; a correct client that
 * waited RateLimit-Reset measured 44 ms short at CI load). After an attempt the client abandoned, the
 * wait is measured from when the server noticed the closed connection, which can be as late as any
 * other event on a loaded machine: then `lateMs` is allowed below too.
 */
export function lowerBound(expectedMs: number, tol: Tolerance, afterAbandoned = false): number {
  return expectedMs - (tol.earlyMs + 0.02 * expectedMs) - (tol.harnessLagMs ?? 0) - (afterAbandoned ? tol.lateMs : 0);
}

/**
 * Largest acceptable measurement for an expected maximum of `expectedMs`. The first wait of a run
 * has none (Infinity): it holds the client's cold start, which the measurement cannot separate
 * from the wait; its minimum is still judged, and the later waits carry the maximum.
 */
export function upperBound(expectedMs: number, tol: Tolerance, firstWait = false): number {
  return firstWait ? Number.POSITIVE_INFINITY : expectedMs + tol.lateMs;
}

/** How a measured wait compares with its bounds (boundedWait). */
export interface WaitJudgement {
  outcome: 'within' | 'short' | 'long' | 'inconclusive';
  /** The bounds and the lateness allowed, for the evidence. */
  bounds: string;
}

/**
 * D-CLIENT-TIMING: a measured wait against [low, high), where `lateMs` is the timer lateness the
 * harness measured at the wait's end (lateness.ts). A timer never fires early, so the lower bound is
 * strict whatever the load: a shorter wait is the client's. Above `high`, the measured lateness is
 * allowed on top: a wait it explains is within; one it does not explain is long, the client's fault.
 * When the measured lateness is larger than the calibrated tolerance itself (`tol.lateMs`), the
 * machine was too slow at that moment to tell a long wait from a late timer: any wait above `high`
 * is inconclusive, neither a pass nor a fail.
 *
 * The one way load shortens a measurement: the stamp at the wait's start (an answer's 'finish' event,
 * an arrival) runs as late as the harness's event loop at that moment, `startLateMs`. A wait short by
 * no more than that is inconclusive; a shorter one is still the client's (a correct client waiting
 * RateLimit-Reset measured 403 ms short at a stall of the harness, CI load 11, 2026-12-02).
 */
export function boundedWait(wait: number, low: number, high: number, lateMs: number, tol: Tolerance, startLateMs = 0): WaitJudgement {
  const stall = startLateMs > 0 ? `; its start stamped ${ms(startLateMs)} late` : '';
  const late = lateMs > 0 && Number.isFinite(high) ? ` + ${ms(lateMs)} of lateness measured then (harness timers, client CPU wait)` : '';
  const bounds = `measured bounds [${ms(low)}, ${ms(high)})${late}${stall}`;
  if (wait < low) return { outcome: wait >= low - startLateMs ? 'inconclusive' : 'short', bounds };
  if (wait < high) return { outcome: 'within', bounds };
  if (lateMs > tol.lateMs) return { outcome: 'inconclusive', bounds };
  return { outcome: wait < high + lateMs ? 'within' : 'long', bounds };
}

/** One end of a span the client timed: the harness's moment, and the client's run-queue wait then (run-queue.ts). */
export interface SpanEnd {
  at: number | undefined;
  client?: RunQueueStamp | undefined;
}

/** An attempt's arrival as a SpanEnd. */
export function arrivalOf(attempt: AttemptRecord | undefined): SpanEnd {
  return { at: attempt?.arrivedAt, client: attempt?.clientAtArrival };
}

/** An attempt's end as a SpanEnd. */
export function endOf(attempt: AttemptRecord | undefined): SpanEnd {
  return { at: attempt?.endedAt, client: attempt?.clientAtEnd };
}

/**
 * The lateness measured over a span the client timed, in ms: the harness's timer lateness at its
 * start (the client read an answer or sent a request and started its timer) and at its end (the
 * timer fired), plus the most any thread of the client waited for a CPU in between (run-queue.ts).
 * Each adds to the measured span; 0 when nothing was measured or the span has no end.
 */
export function latenessOver(start: SpanEnd, end: SpanEnd, ctx: JudgeContext): number {
  if (start.at === undefined || end.at === undefined) return 0;
  const harness = ctx.lateness === undefined ? 0 : ctx.lateness.at(start.at) + ctx.lateness.at(end.at);
  return harness + heldOffCpuMs(start.client, end.client);
}

/** The lateness the harness measured at one moment (0 when nothing was measured). */
export function latenessAt(moment: number | undefined, ctx: JudgeContext): number {
  return moment === undefined || ctx.lateness === undefined ? 0 : ctx.lateness.at(moment);
}

/** The lateness over the wait after attempt `k`: from its end to the arrival of attempt k + 1 (latenessOver). */
export function latenessAfter(attempts: readonly AttemptRecord[], k: number, ctx: JudgeContext): number {
  return latenessOver(endOf(attempts[k]), arrivalOf(attempts[k + 1]), ctx);
}

/** The Check for a boundedWait judgement: passed, failed, or skipped as inconclusive. */
export function waitVerdict(id: string, title: string, judged: WaitJudgement, detail: string): Check {
  if (judged.outcome === 'inconclusive') return inconclusive(id, title, `${detail}: too late a machine to judge the upper bound`);
  return verdict(id, title, judged.outcome === 'within', detail);
}

/** D-CLIENT-TIMING: not judged, because the measured lateness was too large; the detail holds the figures. */
export function inconclusive(id: string, title: string, detail: string): Check {
  return { id, title, status: 'skipped', detail: `inconclusive: ${detail}`, inconclusive: true };
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
  if (value === Number.POSITIVE_INFINITY) return '∞ (first wait: cold start)';
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
