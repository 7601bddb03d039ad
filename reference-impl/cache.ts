/**
 * Cache-Control of every response (spec/decisions.md D-CACHE, RFC 9111 §3.5): only successful
 * public reads sent without a token may be stored by shared caches.
 */
import type { AppContext } from './context.ts';

export const PUBLIC_READ = 'public, max-age=5';
export const NO_STORE = 'no-store';

/** The Cache-Control value of the response `ctx` is about to send. */
export function cacheControlFor(ctx: AppContext): string {
  const isRead = ctx.method === 'GET' || ctx.method === 'HEAD';
  const isPublicRoute = ctx.state.access === 'public';
  const success = ctx.status >= 200 && ctx.status < 300;
  const withToken = ctx.req.headers.authorization !== undefined;
  return isRead && isPublicRoute && success && !withToken ? PUBLIC_READ : NO_STORE;
}
