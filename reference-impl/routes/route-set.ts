/**
 * The handlers of one route module by route-table pattern and method. app.ts registers each on the
 * @koa/router route the table (route-table.ts) gives for that pattern and method, behind the
 * route's authentication, body and idempotency middleware; HEAD runs the GET handler and Koa drops
 * the body.
 */
import type { AppContext } from '../context.ts';
import { ROUTES } from '../route-table.ts';

export type Handler = (ctx: AppContext) => Promise<void> | void;
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const PATTERNS = new Set(ROUTES.map((route) => route.pattern));

/** Handlers registered by D-PATHS pattern (`/users/{id}`) and method. */
export class RouteSet {
  readonly handlers = new Map<string, Handler>();

  get(pattern: string, handler: Handler): this {
    return this.add('GET', pattern, handler);
  }

  post(pattern: string, handler: Handler): this {
    return this.add('POST', pattern, handler);
  }

  put(pattern: string, handler: Handler): this {
    return this.add('PUT', pattern, handler);
  }

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

/** The handlers of several route sets by `METHOD pattern`; two handlers for one key are an error. */
export function handlersOf(sets: readonly RouteSet[]): Map<string, Handler> {
  const all = new Map<string, Handler>();
  for (const set of sets) {
    for (const [key, handler] of set.handlers) {
      if (all.has(key)) throw new Error(`two handlers for ${key}`);
      all.set(key, handler);
    }
  }
  return all;
}
