/**
 * Limits how many adapter processes start at the same time. A process that is starting (loading
 * Node and its HTTP library) costs CPU; one that waits between attempts costs nothing. Scenarios
 * run concurrently, but only `limit` at once may be starting, so the CPU burst of many starts does
 * not delay the timers of clients already waiting (their waits are what the harness measures).
 * Waiting scenarios start longest budget first, so the run ends as early as it can.
 */
export class StartGate {
  private starting = 0;
  private readonly queue: { priority: number; go: () => void }[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves when the caller may start; call the returned release once its start is over (the first request arrived, or the process ended). */
  async acquire(priority: number): Promise<() => void> {
    if (this.starting < this.limit) {
      this.starting += 1;
    } else {
      // The slot of a finished start is handed over directly (see release), so `starting` stays.
      await new Promise<void>((go) => {
        this.queue.push({ priority, go });
        this.queue.sort((a, b) => b.priority - a.priority);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next.go();
      else this.starting -= 1;
    };
  }
}
