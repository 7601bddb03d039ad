/**
 * The one-round-trip fast path (D-RATE-LIMIT: every request takes its token before any work): a
 * request's rate-limit token is taken in the same store round trip as the first store work the
 * request does anyway (stores/sequences.ts, one Lua script on Redis):
 * - a GET or HEAD of an item (`/users/{id}`, `/orders/{id}`, …) takes the token and reads the item
 *   (`takeAndGet`); the route's handler then finds it with `itemReadAlong` instead of reading again;
 * - a keyed POST takes the token with its Idempotency-Key claim (`takeAndClaim`, in the idempotency
 *   middleware through `claimWithToken`). A keyed POST that ends before its claim (401, 404, 415, …:
 *   nothing was done) takes its token afterwards, and a rejection replaces the answer with the 429
 *   that rate limiting first would have given.
 *
 * Everything else takes its token on its own (middleware/rate-limit.ts). Without this module the
 * server answers the same; it makes one more store round trip per item GET and keyed POST.
 * Measured gain (bench/README.md "One round trip", Redis, compiled server): see the figures there.
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import type { RouteTable } from '../route-table.ts';
import type { ClaimAlong, IdempotencyClaim, RateLimitPolicy, ResourceKind, StoredResource, Stores } from '../stores/types.ts';
import { admit, type CombinedTake } from './rate-limit.ts';

/** What a request carries between the rate limiter and the route that finishes its take. */
interface Pending {
  /** The item read with the token (GET and HEAD of an item). */
  item?: { kind: ResourceKind; id: number; resource: StoredResource | undefined };
  /** A keyed POST's token, taken with its claim or, when no claim is made, after the request; `taken` once it is. */
  take?: { key: string; policy: RateLimitPolicy; taken: boolean };
}

const pendingOf = new WeakMap<AppContext, Pending>();

/** The kinds with a GET item route `/<kind>/{id}` in `table` (each a resource kind of the stores, D-PATHS). */
function itemKinds(table: RouteTable): Set<string> {
  const kinds = new Set<string>();
  for (const route of table.routes) {
    const kind = /^\/([a-z]+)\/\{id\}$/.exec(route.pattern)?.[1];
    if (kind !== undefined && route.methods.GET !== undefined) kinds.add(kind);
  }
  return kinds;
}

/** The kind and id of a GET of an item (`/users/42`), else undefined. */
function itemOf(path: string, kinds: Set<string>): { kind: ResourceKind; id: number } | undefined {
  const slash = path.indexOf('/', 1);
  if (slash < 0 || path.indexOf('/', slash + 1) >= 0) return undefined;
  const kind = path.slice(1, slash);
  const id = path.slice(slash + 1);
  if (!kinds.has(kind) || !/^[1-9][0-9]{0,15}$/.test(id)) return undefined;
  return { kind: kind as ResourceKind, id: Number(id) };
}

/** The rate limiter's combined take for the item GETs of `table` and every keyed POST. */
export function oneRoundTrip(table: RouteTable, stores: Stores): CombinedTake {
  const kinds = itemKinds(table);
  return function combinedTake(ctx, next, key, policy) {
    if (ctx.method === 'POST' && ctx.req.headers['idempotency-key'] !== undefined) return deferred(ctx, next, key, policy);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return undefined;
    const item = itemOf(ctx.path, kinds);
    return item === undefined ? undefined : readAlong(ctx, next, key, policy, item);
  };

  async function readAlong(ctx: AppContext, next: Next, key: string, policy: RateLimitPolicy, item: { kind: ResourceKind; id: number }): Promise<void> {
    const { decision, resource } = await stores.takeAndGet(key, policy, item);
    pendingOf.set(ctx, { item: { ...item, resource } });
    const answer = admit(ctx, decision);
    if (answer === false || (answer !== true && !(await answer))) return;
    return next();
  }

  async function deferred(ctx: AppContext, next: Next, key: string, policy: RateLimitPolicy): Promise<void> {
    const take = { key, policy, taken: false };
    pendingOf.set(ctx, { take });
    try {
      await next();
    } catch (error) {
      if (!take.taken) {
        take.taken = true;
        const answer = admit(ctx, await stores.rateLimits.take(key, policy));
        if (answer === false || (answer !== true && !(await answer))) return;
      }
      throw error;
    }
    if (!take.taken) {
      take.taken = true;
      await admit(ctx, await stores.rateLimits.take(key, policy));
    }
  }
}

/** The item the rate limiter read with the token when it is this one (`kind`, `id`); undefined to read it from the store. */
export function itemReadAlong(ctx: AppContext, kind: ResourceKind, id: number): { resource: StoredResource | undefined } | undefined {
  const item = pendingOf.get(ctx)?.item;
  return item !== undefined && item.kind === kind && item.id === id ? item : undefined;
}

/**
 * The Idempotency-Key claim of a keyed POST, with the request's token when the rate limiter left it
 * to the claim; undefined when the token was refused (the 429 is answered).
 */
export async function claimWithToken(ctx: AppContext, stores: Stores, claim: ClaimAlong): Promise<IdempotencyClaim | undefined> {
  const take = pendingOf.get(ctx)?.take;
  if (take === undefined || take.taken) return stores.idempotency.claim(claim.key, claim.fingerprint, claim.lockSeconds);
  take.taken = true;
  const taken = await stores.takeAndClaim(take.key, take.policy, claim);
  const answer = admit(ctx, taken.decision);
  if (answer === false || (answer !== true && !(await answer))) return undefined;
  return taken.claim;
}
