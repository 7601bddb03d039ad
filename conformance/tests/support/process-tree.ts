/**
 * Peak resident memory of a process and all its descendants, sampled from /proc (Linux): what a CI
 * job's memory limit sees of a CLI run and the processes it starts (D-BOUNDED-RUN). Elsewhere the
 * peak stays 0 and the caller is told so (`supported`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const PAGE_BYTES = 4096;

export const supported = existsSync('/proc/self/stat');

/** pid → [parent pid, resident bytes] of every process now. */
function snapshot(): Map<number, [number, number]> {
  const processes = new Map<number, [number, number]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces), from field 3 (state) on.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      processes.set(Number(name), [Number(fields[1]), Number(fields[21]) * PAGE_BYTES]);
    } catch {
      // the process ended between the listing and the read
    }
  }
  return processes;
}

/** Samples the process trees of the tracked roots every `intervalMs` and keeps each one's peak. */
export class TreeMemorySampler {
  private readonly peaks = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 200) {
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  track(pid: number): void {
    this.peaks.set(pid, 0);
    this.sample();
  }

  /** The highest sum of resident memory of `pid` and its descendants seen so far, in bytes. */
  peak(pid: number): number {
    return this.peaks.get(pid) ?? 0;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    if (!supported || this.peaks.size === 0) return;
    const processes = snapshot();
    const children = new Map<number, number[]>();
    for (const [pid, [parent]] of processes) children.set(parent, [...(children.get(parent) ?? []), pid]);
    for (const [root, peak] of this.peaks) {
      let total = 0;
      const queue = [root];
      while (queue.length > 0) {
        const pid = queue.pop() as number;
        total += processes.get(pid)?.[1] ?? 0;
        queue.push(...(children.get(pid) ?? []));
      }
      if (total > peak) this.peaks.set(root, total);
    }
  }
}
