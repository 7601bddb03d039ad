/**
 * Runs the client under test: the adapter command, once per scenario, with the scenario in its
 * environment. The adapter prints one JSON line describing what its client surfaced.
 */
import { spawn } from 'node:child_process';

/** What the adapter says its client surfaced (the last JSON line of its stdout). */
export interface AdapterOutput {
  status: number | null;
  headers: Record<string, string>;
  problem: Record<string, unknown> | null;
  error: string | null;
  body?: unknown;
  /** The time scale the client applied to its waits and timeout, when the adapter reports it (absent: real time). */
  timeScale?: number;
}

export interface AdapterRun {
  output: AdapterOutput | null;
  /** Why `output` is null. */
  outputError: string | undefined;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** True when the harness stopped the command because it ran past its budget. */
  killed: boolean;
  stderr: string;
  durationMs: number;
}

const MAX_CAPTURE = 1024 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses the adapter's stdout: the last non-empty line that is a JSON object. */
export function parseAdapterOutput(stdout: string): { output: AdapterOutput | null; error: string | undefined } {
  const lines = stdout.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const last = lines.at(-1);
  if (last === undefined) return { output: null, error: 'the adapter printed nothing on stdout' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    return { output: null, error: `the adapter's last stdout line is not JSON: ${last.slice(0, 200)}` };
  }
  if (!isRecord(parsed)) return { output: null, error: "the adapter's last stdout line is not a JSON object" };
  const headers: Record<string, string> = {};
  if (isRecord(parsed.headers)) for (const [k, v] of Object.entries(parsed.headers)) headers[k.toLowerCase()] = String(v);
  return {
    output: {
      status: typeof parsed.status === 'number' ? parsed.status : null,
      headers,
      problem: isRecord(parsed.problem) ? parsed.problem : null,
      error: typeof parsed.error === 'string' ? parsed.error : null,
      body: parsed.body,
      ...(typeof parsed.timeScale === 'number' && parsed.timeScale > 0 ? { timeScale: parsed.timeScale } : {}),
    },
    error: undefined,
  };
}

/**
 * Runs `command` through the shell with `env` added to the environment, in a process group of its
 * own (told to `onGroup`, which run-queue.ts reads); kills the whole group when it runs longer than
 * `budgetMs`.
 */
export function runAdapter(
  command: string,
  env: Record<string, string>,
  budgetMs: number,
  cwd?: string,
  onGroup?: (groupId: number) => void,
): Promise<AdapterRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, detached: true, cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) onGroup?.(child.pid);
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_CAPTURE) stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_CAPTURE) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      killed = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, budgetMs);
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const { output, error } = parseAdapterOutput(stdout);
      resolve({
        output,
        outputError: killed ? `the adapter ran longer than its budget of ${Math.round(budgetMs)} ms and was stopped` : error,
        exitCode,
        signal,
        killed,
        stderr: stderr.slice(-4000),
        durationMs: performance.now() - started,
      });
    });
  });
}
