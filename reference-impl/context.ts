/**
 * What the middleware chain of the reference server shares through `ctx.state`, and the
 * dependencies every route module receives.
 */
import type { ParameterizedContext } from 'koa';
import type { Config } from './config.ts';
import type { RouteMatch } from './route-table.ts';
import type { RateLimitPolicy, ResourceKind, StoredResource, Stores } from './stores/types.ts';
import type { Identity, Principal, TokenRegistry } from './tokens.ts';

export interface AppState {
  identity: Identity;
  route?: RouteMatch;
  /** The raw request body (POST/PUT) as @koa/bodyparser read it, for the idempotency fingerprint. */
  rawBody?: string;
  /** The parsed JSON body; undefined when none was sent. */
  body?: unknown;
  /**
   * Set while this request holds an Idempotency-Key claim: `<scoped key> <fingerprint>`. Resources
   * created by the request carry it, so a retry whose result was never recorded finds them.
   */
  idempotencyMarker?: string;
  /** The resource the route reads, fetched with the rate-limit token (middleware/rate-limit.ts). */
  readAlong?: { kind: ResourceKind; id: number; resource: StoredResource | undefined };
  /**
   * A keyed POST's rate-limit token, taken with its Idempotency-Key claim (middleware/idempotency.ts)
   * or, when no claim is made, after the request (middleware/rate-limit.ts); `taken` once it is.
   */
  deferredTake?: { key: string; policy: RateLimitPolicy; taken: boolean };
  /** The claimed Idempotency-Key; `completed` once a route recorded the result with its work. */
  idempotency?: { key: string; fingerprint: string; ttlSeconds: number; completed: boolean };
}

export type AppContext = ParameterizedContext<AppState>;

/** What the app, its route modules and the server's raw-socket handlers share; built once by startServer. */
export interface Deps {
  config: Config;
  stores: Stores;
  tokens: TokenRegistry;
}

/** The authenticated principal of a route that requires a token (the auth middleware ran). */
export function principalOf(ctx: AppContext): Principal {
  const { identity } = ctx.state;
  if (identity.kind !== 'token') throw new Error('route reached without an authenticated principal');
  return identity.principal;
}
