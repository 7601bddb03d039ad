/**
 * The reference client of the conventions document: bearer token on every request, JSON bodies,
 * the retry rules of section 7, the rate-limit behaviour of section 8 and Idempotency-Key handling.
 */
import { randomUUID } from 'node:crypto';
import { findLink } from './links.ts';
import { parseProblem } from './problem.ts';
import type { ProblemError } from './problem.ts';
import { backoffSeconds, isIdempotentMethod, isRetryableStatus, rateLimitWaitSeconds, retryAfterSeconds } from './retry-policy.ts';

/** Options of createClient. Durations are those of the document; `timeScale` scales every wait. */
export interface ClientOptions {
  /** Base URL of the API; request paths are appended to it, link hrefs are resolved against it. */
  baseUrl: string | URL;
  /** Access token sent as `Authorization: Bearer <token>` on every request to the API's origin. */
  token?: string;
  /** Attempts per logical operation, the first one included (CLIENT-ATTEMPT-CAP). Default 5. */
  maxAttempts?: number;
  /** Timeout of one attempt in milliseconds, until the whole body is read (CLIENT-TIMEOUT). Default 5000. */
  timeoutMs?: number;
  /** Multiplies every wait and the timeout: 0.01 makes one second of the document 10 ms. Default 1. */
  timeScale?: number;
  /** Wall clock in epoch milliseconds, used for HTTP-date `Retry-After` and rate-limit waits. */
  clock?: () => number;
  /** Waits the given (already scaled) milliseconds. */
  sleep?: (ms: number) => Promise<void>;
  /** Random source in [0, 1) for the backoff jitter. */
  random?: () => number;
  /** The fetch implementation. Default: the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Generates Idempotency-Key values. Default: crypto.randomUUID. */
  generateKey?: () => string;
  /** Throw the ProblemError of a final error response instead of returning the response. */
  throwOnProblem?: boolean;
  /** Extra headers sent on every request. */
  headers?: Record<string, string>;
}

/** Options of one logical operation. */
export interface RequestOptions {
  /** JSON request body. */
  body?: unknown;
  /**
   * Idempotency-Key of the operation. POST and PATCH get a fresh key when omitted; `false` sends
   * none, and then the request is never retried (CLIENT-IDEMPOTENCY-KEY-STABLE).
   */
  idempotencyKey?: string | false;
  headers?: Record<string, string>;
}

/** The final response of a logical operation, after retries. */
export interface ClientResponse<T = unknown> {
  method: string;
  url: string;
  status: number;
  ok: boolean;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  /** Parsed JSON body, the text of a non-JSON body, undefined when empty. */
  body: T | undefined;
  /** The parsed problem document for statuses ≥ 400 (CLIENT-SURFACE-LAST-RESPONSE), else null. */
  problem: ProblemError | null;
  /** Number of attempts made. */
  attempts: number;
  /** The Idempotency-Key sent with every attempt, if any. */
  idempotencyKey: string | undefined;
}

/** Thrown when the last attempt failed without a response (network error or timeout). */
export class ClientNetworkError extends Error {
  override readonly name = 'ClientNetworkError';
  readonly attempts: number;
  /** The last HTTP response received by an earlier attempt, if any. */
  readonly lastResponse: ClientResponse | undefined;

  constructor(message: string, attempts: number, cause: unknown, lastResponse: ClientResponse | undefined) {
    super(message, { cause });
    this.attempts = attempts;
    this.lastResponse = lastResponse;
  }
}

/** The client returned by createClient. */
export interface Client {
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ClientResponse<T>>;
  get<T = unknown>(path: string, options?: RequestOptions): Promise<ClientResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<ClientResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<ClientResponse<T>>;
  delete<T = unknown>(path: string, options?: RequestOptions): Promise<ClientResponse<T>>;
  /**
   * Follows the link `rel` of a representation (or of a response) with the link's method (GET when
   * it names none), resolving its href against the base URL (CLIENT-LINKS-FOLLOWED).
   */
  follow<T = unknown>(resource: unknown, rel: string, body?: unknown, options?: RequestOptions): Promise<ClientResponse<T>>;
}

type Attempt = { response: ClientResponse } | { error: unknown };

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function positive(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new TypeError(`createClient: ${name} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  }
  return value;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/**
 * The ClientResponse of attempt number `attempts`, its whole body read: header names in lower case,
 * a JSON body parsed (its text when it does not parse), and the problem document of a status ≥ 400
 * (CLIENT-SURFACE-LAST-RESPONSE).
 */
async function readResponse(res: Response, method: string, url: URL, key: string | undefined, attempts: number): Promise<ClientResponse> {
  const text = await res.text();
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  let body: unknown = text === '' ? undefined : text;
  if (text !== '' && /json/i.test(headers['content-type'] ?? '')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const problem = parseProblem({ status: res.status, headers, body }, res.statusText);
  return {
    method,
    url: url.href,
    status: res.status,
    ok: res.status >= 200 && res.status < 300,
    headers,
    body,
    problem,
    attempts,
    idempotencyKey: key,
  };
}

/**
 * Creates the reference client (D-CLIENT-RETRY). Every operation retries only on 429, 5xx and network
 * errors, at most `maxAttempts` times, waiting `Retry-After` or 2^attempt s + jitter, honours
 * `RateLimit-Remaining: 0`, and returns the last response (status, headers, parsed problem).
 */
export function createClient(options: ClientOptions): Client {
  const base = new URL(options.baseUrl);
  const maxAttempts = positive('maxAttempts', options.maxAttempts ?? 5, true);
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? 5000, false);
  const timeScale = positive('timeScale', options.timeScale ?? 1, false);
  const clock = options.clock ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const doFetch = options.fetch ?? globalThis.fetch;
  const generateKey = options.generateKey ?? randomUUID;
  let notBefore = 0;

  const waitSeconds = async (seconds: number): Promise<void> => {
    if (seconds > 0) await sleep(seconds * 1000 * timeScale);
  };

  const resolvePath = (path: string): URL => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return new URL(path);
    const prefix = base.href.replace(/\/+$/, '').replace(/[?#].*$/, '');
    return new URL(`${prefix}${path.startsWith('/') ? '' : '/'}${path}`);
  };

  const attemptOnce = async (
    method: string,
    url: URL,
    headers: Record<string, string>,
    payload: string | undefined,
    key: string | undefined,
    attempts: number,
  ): Promise<Attempt> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs * timeScale} ms`)), timeoutMs * timeScale);
    try {
      const res = await doFetch(url, { method, headers, body: payload, signal: controller.signal, redirect: 'manual' });
      return { response: await readResponse(res, method, url, key, attempts) };
    } catch (error) {
      return { error: controller.signal.aborted ? controller.signal.reason : error };
    } finally {
      clearTimeout(timer);
    }
  };

  const send = async <T>(method: string, url: URL, request: RequestOptions): Promise<ClientResponse<T>> => {
    const verb = method.toUpperCase();
    const idempotent = isIdempotentMethod(verb);
    const key = request.idempotencyKey === false ? undefined : (request.idempotencyKey ?? (idempotent ? undefined : generateKey()));
    const mayRetry = idempotent || key !== undefined;
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...options.headers, ...request.headers };
    if (options.token !== undefined && url.origin === base.origin) headers.authorization = `Bearer ${options.token}`;
    if (key !== undefined) headers['idempotency-key'] = key;
    let payload: string | undefined;
    if (request.body !== undefined) {
      payload = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }

    let lastResponse: ClientResponse | undefined;
    for (let attempt = 0; ; attempt += 1) {
      const gap = notBefore - clock();
      if (gap > 0) await sleep(gap);
      const outcome = await attemptOnce(verb, url, headers, payload, key, attempt + 1);
      let retryAfter: number | undefined;
      if ('response' in outcome) {
        lastResponse = outcome.response;
        const h = outcome.response.headers;
        const rateWait = rateLimitWaitSeconds(h['ratelimit-remaining'], h['ratelimit-reset']);
        if (rateWait !== undefined) notBefore = Math.max(notBefore, clock() + rateWait * 1000 * timeScale);
        retryAfter = retryAfterSeconds(h['retry-after'], clock());
      }
      const retryable = 'error' in outcome || isRetryableStatus(outcome.response.status);
      if (!retryable || !mayRetry || attempt + 1 >= maxAttempts) {
        if ('error' in outcome) {
          throw new ClientNetworkError(
            `${verb} ${url.href} failed after ${attempt + 1} attempt(s): ${describe(outcome.error)}`,
            attempt + 1,
            outcome.error,
            lastResponse,
          );
        }
        if (options.throwOnProblem && outcome.response.problem) throw outcome.response.problem;
        return outcome.response as ClientResponse<T>;
      }
      await waitSeconds(retryAfter ?? backoffSeconds(attempt, random));
    }
  };

  const client: Client = {
    request: (method, path, request = {}) => send(method, resolvePath(path), request),
    get: (path, request = {}) => send('GET', resolvePath(path), request),
    post: (path, body, request = {}) => send('POST', resolvePath(path), { ...request, body }),
    put: (path, body, request = {}) => send('PUT', resolvePath(path), { ...request, body }),
    delete: (path, request = {}) => send('DELETE', resolvePath(path), request),
    follow: (resource, rel, body, request = {}) => {
      const link = findLink(resource, rel);
      return send(link.method ?? 'GET', new URL(link.href, base), body === undefined ? request : { ...request, body });
    },
  };
  return client;
}
