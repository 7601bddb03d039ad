/**
 * Redis housekeeping of the benchmarks: each run uses its own key prefix and deletes only the keys
 * under it afterwards (SCAN + UNLINK, never FLUSHDB).
 */
import { Redis } from 'ioredis';

/** Resolves true when Redis at `url` answers PING within `timeoutMs`. */
export async function redisReachable(url: string, timeoutMs = 1500): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Deletes every key that starts with `prefix`; resolves to the number deleted. */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<number> {
  if (!prefix || prefix.includes('*')) throw new Error(`refusing to delete keys for prefix "${prefix}"`);
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
  return deleted;
}
