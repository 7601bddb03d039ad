/**
 * `http-api-conformance/client`: the reference client of the conventions document.
 */
export { createClient, ClientNetworkError } from './lib/client.ts';
export type { Client, ClientOptions, ClientResponse, RequestOptions } from './lib/client.ts';
export { ProblemError, parseProblem, isProblemMediaType } from './lib/problem.ts';
export type { FieldError, ResponseSnapshot } from './lib/problem.ts';
export { findLink, LinkNotFoundError } from './lib/links.ts';
export type { Link } from './lib/links.ts';
export { backoffSeconds, isIdempotentMethod, isRetryableStatus, rateLimitWaitSeconds, retryAfterSeconds } from './lib/retry-policy.ts';
