/**
 * Idempotency-Key on every POST (spec/decisions.md D-IDEMPOTENCY,
 * draft-ietf-httpapi-idempotency-key-header): the key is claimed atomically before the work,
 * the result (status < 500) is stored and replayed, a different payload is 422, a request still
 * running is 409. A route that creates may record the result with its work
 * (`ctx.state.idempotency.completed`), else it is recorded here after the route.
 */
import { hash } from 'node:crypto';
import type { Next } from 'koa';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { HttpProblem, renderProblem, toHttpProblem } from '../problem.ts';
import { creationMarker, replayNamesItsWork } from '../stores/replay-check.ts';
import type { StoredResponse, Stores } from '../stores/types.ts';

const KEY_SYNTAX = /^[\x21-\x7e]{1,255}$/;

/** The fingerprint of a request: method, path and the SHA-256 of the raw body. */
export function fingerprintOf(method: string, path: string, rawBody: string): string {
  return `${method} ${path} ${hash('sha256', rawBody, 'hex')}`;
}

function storedFrom(ctx: AppContext): StoredResponse {
  const headers: Record<string, string> = {};
  const contentType = ctx.response.get('Content-Type');
  const location = ctx.response.get('Location');
  if (contentType) headers['content-type'] = contentType;
  if (location) headers.location = location;
  return { status: ctx.status, headers, body: ctx.body ?? null };
}

function replay(ctx: AppContext, stored: StoredResponse): void {
  ctx.status = stored.status;
  if (stored.body !== null && stored.body !== undefined) ctx.body = stored.body;
  const contentType = stored.headers['content-type'];
  if (contentType) ctx.type = contentType;
  if (stored.headers.location) ctx.set('Location', stored.headers.location);
  ctx.set('Idempotent-Replayed', 'true');
}

/**
 * The stored result names a resource that is gone or is no longer this request's (D-IDEMPOTENCY: a
 * replay never names work that is gone): nothing is replayed and nothing is redone.
 */
function resultGone(): HttpProblem {
  return new HttpProblem(409, {
    type: 'idempotency-result-gone',
    title: 'Idempotency result gone',
    detail:
      'The result stored for this Idempotency-Key names a resource that no longer exists as this request created it ' +
      '(it was deleted, or the store lost it); nothing was replayed or repeated. Check the resource; repeat the work with a new key.',
  });
}

/**
 * The record key of an Idempotency-Key header: the caller (its token's principal, else its IP address)
 * and the key, so one caller never receives another caller's result (IDEMPOTENCY-SCOPED-PER-CALLER).
 * A key that is not 1 to 255 printable ASCII characters, or a repeated header, is a 400
 * (IDEMPOTENCY-KEY-FORMAT).
 */
function recordKey(ctx: AppContext, header: string | string[]): string {
  if (typeof header !== 'string' || !KEY_SYNTAX.test(header)) {
    throw new HttpProblem(400, {
      type: 'invalid-idempotency-key',
      title: 'Invalid Idempotency-Key',
      detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces.',
    });
  }
  const identity = ctx.state.identity;
  const caller = identity.kind === 'token' ? identity.principal.callerKey : `ip:${ctx.ip}`;
  return `${caller}:${header}`;
}

/** The key was claimed by a request with another fingerprint (IDEMPOTENCY-KEY-REUSE-MISMATCH): 422. */
function keyReused(): HttpProblem {
  return new HttpProblem(422, {
    type: 'idempotency-key-reused',
    title: 'Idempotency-Key reused',
    detail: 'This Idempotency-Key was used with a different request; use a new key.',
    // Every 422 names what is wrong in `errors` (D-ERRORS), so one schema describes them all.
    members: { errors: [{ field: 'Idempotency-Key', message: 'was already used with a different request' }] },
  });
}

/** The request that claimed the key is still running (IDEMPOTENCY-IN-FLIGHT-409): 409 with Retry-After. */
function keyInFlight(): HttpProblem {
  return new HttpProblem(409, {
    type: 'idempotency-key-in-flight',
    title: 'Request in progress',
    detail: 'A request with this Idempotency-Key is still being processed; retry later.',
    headers: { 'Retry-After': '1' },
  });
}

/** A 4xx problem the route threw, as it is stored for replay (D-IDEMPOTENCY: 4xx results are stored). */
function storedProblem(problem: HttpProblem, path: string): StoredResponse {
  const rendered = renderProblem(problem, path);
  return { status: rendered.status, headers: { 'content-type': 'application/problem+json' }, body: rendered.body };
}

/** The idempotency middleware of a POST route (routes/kit.ts `idempotent`); runs after its access and body. */
export function idempotency(config: Config, stores: Stores) {
  const store = stores.idempotency;
  const { ttlSeconds, lockSeconds } = config.idempotency;
  return function idempotencyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const header = ctx.headers['idempotency-key'];
    if (ctx.method !== 'POST' || header === undefined) return next();
    return keyed(ctx, next, header);
  };

  /**
   * One keyed POST: claims the key, then replays a completed result, refuses a reused or in-flight
   * key, or runs the route and records its result (a 5xx frees the claim instead: IDEMPOTENCY-5XX-NOT-STORED).
   */
  async function keyed(ctx: AppContext, next: Next, header: string | string[]): Promise<void> {
    const key = recordKey(ctx, header);
    const fingerprint = fingerprintOf(ctx.method, ctx.path, ctx.state.rawBody ?? '');
    const claim = await store.claim(key, fingerprint, lockSeconds);
    if (claim.state === 'completed') {
      if (!(await replayNamesItsWork(stores.resources, creationMarker(key, fingerprint), claim.response))) throw resultGone();
      return replay(ctx, claim.response);
    }
    if (claim.state === 'mismatch') throw keyReused();
    if (claim.state === 'in-flight') throw keyInFlight();
    ctx.state.idempotencyMarker = creationMarker(key, fingerprint);
    const held = { key, fingerprint, ttlSeconds, completed: false };
    ctx.state.idempotency = held;
    try {
      await next();
    } catch (error) {
      const problem = toHttpProblem(error, config.storeUnavailableRetryAfterSeconds);
      if (problem.status >= 500) {
        if (!held.completed) await store.release(key, fingerprint).catch(() => undefined);
      } else if (!held.completed) {
        await store.complete(key, fingerprint, storedProblem(problem, ctx.path), ttlSeconds);
      }
      throw error;
    }
    if (held.completed) return;
    if (ctx.status >= 500) {
      await store.release(key, fingerprint).catch(() => undefined);
      return;
    }
    await store.complete(key, fingerprint, storedFrom(ctx), ttlSeconds);
  }
}
