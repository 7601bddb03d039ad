import { takeToken } from '../../rate-limit/token-bucket.ts';
import type { RateLimitDecision, RateLimitPolicy } from '../types.ts';

/**
 * D-RATE-LIMIT, denial window: the rejections an instance answers without asking Redis.
 *
 * A token bucket that rejects a request holds fewer than one token, and while it does nothing but
 * time adds any: every take, on any instance, needs a whole token. So the bucket stays empty for
 * exactly (1 - available) / rate seconds from the moment the script ran, whatever the other
 * instances do. Within that window this instance answers the caller's next requests with a 429 at
 * once, computing the decision from the same state with the same function as the memory store
 * (rate-limit/token-bucket.ts), so Remaining, Reset and Retry-After are the ones Redis would give.
 *
 * Both edges lean the safe way. The window starts when the script was sent (before Redis ran it) and
 * is shortened by 1 ms and by CLOCK_RATE_MARGIN for the two clocks' rates, so it never reaches past
 * the moment a token exists; after it, Redis decides again. The headers are computed from when the
 * reply arrived (after Redis ran it), so Retry-After is never shorter than the truth. A window lasts
 * at most MAX_WINDOW_MS, so keys removed from Redis by an operator count again within that time.
 */
export const MAX_WINDOW_MS = 5_000;
/** NTP slews a clock by at most 500 ppm; the window allows twice that between this clock and Redis's. */
export const CLOCK_RATE_MARGIN = 0.001;
/** At most this many callers are remembered; beyond it a rejection is simply not remembered. */
export const MAX_ENTRIES = 10_000;

interface Denial {
  /** Tokens available when Redis rejected (fewer than one). */
  tokens: number;
  /** Local clock when the reply arrived: the state's time for the headers. */
  receivedAt: number;
  /** Local clock after which the bucket may hold a token again: ask Redis. */
  until: number;
  capacity: number;
  refillPerSecond: number;
}

export class Denials {
  private readonly entries = new Map<string, Denial>();

  /** `clock`: a monotonic clock in ms (performance.now by default). */
  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** The local clock, for the `sentAt` and `receivedAt` of `remember`. */
  now(): number {
    return this.clock();
  }

  /** The rejection of a request on `bucket` when it falls inside a remembered window, else undefined (ask Redis). */
  decision(bucket: string, policy: RateLimitPolicy): RateLimitDecision | undefined {
    if (this.entries.size === 0) return undefined;
    const denial = this.entries.get(bucket);
    if (denial === undefined) return undefined;
    const now = this.clock();
    if (now >= denial.until || denial.capacity !== policy.capacity || denial.refillPerSecond !== policy.refillPerSecond) {
      this.entries.delete(bucket);
      return undefined;
    }
    const { decision } = takeToken({ tokens: denial.tokens, updatedAtMs: denial.receivedAt }, policy, now);
    return decision.allowed ? undefined : decision;
  }

  /**
   * Records what Redis answered for `bucket`: a rejection with its available tokens opens a window; an
   * admission (or a reply without the tokens) closes any window.
   */
  remember(bucket: string, policy: RateLimitPolicy, allowed: boolean, available: number, sentAt: number, receivedAt: number): void {
    if (allowed || !(available >= 0 && available < 1)) {
      this.entries.delete(bucket);
      return;
    }
    const emptyMs = ((1 - available) * 1000) / policy.refillPerSecond;
    const windowMs = Math.min(MAX_WINDOW_MS, emptyMs * (1 - CLOCK_RATE_MARGIN) - 1);
    if (!(windowMs > 0)) return;
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(bucket)) {
      this.sweep(receivedAt);
      if (this.entries.size >= MAX_ENTRIES) return;
    }
    this.entries.set(bucket, { tokens: available, receivedAt, until: sentAt + windowMs, capacity: policy.capacity, refillPerSecond: policy.refillPerSecond });
  }

  /** How many windows are remembered (tests). */
  get size(): number {
    return this.entries.size;
  }

  private sweep(now: number): void {
    for (const [bucket, denial] of this.entries) if (now >= denial.until) this.entries.delete(bucket);
  }
}
