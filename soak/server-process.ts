/**
 * The reference server as a child process (`http-api-conformance serve`), for restart tests
 * and the soak: started on port 0, its URL read from the line it prints, stopped with
 * SIGTERM and awaited.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/http-api-conformance.js', import.meta.url));

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`); resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Starts `serve --port 0` with `args` and `env`; rejects when no URL is printed within `startMs`. */
export function startServerProcess(args: string[], env: Record<string, string>, startMs = 30_000): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
      env: { ...process.env, NODE_ENV: 'development', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let started = false;
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${startMs} ms:\n${output}`));
    }, startMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] && !started) {
        started = true;
        clearTimeout(timer);
        const url = match[1];
        resolve({
          url,
          port: Number(new URL(url).port),
          pid: child.pid ?? 0,
          output: () => output,
          async stop(graceMs = 10_000) {
            if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
            child.kill('SIGTERM');
            const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
            const code = await exited;
            clearTimeout(killer);
            return code;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      if (!started) {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code} before listening:\n${output}`));
      }
    });
  });
}
