/**
 * Scenarios of retryable failures: 429 with Retry-After (delta and HTTP-date), 429 with
 * RateLimit-Remaining 0, 503 then success, 500 on every attempt, a reset connection, a response
 * slower than the timeout, and mixed failures then success.
 */
import type { AttemptRecord } from './scripted-server.ts';
import { ID } from './requirements.ts';
import { backoffOf } from './backoff.ts';
import {
  arrivalOf,
  attemptSummary,
  boundedWait,
  COARSE_TIMER_MS,
  endOf,
  latenessAfter,
  latenessOver,
  latenessAt,
  lowerBound,
  ms,
  problemBody,
  skip,
  surfacedStatus,
  upperBound,
  verdict,
  waitAfter,
  waitVerdict,
} from './scenario-kit.ts';
import type { Check, JudgeContext, Scenario, ScenarioRun, Verdict } from './scenario-kit.ts';

const GET_RESOURCE = { kind: 'request', method: 'GET', path: '/resource' } as const;
const OK = { kind: 'respond', status: 200, body: { id: 1, name: 'resource' } } as const;

/** Reference values of the conventions document, section 7. */
export const REFERENCE_MAX_ATTEMPTS = 5;
export const REFERENCE_TIMEOUT_SECONDS = 5;

/**
 * RETRY-RETRYABLE: the client retried `what` until the success after `attempts` attempts, or it
 * stopped earlier at its own cap, surfacing the last response (the cap's value is
 * CLIENT-ATTEMPTS-REFERENCE, judged on its own). The cap is the one the same certification measured
 * (`ctx.attemptCap`, from 500-always): a client that stops short of it stopped because it does not
 * retry that answer. Without a measured cap, any stop after a retry counts as the cap.
 */
function retriedToSuccess(run: ScenarioRun, ctx: JudgeContext, what: string, attempts: number): Check {
  const title = `${run.scenario}: ${what} is retried until the success`;
  const n = run.attempts.length;
  const last = run.attempts.at(-1);
  const success = n === attempts && run.adapter.output?.status === 200;
  const stoppedOnLast = n < attempts && last?.outcome === 'responded' && run.adapter.output?.status === last.status;
  const cappedEarly = stoppedOnLast && (ctx.attemptCap === undefined ? n >= 2 : n === ctx.attemptCap);
  const cap = ctx.attemptCap === undefined ? '' : `; the client's cap, measured on 500-always, is ${ctx.attemptCap} attempts`;
  const detail = `attempts: ${attemptSummary(run.attempts)} (expected ` +
    `${attempts}${cappedEarly ? `, or fewer at the client's cap: it stopped after ${n}` : ''}${cap}); surfaced ${surfacedStatus(run)}`;
  return verdict(ID.retryable, title, success || cappedEarly, detail);
}

/**
 * A wait the server asked for (Retry-After, RateLimit-Reset) of `seconds` before attempt `k + 1`:
 * at least that long, and less than 1 s more (D-CLIENT-TIMING: "wait that many seconds"; the 1 s is
 * the document's jitter bound, so a client may add its backoff jitter but not its own backoff).
 * Both bounds are the document's, widened only by the measuring tolerance. Skipped when the client
 * did not retry that far.
 */
function askedWait(run: ScenarioRun, ctx: JudgeContext, id: string, title: string, k: number, seconds: number): Check {
  const wait = waitAfter(run.attempts, k);
  if (wait === undefined) return skip(id, title, `the client did not retry after attempt ${k + 1} (attempts: ${attemptSummary(run.attempts)})`);
  const expected = seconds * ctx.msPerSecond;
  const low = lowerBound(expected, ctx.tolerance);
  const high = upperBound(expected + ctx.msPerSecond, ctx.tolerance, k === 0);
  const judged = boundedWait(wait, low, high, latenessAfter(run.attempts, k, ctx), ctx.tolerance, latenessAt(run.attempts[k]?.endedAt, ctx));
  const detail = `waited ${ms(wait)} after attempt ${k + 1}, expected [${ms(expected)}, ${ms(expected + ctx.msPerSecond)}) (${seconds.toFixed(2)} s ` +
    `of the document; ${judged.bounds})`;
  return waitVerdict(id, title, judged, detail);
}

/** A random whole number of seconds in [min, max], so a client's own backoff cannot match the asked wait by design. */
function randomSeconds(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/**
 * Three 429s in a row, the first asking for 3 to 5 s (random), the next two for 1 s, then 200. A
 * client that follows its own backoff instead of Retry-After cannot match all three waits, whatever
 * that backoff (unless it shrinks) and whatever the time scale: a short one misses the first, an
 * exponential one (2 s, 4 s + jitter) the third.
 */
function retryAfterDelta(): Scenario {
  return {
    name: 'retry-after-delta',
    description: '429 with Retry-After: 3 to 5 (delta-seconds, random), then twice 429 with Retry-After: 1, then 200',
    operation: GET_RESOURCE,
    budgetSeconds: 25,
    script: (a) => {
      if (a.index > 2) return OK;
      const seconds = a.index === 0 ? randomSeconds(3, 5) : 1;
      a.notes.retryAfterSeconds = seconds;
      return { kind: 'respond', status: 429, headers: { 'retry-after': String(seconds) }, body: problemBody(429, 'Too Many Requests', a.path) };
    },
    judge: (run, ctx): Verdict => ({
      checks: [
        retriedToSuccess(run, ctx, 'a 429', 4),
        ...[0, 1, 2].map((k) => {
          const seconds = Number(run.attempts[k]?.notes.retryAfterSeconds ?? (k === 0 ? 3 : 1));
          return askedWait(run, ctx, ID.retryAfter, `${run.scenario}: the client waits Retry-After (${seconds} s) after attempt ${k + 1}`, k, seconds);
        }),
      ],
    }),
  };
}

function retryAfterDate(): Scenario {
  return {
    name: 'retry-after-date',
    description: '503 with Retry-After as an HTTP-date about 4 s ahead, then 200',
    operation: GET_RESOURCE,
    budgetSeconds: 20,
    script: (a) => {
      if (a.index > 0) return OK;
      const date = Math.ceil((Date.now() + 4000) / 1000) * 1000;
      a.notes.retryAfterSeconds = (date - Date.now()) / 1000;
      return { kind: 'respond', status: 503, headers: { 'retry-after': new Date(date).toUTCString() }, body: problemBody(503, 'Service Unavailable', a.path) };
    },
    judge: (run, ctx): Verdict => {
      const seconds = Number(run.attempts[0]?.notes.retryAfterSeconds ?? 4);
      return {
        checks: [
          retriedToSuccess(run, ctx, 'a 503', 2),
          askedWait(run, ctx, ID.retryAfter, `${run.scenario}: the client waits until the Retry-After HTTP-date before retrying`, 0, seconds),
        ],
      };
    },
  };
}

/**
 * Two 429s with RateLimit-Remaining: 0 and no Retry-After, then 200: the first with a random
 * RateLimit-Reset of 5 or 6 s, the second with 2 s less. Each reset is longer than the backoff of
 * its retry (1-2 s, then 2-3 s), so a correct client waits the reset: at least that, and less than
 * 1 s more (askedWait). A client that follows its own non-shrinking backoff instead cannot match
 * both waits, whatever that backoff.
 */
function rateLimitRemainingZero(): Scenario {
  return {
    name: 'ratelimit-remaining-zero',
    description: '429 with RateLimit-Remaining: 0 and RateLimit-Reset: 5 or 6 (random), no Retry-After, then the same with a reset 2 s shorter, then 200',
    operation: GET_RESOURCE,
    budgetSeconds: 25,
    script: (a, previous) => {
      if (a.index > 1) return OK;
      const reset = a.index === 0 ? randomSeconds(5, 6) : Number(previous[0]?.notes.resetSeconds ?? 5) - 2;
      a.notes.resetSeconds = reset;
      return {
        kind: 'respond',
        status: 429,
        headers: { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset) },
        body: problemBody(429, 'Too Many Requests', a.path),
      };
    },
    judge: (run, ctx): Verdict => ({
      checks: [
        retriedToSuccess(run, ctx, 'a 429 without Retry-After', 3),
        ...[0, 1].map((k) => {
          const reset = Number(run.attempts[k]?.notes.resetSeconds ?? (k === 0 ? 5 : 3));
          return askedWait(run, ctx, ID.rateLimitWait, `${run.scenario}: the client waits RateLimit-Reset (${reset} s) after attempt ${k + 1}`, k, reset);
        }),
      ],
    }),
  };
}

function failuresThenSuccess(name: string, description: string, statuses: number[], operation: Scenario['operation'] = GET_RESOURCE): Scenario {
  return {
    name,
    description,
    operation,
    budgetSeconds: 2 ** (statuses.length + 1) + 10,
    script: (a) => {
      const status = statuses[a.index];
      return status === undefined ? OK : { kind: 'respond', status, body: problemBody(status, `Status ${status}`, a.path) };
    },
    judge: (run, ctx): Verdict => {
      const { check, jitter } = backoffOf(run, ctx);
      return { checks: [retriedToSuccess(run, ctx, statuses.join(', '), statuses.length + 1), check], jitter };
    },
  };
}

function alwaysFailing(): Scenario {
  return {
    name: '500-always',
    description: '500 on every attempt, each naming its attempt number (X-Hac-Attempt and detail)',
    operation: GET_RESOURCE,
    budgetSeconds: 60,
    script: (a) => ({
      kind: 'respond',
      status: 500,
      headers: { 'x-hac-attempt': String(a.index + 1) },
      body: problemBody(500, 'Internal Server Error', a.path, {
        type: 'https://http-api-conformance.dev/problems/scripted-failure',
        detail: `attempt ${a.index + 1} failed`,
      }),
    }),
    judge: (run, ctx): Verdict => {
      const n = run.attempts.length;
      const out = run.adapter.output;
      const capTitle = `${run.scenario}: the client stops retrying on its own`;
      const referenceTitle = `${run.scenario}: the client makes ${REFERENCE_MAX_ATTEMPTS} attempts, the reference client's cap`;
      const checks: Check[] = [
        verdict(
          ID.attemptCap,
          capTitle,
          !run.adapter.killed,
          run.adapter.killed ? `${n} attempts, still retrying when stopped after ${ms(run.adapter.durationMs)}` : `stopped after ${n} attempt(s)`,
        ),
        run.adapter.killed
          ? skip(ID.attemptsReference, referenceTitle, 'the client never stopped retrying, so it has no cap to compare')
          : verdict(ID.attemptsReference, referenceTitle, n === REFERENCE_MAX_ATTEMPTS, `${n} attempts`),
        verdict(ID.retryable, `${run.scenario}: a 500 is retried`, n >= 2, `attempts: ${attemptSummary(run.attempts)}`),
      ];
      const surfaceTitle = `${run.scenario}: after the cap the last response (status, headers, problem) is surfaced`;
      if (run.adapter.killed) {
        checks.push(skip(ID.surface, surfaceTitle, 'the client never stopped retrying'));
      } else {
        const ok =
          out?.status === 500 &&
          out.headers['x-hac-attempt'] === String(n) &&
          out.problem?.detail === `attempt ${n} failed` &&
          out.problem.type === 'https://http-api-conformance.dev/problems/scripted-failure';
        checks.push(
          verdict(
            ID.surface,
            surfaceTitle,
            ok,
            `surfaced ${surfacedStatus(run)}, X-Hac-Attempt ${out?.headers['x-hac-attempt'] ?? 'absent'}, problem detail ` +
            `${JSON.stringify(out?.problem?.detail ?? null)}; expected the attempt ${n} response`,
          ),
        );
      }
      const { check, jitter } = backoffOf(run, ctx);
      checks.push(check);
      return { checks, jitter };
    },
  };
}

function connectionReset(): Scenario {
  return {
    name: 'connection-reset',
    description: 'the connection is reset (no response) twice, then 200',
    operation: GET_RESOURCE,
    budgetSeconds: 20,
    script: (a) => (a.index < 2 ? { kind: 'reset' } : OK),
    judge: (run, ctx): Verdict => {
      const { check, jitter } = backoffOf(run, ctx);
      return { checks: [retriedToSuccess(run, ctx, 'a reset connection', 3), check], jitter };
    },
  };
}

function slowResponse(scale: number): Scenario {
  const slowSeconds = REFERENCE_TIMEOUT_SECONDS * 3;
  return {
    name: 'slow-response',
    description: `503, then a response that takes ${slowSeconds} s (beyond the ${REFERENCE_TIMEOUT_SECONDS} s timeout), then 200 at once`,
    operation: GET_RESOURCE,
    budgetSeconds: slowSeconds + 20,
    // The 503 comes first so that the timed attempt is not the process's first request, whose
    // timer also covers connection setup and the fetch implementation's start-up.
    script: (a) => {
      if (a.index === 0) return { kind: 'respond', status: 503, body: problemBody(503, 'Service Unavailable', a.path) };
      return a.index === 1 ? { ...OK, delayMs: slowSeconds * 1000 * scale } : OK;
    },
    judge: (run, ctx): Verdict => {
      const slow: AttemptRecord | undefined = run.attempts[1];
      const title = `${run.scenario}: the client abandons an attempt that gets no response and retries it`;
      const referenceTitle = `${run.scenario}: the timeout is ${REFERENCE_TIMEOUT_SECONDS} s, the reference client's value`;
      const { check, jitter } = backoffOf(run, ctx);
      if (!slow) {
        const why = `the slow attempt never came (attempts: ${attemptSummary(run.attempts)})`;
        return { checks: [skip(ID.timeout, title, why), skip(ID.timeoutReference, referenceTitle, why), check], jitter };
      }
      const held = slow.endedAt === undefined ? undefined : slow.endedAt - slow.arrivedAt;
      const abandoned = slow.outcome === 'abandoned';
      const retried = run.attempts.length >= 3 && run.adapter.output?.status === 200;
      const detail = `slow attempt ${slow.outcome} after ${ms(held)} (the server would have answered after ${ms(slowSeconds * ctx.msPerSecond)}); ` +
        `attempts: ${attemptSummary(run.attempts)}; surfaced ${surfacedStatus(run)}`;
      const checks: Check[] = [verdict(ID.timeout, title, abandoned && retried, detail)];
      if (!abandoned || held === undefined) {
        checks.push(skip(ID.timeoutReference, referenceTitle, `no timeout fired: ${detail}`));
      } else {
        const expected = REFERENCE_TIMEOUT_SECONDS * ctx.msPerSecond;
        // Lower: the client's timer starts before its request reaches the server, so up to 10 % of
        // the timeout may pass before the arrival we measure. Upper: the document's 5 s, plus the
        // measuring tolerance and the granularity of a coarse timer (COARSE_TIMER_MS).
        const low = lowerBound(expected * 0.9, ctx.tolerance);
        const high = upperBound(expected, ctx.tolerance) + COARSE_TIMER_MS;
        // The client's timer starts before the slow attempt arrives and fires when it is abandoned.
        const late = latenessOver(arrivalOf(slow), endOf(slow), ctx);
        const judged = boundedWait(held, low, high, late, ctx.tolerance, latenessAt(slow.arrivedAt, ctx));
        checks.push(waitVerdict(ID.timeoutReference, referenceTitle, judged, `abandoned after ${ms(held)}, expected ${ms(expected)} (${judged.bounds})`));
      }
      checks.push(check);
      return { checks, jitter };
    },
  };
}

/**
 * More runs of five attempts, judged only on their backoff: each yields one wait after attempt 4
 * (8 s + jitter), where a jitter that grows with the wait (0-20 % of it, as axios-retry's) first
 * exceeds 1 s, and then only in some runs (about 22 % each for axios-retry: 1.6 s × r above 1 s +
 * the 250 ms tolerance). With 500-always that makes BACKOFF_SAMPLES + 1 such waits per
 * certification, so a verdict on the jitter's range does not flip between runs (0.78^17 ≈ 1.5 %).
 * Played at time scale 1 only (see retryScenarios).
 */
export const BACKOFF_SAMPLES = 16;

function backoffSample(i: number): Scenario {
  return {
    name: `backoff-sample-${i}`,
    description: '503 four times, then 200; only the waits are judged',
    operation: GET_RESOURCE,
    budgetSeconds: 36,
    script: (a) => (a.index < 4 ? { kind: 'respond', status: 503, body: problemBody(503, 'Service Unavailable', a.path) } : OK),
    judge: (run, ctx): Verdict => {
      const { check, jitter } = backoffOf(run, ctx);
      return { checks: [check], jitter };
    },
  };
}

/** The retry scenarios, in the order they run; `scale` is the time scale the client is run with. */
export function retryScenarios(scale: number): Scenario[] {
  return [
    retryAfterDelta(),
    retryAfterDate(),
    rateLimitRemainingZero(),
    failuresThenSuccess('503-then-success', '503 three times, then 200', [503, 503, 503]),
    alwaysFailing(),
    connectionReset(),
    slowResponse(scale),
    failuresThenSuccess('mixed-failures-then-success', '502, 429 without headers, 504, then 200', [502, 429, 504]),
    // Each retryable answer is the first answer of some scenario, where not retrying it shows: 429
    // (retry-after-delta), 500 (500-always), 502 (mixed-failures-then-success), 503 (503-then-success),
    // a reset connection (connection-reset), and 504 here.
    failuresThenSuccess('504-then-success', '504, then 200', [504]),
    failuresThenSuccess('put-503-twice', 'PUT (idempotent, no key needed): 503 twice, then 200', [503, 503], {
      kind: 'request',
      method: 'PUT',
      path: '/resource',
      body: { name: 'renamed' },
    }),
    // Only in real time: below it the measuring allowance (250 ms) is a whole second of the
    // document or more, so no extra sample could show a jitter above 1 s.
    ...(scale >= 1 ? Array.from({ length: BACKOFF_SAMPLES }, (_, i) => backoffSample(i + 1)) : []),
  ];
}
