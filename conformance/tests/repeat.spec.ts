/**
 * `run --repeat N` (conformance/report/repeat.ts): N runs merge into one results.json that keeps every
 * run's outcome per requirement, names the requirements the runs disagreed on, takes the worst
 * outcome and the highest exit code, and stays valid against results.schema.json.
 */
import { test, expect } from '@playwright/test';
import { createResults, resultsSchemaErrors } from '../../spec/results.ts';
import type { Outcome, RequirementResult, RunResults } from '../../spec/results.ts';
import { formatDisagreements, mergeRuns } from '../report/repeat.ts';

function run(outcomes: Record<string, Outcome>): RunResults {
  const requirements: RequirementResult[] = Object.entries(outcomes).map(([id, outcome]) => ({
    id,
    level: id.startsWith('S-') ? 'SHOULD' : 'MUST',
    outcome,
    tests: [],
  }));
  return createResults({ kind: 'server', target: { name: 't' }, startedAt: new Date(), strict: false, complete: true, requirements });
}

test('merged runs keep every outcome, name the disagreeing requirements, and take the worst', () => {
  const merged = mergeRuns([
    run({ 'AUTH-401-MISSING': 'passed', 'RATE-LIMIT-429': 'passed', 'S-PAGING': 'skipped' }),
    run({ 'AUTH-401-MISSING': 'passed', 'RATE-LIMIT-429': 'failed', 'S-PAGING': 'skipped' }),
    run({ 'AUTH-401-MISSING': 'passed', 'RATE-LIMIT-429': 'passed', 'S-PAGING': 'skipped' }),
  ]);
  expect(merged.repeat).toEqual({
    runs: 3,
    exitCodes: [0, 1, 0],
    outcomes: {
      'AUTH-401-MISSING': ['passed', 'passed', 'passed'],
      'RATE-LIMIT-429': ['passed', 'failed', 'passed'],
      'S-PAGING': ['skipped', 'skipped', 'skipped'],
    },
    disagreeing: ['RATE-LIMIT-429'],
  });
  expect(merged.requirements.find((r) => r.id === 'RATE-LIMIT-429')?.outcome).toBe('failed');
  expect(merged.exitCode).toBe(1);
  expect(resultsSchemaErrors(merged)).toEqual([]);
  const table = formatDisagreements(merged);
  expect(table).toContain('1 requirement(s) disagreed between runs');
  expect(table).toMatch(/RATE-LIMIT-429 +MUST +1 of 3 +2 passed, 1 failed +passed failed passed/);
});

test('runs that agree say so; one run is returned unchanged', () => {
  const single = run({ 'AUTH-401-MISSING': 'passed' });
  expect(mergeRuns([single])).toBe(single);
  const merged = mergeRuns([single, run({ 'AUTH-401-MISSING': 'passed' })]);
  expect(merged.repeat?.disagreeing).toEqual([]);
  expect(formatDisagreements(merged)).toBe('2 runs, exit codes 0 0: every requirement had the same outcome in every run');
});
