/**
 * Key hygiene on the shared Redis at 127.0.0.1:6379: each test takes its own prefix and deletes
 * only its own keys afterwards (SCAN, never FLUSHDB).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `hac-test:<random>:<label>:` */
export function testPrefix(label: string): string {
  return `hac-test:${randomBytes(6).toString('hex')}:${label}:`;
}

/** Deletes every key under `prefix`; resolves with how many were deleted. */
export async function deletePrefix(prefix: string, url = SHARED_REDIS_URL): Promise<number> {
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  admin.on('error', () => undefined);
  let deleted = 0;
  try {
    await admin.connect();
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) deleted += await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    admin.disconnect();
  }
  return deleted;
}
