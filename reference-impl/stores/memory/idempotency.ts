import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../types.ts';
import { flat } from './flat.ts';
import { Sweeper } from './sweeper.ts';

interface IdempotencyRecord {
  state: 'in-flight' | 'completed';
  fingerprint: string;
  /** The stored response as JSON text, parsed on every replay (a fresh copy each time). */
  response?: string;
  expiresAtMs: number;
}

const CLAIMED: IdempotencyClaim = Object.freeze({ state: 'claimed' });
const IN_FLIGHT: IdempotencyClaim = Object.freeze({ state: 'in-flight' });
const MISMATCH: IdempotencyClaim = Object.freeze({ state: 'mismatch' });

/**
 * In-process idempotency records (D-IDEMPOTENCY): claims expire after the lock time, results after
 * their retention time; expired records are swept. Every call runs synchronously inside one
 * promise job, so a claim is atomic within the process.
 */
export function createMemoryIdempotency(clock: () => number): IdempotencyStore {
  const records = new Map<string, IdempotencyRecord>();
  // A Map iterates in insertion order, which is claim order, and records expire in about that order
  // (one lock time, then one retention time counted from completion): the sweep removes the expired
  // records at the front and stops at the first live one, instead of visiting every record kept for
  // 24 hours once a second (a cache miss each; the work grew with the number of records). A record
  // that expires before one ahead of it (a claim left in flight) is removed when the sweep reaches it;
  // until then `live` treats it as absent, so what callers see is the same.
  const sweeper = new Sweeper(clock, (now) => {
    for (const [key, record] of records) {
      if (record.expiresAtMs > now) break;
      records.delete(key);
    }
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

  function claimNow(key: string, fingerprint: string, lockSeconds: number): IdempotencyClaim {
    const now = clock();
    const record = live(key, now);
    if (record === undefined) {
      records.set(key, { state: 'in-flight', fingerprint: flat(fingerprint), response: undefined, expiresAtMs: now + lockSeconds * 1000 });
      return CLAIMED;
    }
    if (record.fingerprint !== fingerprint) return MISMATCH;
    if (record.state === 'in-flight' || record.response === undefined) return IN_FLIGHT;
    return { state: 'completed', response: JSON.parse(record.response) as StoredResponse };
  }

  function completeNow(key: string, fingerprint: string, response: StoredResponse, ttlSeconds: number): void {
    const now = clock();
    const record = live(key, now);
    if (record === undefined) {
      records.set(key, { state: 'completed', fingerprint: flat(fingerprint), response: flat(JSON.stringify(response)), expiresAtMs: now + ttlSeconds * 1000 });
    } else if (record.state === 'in-flight' && record.fingerprint === fingerprint) {
      // Our own claim becomes the result in place (one record object per key, not two).
      record.state = 'completed';
      record.response = flat(JSON.stringify(response));
      record.expiresAtMs = now + ttlSeconds * 1000;
    }
  }

  return {
    async claim(key, fingerprint, lockSeconds) {
      return claimNow(key, fingerprint, lockSeconds);
    },
    async complete(key, fingerprint, response, ttlSeconds) {
      completeNow(key, fingerprint, response, ttlSeconds);
    },
    async release(key, fingerprint) {
      const record = live(key, clock());
      if (record !== undefined && record.state === 'in-flight' && record.fingerprint === fingerprint) records.delete(key);
    },
  };
}
