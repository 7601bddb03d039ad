/**
 * Rate limiting of every request (spec/decisions.md D-RATE-LIMIT): one bucket per caller (the
 * known token, else the client address) with the caller's plan; RateLimit-* headers on every
 * response, 429 `rate-limited` with Retry-After when the bucket is empty. Every request takes its
 * one token before any work; a `CombinedTake` (middleware/one-round-trip.ts) may take it together
 * with the store work the request does anyway.
 */
import type { Next } from 'koa';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Identity } from '../tokens.ts';
import type { ProblemSpec } from '../problem.ts';
import { respondWithProblem } from './errors.ts';
import type { RateLimitDecision, RateLimitPolicy, Stores } from '../stores/types.ts';

/** The bucket key and policy of a caller: `token:<sha256>` for a known token, else `ip:<address>`. */
export function bucketFor(
  identity: Identity,
  address: string,
  config: Config,
): { key: string; policy: RateLimitPolicy } {
  const known = identity.kind === 'token' ? identity.principal : undefined;
  const planName = known?.plan ?? config.anonymousPlan;
  const plan = config.plans[planName] ?? { capacity: 1, refillPerSecond: 1 };
  return {
    key: known ? known.callerKey : `ip:${address}`,
    policy: { algorithm: config.rateLimit.algorithm, capacity: plan.capacity, refillPerSecond: plan.refillPerSecond },
  };
}

/** The RateLimit-* headers of a decision (draft-ietf-httpapi-ratelimit-headers-06). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/** The 429 `rate-limited` problem of a rejected decision, with Retry-After (D-RATE-LIMIT). */
export function rateLimitedProblem(decision: RateLimitDecision): ProblemSpec {
  const retryAfter = Math.max(1, decision.retryAfterSeconds);
  return {
    status: 429,
    init: {
      type: 'rate-limited',
      title: 'Too many requests',
      detail: `The rate limit of ${decision.limit} requests is exhausted; retry in ${retryAfter} s.`,
      members: { limit: decision.limit, retryAfter },
      headers: { 'Retry-After': String(retryAfter) },
    },
  };
}

/**
 * Applies a decision: the RateLimit-* headers, then, when rejected, the 429 problem (answered here,
 * without an Error, a throw and a catch: rejections must be cheap); a leaky bucket's queue delay.
 * True when the request may go on now, false when it was answered with the 429, or a promise that
 * resolves true after a leaky bucket's queue delay: the common answers need no promise and no
 * microtask of their own (D-RATE-LIMIT, CPU per request of every route).
 */
export function admit(ctx: AppContext, decision: RateLimitDecision): boolean | Promise<boolean> {
  ctx.set('RateLimit-Limit', String(decision.limit));
  ctx.set('RateLimit-Remaining', String(decision.remaining));
  ctx.set('RateLimit-Reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    respondWithProblem(ctx, rateLimitedProblem(decision));
    return false;
  }
  const { delayMs } = decision;
  if (delayMs !== undefined && delayMs > 0) return new Promise((resolve) => setTimeout(() => resolve(true), delayMs));
  return true;
}

/**
 * A way to take a request's token together with the store work the request will do anyway, in one round
 * trip (middleware/one-round-trip.ts): the promise of the request when it took the token its own way,
 * undefined when the plain take applies.
 */
export type CombinedTake = (ctx: AppContext, next: Next, key: string, policy: RateLimitPolicy) => Promise<void> | undefined;

/** Takes one token of the caller's bucket (`ctx.state.identity`, set by `identify`) before any work runs. */
export function rateLimit(config: Config, stores: Stores, combined?: CombinedTake) {
  return function rateLimitMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const address = ctx.state.identity.kind === 'token' ? '' : ctx.ip || ctx.req.socket.remoteAddress || 'unknown';
    const { key, policy } = bucketFor(ctx.state.identity, address, config);
    return combined?.(ctx, next, key, policy) ?? limited(ctx, next, key, policy);
  };

  async function limited(ctx: AppContext, next: Next, key: string, policy: RateLimitPolicy): Promise<void> {
    const answer = admit(ctx, await stores.rateLimits.take(key, policy));
    if (answer === false || (answer !== true && !(await answer))) return;
    return next();
  }
}
