/**
 * The reference server's Koa application: `createApp({ config, stores, tokens })` builds it and
 * never listens. Middleware order: errors → rate limit → head and route check (414/400,
 * 404/405/OPTIONS) → auth → body → idempotency → fault injection (only when enabled) → one
 * dispatcher over every route set. Wrappers (the variants of fixtures/broken) add middleware at the
 * named extension points of `EXTENSION_POINTS`, never by searching the chain.
 */
import Koa from 'koa';
import type { Middleware, Next } from 'koa';
import { compileSchemas } from '../spec/schemas.ts';
import type { Config } from './config.ts';
import type { AppContext, AppState, Deps } from './context.ts';
import { authenticate } from './middleware/auth.ts';
import { parseBody } from './middleware/body.ts';
import { errorHandler } from './middleware/errors.ts';
import { faultInjection } from './middleware/fault-injection.ts';
import { idempotency } from './middleware/idempotency.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { routeCheck } from './middleware/route.ts';
import { accountRoutes } from './routes/account.ts';
import { authorsRoutes } from './routes/authors.ts';
import { ordersRoutes } from './routes/orders.ts';
import { paymentsRoutes } from './routes/payments.ts';
import { postsRoutes } from './routes/posts.ts';
import { REQUEST_SCHEMAS } from './routes/common.ts';
import { dispatch } from './routes/route-set.ts';
import { usersRoutes } from './routes/users.ts';

/**
 * The places in the chain where a wrapper may add middleware, outermost first:
 * - `outermost`: before the error handler; sees (and may change) the final response;
 * - `afterErrors`: errors are turned into problems; before the rate limit;
 * - `afterRoute`: the route is matched (`ctx.state.route`); before authentication;
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

export interface AppOptions extends Deps {
  /** Where 5xx errors are logged; defaults to console.error. */
  logError?: (error: unknown) => void;
  wrapApp?: WrapApp;
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

  const added = new Map<ExtensionPoint, AppMiddleware[]>();
  const extender: AppExtender = {
    use(point, middleware) {
      if (!EXTENSION_POINTS.includes(point)) throw new Error(`unknown extension point ${String(point)}: ${EXTENSION_POINTS.join(', ')}`);
      added.set(point, [...(added.get(point) ?? []), middleware]);
      return extender;
    },
  };
  wrapApp?.(extender, deps);
  const at = (point: ExtensionPoint): void => {
    for (const middleware of added.get(point) ?? []) app.use(middleware as Middleware<AppState>);
  };

  at('outermost');
  app.use(errorHandler(config.storeUnavailableRetryAfterSeconds));
  at('afterErrors');
  app.use(rateLimit(config, tokens, stores));
  app.use(routeCheck());
  at('afterRoute');
  app.use(authenticate());
  at('afterAuth');
  app.use(parseBody(config.bodyLimitBytes));
  at('afterBody');
  app.use(idempotency(config, stores));
  at('afterIdempotency');
  if (config.faultInjection) app.use(faultInjection());
  at('beforeHandlers');
  app.use(dispatch([usersRoutes, ordersRoutes, paymentsRoutes, accountRoutes, authorsRoutes, postsRoutes].map((routes) => routes(deps))));
  return app;
}

export type { Config };
