/**
 * The lateness a loaded machine adds to a timer, measured while the harness plays (D-CLIENT-TIMING):
 * a sentinel in the harness process arms a short timer again and again and records how late each one
 * fired. A starved process fires its timers late, never early, so a client's wait that ends at a
 * moment when the sentinel was late by L may be up to about L longer than the client asked for; a
 * wait is judged against its upper bound plus the lateness measured at its end, and not judged at all
 * when that lateness is too large (scenario-kit.ts, `boundedWait`).
 */

/** Milliseconds between two sentinel timers. */
export const SENTINEL_PERIOD_MS = 10;

/**
 * How far before a moment the sentinel is read: a client timer that fired late by L ms was due
 * L ms before the request it sent reached the harness, so the samples due in the second before
 * that arrival cover any lateness the judges can still allow (tolerance lateMs: 250 ms).
 */
export const LOOKBACK_MS = 1000;

/** Reads the lateness measured around a moment (performance.now() of the harness). */
export interface LatenessProbe {
  /** The largest lateness, in ms, of the sentinel timers due within LOOKBACK_MS before `at` (and just after it). */
  before(at: number): number;
}

/** A sentinel timer chain; `stop()` ends it. Holds one sample per period (a minute: 6,000 numbers). */
export class LatenessSentinel implements LatenessProbe {
  private readonly due: number[] = [];
  private readonly late: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(): this {
    const arm = (): void => {
      const dueAt = performance.now() + SENTINEL_PERIOD_MS;
      this.timer = setTimeout(() => {
        this.due.push(dueAt);
        this.late.push(Math.max(0, performance.now() - dueAt));
        arm();
      }, SENTINEL_PERIOD_MS);
      // The sentinel never keeps the harness process alive.
      this.timer.unref();
    };
    arm();
    return this;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  before(at: number): number {
    let worst = 0;
    // Samples are in due order: walk back from the end to the window.
    for (let i = this.due.length - 1; i >= 0; i -= 1) {
      const due = this.due[i] as number;
      if (due > at + SENTINEL_PERIOD_MS) continue;
      if (due < at - LOOKBACK_MS) break;
      worst = Math.max(worst, this.late[i] as number);
    }
    return Math.round(worst);
  }
}

/** A probe that measured no lateness: the judges then apply the calibrated tolerance alone. */
export const NO_LATENESS: LatenessProbe = { before: () => 0 };
