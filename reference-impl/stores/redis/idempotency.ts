import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../types.ts';
import { lua } from './connection.ts';
import type { RedisConnection } from './connection.ts';

/** The JSON kept at `<prefix>idem:<key>`: written whole by one SET, so no half-written record is ever seen. */
interface IdempotencyRecord {
  state: 'in-flight' | 'completed';
  fingerprint: string;
  response?: StoredResponse;
}

/** KEYS[1]; ARGV = in-flight record, lock ms. Returns the existing record, or nil after claiming. */
const CLAIM = lua(`
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`);

/** KEYS[1]; ARGV = our in-flight record, completed record, ttl ms. Writes only over our claim (or a lapsed one). */
const COMPLETE = lua(`
local existing = redis.call('GET', KEYS[1])
if existing == false or existing == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`);

/** KEYS[1]; ARGV = our in-flight record. Deletes it only if it is still ours and still in flight. */
const RELEASE = lua(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

const inFlight = (fingerprint: string): string => JSON.stringify({ state: 'in-flight', fingerprint } satisfies IdempotencyRecord);
const toMs = (seconds: number): number => Math.max(1, Math.round(seconds * 1000));

/**
 * Idempotency records in Redis (D-IDEMPOTENCY): a key is claimed atomically before the work runs;
 * the completed record replaces the claim in one SET with the retention TTL; a claim expires after
 * the lock time so a crashed instance never blocks a key forever.
 */
export function createRedisIdempotency(connection: RedisConnection, keyPrefix: string): IdempotencyStore {
  const redisKey = (key: string): string => `${keyPrefix}idem:${key}`;
  return {
    async claim(key, fingerprint, lockSeconds) {
      const existing = await connection.script(CLAIM, [redisKey(key)], [inFlight(fingerprint), toMs(lockSeconds)]);
      if (existing === null || existing === undefined) return { state: 'claimed' };
      const record = JSON.parse(String(existing)) as IdempotencyRecord;
      if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (record.state !== 'completed' || record.response === undefined) return { state: 'in-flight' };
      return { state: 'completed', response: record.response } satisfies IdempotencyClaim;
    },
    async complete(key, fingerprint, response, ttlSeconds) {
      const record = JSON.stringify({ state: 'completed', fingerprint, response } satisfies IdempotencyRecord);
      await connection.script(COMPLETE, [redisKey(key)], [inFlight(fingerprint), record, toMs(ttlSeconds)]);
    },
    async release(key, fingerprint) {
      await connection.script(RELEASE, [redisKey(key)], [inFlight(fingerprint)]);
    },
  };
}
