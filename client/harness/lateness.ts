/**
 * The lateness a loaded machine adds to a timer, measured while the harness plays (D-CLIENT-TIMING):
 * a sentinel in the harness process arms a short timer again and again and records how late each one
 * fired. A starved process fires its timers late, never early, so a client's wait whose ends fell at
 * moments when the sentinel was late may be up to about that much longer than the client asked for
 * (the client starts its timer once it has read the answer, and the timer fires late): a wait is
 * judged against its upper bound plus the lateness measured at its two ends, and not judged at all
 * when that lateness is too large (scenario-kit.ts, `boundedWait`).
 */

/** Milliseconds between two sentinel timers. */
export const SENTINEL_PERIOD_MS = 10;

/**
 * How close to a moment a sentinel timer's lateness counts for it: a timer that was due at `due` and
 * fired at `due + late` shows that the machine was that late at every moment in between, so a moment
 * is as late as the latest timer whose span comes within NEAR_MS of it (two periods: the sentinel
 * always has a timer pending, so any stall at that moment is in one of them).
 */
export const NEAR_MS = 2 * SENTINEL_PERIOD_MS;

/** Reads the lateness measured around a moment (performance.now() of the harness). */
export interface LatenessProbe {
  /** The largest lateness, in ms, of the sentinel timers pending within NEAR_MS of `moment`. */
  at(moment: number): number;
}

/** A sentinel timer chain; `stop()` ends it. Holds one sample per period (a minute: 6,000 pairs of numbers). */
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

  at(moment: number): number {
    let worst = 0;
    // Samples are in due order, and a timer is armed when the previous one fires: a span that ends
    // within NEAR_MS of the moment is among the last ones due before it.
    for (let i = this.due.length - 1; i >= 0; i -= 1) {
      const due = this.due[i] as number;
      const late = this.late[i] as number;
      if (due > moment + NEAR_MS) continue;
      if (due + late < moment - NEAR_MS) break;
      worst = Math.max(worst, late);
    }
    return Math.round(worst);
  }
}
