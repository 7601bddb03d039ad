/**
 * The client retry rules of the conventions document (section 7 "Client retry rules" and
 * section 8 "Client behaviour"), as pure functions of a response, the attempt number and a clock.
 */

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/** True for methods that may be repeated safely without an Idempotency-Key (RFC 9110 §9.2.2). */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/**
 * CLIENT-RETRY-RETRYABLE, CLIENT-NO-RETRY-400-422, CLIENT-NO-RETRY-OTHER-4XX: only 429 and 5xx
 * statuses are retried; every other status is final.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * CLIENT-RETRY-AFTER: the `Retry-After` header (RFC 9110 §10.2.3) in seconds, from delta-seconds
 * or an HTTP-date compared with `nowMs`. Undefined when absent or unparseable; never negative.
 */
export function retryAfterSeconds(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - nowMs) / 1000);
}

/**
 * CLIENT-BACKOFF-EXPONENTIAL and CLIENT-BACKOFF-JITTER: 2^attempt seconds (attempt counted from 0)
 * plus a jitter in [0, 1) second drawn from `random`.
 */
export function backoffSeconds(attempt: number, random: () => number): number {
  const jitter = Math.min(Math.max(random(), 0), 0.999_999);
  return 2 ** attempt + jitter;
}

/**
 * CLIENT-RATELIMIT-REMAINING-WAIT: when `RateLimit-Remaining` is 0, the seconds given by
 * `RateLimit-Reset` (delta-seconds, draft-ietf-httpapi-ratelimit-headers) to wait before the next
 * request; undefined otherwise.
 */
export function rateLimitWaitSeconds(remaining: string | null | undefined, reset: string | null | undefined): number | undefined {
  if (remaining === null || remaining === undefined || remaining.trim() !== '0') return undefined;
  const text = (reset ?? '').trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}
