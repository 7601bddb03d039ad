/** Runs `sweep` at most once per `intervalMs` of the injected clock, driven by store operations (no timers). */
export class Sweeper {
  private lastSweepMs: number;

  constructor(
    clock: () => number,
    private readonly sweep: (nowMs: number) => void,
    private readonly intervalMs = 1000,
  ) {
    this.lastSweepMs = clock();
  }

  /** Sweeps expired entries when the interval has passed since the last sweep. */
  maybeSweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < this.intervalMs && nowMs >= this.lastSweepMs) return;
    this.lastSweepMs = nowMs;
    this.sweep(nowMs);
  }
}
