/**
 * The role of a route middleware in a resource module's chain (routes/kit.ts): the access rule, the
 * body, the Idempotency-Key. The app reads it to add a wrapper's middleware between them (app.ts
 * EXTENSION_POINTS) and the route table to read a route's access (route-table.ts); a middleware
 * without a role at the end of a route is its handler.
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import type { Access } from '../permissions.ts';

export type RouteMiddleware = (ctx: AppContext, next: Next) => Promise<void> | void;

export type RouteRole = 'access' | 'body' | 'idempotency';

const roles = new WeakMap<object, { role: RouteRole; access?: Access }>();

/** Tags `middleware` with its role (and an access middleware with its rule); returns it. */
export function withRole<M extends RouteMiddleware>(role: RouteRole, middleware: M, rule?: Access): M {
  roles.set(middleware, rule === undefined ? { role } : { role, access: rule });
  return middleware;
}

/** The role of a middleware of a route's chain; undefined for a handler or a router's own middleware. */
export function roleOf(middleware: object): RouteRole | undefined {
  return roles.get(middleware)?.role;
}

/** The access rule of a route's chain: the rule its access middleware was made with. */
export function accessOf(chain: readonly object[]): Access | undefined {
  for (const middleware of chain) {
    const tag = roles.get(middleware);
    if (tag?.access !== undefined) return tag.access;
  }
  return undefined;
}
