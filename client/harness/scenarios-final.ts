/**
 * Scenarios whose first answer is final: 400, 422 (with an `errors` list), 404 and 409. The client
 * must not retry and must surface the response with its parsed problem.
 */
import { ID } from './requirements.ts';
import { PROBLEM_TYPE_BASE } from '../../spec/problem-types.ts';
import { arrivalOf, attemptSummary, endOf, inconclusive, keyPresent, latenessOver, ms, problemBody, surfacedStatus, verdict } from './scenario-kit.ts';
import type { Check, JudgeContext, Scenario, ScenarioRun, Verdict } from './scenario-kit.ts';

const VALIDATION_ERRORS = [
  { field: 'amount', message: 'must be an integer amount in minor units' },
  { field: 'currency', message: 'must be a lowercase currency code' },
];

/**
 * The final answer is not retried. D-CLIENT-TIMING: a second attempt after a stall of the machine
 * (timer lateness beyond the tolerance between the answer and the retry) may be the client's timeout
 * firing before its stalled loop read the answer, a retry the document allows: inconclusive, played
 * again, never passed.
 */
function singleAttempt(run: ScenarioRun, id: string, status: number, ctx: JudgeContext): Check {
  const title = `${run.scenario}: a ${status} is not retried`;
  const detail = `attempts: ${attemptSummary(run.attempts)}`;
  const [first, second] = run.attempts;
  const late = latenessOver(endOf(first), arrivalOf(second), ctx);
  if (second !== undefined && late > ctx.tolerance.lateMs) {
    return inconclusive(id, title, `${detail} (${ms(late)} of lateness between the answer and the retry (harness timers, client CPU wait))`);
  }
  return verdict(id, title, run.attempts.length === 1, detail);
}

function finalScenario(name: string, status: number, title: string, operation: Scenario['operation'], extra: Record<string, unknown>, id: string): Scenario {
  return {
    name,
    description: `${status} ${title} on the first attempt`,
    operation,
    budgetSeconds: 20,
    script: (a) => ({ kind: 'respond', status, body: problemBody(status, title, a.path, extra) }),
    judge: (run, ctx): Verdict => {
      const out = run.adapter.output;
      const surfaced = out?.status === status && out.problem?.title === title && out.problem.status === status;
      const checks: Check[] = [
        singleAttempt(run, id, status, ctx),
        verdict(
          ID.surface,
          `${run.scenario}: the ${status} response and its problem are surfaced`,
          surfaced,
          `surfaced ${surfacedStatus(run)}, problem title ${JSON.stringify(out?.problem?.title ?? null)}`,
        ),
      ];
      if (Object.keys(extra).some((k) => k !== 'type' && k !== 'errors')) {
        const ok = out?.status === status && out.problem !== null && out.error === null;
        checks.push(verdict(ID.ignoreUnknown, `${run.scenario}: a problem with extension members is accepted`, ok, `surfaced ${surfacedStatus(run)}`));
      }
      if (Array.isArray(extra.errors)) {
        const same = JSON.stringify(out?.problem?.errors ?? null) === JSON.stringify(extra.errors);
        checks.push(
          verdict(
            ID.surface,
            `${run.scenario}: the problem's errors list is surfaced`,
            same,
            `surfaced errors ${JSON.stringify(out?.problem?.errors ?? null)}`,
          ),
        );
      }
      if (operation.method !== 'POST') return { checks };
      const key = run.attempts[0]?.headers['idempotency-key'];
      return { checks: [...checks, keyPresent(run.scenario, key)], operationKey: key ?? null };
    },
  };
}

/** The scenarios whose first response must be final. */
export function finalScenarios(): Scenario[] {
  return [
    finalScenario('bad-request-400', 400, 'Bad Request', { kind: 'request', method: 'GET', path: '/resource' }, {}, ID.noRetry400422),
    finalScenario(
      'validation-422',
      422,
      'Validation failed',
      { kind: 'request', method: 'POST', path: '/payments', body: { amount: 12.5, currency: 'EUR' } },
      { type: `${PROBLEM_TYPE_BASE}validation-error`, errors: VALIDATION_ERRORS },
      ID.noRetry400422,
    ),
    finalScenario('not-found-404', 404, 'Not Found', { kind: 'request', method: 'GET', path: '/resource' }, {}, ID.noRetryOther4xx),
    finalScenario(
      'conflict-409',
      409,
      'Version conflict',
      { kind: 'request', method: 'PUT', path: '/resource', body: { name: 'renamed', version: 1 } },
      { type: `${PROBLEM_TYPE_BASE}version-conflict`, currentVersion: 2, hacFutureMember: { reason: 'unknown to every client' } },
      ID.noRetryOther4xx,
    ),
  ];
}
