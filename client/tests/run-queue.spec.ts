import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffOf, jitterChecks } from '../harness/backoff.ts';
import { heldOffCpuMs, ProcessGroupRunQueue } from '../harness/run-queue.ts';
import type { RunQueueStamp } from '../harness/run-queue.ts';
import { DEFAULT_TOLERANCE } from '../harness/scenario-kit.ts';
import type { ScenarioRun } from '../harness/scenario-kit.ts';
import type { AttemptRecord } from '../harness/scripted-server.ts';

/** Starts `command` in a process group of its own, as run-adapter.ts starts an adapter; returns its group id and a stop. */
function group(command: string): { id: number; stop: () => void } {
  const child = spawn(command, { shell: true, detached: true, stdio: 'ignore' });
  const id = child.pid as number;
  return {
    id,
    stop: () => {
      try {
        process.kill(-id, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

test.describe('the client process group\'s wait for a CPU (D-CLIENT-TIMING)', () => {
  test.skip(!existsSync('/proc/self/task'), 'the kernel tells run-queue waits through /proc (Linux) only');

  test('two busy processes of the group pinned to one CPU each wait for it; a sleeping group waits for none', async () => {
    const busy = 'let e = Date.now() + 3000; while (Date.now() < e);';
    const contended = group(`taskset -c 0 node -e '${busy}' & taskset -c 0 node -e '${busy}' & wait`);
    const idle = group('sleep 3');
    try {
      await sleep(400);
      const runQueue = new ProcessGroupRunQueue(contended.id);
      const quiet = new ProcessGroupRunQueue(idle.id);
      const [from, quietFrom] = [runQueue.stamp(), quiet.stamp()];
      await sleep(800);
      const [to, quietTo] = [runQueue.stamp(), quiet.stamp()];
      // Each of two busy loops sharing one CPU waits about half of the 800 ms.
      expect(heldOffCpuMs(from, to)).toBeGreaterThan(200);
      expect(Object.keys(to ?? {}).length, 'threads of the shell and both node processes').toBeGreaterThan(2);
      // A process that sleeps is never runnable, whatever the load of the machine.
      expect(heldOffCpuMs(quietFrom, quietTo)).toBeLessThan(20);
    } finally {
      contended.stop();
      idle.stop();
    }
  });
});

test.describe('the client\'s wait for a CPU widens the judged upper bound, as the harness\'s own lateness does', () => {
  const ctx = { msPerSecond: 1000, tolerance: DEFAULT_TOLERANCE, token: 't', lateness: { at: () => 35 } };
  /**
   * Three attempts of a backoff: a first wait of 1.49 s, then one of 2 s + 1.44 s of jitter, during
   * which the client's busiest thread waited `heldMs` for a CPU (undefined: not measured); the
   * harness's sentinel measured 35 ms at each end.
   */
  const run = (heldMs: number | undefined): ScenarioRun => {
    const stamp = (ms: number): RunQueueStamp | undefined => (heldMs === undefined ? undefined : { '4242': ms, '4243': 0 });
    const attempt = (index: number, arrivedAt: number, endedAt: number, held: number): AttemptRecord => ({
      index, method: 'GET', path: '/', headers: {}, body: '', arrivedAt, wallClockAt: 0, endedAt, outcome: 'responded', status: 503, notes: {},
      ...(heldMs === undefined ? {} : { clientAtArrival: stamp(held), clientAtEnd: stamp(held) }),
    });
    return {
      scenario: '503-always',
      attempts: [attempt(0, 0, 10, 0), attempt(1, 1_500, 1_510, 0), attempt(2, 1_510 + 3_440, 4_960, heldMs ?? 0)],
      adapter: { output: null, outputError: undefined, exitCode: 0, signal: null, killed: false, stderr: '', durationMs: 5_000 },
    };
  };

  test('a jitter of 1.44 s is the client\'s fault when nothing explains it, within bounds when the client waited 150 ms for a CPU, ' +
    'and no verdict when it waited longer than the tolerance', () => {
    const range = (heldMs: number | undefined) => jitterChecks(backoffOf(run(heldMs), ctx).jitter, ctx)[0];
    expect(range(undefined)?.status).toBe('failed');
    expect(range(0)?.status).toBe('failed');
    expect(range(150)?.status, range(150)?.detail).toBe('passed');
    const starved = range(DEFAULT_TOLERANCE.lateMs + 50);
    expect([starved?.status, starved?.inconclusive]).toEqual(['skipped', true]);
    expect(starved?.detail).toContain(`(${DEFAULT_TOLERANCE.lateMs + 50 + 70} ms late)`);
  });

  test('threads that came or went between the stamps add nothing; the most any thread waited counts, not their sum', () => {
    expect(heldOffCpuMs({ '1': 10, '2': 5 }, { '1': 40, '2': 65, '3': 900 })).toBe(60);
    expect(heldOffCpuMs(undefined, { '1': 40 })).toBe(0);
    expect(heldOffCpuMs({ '9': 40 }, {})).toBe(0);
  });
});
