/**
 * Rate limiting of every request (spec/decisions.md D-RATE-LIMIT): one bucket per caller (the
 * known token, else the client address) with the caller's plan; RateLimit-* headers on every
 * response, 429 `rate-limited` with Retry-After when the bucket is empty.
 */
import type { Next } from 'koa';
import type { Config } from '../config.ts';
import type { AppContext, Identity } from '../context.ts';
import type { ProblemSpec } from '../problem.ts';
import { respondWithProblem } from './errors.ts';
import { duplicatedSingleton } from './head.ts';
import type { RateLimitDecision, RateLimitPolicy, RateLimitStore } from '../stores/types.ts';
import type { TokenRegistry } from '../tokens.ts';

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

/** Identifies the caller (`ctx.state.identity`) and takes one token before anything else runs. */
export function rateLimit(config: Config, tokens: TokenRegistry, store: RateLimitStore) {
  return async function rateLimitMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const authorization = ctx.req.headers.authorization;
    ctx.state.identity =
      authorization !== undefined && duplicatedSingleton(ctx.req) === 'authorization' ? { kind: 'invalid' } : tokens.identify(authorization);
    const address = ctx.state.identity.kind === 'token' ? '' : ctx.ip || ctx.req.socket.remoteAddress || 'unknown';
    const { key, policy } = bucketFor(ctx.state.identity, address, config);
    const decision = await store.take(key, policy);
    const res = ctx.res;
    if (!res.headersSent) {
      res.setHeader('RateLimit-Limit', String(decision.limit));
      res.setHeader('RateLimit-Remaining', String(decision.remaining));
      res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    }
    // A rejection is answered here, without an Error, a throw and a catch: rejections must be cheap (bench/README.md).
    if (!decision.allowed) return respondWithProblem(ctx, rateLimitedProblem(decision));
    if (decision.delayMs !== undefined && decision.delayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, decision.delayMs));
    }
    return next();
  };
}
