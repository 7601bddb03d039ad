/**
 * One process timed: its wall time, and the user + system CPU time of its whole process tree from GNU
 * time (a figure less sensitive to machine load), with the tail of its output; killed after a bound.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = '/usr/bin/time';

export interface TimedProcess {
  wallMs: number;
  /** User + system CPU of the process tree, when GNU time is installed. */
  cpuMs?: number;
  /** null: killed at the bound, or it could not start. */
  exitCode: number | null;
  /** The last 20 000 characters of its stdout and stderr. */
  output: string;
}

function cpuMsOf(file: string): number | undefined {
  try {
    const [user, sys] = readFileSync(file, 'utf8').trim().split('\n').pop()?.split(' ').map(Number) ?? [];
    return user !== undefined && sys !== undefined && Number.isFinite(user + sys) ? Math.round((user + sys) * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `command args` in `cwd` and times it; SIGKILL after `timeoutMs`. */
export async function timeProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<TimedProcess> {
  const scratch = mkdtempSync(join(tmpdir(), 'hac-bench-time-'));
  const timeFile = join(scratch, 'time.txt');
  const useTime = existsSync(GNU_TIME);
  const started = performance.now();
  let output = '';
  const exitCode = await new Promise<number | null>((resolve) => {
    const child = spawn(useTime ? GNU_TIME : command, useTime ? ['-f', '%U %S', '-o', timeFile, command, ...args] : args, {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      output += String(error);
      clearTimeout(timer);
      resolve(null);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  const wallMs = Math.round(performance.now() - started);
  const cpuMs = useTime ? cpuMsOf(timeFile) : undefined;
  rmSync(scratch, { recursive: true, force: true });
  return { wallMs, ...(cpuMs !== undefined ? { cpuMs } : {}), exitCode, output };
}
