/**
 * Scenarios of retryable failures: 429 with Retry-After (delta and HTTP-date), 429 with
 * RateLimit-Remaining 0, 503 then success, 500 on every attempt, a reset connection, a response
 * slower than the timeout, and mixed failures then success.
 */
import type { AttemptRecord } from './scripted-server.ts';
import { ID } from './requirements.ts';
import { backoffOf } from './backoff.ts';
import { attemptSummary, fail, lowerBound, ms, problemBody, skip, surfacedStatus, upperBound, verdict, waitAfter } from './scenario-kit.ts';
import type { Check, JudgeContext, Scenario, ScenarioRun, Verdict } from './scenario-kit.ts';

const GET_RESOURCE = { kind: 'request', method: 'GET', path: '/resource' } as const;
const OK = { kind: 'respond', status: 200, body: { id: 1, name: 'resource' } } as const;

/** Reference values of the conventions document, section 7. */
export const REFERENCE_MAX_ATTEMPTS = 5;
export const REFERENCE_TIMEOUT_SECONDS = 5;

/** RETRY-RETRYABLE: the client retried `what` and surfaced the final success after exactly `attempts` attempts. */
function retriedToSuccess(run: ScenarioRun, what: string, attempts: number): Check {
  const title = `${run.scenario}: ${what} is retried until the success`;
  const ok = run.attempts.length === attempts && run.adapter.output?.status === 200;
  return verdict(ID.retryable, title, ok, `attempts: ${attemptSummary(run.attempts)} (expected ${attempts}); surfaced ${surfacedStatus(run)}`);
}

/** A minimum first wait (Retry-After, RateLimit-Reset): skipped when the client did not retry. */
function minimumWait(run: ScenarioRun, ctx: JudgeContext, id: string, title: string, seconds: number): Check {
  const wait = waitAfter(run.attempts, 0);
  if (wait === undefined) return skip(id, title, `the client did not retry (attempts: ${attemptSummary(run.attempts)})`);
  const expected = seconds * ctx.msPerSecond;
  return verdict(id, title, wait >= lowerBound(expected, ctx.tolerance), `waited ${ms(wait)}, expected at least ${ms(expected)} (${seconds.toFixed(2)} s scaled)`);
}

function retryAfterDelta(): Scenario {
  const seconds = 3;
  return {
    name: 'retry-after-delta',
    description: `429 with Retry-After: ${seconds} (delta-seconds), then 200`,
    operation: GET_RESOURCE,
    firstWaitSeconds: [seconds, seconds + 1],
    budgetSeconds: 20,
    script: (a) => (a.index === 0 ? { kind: 'respond', status: 429, headers: { 'retry-after': String(seconds) }, body: problemBody(429, 'Too Many Requests', a.path) } : OK),
    judge: (run, ctx): Verdict => ({
      checks: [
        retriedToSuccess(run, 'a 429', 2),
        minimumWait(run, ctx, ID.retryAfter, `${run.scenario}: the client waits Retry-After (${seconds} s) before retrying`, seconds),
      ],
    }),
  };
}

function retryAfterDate(): Scenario {
  return {
    name: 'retry-after-date',
    description: '503 with Retry-After as an HTTP-date about 4 s ahead, then 200',
    operation: GET_RESOURCE,
    firstWaitSeconds: [4, 6],
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
          retriedToSuccess(run, 'a 503', 2),
          minimumWait(run, ctx, ID.retryAfter, `${run.scenario}: the client waits until the Retry-After HTTP-date before retrying`, seconds),
        ],
      };
    },
  };
}

function rateLimitRemainingZero(): Scenario {
  const reset = 4;
  return {
    name: 'ratelimit-remaining-zero',
    description: `429 with RateLimit-Remaining: 0 and RateLimit-Reset: ${reset}, no Retry-After, then 200`,
    operation: GET_RESOURCE,
    firstWaitSeconds: [reset, reset + 1],
    budgetSeconds: 20,
    script: (a) =>
      a.index === 0
        ? { kind: 'respond', status: 429, headers: { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset) }, body: problemBody(429, 'Too Many Requests', a.path) }
        : OK,
    judge: (run, ctx): Verdict => ({
      checks: [
        retriedToSuccess(run, 'a 429 without Retry-After', 2),
        minimumWait(run, ctx, ID.rateLimitWait, `${run.scenario}: the client waits RateLimit-Reset (${reset} s) before the next request`, reset),
      ],
    }),
  };
}

function failuresThenSuccess(name: string, description: string, statuses: number[], operation: Scenario['operation'] = GET_RESOURCE): Scenario {
  return {
    name,
    description,
    operation,
    firstWaitSeconds: [1, 2],
    budgetSeconds: 2 ** (statuses.length + 1) + 10,
    script: (a) => {
      const status = statuses[a.index];
      return status === undefined ? OK : { kind: 'respond', status, body: problemBody(status, `Status ${status}`, a.path) };
    },
    judge: (run, ctx): Verdict => {
      const { check, jitter } = backoffOf(run, ctx);
      return { checks: [retriedToSuccess(run, statuses.join(', '), statuses.length + 1), check], jitter };
    },
  };
}

function alwaysFailing(): Scenario {
  return {
    name: '500-always',
    description: '500 on every attempt, each naming its attempt number (X-Hac-Attempt and detail)',
    operation: GET_RESOURCE,
    firstWaitSeconds: [1, 2],
    budgetSeconds: 60,
    script: (a) => ({
      kind: 'respond',
      status: 500,
      headers: { 'x-hac-attempt': String(a.index + 1) },
      body: problemBody(500, 'Internal Server Error', a.path, { type: 'https://http-api-conformance.dev/problems/scripted-failure', detail: `attempt ${a.index + 1} failed` }),
    }),
    judge: (run, ctx): Verdict => {
      const n = run.attempts.length;
      const out = run.adapter.output;
      const checks: Check[] = [
        verdict(ID.attemptCap, `${run.scenario}: the client stops after exactly ${REFERENCE_MAX_ATTEMPTS} attempts`, n === REFERENCE_MAX_ATTEMPTS && !run.adapter.killed, `${n} attempts${run.adapter.killed ? ' (still retrying when stopped)' : ''}`),
        verdict(ID.retryable, `${run.scenario}: a 500 is retried`, n >= 2, `attempts: ${attemptSummary(run.attempts)}`),
      ];
      const surfaceTitle = `${run.scenario}: after the cap the last response (status, headers, problem) is surfaced`;
      if (run.adapter.killed) {
        checks.push(skip(ID.surface, surfaceTitle, 'the client never stopped retrying'));
      } else {
        const ok = out?.status === 500 && out.headers['x-hac-attempt'] === String(n) && out.problem?.detail === `attempt ${n} failed` && out.problem.type === 'https://http-api-conformance.dev/problems/scripted-failure';
        checks.push(verdict(ID.surface, surfaceTitle, ok, `surfaced ${surfacedStatus(run)}, X-Hac-Attempt ${out?.headers['x-hac-attempt'] ?? 'absent'}, problem detail ${JSON.stringify(out?.problem?.detail ?? null)}; expected the attempt ${n} response`));
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
    firstWaitSeconds: [1, 2],
    budgetSeconds: 20,
    script: (a) => (a.index < 2 ? { kind: 'reset' } : OK),
    judge: (run, ctx): Verdict => {
      const { check, jitter } = backoffOf(run, ctx);
      return { checks: [retriedToSuccess(run, 'a reset connection', 3), check], jitter };
    },
  };
}

function slowResponse(scale: number): Scenario {
  const slowSeconds = REFERENCE_TIMEOUT_SECONDS * 3;
  return {
    name: 'slow-response',
    description: `503, then a response that takes ${slowSeconds} s (beyond the ${REFERENCE_TIMEOUT_SECONDS} s timeout), then 200 at once`,
    operation: GET_RESOURCE,
    firstWaitSeconds: [1, 2],
    budgetSeconds: slowSeconds + 20,
    // The 503 comes first so that the timed attempt is not the process's first request, whose
    // timer also covers connection setup and the fetch implementation's start-up.
    script: (a) => {
      if (a.index === 0) return { kind: 'respond', status: 503, body: problemBody(503, 'Service Unavailable', a.path) };
      return a.index === 1 ? { ...OK, delayMs: slowSeconds * 1000 * scale } : OK;
    },
    judge: (run, ctx): Verdict => {
      const slow: AttemptRecord | undefined = run.attempts[1];
      const title = `${run.scenario}: the client gives up after about ${REFERENCE_TIMEOUT_SECONDS} s and retries`;
      if (!slow) return { checks: [fail(ID.timeout, title, `the slow attempt never came (attempts: ${attemptSummary(run.attempts)})`)] };
      const held = slow.endedAt === undefined ? undefined : slow.endedAt - slow.arrivedAt;
      const expected = REFERENCE_TIMEOUT_SECONDS * ctx.msPerSecond;
      // The client's timer starts before its request reaches the server: allow 10 % below.
      const inWindow = slow.outcome === 'abandoned' && held !== undefined && held >= lowerBound(expected * 0.9, ctx.tolerance) && held < upperBound(expected, ctx.tolerance);
      const ok = inWindow && run.attempts.length === 3 && run.adapter.output?.status === 200;
      const detail = `slow attempt ${slow.outcome} after ${ms(held)} (expected about ${ms(expected)}); attempts: ${attemptSummary(run.attempts)}; surfaced ${surfacedStatus(run)}`;
      const { check, jitter } = backoffOf(run, ctx);
      return { checks: [verdict(ID.timeout, title, ok, detail), check], jitter };
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
    failuresThenSuccess('put-503-twice', 'PUT (idempotent, no key needed): 503 twice, then 200', [503, 503], { kind: 'request', method: 'PUT', path: '/resource', body: { name: 'renamed' } }),
  ];
}
