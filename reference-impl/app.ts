/**
 * The reference server's Koa application: `createApp({ config, stores, tokens })` builds it and
 * never listens. App middleware: errors → rate limit → request head checks (414/400) → the
 * @koa/router routes. The routes are registered from the route table (route-table.ts): each method
 * of each path runs route match → auth → body (@koa/bodyparser, routes that take one) →
 * idempotency (POST) → fault injection (only when enabled) → its handler; OPTIONS answers 204 with
 * `Allow` and any other method 405; a path of no route falls through to the error middleware's 404.
 * Wrappers (the variants of fixtures/broken) add middleware at the named extension points of
 * `EXTENSION_POINTS`, never by searching the chain.
 */
import { Router } from '@koa/router';
import Koa from 'koa';
import { METHODS } from 'node:http';
import type { Middleware, Next } from 'koa';
import { compileSchemas } from '../spec/schemas.ts';
import type { Config } from './config.ts';
import type { AppContext, AppState, Deps } from './context.ts';
import { authenticate } from './middleware/auth.ts';
import { errorHandler } from './middleware/errors.ts';
import { faultInjection } from './middleware/fault-injection.ts';
import { idempotency } from './middleware/idempotency.ts';
import { jsonBody } from './middleware/json-body.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { answerOptions, headCheck, methodNotAllowed, routeMatched } from './middleware/route.ts';
import { ROUTES, pathRegExp, type RouteSpec } from './route-table.ts';
import { accountRoutes } from './routes/account.ts';
import { authorsRoutes } from './routes/authors.ts';
import { ordersRoutes } from './routes/orders.ts';
import { paymentsRoutes } from './routes/payments.ts';
import { postsRoutes } from './routes/posts.ts';
import { REQUEST_SCHEMAS } from './routes/common.ts';
import { handlersOf, type Method } from './routes/route-set.ts';
import { usersRoutes } from './routes/users.ts';

/**
 * The places in the chain where a wrapper may add middleware, outermost first:
 * - `outermost`: before the error handler; sees (and may change) the final response;
 * - `afterErrors`: errors are turned into problems; before the rate limit;
 * - `afterRoute`: the route and method are matched (`ctx.state.route`); before authentication;
 * - `afterAuth`: `ctx.state.identity` is known; before the body is read;
 * - `afterBody`: `ctx.state.body` is parsed; before the Idempotency-Key is claimed;
 * - `afterIdempotency`: the key is claimed; before fault injection;
 * - `beforeHandlers`: just before the route handlers.
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

type RouteSpecMethods = RouteSpec['methods'];

export interface AppOptions extends Deps {
  /** Where 5xx errors are logged; defaults to console.error. */
  logError?: (error: unknown) => void;
  wrapApp?: WrapApp;
}

/** The middleware `wrapApp` adds at each extension point (none without it), in the order it added them. */
function extensionMiddleware(wrapApp: WrapApp | undefined, deps: Deps): (point: ExtensionPoint) => AppMiddleware[] {
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

  const handlers = handlersOf([usersRoutes, ordersRoutes, paymentsRoutes, accountRoutes, authorsRoutes, postsRoutes].map((routes) => routes(deps)));
  const auth = authenticate();
  const keyed = idempotency(config, stores);
  const faults = config.faultInjection ? [faultInjection()] : [];
  const router = new Router<AppState>();
  for (const route of ROUTES) {
    const path = pathRegExp(route);
    const matched = routeMatched(route);
    for (const [method, spec] of Object.entries(route.methods) as [Method, NonNullable<RouteSpecMethods[Method]>][]) {
      const handler = handlers.get(`${method} ${route.pattern}`);
      if (handler === undefined) throw new Error(`no handler for ${method} ${route.pattern}`);
      const body = spec.body === undefined ? [] : jsonBody(spec.body, config.bodyLimitBytes);
      const chain: AppMiddleware[] = [
        matched,
        ...at('afterRoute'),
        auth,
        ...at('afterAuth'),
        ...body,
        ...at('afterBody'),
        ...(method === 'POST' ? [keyed] : []),
        ...at('afterIdempotency'),
        ...faults,
        ...at('beforeHandlers'),
        handler as AppMiddleware,
      ];
      router.register(path, [method], chain as Middleware<AppState>[], { pathAsRegExp: true });
    }
    router.options(path, matched as Middleware<AppState>, answerOptions());
    // D-METHODS: 405 on the methods this path's layers do not answer (HEAD comes with GET), not `router.all`:
    // a GET then matches its own layer only, not also a 405 layer chained behind its handler on every request.
    const own = new Set(router.stack.filter((layer) => layer.regexp === path).flatMap((layer) => layer.methods));
    const others = METHODS.filter((method) => !own.has(method));
    router.register(path, others, [matched as Middleware<AppState>, methodNotAllowed()], { pathAsRegExp: true });
  }

  for (const middleware of at('outermost')) app.use(middleware as Middleware<AppState>);
  app.use(errorHandler(config.storeUnavailableRetryAfterSeconds));
  for (const middleware of at('afterErrors')) app.use(middleware as Middleware<AppState>);
  app.use(rateLimit(config, tokens, stores));
  app.use(headCheck());
  app.use(router.routes());
  return app;
}

export type { Config };
