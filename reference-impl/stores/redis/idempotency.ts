import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../types.ts';
import { lua } from './connection.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { ReplicaWaitError } from './replica-waits.ts';

/** The JSON kept at the record key (keys.ts): written whole by one SET, so no half-written record is ever seen. */
export interface IdempotencyRecord {
  state: 'in-flight' | 'completed';
  fingerprint: string;
  response?: StoredResponse;
}

/**
 * KEYS[1]; ARGV = in-flight record, lock ms. Returns the existing record, or nil after claiming. A
 * completed record is rewritten as it is (same value, same expiry): a write, so the WAIT that follows
 * a replay confirms the record even when another connection wrote it (D-STORE-DURABILITY).
 */
const CLAIM = lua(`
local existing = redis.call('GET', KEYS[1])
if existing then
  if string.find(existing, '"state":"completed"', 1, true) then redis.call('SET', KEYS[1], existing, 'KEEPTTL') end
  return existing
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`);

/** KEYS[1]; ARGV = our in-flight record, completed record, ttl ms. Writes only over our claim (or a lapsed one). */
export const COMPLETE = lua(`
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

/** The record of a claim in flight (compared whole by COMPLETE and RELEASE). */
export const inFlight = (fingerprint: string): string => JSON.stringify({ state: 'in-flight', fingerprint } satisfies IdempotencyRecord);
/** The record of a finished request. */
export const completedRecord = (fingerprint: string, response: StoredResponse): string =>
  JSON.stringify({ state: 'completed', fingerprint, response } satisfies IdempotencyRecord);
export const toMs = (seconds: number): number => Math.max(1, Math.round(seconds * 1000));

/** What an existing record (the claim script's reply) means for a request with `fingerprint`; null or '' means claimed. */
function claimOf(existing: unknown, fingerprint: string): IdempotencyClaim {
  if (existing === null || existing === undefined || existing === '') return { state: 'claimed' };
  const record = JSON.parse(String(existing)) as IdempotencyRecord;
  if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (record.state !== 'completed' || record.response === undefined) return { state: 'in-flight' };
  return { state: 'completed', response: record.response };
}

/**
 * Idempotency records in Redis (D-IDEMPOTENCY): a key is claimed atomically before the work runs;
 * the completed record replaces the claim in one SET with the retention TTL; a claim expires after
 * the lock time so a crashed instance never blocks a key forever.
 */
export function createRedisIdempotency(connection: RedisConnection, keys: RedisKeys): IdempotencyStore {
  const redisKey = keys.idempotency;
  return {
    async claim(key, fingerprint, lockSeconds) {
      try {
        return claimOf(await connection.script(CLAIM, [redisKey(key)], [inFlight(fingerprint), toMs(lockSeconds)]), fingerprint);
      } catch (error) {
        // D-STORE-DURABILITY: the claim may have been made, and the answer is a 503: free it, so the
        // retry runs the work instead of waiting out the lock (RELEASE removes only a claim in flight).
        if (error instanceof ReplicaWaitError) await connection.script(RELEASE, [redisKey(key)], [inFlight(fingerprint)]).catch(() => undefined);
        throw error;
      }
    },
    async complete(key, fingerprint, response, ttlSeconds) {
      await connection.script(COMPLETE, [redisKey(key)], [inFlight(fingerprint), completedRecord(fingerprint, response), toMs(ttlSeconds)]);
    },
    async release(key, fingerprint) {
      await connection.script(RELEASE, [redisKey(key)], [inFlight(fingerprint)]);
    },
  };
}
