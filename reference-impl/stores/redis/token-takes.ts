import type { RateLimitDecision, RateLimitPolicy } from '../types.ts';
import { Batcher } from './batcher.ts';
import type { RedisConnection } from './connection.ts';
import { Denials } from './denials.ts';
import type { RedisKeys } from './keys.ts';
import { TOKEN_BUCKET, TOKEN_BUCKET_BATCH, TOKEN_BUCKET_THEN_GET } from './rate-limit-scripts.ts';
import { decisionOf } from './decision.ts';

/** What a take does after an admission, in the same script: read a resource. */
export interface Along {
  kind: 'get';
  key: string;
}

/** A take's decision and, when admitted with an `Along`, the script's sixth reply element (the read). */
export interface TokenTake {
  decision: RateLimitDecision;
  along?: unknown;
}

interface Call {
  bucket: string;
  policy: RateLimitPolicy;
  along: Along | undefined;
}

export interface TokenTakes {
  /** Takes one token from the caller's token bucket (D-RATE-LIMIT), then does `along` when admitted. */
  take(callerKey: string, policy: RateLimitPolicy, along?: Along): Promise<TokenTake>;
  /** The rejection a take would get now without asking Redis (the caller's denial window), else undefined. */
  deniedNow(callerKey: string, policy: RateLimitPolicy): RateLimitDecision | undefined;
  /** The rejections remembered (D-RATE-LIMIT, denial window). */
  readonly denials: Denials;
}

/**
 * Token-bucket takes on Redis, in as few round trips and as little work per request as the rules allow:
 * - D-RATE-LIMIT, denial window (denials.ts): a caller whose bucket is known to be empty gets its 429
 *   without a round trip;
 * - batching (batcher.ts): on one Redis, the takes of one event-loop turn go out as one script,
 *   TOKEN_BUCKET_BATCH, which runs them one after the other. On a Redis Cluster a script may only touch
 *   one slot and callers' buckets lie in different slots, so there every take is its own script.
 */
export function createTokenTakes(connection: RedisConnection, keys: RedisKeys, denials = new Denials()): TokenTakes {
  function alone({ bucket, policy, along }: Call): Promise<unknown> {
    const limits = [policy.capacity, policy.refillPerSecond];
    if (along === undefined) return connection.script(TOKEN_BUCKET, [bucket], limits);
    return connection.script(TOKEN_BUCKET_THEN_GET, [bucket, along.key], limits);
  }

  async function together(calls: Call[]): Promise<unknown[]> {
    const only = calls.length === 1 ? calls[0] : undefined;
    if (only !== undefined) return [await alone(only)];
    const scriptKeys: string[] = [];
    const args: (string | number)[] = [calls.length];
    for (const { bucket, policy, along } of calls) {
      scriptKeys.push(bucket);
      if (along === undefined) args.push('t', policy.capacity, policy.refillPerSecond);
      else {
        scriptKeys.push(along.key);
        args.push('g', policy.capacity, policy.refillPerSecond);
      }
    }
    const replies = await connection.script(TOKEN_BUCKET_BATCH, scriptKeys, args);
    if (!Array.isArray(replies)) throw new Error('unexpected reply from the rate-limit batch script');
    return replies as unknown[];
  }

  const batcher = new Batcher(together);

  return {
    denials,
    deniedNow: (callerKey, policy) => denials.decision(keys.bucket(callerKey, false), policy),
    async take(callerKey, policy, along) {
      const bucket = keys.bucket(callerKey, false);
      const denied = denials.decision(bucket, policy);
      if (denied !== undefined) return { decision: denied };
      const sentAt = denials.now();
      const call = { bucket, policy, along };
      const reply = await (connection.clustered ? alone(call) : batcher.add(call));
      const decision = decisionOf(reply, policy);
      const elements = reply as unknown[];
      denials.remember(bucket, policy, decision.allowed, Number(elements[4]), sentAt, denials.now());
      return decision.allowed && along !== undefined ? { decision, along: elements[5] } : { decision };
    },
  };
}
