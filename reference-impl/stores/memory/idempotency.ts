import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../types.ts';
import { Sweeper } from './sweeper.ts';

interface IdempotencyRecord {
  state: 'in-flight' | 'completed';
  fingerprint: string;
  /** The stored response as JSON text, parsed on every replay (a fresh copy each time). */
  response?: string;
  expiresAtMs: number;
}

/**
 * In-process idempotency records (D-IDEMPOTENCY): claims expire after the lock time, results after
 * their retention time; expired records are swept. Every call runs synchronously inside one
 * promise job, so a claim is atomic within the process.
 */
export function createMemoryIdempotency(clock: () => number): IdempotencyStore {
  const records = new Map<string, IdempotencyRecord>();
  const sweeper = new Sweeper(clock, (now) => {
    for (const [key, record] of records) if (record.expiresAtMs <= now) records.delete(key);
  });

  function live(key: string, now: number): IdempotencyRecord | undefined {
    sweeper.maybeSweep(now);
    const record = records.get(key);
    if (record !== undefined && record.expiresAtMs <= now) {
      records.delete(key);
      return undefined;
    }
    return record;
  }

  return {
    async claim(key, fingerprint, lockSeconds) {
      const now = clock();
      const record = live(key, now);
      if (record === undefined) {
        records.set(key, { state: 'in-flight', fingerprint, expiresAtMs: now + lockSeconds * 1000 });
        return { state: 'claimed' };
      }
      if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (record.state === 'in-flight' || record.response === undefined) return { state: 'in-flight' };
      return { state: 'completed', response: JSON.parse(record.response) as StoredResponse } satisfies IdempotencyClaim;
    },

    async complete(key, fingerprint, response, ttlSeconds) {
      const now = clock();
      const record = live(key, now);
      const ours = record === undefined || (record.state === 'in-flight' && record.fingerprint === fingerprint);
      if (!ours) return;
      records.set(key, { state: 'completed', fingerprint, response: JSON.stringify(response), expiresAtMs: now + ttlSeconds * 1000 });
    },

    async release(key, fingerprint) {
      const record = live(key, clock());
      if (record !== undefined && record.state === 'in-flight' && record.fingerprint === fingerprint) records.delete(key);
    },
  };
}
