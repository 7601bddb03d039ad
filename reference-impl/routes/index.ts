/**
 * The resource modules of the API (spec/decisions.md D-PATHS), one @koa/router each, in the order
 * the route table lists their paths.
 */
import { defaultConfig } from '../config.ts';
import type { Deps } from '../context.ts';
import { routeTableOf, type RouteTable } from '../route-table.ts';
import { createMemoryStores } from '../stores/memory/index.ts';
import { createTokenRegistry } from '../tokens.ts';
import { accountRouter } from './account.ts';
import { authorsRouter } from './authors.ts';
import { type ResourceRouter, routeKit } from './kit.ts';
import { ordersRouter } from './orders.ts';
import { paymentsRouter } from './payments.ts';
import { postsRouter } from './posts.ts';
import { usersRouter } from './users.ts';

/** The routers of every resource module, built with `deps`. */
export function apiRouters(deps: Deps): ResourceRouter[] {
  const kit = routeKit(deps);
  return [usersRouter, accountRouter, ordersRouter, paymentsRouter, authorsRouter, postsRouter].map((router) => router(deps, kit));
}

let table: RouteTable | undefined;

/**
 * The route table of the API, read off routers that never serve (the paths, methods and access rules
 * do not depend on the configuration): for what answers outside Koa (client-error.ts) and the tests.
 */
export function apiRouteTable(): RouteTable {
  table ??= routeTableOf(apiRouters({ config: defaultConfig(), stores: createMemoryStores(), tokens: createTokenRegistry([]) }));
  return table;
}
