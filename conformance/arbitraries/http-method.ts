/** HTTP method tokens (RFC 9110 §9): the standard ones, WebDAV ones, and unknown tokens such as BREW. */
import fc from 'fast-check';

export const standardMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Methods every run sends first (fast-check `examples`), so the answer to them never depends on the
 * seed: a registered extension method (WebDAV's PROPFIND, which Node parses and routers often leave to
 * their 404 handler) and an invented token (BREW, which Node's parser may refuse with 400).
 */
export const exampleExtensionMethods = ['PROPFIND', 'BREW'];

/** A method token: mostly standard, sometimes an extension method, sometimes an invented one. */
export function httpMethod(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...standardMethods) },
    { weight: 1, arbitrary: fc.constantFrom('BREW', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE') },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{4,8}$/).filter((m) => !['CONNECT', 'TRACE', 'TRACK'].includes(m)) },
  );
}
