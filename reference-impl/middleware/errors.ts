/**
 * The one error middleware at the top of the chain (spec/decisions.md D-ERRORS): every thrown
 * value becomes an `application/problem+json` document whose `status` equals the HTTP status
 * and whose `instance` is the request path; unmatched requests become 404. It also stamps
 * Cache-Control on every response (D-CACHE).
 */
import type { Next } from 'koa';
import { cacheControlFor } from '../cache.ts';
import type { AppContext } from '../context.ts';
import { type ProblemSpec, PROBLEM_CONTENT_TYPE, notFound, problemBody, toHttpProblem } from '../problem.ts';

/** Writes the problem document of `problem` into `ctx`. */
export function respondWithProblem(ctx: AppContext, problem: ProblemSpec): void {
  if (ctx.headerSent) return;
  // The document and the problem's own headers, read in place: no copy of them per answer (D-ERRORS;
  // the 404 and 429 answers are on the hot paths).
  const body = problemBody(problem, ctx.path);
  ctx.remove('Location');
  ctx.status = problem.status;
  const { headers } = problem.init;
  if (headers !== undefined) for (const name in headers) ctx.set(name, headers[name] ?? '');
  ctx.set('Content-Type', PROBLEM_CONTENT_TYPE);
  ctx.body = body;
}

/**
 * Catches everything below it. 5xx errors are emitted on the app (`app.on('error')` logs them);
 * client errors are not. Nothing of a 5xx error's message or stack reaches the body.
 */
export function errorHandler(storeUnavailableRetryAfterSeconds: number) {
  return async function errorMiddleware(ctx: AppContext, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) respondWithProblem(ctx, notFound());
    } catch (error) {
      const problem = toHttpProblem(error, storeUnavailableRetryAfterSeconds);
      if (problem.status >= 500) ctx.app.emit('error', error, ctx);
      respondWithProblem(ctx, problem);
    } finally {
      ctx.set('Cache-Control', cacheControlFor(ctx));
    }
  };
}
