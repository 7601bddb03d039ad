/**
 * What the middleware chain of the reference server shares through `ctx.state`, and the
 * dependencies every route module receives.
 */
import type { ParameterizedContext } from 'koa';
import type { Config } from './config.ts';
import type { Access } from './permissions.ts';
import type { Stores } from './stores/types.ts';
import type { Identity, Principal, TokenRegistry } from './tokens.ts';

export interface AppState {
  identity: Identity;
  /** The access rule of the route that matched, once its `access` middleware ran (D-AUTH; D-CACHE reads it). */
  access?: Access;
  /** The raw request body (POST/PUT) as @koa/bodyparser read it, for the idempotency fingerprint. */
  rawBody?: string;
  /** The parsed JSON body; undefined when none was sent. */
  body?: unknown;
  /**
   * Set while this request holds an Idempotency-Key claim: `<scoped key> <fingerprint>`. Resources
   * created by the request carry it, so a retry whose result was never recorded finds them.
   */
  idempotencyMarker?: string;
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
