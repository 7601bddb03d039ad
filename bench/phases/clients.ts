/**
 * Redis client libraries side by side on the reference server's hot path: the script a GET runs
 * (the rate-limit token and the read in one EVALSHA, stores/redis/rate-limit-scripts.ts), the same
 * takes as the server sends them under load (16 in one batch script, token-takes.ts), and a plain
 * GET, each kept `concurrency` deep (the batch: 2) for `durationSeconds`, in this process. Reported per library:
 * operations per second and the CPU time this process spent per operation (user + system of every
 * thread, so a native client's own threads count too). The store adapter uses ioredis; the others
 * are loaded from `clientsDir` when installed there (`npm install --prefix DIR redis @valkey/valkey-glide`)
 * and skipped with the reason otherwise.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import { TOKEN_BUCKET_BATCH, TOKEN_BUCKET_THEN_GET } from '../../reference-impl/stores/redis/rate-limit-scripts.ts';
import type { ClientResult } from '../types.ts';

export interface ClientsOptions {
  redisUrl: string;
  keyPrefix: string;
  durationSeconds: number;
  concurrency: number;
  /** Folder whose node_modules hold `redis` and `@valkey/valkey-glide` (default: this project). */
  clientsDir: string;
  log: (line: string) => void;
}

/** One library's way to run the two operations. */
interface ClientUnderTest {
  name: string;
  version: string;
  script(sha: string, keys: string[], args: string[]): Promise<unknown>;
  get(key: string): Promise<unknown>;
  close(): Promise<void>;
}

const HUGE = ['1000000000', '1000000000'];
/** Takes per batch script in the batch measurement: about what the server batches at 16 connections. */
const BATCH = 16;

/** The version of an installed package (its package.json is found above its entry point: some packages do not export it). */
function versionOf(require: NodeJS.Require, name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === name) return manifest.version ?? '';
    } catch {
      // no package.json here
    }
    const parent = dirname(dir);
    if (parent === dir) return '';
    dir = parent;
  }
}

/**
 * ioredis as the store opens it (no auto-pipelining: stores/redis/connection.ts), or with auto-pipelining
 * (the commands of one event-loop turn in one write).
 */
async function openIoredis(url: string, autoPipelining: boolean): Promise<ClientUnderTest> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, enableAutoPipelining: autoPipelining });
  const require = createRequire(import.meta.url);
  return {
    name: autoPipelining ? 'ioredis (auto-pipelining)' : 'ioredis (as the store)',
    version: versionOf(require, 'ioredis'),
    script: (sha, keys, args) => client.evalsha(sha, keys.length, ...keys, ...args),
    get: (key) => client.get(key),
    close: async () => void client.disconnect(),
  };
}

interface NodeRedisModule {
  createClient(options: { url: string }): {
    connect(): Promise<unknown>;
    evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
    get(key: string): Promise<unknown>;
    destroy?(): void;
    disconnect?(): Promise<void>;
  };
}

async function openNodeRedis(url: string, require: NodeJS.Require): Promise<ClientUnderTest> {
  const { createClient } = require('redis') as NodeRedisModule;
  const client = createClient({ url });
  await client.connect();
  return {
    name: 'redis (node-redis)',
    version: versionOf(require, 'redis'),
    script: (sha, keys, args) => client.evalSha(sha, { keys, arguments: args }),
    get: (key) => client.get(key),
    close: async () => (client.destroy ? client.destroy() : await client.disconnect?.()),
  };
}

interface GlideModule {
  GlideClient: {
    createClient(options: { addresses: { host: string; port: number }[] }): Promise<{
      customCommand(args: string[]): Promise<unknown>;
      get(key: string): Promise<unknown>;
      close(): void;
    }>;
  };
}

async function openGlide(url: string, require: NodeJS.Require): Promise<ClientUnderTest> {
  const { GlideClient } = require('@valkey/valkey-glide') as GlideModule;
  const { hostname, port } = new URL(url);
  const client = await GlideClient.createClient({ addresses: [{ host: hostname, port: Number(port || 6379) }] });
  return {
    name: '@valkey/valkey-glide',
    version: versionOf(require, '@valkey/valkey-glide'),
    script: (sha, keys, args) => client.customCommand(['EVALSHA', sha, String(keys.length), ...keys, ...args]),
    get: (key) => client.get(key),
    close: async () => client.close(),
  };
}

/** Keeps `concurrency` operations in flight for `seconds`; returns operations done and CPU µs used. */
async function drive(
  operation: () => Promise<unknown>,
  seconds: number,
  concurrency: number,
): Promise<{ ops: number; cpuMicros: number; elapsedMs: number }> {
  let ops = 0;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await operation();
        ops += 1;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { ops, cpuMicros: cpu.user + cpu.system, elapsedMs: performance.now() - start };
}

/** Measures every installed library on the limiter-and-read script and on GET. */
export async function clientsPhase(options: ClientsOptions): Promise<ClientResult[]> {
  const require = createRequire(join(options.clientsDir, 'package.json'));
  const openers: [string, () => Promise<ClientUnderTest>][] = [
    ['ioredis (as the store)', () => openIoredis(options.redisUrl, false)],
    ['ioredis (auto-pipelining)', () => openIoredis(options.redisUrl, true)],
    ['redis (node-redis)', () => openNodeRedis(options.redisUrl, require)],
    ['@valkey/valkey-glide', () => openGlide(options.redisUrl, require)],
  ];
  const loader = new Redis(options.redisUrl);
  const bucket = `${options.keyPrefix}clients:rl:tb:{bench}`;
  const item = `${options.keyPrefix}clients:{res}:item:users:1`;
  const results: ClientResult[] = [];
  try {
    await loader.script('LOAD', TOKEN_BUCKET_THEN_GET.source);
    await loader.script('LOAD', TOKEN_BUCKET_BATCH.source);
    const batchKeys = Array.from({ length: BATCH }, () => [bucket, item]).flat();
    const batchArgs = [String(BATCH), ...Array.from({ length: BATCH }, () => ['g', ...HUGE]).flat()];
    await loader.set(item, JSON.stringify({ id: 1, name: 'bench', email: 'bench@example.com', version: 1, createdAt: new Date().toISOString() }));
    for (const [name, open] of openers) {
      let client: ClientUnderTest;
      try {
        client = await open();
      } catch (error) {
        const reason = `not measured: ${(error as Error).message.split('\n')[0] ?? ''}`;
        results.push({ client: name, version: '', skipped: reason });
        options.log(`  ${name.padEnd(22)} ${reason}`);
        continue;
      }
      try {
        const reply = (await client.script(TOKEN_BUCKET_THEN_GET.sha, [bucket, item], HUGE)) as unknown[];
        if (!Array.isArray(reply) || reply.length !== 6) throw new Error(`${name}: unexpected script reply ${JSON.stringify(reply)}`);
        const batchReply = (await client.script(TOKEN_BUCKET_BATCH.sha, batchKeys, batchArgs)) as unknown[];
        if (!Array.isArray(batchReply) || batchReply.length !== BATCH) throw new Error(`${name}: unexpected batch reply`);
        const warm = Math.min(1, options.durationSeconds / 4);
        await drive(() => client.script(TOKEN_BUCKET_THEN_GET.sha, [bucket, item], HUGE), warm, options.concurrency);
        const script = await drive(() => client.script(TOKEN_BUCKET_THEN_GET.sha, [bucket, item], HUGE), options.durationSeconds, options.concurrency);
        // The server's form (stores/redis/token-takes.ts): BATCH takes in one script, about two scripts in flight.
        const batch = await drive(() => client.script(TOKEN_BUCKET_BATCH.sha, batchKeys, batchArgs), options.durationSeconds, 2);
        const get = await drive(() => client.get(item), options.durationSeconds, options.concurrency);
        const figures = (m: { ops: number; cpuMicros: number; elapsedMs: number }, per = 1) => ({
          opsPerSecond: Math.round(((m.ops * per) / m.elapsedMs) * 1000),
          cpuMicrosPerOp: Math.round((m.cpuMicros / Math.max(1, m.ops * per)) * 10) / 10,
        });
        const result: ClientResult = {
          client: name,
          version: client.version,
          script: figures(script),
          batch: figures(batch, BATCH),
          get: figures(get),
        };
        results.push(result);
        options.log(
          `  ${`${name} ${client.version}`.padEnd(30)}` +
            ` limiter+read script ${String(result.script?.opsPerSecond).padStart(6)} ops/s ${String(result.script?.cpuMicrosPerOp).padStart(5)} µs CPU/op` +
            `   batched ${String(result.batch?.opsPerSecond).padStart(6)} takes/s ${String(result.batch?.cpuMicrosPerOp).padStart(5)} µs CPU/take` +
            `   GET ${String(result.get?.opsPerSecond).padStart(6)} ops/s ${String(result.get?.cpuMicrosPerOp).padStart(5)} µs CPU/op`,
        );
      } finally {
        await client.close();
      }
    }
  } finally {
    await loader.del(bucket, item).catch(() => undefined);
    loader.disconnect();
  }
  return results;
}
