/**
 * The reference server's Koa application: `createApp({ config, stores, tokens })` builds it and
 * never listens (server.ts does). The middleware, in the order a request meets it:
 *
 *     errorHandler → identify → rateLimit → headCheck → routes → allowedMethods
 *
 * `routes` hands the request to the @koa/router of the resource module that owns its first path
 * segment (routes/*.ts), where each route is written once:
 *
 *     router.post('/orders', access('orders:write'), ...json, idempotent, createOrder);
 *
 * `allowedMethods` answers OPTIONS and the 405 of a known path from the route table read off those
 * routers (route-table.ts); a path of no route falls through to the error middleware's 404.
 * Wrappers (the variants of fixtures/broken and fixtures/valid) add middleware at the named
 * extension points of `EXTENSION_POINTS`, never by searching the chain.
 */
import Koa from 'koa';
import type { Middleware, Next } from 'koa';
import { compileSchemas } from '../spec/schemas.ts';
import type { Config } from './config.ts';
import type { AppContext, AppState, Deps } from './context.ts';
import { identify } from './middleware/auth.ts';
import { errorHandler } from './middleware/errors.ts';
import { faultInjection } from './middleware/fault-injection.ts';
import { oneRoundTrip } from './middleware/one-round-trip.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { roleOf, type RouteRole } from './middleware/role.ts';
import { allowedMethods, headCheck, routes } from './middleware/route.ts';
import { routeTableOf } from './route-table.ts';
import { REQUEST_SCHEMAS } from './routes/common.ts';
import { apiRouters } from './routes/index.ts';
import type { ResourceRouter } from './routes/kit.ts';

/**
 * The places in the chain where a wrapper may add middleware, outermost first:
 * - `outermost`: before the error handler; sees (and may change) the final response;
 * - `afterErrors`: errors are turned into problems; before the caller is identified and rate limited;
 * - `afterRoute`: a route matched the path and method (`ctx.params`); before its access rule;
 * - `afterAuth`: the route's access rule passed (`ctx.state.identity`); before the body is read;
 * - `afterBody`: `ctx.state.body` is parsed; before the Idempotency-Key is claimed;
 * - `afterIdempotency`: the key is claimed; before fault injection;
 * - `beforeHandlers`: just before the route's handler.
 * The route points are in every route's chain, whether or not the route reads a body or takes a key.
 */
export const EXTENSION_POINTS = ['outermost', 'afterErrors', 'afterRoute', 'afterAuth', 'afterBody', 'afterIdempotency', 'beforeHandlers'] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

/** A middleware a wrapper adds at an extension point. */
export type AppMiddleware = (ctx: AppContext, next: Next) => Promise<void>;

/** What a wrapper receives: `use` adds middleware at a named point (in call order within one point). */
export interface AppExtender {
  use(point: ExtensionPoint, middleware: AppMiddleware): AppExtender;
}

/** Changes the app before it is composed: adds middleware at extension points (fixtures/broken variants). */
export type WrapApp = (app: AppExtender, deps: Deps) => void;

export interface AppOptions extends Deps {
  /** Where 5xx errors are logged; defaults to console.error. */
  logError?: (error: unknown) => void;
  wrapApp?: WrapApp;
}

type Added = (point: ExtensionPoint) => AppMiddleware[];

/** The middleware `wrapApp` adds at each extension point (none without it), in the order it added them. */
function extensionMiddleware(wrapApp: WrapApp | undefined, deps: Deps): Added {
  const added = new Map<ExtensionPoint, AppMiddleware[]>();
  const extender: AppExtender = {
    use(point, middleware) {
      if (!EXTENSION_POINTS.includes(point)) throw new Error(`unknown extension point ${String(point)}: ${EXTENSION_POINTS.join(', ')}`);
      added.set(point, [...(added.get(point) ?? []), middleware]);
      return extender;
    },
  };
  wrapApp?.(extender, deps);
  return (point) => added.get(point) ?? [];
}

const ROUTE_POINTS = ['afterRoute', 'afterAuth', 'afterBody', 'afterIdempotency', 'beforeHandlers'] as const;

/**
 * Puts the route extension points (and fault injection, after the key is claimed) into every route's
 * chain, between the pieces the route was written with (routes/kit.ts roles): its id checks, access,
 * body, Idempotency-Key and handler. Routes stay as written when nothing is added.
 */
function extendRoutes(routers: readonly ResourceRouter[], at: Added, faults: AppMiddleware[]): void {
  if (faults.length === 0 && ROUTE_POINTS.every((point) => at(point).length === 0)) return;
  for (const router of routers) {
    for (const layer of router.stack) {
      const chain = layer.stack as unknown[];
      const params = chain.filter((middleware) => (middleware as { param?: string }).param !== undefined);
      const part = (role: RouteRole) => chain.filter((middleware) => roleOf(middleware as object) === role);
      const handlers = chain.filter((middleware) => !params.includes(middleware) && roleOf(middleware as object) === undefined);
      layer.stack = [
        ...params,
        ...at('afterRoute'),
        ...part('access'),
        ...at('afterAuth'),
        ...part('body'),
        ...at('afterBody'),
        ...part('idempotency'),
        ...at('afterIdempotency'),
        ...faults,
        ...at('beforeHandlers'),
        ...handlers,
      ] as typeof layer.stack;
    }
  }
}

/** Builds the Koa app of the reference server; it never listens (server.ts does). */
export function createApp({ config, stores, tokens, logError, wrapApp }: AppOptions): Koa<AppState> {
  // The request schemas are compiled here, once, so that no request pays for a compilation (bench/README.md).
  // Only those: the server validates nothing else, and the other schemas of spec/ (profiles, reports) cost
  // about 0.3 s of CPU, at the moment a certification run starts its embedded server beside the suite.
  compileSchemas(REQUEST_SCHEMAS);
  const app = new Koa<AppState>({ proxy: false });
  const deps: Deps = { config, stores, tokens };
  const log = logError ?? ((error: unknown) => console.error('[reference-server] unhandled error:', error));
  app.silent = true;
  app.on('error', (error: unknown) => log(error));

  const at = extensionMiddleware(wrapApp, deps);
  const routers = apiRouters(deps);
  extendRoutes(routers, at, config.faultInjection ? [faultInjection()] : []);
  const table = routeTableOf(routers);

  const use = (middleware: unknown): unknown => app.use(middleware as Middleware<AppState>);
  at('outermost').forEach(use);
  use(errorHandler(config.storeUnavailableRetryAfterSeconds));
  at('afterErrors').forEach(use);
  use(identify(tokens));
  use(rateLimit(config, stores, oneRoundTrip(table, stores)));
  use(headCheck());
  use(routes(routers));
  use(allowedMethods(table));
  return app;
}

export type { Config };
