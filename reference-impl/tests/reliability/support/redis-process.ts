/**
 * A private `redis-server` for outage tests: started on a free loopback port
 * (without persistence, or with an fsynced append-only file), stopped by SIGKILL (a crash) and
 * restarted on the same port, or paused with CLIENT PAUSE (unavailable, data kept).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { redisAnswers } from '../../../tools/redis-admin.ts';
import { Redis } from 'ioredis';

/** A free TCP port on 127.0.0.1 (bound and released; the small race is acceptable on loopback). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface RedisProcess {
  port: number;
  url: string;
  /** Starts (or restarts) the server on `port`; resolves when it answers PING. */
  start(): Promise<void>;
  /** Kills the process (SIGKILL: no goodbye to clients) and waits for its exit. */
  kill(): Promise<void>;
  /** Pauses every client command for `ms` milliseconds (CLIENT PAUSE ALL): data is kept. */
  pause(ms: number): Promise<void>;
  /** A short-lived admin connection for assertions. */
  admin(): Redis;
  /** Stops the server for good. */
  stop(): Promise<void>;
}

/**
 * Prepares a private Redis on a free port; call `start()`. With `aofDir`, every write is fsynced
 * to an append-only file there (`appendfsync always`), so a killed server restarts with its data.
 */
export async function privateRedis(options: { aofDir?: string } = {}): Promise<RedisProcess> {
  const port = await freePort();
  const persistence = options.aofDir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.aofDir];
  let child: ChildProcess | undefined;

  const waitExit = (proc: ChildProcess): Promise<void> =>
    proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve()));

  const admin = (): Redis => {
    const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, connectTimeout: 1000 });
    client.on('error', () => undefined);
    return client;
  };

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    admin,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'yes'], {
        stdio: 'ignore',
      });
      const deadline = performance.now() + 10_000;
      while (performance.now() < deadline) {
        if (await redisAnswers({ host: '127.0.0.1', port }, 300)) return;
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} on port ${port}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`redis-server did not answer on port ${port} within 10 s`);
    },
    async kill() {
      if (!child) return;
      const proc = child;
      proc.kill('SIGKILL');
      await waitExit(proc);
    },
    async pause(ms) {
      const connection = admin();
      try {
        await connection.call('CLIENT', 'PAUSE', String(ms), 'ALL');
      } finally {
        connection.disconnect();
      }
    },
    async stop() {
      if (!child) return;
      const proc = child;
      child = undefined;
      proc.kill('SIGKILL');
      await waitExit(proc);
    },
  };
}
