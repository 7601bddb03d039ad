/**
 * Routing around the resource routers (spec/decisions.md D-PATHS, D-METHODS): `routes` hands a
 * request to the one router that owns its first path segment (one Map lookup, then that router's
 * few paths), and `allowedMethods` is @koa/router's `allowedMethods` answering in problem documents:
 * OPTIONS on a known path is 204 with `Allow` (public like a CORS preflight, but a token that is sent
 * is checked, D-AUTH), any other method the path does not answer is a 405 problem with the exact
 * `Allow`. A path of no route falls through to the error middleware's 404.
 */
import type { Router } from '@koa/router';
import type { Middleware, Next } from 'koa';
import type { AppContext, AppState } from '../context.ts';
import { HttpProblem } from '../problem.ts';
import { firstSegment, type RouteTable } from '../route-table.ts';
import { invalidTokenProblem } from './auth.ts';
import { checkHead } from './head.ts';

/** The request head checks (414, a duplicated singleton header, a missing Host) of every request, routed or not. */
export function headCheck() {
  return function headMiddleware(ctx: AppContext, next: Next): Promise<void> {
    checkHead(ctx);
    return next();
  };
}

/**
 * The routes of `routers`, each router owning the first path segments of its paths (`users`, or
 * `payments` and `transfers`): a request is matched by the one router of its segment, not by every
 * path of the API.
 */
export function routes(routers: readonly Router<AppState>[]): Middleware<AppState> {
  const bySegment = new Map<string, Middleware<AppState>>();
  for (const router of routers) {
    const middleware = router.routes() as unknown as Middleware<AppState>;
    for (const layer of router.stack) {
      const segment = firstSegment(String(layer.path));
      const owner = bySegment.get(segment);
      if (owner !== undefined && owner !== middleware) throw new Error(`two routers serve /${segment}: one resource module per first path segment`);
      bySegment.set(segment, middleware);
    }
  }
  return function routesMiddleware(ctx, next) {
    const router = ctx.path.charCodeAt(0) === 47 ? bySegment.get(firstSegment(ctx.path)) : undefined;
    return router === undefined ? next() : router(ctx, next);
  };
}

/** OPTIONS (204 with `Allow`) and 405 (a problem with `Allow`) on the known paths of `table` (D-METHODS). */
export function allowedMethods(table: RouteTable) {
  return function allowedMethodsMiddleware(ctx: AppContext, next: Next): Promise<void> | void {
    const match = table.match(ctx.path, ctx.method);
    if (match === undefined) return next();
    if (ctx.method === 'OPTIONS') {
      if (ctx.state.identity.kind === 'invalid') throw invalidTokenProblem();
      ctx.set('Allow', match.allow);
      ctx.status = 204;
      return;
    }
    if (match.method === undefined) {
      throw new HttpProblem(405, {
        detail: `The method ${ctx.method} is not allowed on this path; allowed: ${match.allow}.`,
        headers: { Allow: match.allow },
      });
    }
    return next();
  };
}
