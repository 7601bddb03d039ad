/**
 * Problem documents (RFC 9457, spec/decisions.md D-ERRORS): errors are values that carry their
 * status, type and extra members; one function turns any thrown value into the response.
 */
import { STATUS_CODES } from 'node:http';
import { PROBLEM_TYPE_BASE } from '../spec/problem-types.ts';
import { StoreUnavailableError } from './stores/types.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const GENERIC_500_DETAIL = 'An unexpected error occurred.';

export interface FieldError {
  field: string;
  message: string;
}

export interface ProblemInit {
  /** A name under PROBLEM_TYPE_BASE (`validation-error`) or omitted for `about:blank`. */
  type?: string;
  title?: string;
  detail?: string;
  /** Extra members of the document (`errors`, `limit`, `currentVersion`, ...). */
  members?: Record<string, unknown>;
  /** Response headers that belong to the problem (`Allow`, `WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>;
}

/** An error that is answered with a problem document of `status` (an expected answer, never logged). */
export class HttpProblem extends Error {
  declare readonly name: 'HttpProblem';
  readonly status: number;
  readonly init: ProblemInit;
  constructor(status: number, init: ProblemInit = {}) {
    super(init.detail ?? STATUS_CODES[status] ?? 'Error');
    this.status = status;
    this.init = init;
  }
}
Object.defineProperty(HttpProblem.prototype, 'name', { value: 'HttpProblem', writable: true, configurable: true });

/**
 * What a problem response is made of: an HttpProblem, or the same two fields without an Error (a
 * layer that answers a problem itself, such as the 429 of the rate limiter, needs no stack, no throw
 * and no catch).
 */
export type ProblemSpec = Pick<HttpProblem, 'status' | 'init'>;

/** The response an error turns into: status, headers and the problem body. */
export interface ProblemResponse {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** The problem document (the body) of `problem` for the request path `instance` (D-ERRORS). */
export function problemBody(problem: ProblemSpec, instance: string): Record<string, unknown> {
  const { status, init } = problem;
  const reason = STATUS_CODES[status] ?? 'Error';
  const body: Record<string, unknown> = {
    type: init.type === undefined ? 'about:blank' : PROBLEM_TYPE_BASE + init.type,
    title: init.title ?? reason,
    status,
    detail: init.detail ?? reason,
    instance,
  };
  const { members } = init;
  if (members !== undefined) {
    for (const name of Object.keys(members)) {
      if (!(name in body)) body[name] = members[name];
    }
  }
  return body;
}

/** Builds the problem document of `problem` for the request path `instance` (D-ERRORS), with a copy of its headers. */
export function renderProblem(problem: ProblemSpec, instance: string): ProblemResponse {
  const { headers } = problem.init;
  return { status: problem.status, headers: headers === undefined ? {} : { ...headers }, body: problemBody(problem, instance) };
}

/**
 * Turns any thrown value into an HttpProblem: problems stay, Koa/http-errors client errors keep
 * their status (never their internals), StoreUnavailableError becomes 503 with Retry-After
 * (D-STORE-DOWN), everything else is a generic 500 (D-ERRORS).
 */
export function toHttpProblem(error: unknown, retryAfterSeconds: number): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (error instanceof StoreUnavailableError) {
    return new HttpProblem(503, {
      detail: 'A dependency of the service is unavailable; retry later.',
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
  const status = statusOf(error);
  if (status !== undefined && status >= 400 && status < 500) {
    const exposed = (error as { expose?: unknown }).expose === true;
    const message = (error as { message?: unknown }).message;
    return new HttpProblem(status, exposed && typeof message === 'string' ? { detail: message } : {});
  }
  return new HttpProblem(500, { detail: GENERIC_500_DETAIL });
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** 422 `validation-error` listing every invalid field (D-ERRORS). */
export function validationProblem(errors: FieldError[]): HttpProblem {
  return new HttpProblem(422, {
    type: 'validation-error',
    title: 'Invalid request body',
    detail: `${errors.length} field(s) of the request body are invalid.`,
    members: { errors },
  });
}

/** 400 `invalid-query` listing every bad query parameter (D-QUERY). */
export function invalidQueryProblem(errors: FieldError[]): HttpProblem {
  return new HttpProblem(400, {
    type: 'invalid-query',
    title: 'Invalid query parameters',
    detail: `${errors.length} query parameter(s) are invalid.`,
    members: { errors },
  });
}

/** 404 for an unknown item or route, worded the same whether or not the item exists (D-AUTH). */
export function notFound(): HttpProblem {
  return new HttpProblem(404, NOT_FOUND.init);
}

/** The 404 problem as data, for a middleware that answers it without a throw (unknown paths must be cheap). */
export const NOT_FOUND: ProblemSpec = { status: 404, init: { detail: 'No resource exists at this path.' } };
