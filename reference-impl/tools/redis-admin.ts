/**
 * Redis housekeeping for everything that borrows the shared Redis (the tests, the bench, the
 * embedded target, the broken variants, the soak): which Redis, whether it answers, a key prefix
 * of one's own, and deleting exactly the keys under it afterwards (SCAN + UNLINK, never FLUSHDB).
 */
import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { DEFAULT_REDIS_URL, sharedRedisUrl } from '../config.ts';

export { DEFAULT_REDIS_URL, sharedRedisUrl };

/** Whether a Redis answers PING at `target` (a URL or connection options) within `timeoutMs`. */
export async function redisAnswers(target: string | RedisOptions = sharedRedisUrl(), timeoutMs = 1000): Promise<boolean> {
  const options: RedisOptions = { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: timeoutMs, retryStrategy: () => null };
  const probe = typeof target === 'string' ? new Redis(target, options) : new Redis({ ...target, ...options });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A fresh key prefix of one user of the shared Redis: `hac-<scope>:<label>:<random>:` (label optional). */
export function uniqueKeyPrefix(scope: string, label?: string): string {
  return `hac-${scope}:${label ? `${label}:` : ''}${randomBytes(6).toString('hex')}:`;
}

/**
 * Deletes every key that starts with `prefix` (an empty or wildcard prefix is refused); resolves with how many.
 * SCAN visits the whole keyspace of a shared Redis: 10,000 slots a call (about a millisecond of Redis time
 * each) keeps that to a few round trips where 1,000 took ~100 for 100,000 keys (0.1-0.6 s at every close).
 */
export async function deleteKeysWithPrefix(prefix: string, url: string = sharedRedisUrl()): Promise<number> {
  if (!prefix || /[*?[\]]/.test(prefix)) throw new Error(`refusing to delete keys for prefix "${prefix}"`);
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  admin.on('error', () => undefined);
  let deleted = 0;
  try {
    await admin.connect();
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 10_000);
      cursor = next;
      if (keys.length > 0) deleted += await admin.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
  return deleted;
}
