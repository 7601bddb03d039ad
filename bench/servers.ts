/**
 * Servers under test in child processes (bench/server-child.ts): the reference server with a
 * given configuration, or the bare Koa baseline. The load generator runs in this process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * `baseline`: bare Koa. `floor`: bare Koa that also makes `roundTrips` sequential Redis round trips per
 * request (a one-key Lua script through the reference store's own connection settings): the least a
 * server that keeps its limits in Redis can cost, the floor of the Redis cells. `reference`: the
 * reference server with a configuration.
 */
export type ServerSpec =
  | { kind: 'baseline' }
  | { kind: 'floor'; redis: { url: string; cluster?: readonly string[]; keyPrefix: string }; roundTrips: number }
  | { kind: 'reference'; config: Record<string, unknown> }
  | StackSpec;

/**
 * An idiomatic stack of fixtures/stacks/ (phases/stacks.ts) on Redis under `prefix`. The child adds the
 * bench's callers (`callers`: token → limit per 5 s window, all owned by user 1) to the stacks'
 * CALLERS before it starts the stack, so the bench can raise or set a limit without touching the fixture.
 */
export interface StackSpec {
  kind: 'stack';
  stack: 'express' | 'fastify' | 'hono' | 'koa';
  redisUrl: string;
  prefix: string;
  callers: Record<string, number>;
}

export interface BenchServer {
  url: string;
  /** Redis commands sent by the server since the last reset, by command name. */
  redisCommands(): Promise<Record<string, number>>;
  resetRedisCommands(): Promise<void>;
  /** The child's monotonic clock in µs (the time base of its CPU profile) and CPU time used in µs. */
  mark(): Promise<{ at: number; cpuMicros: number }>;
  close(): Promise<void>;
}

export interface BenchServerOptions {
  /** Write a V8 CPU profile of the child into this folder (`--cpu-prof`). */
  cpuProfDir?: string;
  /** How long to wait for the child to listen. */
  startTimeoutMs?: number;
}

/** Sends `{ type }` to the child and resolves with its reply of the same type. */
interface ChildReply {
  type?: string;
  commands?: Record<string, number>;
  at?: number;
  cpuMicros?: number;
}

function ask(child: ChildProcess, type: string): Promise<ChildReply> {
  return new Promise((answer) => {
    const onReply = (reply: ChildReply): void => {
      if (reply.type !== type) return;
      child.off('message', onReply);
      answer(reply);
    };
    child.on('message', onReply);
    child.send({ type });
  });
}

/** The child entry: the TypeScript source run through tsx, until `useCompiledEntry` names the compiled one (compile.ts). */
let entry: { path: string; execArgv: string[] } = {
  path: fileURLToPath(new URL('./server-child.ts', import.meta.url)),
  execArgv: ['--import', 'tsx'],
};

/** Every server started from now on runs `compiledPath` (plain JavaScript, no tsx). */
export function useCompiledEntry(compiledPath: string): void {
  entry = { path: compiledPath, execArgv: [] };
}

/** Forks a server under test and resolves once it listens on a free loopback port. */
export function startBenchServer(spec: ServerSpec, options: BenchServerOptions = {}): Promise<BenchServer> {
  const execArgv = [...entry.execArgv];
  if (options.cpuProfDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`);
  const child = fork(entry.path, [JSON.stringify(spec)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<BenchServer>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server under test did not start within ${options.startTimeoutMs ?? 20_000} ms`));
    }, options.startTimeoutMs ?? 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server under test exited with code ${code} before listening`));
    });
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message.type !== 'ready' || typeof message.url !== 'string') return;
      clearTimeout(timer);
      resolve({
        url: message.url,
        redisCommands: async () => (await ask(child, 'stats')).commands ?? {},
        mark: async () => {
          const reply = await ask(child, 'mark');
          return { at: reply.at ?? 0, cpuMicros: reply.cpuMicros ?? 0 };
        },
        resetRedisCommands: async () => {
          await ask(child, 'reset-stats');
        },
        async close() {
          if (child.exitCode === null && child.signalCode === null) {
            child.send({ type: 'close' });
            const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            await exited;
            clearTimeout(killer);
          }
        },
      });
    });
  });
}
