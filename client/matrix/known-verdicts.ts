/**
 * The expected outcome of every client requirement for every client of the matrix, each with the
 * library behaviour (documentation or source, as installed) that makes it so. The matrix test
 * (client/tests/clients-matrix.spec.ts) fails when a run differs: either the harness changed how it
 * judges, or a library changed. Known failures are data with their reason and their fix.
 */
import type { Outcome } from '../../spec/results.ts';

export interface KnownVerdict {
  outcome: Outcome;
  /** Why, citing the library's documentation or source. */
  why: string;
  /** For a failure or warning: the configuration that fixes it, or why none can. */
  fix?: string;
}

type Verdicts = Record<string, KnownVerdict>;

const pass = (why: string): KnownVerdict => ({ outcome: 'passed', why });

/** What every adapter of fixtures/clients/libraries/ provides itself (protocol.mjs), whatever the library. */
const ADAPTER: Verdicts = {
  'CLIENT-BEARER-EVERY-REQUEST': pass('the adapter passes Authorization as a request header, which each library re-sends on every retry'),
  'CLIENT-IDEMPOTENCY-KEY-PER-OPERATION': pass('added by the adapter (protocol.mjs): one randomUUID per logical POST; no library here makes keys'),
  'CLIENT-IDEMPOTENCY-KEY-STABLE': pass('the key is a request header set once before the library\'s retry loop, so every retry re-sends it'),
  'CLIENT-LINKS-FOLLOWED': pass('added by the adapter (protocol.mjs): it reads _links[rel].href and .method; no library here reads links'),
  'CLIENT-IGNORE-UNKNOWN-MEMBERS': pass('the libraries return the body as text or parsed JSON without a schema'),
  'CLIENT-NO-RETRY-400-422': pass('400 and 422 are not in the configured retry status codes'),
  'CLIENT-NO-RETRY-OTHER-4XX': pass('404 and 409 are not in the configured retry status codes'),
  'CLIENT-ATTEMPT-CAP': pass('the configured retry limit (4 retries) stops the library'),
  'CLIENT-ATTEMPTS-REFERENCE': pass('4 retries after the first attempt: 5 attempts'),
  'CLIENT-SURFACE-LAST-RESPONSE': pass('after the last attempt the library hands over the last response (the adapter unwraps the HTTP error that carries it)'),
};

const NO_RATELIMIT_RESET = 'Without Retry-After it waits its backoff (1 s) and never reads RateLimit-Reset.';

export const KNOWN_VERDICTS: Record<string, Verdicts> = {
  reference: {
    ...Object.fromEntries(
      [
        'CLIENT-BEARER-EVERY-REQUEST', 'CLIENT-RETRY-RETRYABLE', 'CLIENT-NO-RETRY-400-422', 'CLIENT-NO-RETRY-OTHER-4XX', 'CLIENT-ATTEMPT-CAP',
        'CLIENT-ATTEMPTS-REFERENCE', 'CLIENT-TIMEOUT', 'CLIENT-TIMEOUT-REFERENCE', 'CLIENT-SURFACE-LAST-RESPONSE', 'CLIENT-RETRY-AFTER',
        'CLIENT-BACKOFF-EXPONENTIAL', 'CLIENT-BACKOFF-JITTER', 'CLIENT-RATELIMIT-REMAINING-WAIT', 'CLIENT-IDEMPOTENCY-KEY-PER-OPERATION',
        'CLIENT-IDEMPOTENCY-KEY-STABLE', 'CLIENT-LINKS-FOLLOWED', 'CLIENT-IGNORE-UNKNOWN-MEMBERS',
      ].map((id) => [id, pass('the reference client implements every rule (client/README.md), at time scale 1 here')]),
    ),
  },
  ky: {
    ...ADAPTER,
    'CLIENT-RETRY-RETRYABLE': pass(
      'retry.statusCodes [429, 500, 502, 503, 504]; network errors are retried (Ky.js #calculateRetryDelay falls through to #calculateDelay for ' +
      'non-HTTP errors)',
    ),
    'CLIENT-TIMEOUT': pass('`timeout` arms one timer per fetch (utils/timeout.js); retry.retryOnTimeout: true retries it'),
    'CLIENT-TIMEOUT-REFERENCE': pass('timeout: 5000 on a plain setTimeout'),
    'CLIENT-RETRY-AFTER': pass(
      'for retry.afterStatusCodes it waits Number(Retry-After) × 1000 or Date.parse(date) − now, and adds no jitter ("Don\'t apply jitter when ' +
      'server provides explicit retry timing", Ky.js)',
    ),
    'CLIENT-BACKOFF-EXPONENTIAL': pass('retry.delay: n => 1000 × 2^(n−1) (attemptCount starts at 1)'),
    'CLIENT-BACKOFF-JITTER': pass("retry.jitter: d => d + random × 1000, ky's documented jitter hook"),
    'CLIENT-RATELIMIT-REMAINING-WAIT': pass(
      'without Retry-After ky reads RateLimit-Reset as the wait of a 429 (Ky.js: Retry-After ?? RateLimit-Reset ?? X-RateLimit-Reset …)',
    ),
  },
  got: {
    ...ADAPTER,
    'CLIENT-RETRY-RETRYABLE': pass('retry.statusCodes [429, 500, 502, 503, 504]; errorCodes default holds ECONNRESET and ETIMEDOUT (documentation/7-retry.md)'),
    'CLIENT-TIMEOUT': pass('timeout.request: 5000 per attempt; its ETIMEDOUT is in retry.errorCodes'),
    'CLIENT-TIMEOUT-REFERENCE': pass('timeout.request: 5000'),
    'CLIENT-RETRY-AFTER': pass('calculate-retry-delay.js returns retryAfter (seconds × 1000, or the date − now) when the response has it'),
    'CLIENT-BACKOFF-EXPONENTIAL': pass('calculate-retry-delay.js: 2^(attemptCount−1) × 1000 + noise'),
    'CLIENT-BACKOFF-JITTER': {
      outcome: 'failed',
      why: 'got\'s jitter is `retry.noise`: random × noise with noise at most 100 ms ("The maximum acceptable retry noise is +/- 100ms", ' +
        'options.js), so its jitters spread over a tenth of [0, 1) s (standard deviation ≈ 0.03 s)',
      fix: 'configuration: `retry.calculateDelay: ({ computedValue, retryAfter }) => computedValue && !retryAfter ? computedValue + Math.random() * ' +
        '1000 : computedValue` (got caps `noise` itself at 100 ms).',
    },
    'CLIENT-RATELIMIT-REMAINING-WAIT': {
      outcome: 'failed',
      why: NO_RATELIMIT_RESET + ' got reads only Retry-After (core/index.js).',
      fix: "configuration: a `retry.calculateDelay` that returns Number(error.response.headers['ratelimit-reset']) × 1000 when RateLimit-Remaining is 0.",
    },
  },
  'axios + axios-retry': {
    ...ADAPTER,
    'CLIENT-RETRY-RETRYABLE': pass('retryCondition: isNetworkOrIdempotentRequestError (429, 5xx, network errors of idempotent requests) plus a keyed POST'),
    'CLIENT-TIMEOUT': {
      outcome: 'failed',
      why: 'axios abandons the attempt at 5 s (timeout: 5000, shouldResetTimeout) but axios-retry never retries a timeout: isRetryableError and ' +
        'isNetworkError exclude ECONNABORTED (dist/esm/index.js)',
      fix: "configuration: `retryCondition: (e) => e.code === 'ECONNABORTED' || isNetworkOrIdempotentRequestError(e)`.",
    },
    'CLIENT-TIMEOUT-REFERENCE': pass('timeout: 5000 with shouldResetTimeout: true, so 5 s per attempt'),
    'CLIENT-RETRY-AFTER': {
      outcome: 'failed',
      why: 'exponentialDelay waits max(its backoff, Retry-After) plus 0-20 %: asked for 1 s before its third attempt it waits 2-2.4 s ' +
        '(dist/esm/index.js; README: "whichever is larger")',
      fix: 'configuration: `retryDelay: (n, e) => axiosRetry.retryAfter(e) || exponentialDelay(n, e, 500)`.',
    },
    'CLIENT-BACKOFF-EXPONENTIAL': pass('exponentialDelay(n, error, 500): 2^n × 500 ms = 1 s, 2 s, 4 s, 8 s'),
    'CLIENT-BACKOFF-JITTER': {
      outcome: 'failed',
      why: 'exponentialDelay adds 0-20 % of the delay ("0-20% of the delay", dist/esm/index.js): up to 1.6 s on the 8 s wait; 17 such waits per run ' +
        'exceed 1 s (+ the 250 ms tolerance) at least once with probability 1 − 0.78^17 ≈ 98.5 %',
      fix: 'configuration: `retryDelay: (n) => 1000 * 2 ** (n - 1) + Math.random() * 1000`.',
    },
    'CLIENT-RATELIMIT-REMAINING-WAIT': {
      outcome: 'failed',
      why: NO_RATELIMIT_RESET + ' axios-retry reads only Retry-After (retryAfter(), dist/esm/index.js).',
      fix: 'configuration: a retryDelay that returns the RateLimit-Reset seconds × 1000 when RateLimit-Remaining is 0.',
    },
  },
  'undici RetryAgent': {
    ...ADAPTER,
    'CLIENT-RETRY-RETRYABLE': pass(
      'statusCodes [429, 500, 502, 503, 504]; errorCodes hold ECONNRESET, UND_ERR_SOCKET and (added) its timeouts (lib/handler/retry-handler.js)',
    ),
    'CLIENT-TIMEOUT': pass('Agent headersTimeout: 5000; UND_ERR_HEADERS_TIMEOUT added to errorCodes, so the timeout is retried'),
    'CLIENT-TIMEOUT-REFERENCE': pass(
      'headersTimeout: 5000 on undici\'s 500 ms tick (lib/util/timers.js: "an accuracy target of within 500ms"): it fires at 5.0-5.5 s, inside the ' +
      'bound with the coarse-timer allowance',
    ),
    'CLIENT-RETRY-AFTER': pass('the default retry function waits the Retry-After seconds × 1000 (or the date − now), capped by maxTimeout 30 s'),
    'CLIENT-BACKOFF-EXPONENTIAL': pass('minTimeout × timeoutFactor^(counter−1) = 1 s, 2 s, 4 s, 8 s'),
    'CLIENT-SURFACE-LAST-RESPONSE': pass('throwOnError: false passes the last response on (docs/api/RetryHandler.md: "useful if you need the body on errors")'),
    'CLIENT-BACKOFF-JITTER': {
      outcome: 'failed',
      why: "RetryHandler's default retry function has no jitter: setTimeout(cb, min(minTimeout × timeoutFactor^(counter−1), maxTimeout)) " +
        "(lib/handler/retry-handler.js)",
      fix: 'configuration: a custom `retry` function that adds Math.random() * 1000 to the backoff.',
    },
    'CLIENT-RATELIMIT-REMAINING-WAIT': {
      outcome: 'failed',
      why: NO_RATELIMIT_RESET + ' RetryHandler reads only retry-after.',
      fix: 'configuration: a custom `retry` function that waits RateLimit-Reset when RateLimit-Remaining is 0.',
    },
  },
  'fetch + p-retry': {
    ...ADAPTER,
    'CLIENT-RETRY-RETRYABLE': pass(
      'the adapter throws for 429 and 5xx; p-retry retries every error except a TypeError that is not a network error (index.js, is-network-error)',
    ),
    'CLIENT-TIMEOUT': pass('AbortSignal.timeout(5000) per attempt; its TimeoutError is retried'),
    'CLIENT-TIMEOUT-REFERENCE': pass('AbortSignal.timeout(5000), a plain Node timer'),
    'CLIENT-BACKOFF-EXPONENTIAL': pass('minTimeout × factor^n × random in [1, 2): each wait stays within its 2^k step'),
    'CLIENT-SURFACE-LAST-RESPONSE': pass('the adapter keeps the last response on the error p-retry rethrows'),
    'CLIENT-RETRY-AFTER': {
      outcome: 'failed',
      why: 'p-retry knows nothing of HTTP: it waits its own backoff (1-2 s) when the server asks for 3-5 s',
      fix: 'configuration: an `onFailedAttempt` that awaits the Retry-After seconds (p-retry has no per-attempt delay option); plain p-retry cannot.',
    },
    'CLIENT-BACKOFF-JITTER': {
      outcome: 'failed',
      why: 'randomize multiplies the delay by a random factor in [1, 2) (index.js: `options.randomize ? (Math.random() + 1) : 1`): jitters up to 2^k s',
      fix: 'configuration: randomize: false and an added Math.random() * 1000 wait in onFailedAttempt; p-retry has no additive jitter.',
    },
    'CLIENT-RATELIMIT-REMAINING-WAIT': {
      outcome: 'failed',
      why: 'p-retry knows nothing of HTTP: it waits its own backoff instead of RateLimit-Reset',
      fix: 'configuration: an onFailedAttempt that awaits RateLimit-Reset when RateLimit-Remaining is 0.',
    },
  },
  fetch: {
    'CLIENT-BEARER-EVERY-REQUEST': pass('the adapter sets Authorization on its one request'),
    'CLIENT-RETRY-RETRYABLE': {
      outcome: 'failed',
      why: 'fetch makes one request and never retries',
      fix: 'the platform fetch cannot: wrap it in a retry library (see fetch + p-retry).',
    },
    'CLIENT-NO-RETRY-400-422': pass('it never retries'),
    'CLIENT-NO-RETRY-OTHER-4XX': pass('it never retries'),
    'CLIENT-ATTEMPT-CAP': pass('it stops after one attempt: a cap of 1'),
    'CLIENT-ATTEMPTS-REFERENCE': { outcome: 'warning', why: "1 attempt, not the reference client's 5", fix: 'the platform fetch cannot retry: wrap it.' },
    'CLIENT-TIMEOUT': skipWhy('it does not retry the 503 before the slow attempt, so no timeout can be observed'),
    'CLIENT-TIMEOUT-REFERENCE': skipWhy('no slow attempt, no timeout to measure'),
    'CLIENT-SURFACE-LAST-RESPONSE': pass('fetch resolves every status with the response'),
    'CLIENT-RETRY-AFTER': skipWhy('it never retries, so no wait can be measured'),
    'CLIENT-BACKOFF-EXPONENTIAL': skipWhy('it never retries'),
    'CLIENT-BACKOFF-JITTER': skipWhy('it never retries'),
    'CLIENT-RATELIMIT-REMAINING-WAIT': skipWhy('it never retries'),
    'CLIENT-IDEMPOTENCY-KEY-PER-OPERATION': {
      outcome: 'failed',
      why: 'plain fetch sends no Idempotency-Key',
      fix: 'the platform fetch cannot: the caller must add a key per operation.',
    },
    'CLIENT-IDEMPOTENCY-KEY-STABLE': skipWhy('it never retries a POST'),
    'CLIENT-LINKS-FOLLOWED': pass('the adapter reads _links[rel] itself'),
    'CLIENT-IGNORE-UNKNOWN-MEMBERS': pass('JSON.parse keeps every member'),
  },
};

function skipWhy(why: string): KnownVerdict {
  return { outcome: 'skipped', why };
}
