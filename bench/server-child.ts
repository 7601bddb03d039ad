/**
 * Child-process entry of a server under test (forked by servers.ts with `'<spec json>'`: compiled by
 * compile.ts by default, through tsx with --from-sources), so that the load generator and the server do not share one event loop. It tells
 * the parent `{ type: 'ready', url }` over IPC, counts the Redis commands the server sends (asked
 * with `{ type: 'stats' }`, reset with `{ type: 'reset-stats' }`), answers `{ type: 'mark' }` with its monotonic clock in µs (the
 * clock of V8 CPU profiles) and the CPU time it has used, and closes and exits on
 * `{ type: 'close' }` or when the parent goes away (so `--cpu-prof` profiles are written).
 */
import { Redis } from 'ioredis';
import { startBaseline } from './baseline-server.ts';
import type { ServerSpec, StackSpec } from './servers.ts';
import { resolveConfig } from '../reference-impl/config.ts';
import { startServer } from '../reference-impl/server.ts';
import { Batcher } from '../reference-impl/stores/redis/batcher.ts';
import { connectRedis, lua } from '../reference-impl/stores/redis/connection.ts';

/**
 * The floor's round trip: one script on one key per request, as the reference's limiter takes one token,
 * and batched per event-loop turn as the reference batches its takes (stores/redis/batcher.ts): one INCR
 * per request, one script per turn.
 */
const FLOOR_SCRIPT = lua("local n = 0\nfor i = 1, #KEYS do n = redis.call('INCR', KEYS[i]) end\nreturn n");

/**
 * Starts one stack of fixtures/stacks/ after adding the bench's callers to its CALLERS (read per request
 * by every stack's auth and limiter). Imported on demand, so the other servers do not load four frameworks.
 */
async function startStack(spec: StackSpec): Promise<{ url: string; close(): Promise<void> }> {
  const { CALLERS } = await import('../fixtures/stacks/common.ts');
  for (const [token, limit] of Object.entries(spec.callers)) {
    CALLERS[token] = { userId: 1, name: 'ann', permissions: ['widgets:read', 'widgets:write'], limit };
  }
  const options = { redisUrl: spec.redisUrl, prefix: spec.prefix };
  switch (spec.stack) {
    case 'express':
      return (await import('../fixtures/stacks/express/server.ts')).start(options);
    case 'fastify':
      return (await import('../fixtures/stacks/fastify/server.ts')).start(options);
    case 'hono':
      return (await import('../fixtures/stacks/hono/server.ts')).start(options);
    case 'koa':
      return (await import('../fixtures/stacks/koa/server.ts')).start(options);
  }
}

let commands: Record<string, number> = {};
const original = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function counted(this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  const name = args[0]?.name ?? '?';
  commands[name] = (commands[name] ?? 0) + 1;
  return original.apply(this, args);
};

async function start(spec: ServerSpec): Promise<{ url: string; close(): Promise<void> }> {
  if (spec.kind === 'baseline') return startBaseline();
  if (spec.kind === 'floor') {
    const { redis, roundTrips } = spec;
    const connection = connectRedis({ url: redis.url, ...(redis.cluster ? { cluster: redis.cluster } : {}), commandTimeoutMs: 5000 });
    const key = `${redis.keyPrefix}{floor}:${process.pid}`;
    const batcher = new Batcher<string, unknown>(async (keys) => {
      const count = await connection.script(FLOOR_SCRIPT, keys, []);
      return keys.map(() => count);
    });
    const server = await startBaseline('127.0.0.1', 0, async () => {
      for (let i = 0; i < roundTrips; i++) await batcher.add(key);
    });
    return { url: server.url, close: () => server.close().finally(() => connection.close()) };
  }
  if (spec.kind === 'stack') return startStack(spec);
  const config = resolveConfig(spec.config);
  return startServer({ config, logError: () => undefined });
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ServerSpec;
const server = await start(spec);
let closing = false;
const shutdown = async (): Promise<void> => {
  if (closing) return;
  closing = true;
  await server.close().catch(() => undefined);
  process.exit(0);
};
process.on('message', (message: { type?: string }) => {
  if (message.type === 'close') void shutdown();
  else if (message.type === 'reset-stats') {
    commands = {};
    process.send?.({ type: 'reset-stats' });
  } else if (message.type === 'mark') {
    const cpu = process.cpuUsage();
    process.send?.({ type: 'mark', at: Number(process.hrtime.bigint() / 1000n), cpuMicros: cpu.user + cpu.system });
  } else if (message.type === 'stats') process.send?.({ type: 'stats', commands });
});
process.on('disconnect', () => void shutdown());
process.send?.({ type: 'ready', url: server.url });
