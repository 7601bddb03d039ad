/**
 * Authentication and permission checks (spec/decisions.md D-AUTH, RFC 6750 §3): a sent token is
 * always checked; 401 with `WWW-Authenticate` for missing or invalid credentials, 403 with
 * `error="insufficient_scope"` for a valid token lacking the route's permission.
 */
import type { Next } from 'koa';
import type { AppContext } from '../context.ts';
import { HttpProblem } from '../problem.ts';

const CHALLENGE = 'Bearer realm="api"';

/** 401 for a token that was sent and is malformed or unknown (D-AUTH: a sent token is always checked). */
export function invalidTokenProblem(): HttpProblem {
  return new HttpProblem(401, {
    detail: 'The bearer token is missing, malformed or unknown.',
    headers: { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` },
  });
}

/** Enforces the access rule of the matched route (`ctx.state.route`, set by the route middleware). */
export function authenticate() {
  return function authMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const { identity, route } = ctx.state;
    if (identity.kind === 'invalid') throw invalidTokenProblem();
    const access = route?.method?.access ?? 'public';
    if (access === 'public') return next();
    if (identity.kind === 'anonymous') {
      throw new HttpProblem(401, {
        detail: 'This request requires an Authorization header with a bearer token.',
        headers: { 'WWW-Authenticate': CHALLENGE },
      });
    }
    if (access !== 'authenticated' && !identity.principal.permissions.includes(access)) {
      throw new HttpProblem(403, {
        detail: `The token lacks the permission "${access}".`,
        headers: { 'WWW-Authenticate': `${CHALLENGE}, error="insufficient_scope", scope="${access}"` },
      });
    }
    return next();
  };
}
