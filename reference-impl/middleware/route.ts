/**
 * Path and method check before routing (spec/decisions.md D-METHODS, D-PATHS): an unknown path is
 * 404 for every method, a known path with another method is 405 with the exact `Allow`, and
 * OPTIONS is 204 with `Allow`: public like a CORS preflight, but a token that is sent is checked
 * (D-AUTH), and the item's existence is not looked up (D-METHODS).
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import { HttpProblem, NOT_FOUND } from '../problem.ts';
import { matchRoute } from '../route-table.ts';
import { invalidTokenProblem } from './auth.ts';
import { respondWithProblem } from './errors.ts';
import { checkHead } from './head.ts';

/**
 * Checks the request head (`checkHead`: 414, duplicated singleton headers, missing Host), then
 * matches the request against the route table and stores the match in `ctx.state.route`.
 */
export function routeCheck() {
  return function routeMiddleware(ctx: AppContext, next: Next): Promise<void> {
    checkHead(ctx);
    // The rate-limit middleware may have matched the route already (to read along with the token).
    const match = ctx.state.route ?? matchRoute(ctx.path, ctx.method);
    if (!match) {
      // Answered here, without an Error, a throw and a catch, as the rate limiter answers its 429.
      respondWithProblem(ctx, NOT_FOUND);
      return Promise.resolve();
    }
    ctx.state.route = match;
    if (ctx.method === 'OPTIONS') {
      if (ctx.state.identity.kind === 'invalid') throw invalidTokenProblem();
      ctx.set('Allow', match.allow);
      ctx.status = 204;
      return Promise.resolve();
    }
    if (!match.method) {
      throw new HttpProblem(405, {
        detail: `The method ${ctx.method} is not allowed on this path; allowed: ${match.allow}.`,
        headers: { Allow: match.allow },
      });
    }
    return next();
  };
}
