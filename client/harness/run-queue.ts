/**
 * The time the client under test spent waiting for a CPU, as the kernel counts it (D-CLIENT-TIMING).
 *
 * The harness's sentinel (lateness.ts) measures how late the harness's own timers fire. A client is
 * another process: on a loaded machine it can be held off the CPU far longer than the harness at the
 * same moment (the clients matrix plays about 230 adapter processes on 2 cores). Linux counts, per
 * thread, the time it was runnable but not running (`/proc/<pid>/task/<tid>/schedstat`, second
 * field, in ns). Between two moments of a wait, the most any thread of the client's process group
 * gained is the most that load can have lengthened the wait on the client's side: a timer that fired
 * on time but whose thread waited for a CPU is late by exactly that wait.
 *
 * The adapter runs in its own process group (run-adapter.ts starts it detached), so the group holds
 * the shell, the client and whatever it starts. The members are found once, at the first stamp (the
 * client has sent its first request by then), and again only when none of them is left. Where there
 * is no /proc (macOS, Windows) a stamp is undefined and nothing is added: the harness's sentinel alone
 * is read, as before.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Thread id → milliseconds that thread has waited for a CPU since it started. */
export type RunQueueStamp = Readonly<Record<string, number>>;

/** Reads the run-queue wait of every thread of one process group. */
export class ProcessGroupRunQueue {
  private members: number[] = [];

  constructor(private readonly groupId: number) {}

  /** The run-queue wait of every thread of the group now; undefined where the kernel does not tell it. */
  stamp(): RunQueueStamp | undefined {
    let stamp = this.members.length > 0 ? threadWaits(this.members) : undefined;
    if (stamp === undefined || Object.keys(stamp).length === 0) {
      this.members = groupMembers(this.groupId);
      stamp = threadWaits(this.members);
    }
    return stamp;
  }
}

/**
 * The most any thread present at both stamps waited for a CPU between them, in whole ms (0 when
 * either stamp is missing: nothing was measured, nothing is added).
 */
export function heldOffCpuMs(from: RunQueueStamp | undefined, to: RunQueueStamp | undefined): number {
  if (from === undefined || to === undefined) return 0;
  let most = 0;
  for (const [tid, waited] of Object.entries(to)) {
    const before = from[tid];
    if (before !== undefined) most = Math.max(most, waited - before);
  }
  return Math.round(most);
}

/** The pids whose process group is `groupId` (`/proc/<pid>/stat`, fifth field); none without /proc. */
function groupMembers(groupId: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readOrUndefined(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    // The command name (second field) is in parentheses and may hold spaces and parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === groupId) members.push(Number(entry));
  }
  return members;
}

/** Thread id → ms waited for a CPU, over every thread of `pids` still there; undefined without any pid to read. */
function threadWaits(pids: readonly number[]): RunQueueStamp | undefined {
  if (pids.length === 0) return undefined;
  const waits: Record<string, number> = {};
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const schedstat = readOrUndefined(`/proc/${pid}/task/${tid}/schedstat`);
      const ns = schedstat === undefined ? Number.NaN : Number(schedstat.split(' ')[1]);
      if (!Number.isFinite(ns)) continue;
      waits[tid] = ns / 1e6;
    }
  }
  return waits;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
