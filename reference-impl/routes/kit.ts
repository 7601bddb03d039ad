/**
 * What every resource module builds its @koa/router with (spec/decisions.md D-PATHS, D-IDS, D-AUTH,
 * D-BODY, D-IDEMPOTENCY): `resourceRouter()` (case-sensitive, no trailing slash, ids in canonical form
 * or 404 before anything else runs) and the route middleware of `routeKit(deps)`, used as
 *
 *     router.post('/orders', access('orders:write'), ...json, idempotent, createOrder);
 *
 * Each piece is tagged with its role (`roleOf`), so the app can add a wrapper's middleware between
 * them (app.ts EXTENSION_POINTS) and the route table can read a route's access (route-table.ts).
 */
import { Router } from '@koa/router';
import type { Next } from 'koa';
import type { AppContext, AppState, Deps } from '../context.ts';
import { access } from '../middleware/auth.ts';
import { idempotency } from '../middleware/idempotency.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { type RouteMiddleware, withRole } from '../middleware/role.ts';
import { notFound } from '../problem.ts';
import { isCanonicalId } from '../route-table.ts';

function canonicalId(value: string, _ctx: AppContext, next: Next): Promise<void> {
  if (!isCanonicalId(value)) throw notFound();
  return next();
}

/** The path parameters that are ids (D-IDS): every `:id` and `:commentId`. */
export const ID_PARAMETERS = ['id', 'commentId'] as const;

export type ResourceRouter = Router<AppState>;

/** A router of one resource module: case-sensitive paths without a trailing slash (D-PATHS), canonical ids (D-IDS). */
export function resourceRouter(): ResourceRouter {
  const router = new Router<AppState>({ strict: true, sensitive: true });
  for (const name of ID_PARAMETERS) router.param(name, canonicalId);
  return router;
}

/** The integer value of an id parameter, already checked canonical by the router (D-IDS). */
export function idParam(ctx: AppContext, name: (typeof ID_PARAMETERS)[number] = 'id'): number {
  return Number((ctx as AppContext & { params: Record<string, string> }).params[name]);
}

export interface RouteKit {
  /** Who may call the route (D-AUTH): `access('public')`, `access('authenticated')` or a permission. */
  access: typeof access;
  /** A JSON object body of at most `config.bodyLimitBytes` (D-BODY). */
  json: RouteMiddleware[];
  /** An action's body: none, empty or `{}` (D-BODY). */
  emptyBody: RouteMiddleware[];
  /** Idempotency-Key replay of a POST (D-IDEMPOTENCY). */
  idempotent: RouteMiddleware;
}

/** The route middleware of one app, built once from its dependencies and shared by every resource module. */
export function routeKit({ config, stores }: Deps): RouteKit {
  return {
    access,
    json: jsonBody('json', config.bodyLimitBytes).map((middleware) => withRole('body', middleware)),
    emptyBody: jsonBody('empty', config.bodyLimitBytes).map((middleware) => withRole('body', middleware)),
    idempotent: withRole('idempotency', idempotency(config, stores)),
  };
}
