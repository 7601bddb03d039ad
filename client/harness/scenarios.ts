/**
 * The full list of harness scenarios, in the order they run, and the checks that span every run
 * (the bearer token on every attempt, a distinct Idempotency-Key per logical operation).
 */
import { ID } from './requirements.ts';
import { finalScenarios } from './scenarios-final.ts';
import { operationScenarios } from './scenarios-operations.ts';
import { retryScenarios } from './scenarios-retry.ts';
import { fail, pass, skip, verdict } from './scenario-kit.ts';
import type { Check, Scenario, ScenarioRun } from './scenario-kit.ts';

/**
 * Every scenario for a client run with time scale `scale`. The first one, quick and untimed, runs
 * alone: it shows whether the command runs at all and which time scale the adapter reports.
 */
export function buildScenarios(scale: number): Scenario[] {
  return [...finalScenarios(), ...retryScenarios(scale), ...operationScenarios()];
}

/** The scenario names, for `--scenario` validation and the docs. */
export function scenarioNames(): string[] {
  return buildScenarios(1).map((s) => s.name);
}

/** CLIENT-BEARER-EVERY-REQUEST: every attempt of the run carries `Authorization: Bearer <token>`. */
export function bearerCheck(run: ScenarioRun, token: string): Check {
  const title = `${run.scenario}: every attempt carries the bearer token`;
  if (run.attempts.length === 0) return skip(ID.bearer, title, 'no request arrived');
  const missing = run.attempts.filter((a) => a.headers.authorization !== `Bearer ${token}`);
  return verdict(
    ID.bearer,
    title,
    missing.length === 0,
    missing.length === 0
      ? `${run.attempts.length} attempt(s)`
      : `attempts without it: ${missing.map((a) => `#${a.index + 1} (${a.headers.authorization === undefined ? 'absent' : 'wrong value'})`).join(', ')}`,
  );
}

/** CLIENT-IDEMPOTENCY-KEY-PER-OPERATION: the keys of distinct logical POST operations differ. */
export function distinctKeysCheck(keys: readonly (string | null)[]): Check {
  const title = 'each logical POST operation gets its own Idempotency-Key';
  const present = keys.filter((k): k is string => typeof k === 'string' && k !== '');
  if (present.length < 2) return skip(ID.keyPerOperation, title, `only ${present.length} POST operation(s) carried a key`);
  const distinct = new Set(present).size;
  return distinct === present.length
    ? pass(ID.keyPerOperation, title, `${present.length} operations, ${distinct} distinct keys`)
    : fail(ID.keyPerOperation, title, `${present.length} operations but only ${distinct} distinct keys: ${JSON.stringify(present)}`);
}
