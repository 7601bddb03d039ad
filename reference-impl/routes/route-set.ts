/**
 * The handlers of the API by route-table pattern and method, and the one middleware that
 * dispatches to them (for speed: one table lookup per request instead of six routers each matching
 * the path again). The route middleware has matched the path already (`ctx.state.route`, D-PATHS,
 * D-METHODS); HEAD runs the GET handler and Koa drops the body.
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import { ROUTES } from '../route-table.ts';

export type Handler = (ctx: AppContext) => Promise<void> | void;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What Koa writes for a JSON body (`ctx.type = 'json'`). */
const JSON_TYPE = 'application/json; charset=utf-8';
const PATTERNS = new Set(ROUTES.map((route) => route.pattern));

/** Handlers registered by D-PATHS pattern (`/users/{id}`) and method. */
export class RouteSet {
  readonly handlers = new Map<string, Handler>();

  /** Registers the GET handler of `pattern`. */
  get(pattern: string, handler: Handler): this {
    return this.add('GET', pattern, handler);
  }

  /** Registers the POST handler of `pattern`. */
  post(pattern: string, handler: Handler): this {
    return this.add('POST', pattern, handler);
  }

  /** Registers the PUT handler of `pattern`. */
  put(pattern: string, handler: Handler): this {
    return this.add('PUT', pattern, handler);
  }

  /** Registers the DELETE handler of `pattern`. */
  delete(pattern: string, handler: Handler): this {
    return this.add('DELETE', pattern, handler);
  }

  private add(method: Method, pattern: string, handler: Handler): this {
    if (!PATTERNS.has(pattern)) throw new Error(`${pattern} is not a path of the route table`);
    const key = `${method} ${pattern}`;
    if (this.handlers.has(key)) throw new Error(`two handlers for ${key}`);
    this.handlers.set(key, handler);
    return this;
  }
}

/**
 * The dispatching middleware over several route sets: runs the handler of the matched pattern and
 * method; a request without one falls through (the error middleware answers 404).
 */
export function dispatch(sets: readonly RouteSet[]) {
  const byRoute = new Map<string, Map<string, Handler>>();
  for (const set of sets) {
    for (const [key, handler] of set.handlers) {
      const space = key.indexOf(' ');
      const pattern = key.slice(space + 1);
      const methods = byRoute.get(pattern) ?? new Map<string, Handler>();
      if (methods.has(key.slice(0, space))) throw new Error(`two handlers for ${key}`);
      methods.set(key.slice(0, space), handler);
      byRoute.set(pattern, methods);
    }
  }
  return function routesMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const match = ctx.state.route;
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const handler = match === undefined ? undefined : byRoute.get(match.route.pattern)?.get(method);
    if (handler === undefined) return next();
    // Every handler answers JSON or nothing: naming the type now spares Koa a MIME lookup when the
    // body is set (a 204, a problem or an empty 404 replace or drop it).
    if (!ctx.res.headersSent) ctx.res.setHeader('Content-Type', JSON_TYPE);
    return Promise.resolve(handler(ctx));
  };
}
