/**
 * The base of the project's typed problem URIs (spec/decisions.md D-ERRORS): a typed problem's
 * `type` is this base plus its name (`validation-error`, `rate-limited`, ...); every other problem is
 * `about:blank`. The reference server, the conformance suite and the client harness all read it here.
 */
export const PROBLEM_TYPE_BASE = 'https://http-api-conformance.dev/problems/';
