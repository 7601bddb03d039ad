/**
 * Authentication and permission checks (spec/decisions.md D-AUTH, RFC 6750 §3): `identify` reads the
 * caller from the Authorization header of every request; a route's `access(rule)` enforces its rule.
 * A sent token is always checked; 401 with `WWW-Authenticate` for missing or invalid credentials,
 * 403 with `error="insufficient_scope"` for a valid token lacking the route's permission.
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import type { Access } from '../permissions.ts';
import { HttpProblem } from '../problem.ts';
import { INVALID_IDENTITY, type TokenRegistry } from '../tokens.ts';
import { duplicatedSingleton } from './head.ts';
import { type RouteMiddleware, withRole } from './role.ts';

const CHALLENGE = 'Bearer realm="api"';

/** 401 for a token that was sent and is malformed or unknown (D-AUTH: a sent token is always checked). */
export function invalidTokenProblem(): HttpProblem {
  return new HttpProblem(401, {
    detail: 'The bearer token is missing, malformed or unknown.',
    headers: { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` },
  });
}

/** 401 for a request without credentials on a route that needs them (RFC 6750 §3.1: the challenge names no error). */
export function missingTokenProblem(): HttpProblem {
  return new HttpProblem(401, {
    detail: 'This request requires an Authorization header with a bearer token.',
    headers: { 'WWW-Authenticate': CHALLENGE },
  });
}

/**
 * The caller of every request into `ctx.state.identity`: a known token's principal, `anonymous`
 * without an Authorization header, `invalid` for anything else (a repeated header included: it is
 * ambiguous, D-AUTH). The rate limiter keys its buckets on it, so it runs first.
 */
export function identify(tokens: TokenRegistry) {
  return function identifyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const authorization = ctx.req.headers.authorization;
    ctx.state.identity =
      authorization !== undefined && duplicatedSingleton(ctx.req) === 'authorization' ? INVALID_IDENTITY : tokens.identify(authorization);
    return next();
  };
}

/** A route's access rule (D-AUTH): `public`, `authenticated` (any valid token) or the permission it requires. */
export function access(rule: Access): RouteMiddleware {
  return withRole(
    'access',
    function accessMiddleware(ctx: AppContext, next: Next): Promise<void> {
      const { identity } = ctx.state;
      ctx.state.access = rule;
      if (identity.kind === 'invalid') throw invalidTokenProblem();
      if (rule === 'public') return next();
      if (identity.kind === 'anonymous') throw missingTokenProblem();
      if (rule !== 'authenticated' && !identity.principal.permissions.includes(rule)) {
        throw new HttpProblem(403, {
          detail: `The token lacks the permission "${rule}".`,
          headers: { 'WWW-Authenticate': `${CHALLENGE}, error="insufficient_scope", scope="${rule}"` },
        });
      }
      return next();
    },
    rule,
  );
}
