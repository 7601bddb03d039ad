/**
 * What the @koa/router routes of app.ts add to the router's own matching (spec/decisions.md
 * D-METHODS, D-PATHS): the route-table entry of the match in `ctx.state.route`, OPTIONS answered
 * 204 with the table's `Allow` (public like a CORS preflight, but a token that is sent is checked,
 * D-AUTH, and the item's existence is not looked up), and a 405 problem with the exact `Allow` for
 * any other method on a known path. An unknown path matches no route: the error middleware answers 404.
 */
import type { RouterContext } from '@koa/router';
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import { HttpProblem } from '../problem.ts';
import { describeMatch, type RouteSpec } from '../route-table.ts';
import { invalidTokenProblem } from './auth.ts';
import { checkHead } from './head.ts';

/** The request head checks (414, a duplicated singleton header, a missing Host) of every request, routed or not. */
export function headCheck() {
  return function headMiddleware(ctx: AppContext, next: Next): Promise<void> {
    checkHead(ctx);
    return next();
  };
}

/** Puts the route-table match of `route` into `ctx.state.route` (the path parameters from the router's captures). */
export function routeMatched(route: RouteSpec) {
  return function routeMatchedMiddleware(ctx: AppContext, next: Next): Promise<void> {
    // The rate limiter has matched a GET already from the same table (D-PATHS; to read its item along with the
    // token, D-RATE-LIMIT): kept, not described again.
    if (ctx.state.route?.route !== route) {
      const captures = (ctx as unknown as RouterContext).captures ?? [];
      ctx.state.route = describeMatch(route, captures, ctx.method);
    }
    return next();
  };
}

/** OPTIONS on a known path: 204 with `Allow` (D-METHODS). */
export function answerOptions() {
  return function optionsMiddleware(ctx: AppContext): void {
    if (ctx.state.identity.kind === 'invalid') throw invalidTokenProblem();
    ctx.set('Allow', ctx.state.route?.allow ?? '');
    ctx.status = 204;
  };
}

/** Any method the table does not name for a known path: 405 with `Allow` (D-METHODS). */
export function methodNotAllowed() {
  return function methodNotAllowedMiddleware(ctx: AppContext): void {
    const allow = ctx.state.route?.allow ?? '';
    throw new HttpProblem(405, {
      detail: `The method ${ctx.method} is not allowed on this path; allowed: ${allow}.`,
      headers: { Allow: allow },
    });
  };
}
