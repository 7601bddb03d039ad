/**
 * D-BOUNDED-RUN: one deadline over every phase of `run` (embedded server start, probe, feature
 * check, suite). A phase that outlives it rejects with DeadlinePassed, naming the phase and the
 * requests of this process that had not finished.
 */

/** `ms` as the console and results.json write a duration: `12.3 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Phases before the suite: the target has given no usable answer yet when one of them runs out of time. */
const BEFORE_SUITE = new Set(['embedded server start', 'probe', 'feature check']);

/** The run deadline passed while `phase` was running; the message names the phase and what did not finish. */
export class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
  constructor(
    readonly phase: string,
    message: string,
  ) {
    super(message);
  }

  /** True when the target never gave a usable answer (exit 2); false during the suite (an incomplete run, exit 1). */
  get beforeSuite(): boolean {
    return BEFORE_SUITE.has(this.phase);
  }
}

export interface RunDeadline {
  /** `work`, or a rejection with DeadlinePassed when the deadline passes first; `phase` names it. */
  within<T>(phase: string, work: Promise<T>): Promise<T>;
  clear(): void;
}

/** The deadline `deadlineMs` from now. */
export function runDeadline(deadlineMs: number): RunDeadline {
  let phase = 'start';
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      void import('../../conformance/transport/http.ts').then(({ unfinishedRequests }) => {
        const unfinished = unfinishedRequests();
        const what =
          unfinished.length > 0
            ? `; unfinished: ${unfinished.join('; ')}`
            : phase === 'suite'
              ? '; the suite did not end (its tests name their unfinished requests in results.json)'
              : '';
        reject(new DeadlinePassed(phase, `the run deadline of ${seconds(deadlineMs)} (--deadline) passed during the ${phase}${what}`));
      });
    }, deadlineMs);
    timer.unref();
  });
  expired.catch(() => undefined);
  return {
    within: <T>(name: string, work: Promise<T>): Promise<T> => {
      phase = name;
      return Promise.race([work, expired]);
    },
    clear: () => clearTimeout(timer),
  };
}

/** The message of a suite cut short by its global timeout, the run deadline's share of it. */
export function suiteCutMessage(deadlineSeconds: number): string {
  return `the run deadline of ${seconds(deadlineSeconds * 1000)} (--deadline) passed during the suite: the run is incomplete`;
}
