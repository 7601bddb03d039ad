/**
 * Two reference-server processes on one Redis: a fresh key prefix on the shared
 * Redis, a configuration file with the soak tokens and plans, and a cleanup that stops both
 * processes and deletes only the soak's keys.
 */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../reference-impl/tools/redis-admin.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';

export const LOAD_TOKEN = 'soak-token-load';
/** Zero refill in practice (one token per ~3 hours): the admitted count must equal the capacity exactly. */
export const TINY_TOKEN = 'soak-token-tiny';
export const TINY_PLAN = { capacity: 40, refillPerSecond: 0.0001 };
/** A paced plan: admitted ≤ capacity + rate × elapsed. */
export const PACED_TOKEN = 'soak-token-paced';
export const PACED_PLAN = { capacity: 20, refillPerSecond: 10 };

const ALL = ['users:write', 'orders:read', 'orders:write', 'payments:read', 'payments:write', 'posts:write'];
const UNLIMITED = { capacity: 10_000_000, refillPerSecond: 10_000_000 };

export interface Cluster {
  urls: [string, string];
  prefix: string;
  stop(): Promise<{ exitCodes: (number | null)[]; keysDeleted: number }>;
}

/** Starts two `serve` processes sharing one Redis key prefix. */
export async function startCluster(redisUrl = sharedRedisUrl()): Promise<Cluster> {
  const prefix = uniqueKeyPrefix('soak');
  const configFile = join(tmpdir(), `hac-soak-${process.pid}-${Date.now()}.json`);
  await writeFile(
    configFile,
    JSON.stringify({
      plans: { unlimited: UNLIMITED, tiny: TINY_PLAN, paced: PACED_PLAN, anonymous: UNLIMITED },
      tokens: [
        { token: LOAD_TOKEN, userId: 1, permissions: ALL, plan: 'unlimited' },
        { token: TINY_TOKEN, userId: 2, permissions: ALL, plan: 'tiny' },
        { token: PACED_TOKEN, userId: 3, permissions: ALL, plan: 'paced' },
      ],
    }),
  );
  const args = ['--store', 'redis', '--redis-url', redisUrl, '--config', configFile];
  const env = { HAC_REDIS_KEY_PREFIX: prefix };
  const started: ServerProcess[] = [];
  try {
    started.push(await startServerProcess(args, env));
    started.push(await startServerProcess(args, env));
  } catch (error) {
    await Promise.all(started.map((server) => server.stop()));
    await rm(configFile, { force: true });
    await deleteKeysWithPrefix(prefix, redisUrl);
    throw error;
  }
  const [one, two] = started as [ServerProcess, ServerProcess];
  return {
    urls: [one.url, two.url],
    prefix,
    async stop() {
      const exitCodes = await Promise.all([one.stop(), two.stop()]);
      await rm(configFile, { force: true });
      return { exitCodes, keysDeleted: await deleteKeysWithPrefix(prefix, redisUrl) };
    },
  };
}
