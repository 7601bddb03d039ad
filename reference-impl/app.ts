/**
 * The reference server's Koa application: `createApp({ config, stores })` builds it and never
 * listens. Middleware order: errors → rate limit → head and route check (414/400, 404/405/OPTIONS) →
 * auth → body → idempotency → fault injection → one dispatcher over every route set. Wrappers
 * (fixtures/broken) find these layers in `app.middleware` by their function names.
 */
import Koa from 'koa';
import { compileAllSchemas } from '../spec/schemas.ts';
import type { Config } from './config.ts';
import type { AppState, Deps } from './context.ts';
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
import { dispatch } from './routes/route-set.ts';
import { usersRoutes } from './routes/users.ts';
import type { Stores } from './stores/types.ts';
import { createTokenRegistry } from './tokens.ts';

export interface AppOptions {
  config: Config;
  stores: Stores;
  /** Where 5xx errors are logged; defaults to console.error. */
  logError?: (error: unknown) => void;
}

/** Builds the Koa app of the reference server; it never listens (server.ts does). */
export function createApp({ config, stores, logError }: AppOptions): Koa<AppState> {
  // Every request schema is compiled here, once, so that no request pays for a compilation (bench/README.md).
  compileAllSchemas();
  const app = new Koa<AppState>({ proxy: false });
  const deps: Deps = { config, stores };
  const log = logError ?? ((error: unknown) => console.error('[reference-server] unhandled error:', error));
  app.silent = true;
  app.on('error', (error: unknown) => log(error));

  app.use(errorHandler(config.storeUnavailableRetryAfterSeconds));
  app.use(rateLimit(config, createTokenRegistry(config.tokens), stores.rateLimits));
  app.use(routeCheck());
  app.use(authenticate());
  app.use(parseBody(config.bodyLimitBytes));
  app.use(idempotency(config, stores.idempotency));
  app.use(faultInjection(config.faultInjection));
  app.use(dispatch([usersRoutes, ordersRoutes, paymentsRoutes, accountRoutes, authorsRoutes, postsRoutes].map((routes) => routes(deps))));
  return app;
}

export type { Config };
