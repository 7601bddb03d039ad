/**
 * The requirements reporter, run on a miniature suite (sample-suite/) with its own catalogue:
 * one requirement per kind of outcome, then a strict run and a run cut short by a global timeout.
 */
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { readResults } from '../../spec/results.ts';
import type { RequirementResult, RunResults } from '../../spec/results.ts';
import { PLAYWRIGHT, runNode, tempOut } from './support/subprocess.ts';

// Each case runs Playwright in a child process: slow on a busy machine.
test.describe.configure({ timeout: 180_000 });

const CONFIG = join('conformance', 'tests', 'sample-suite', 'playwright.sample.config.ts');

async function runSample(env: NodeJS.ProcessEnv): Promise<RunResults> {
  const out = tempOut('sample');
  await runNode([PLAYWRIGHT, 'test', '-c', CONFIG], { HAC_OUT: out, HAC_PROFILE: undefined, HAC_GREP: undefined, ...env });
  return readResults(join(out, 'results.json'));
}

function byId(results: RunResults): Map<string, RequirementResult> {
  return new Map(results.requirements.map((r) => [r.id, r]));
}

test.describe('results.json of a finished run', () => {
  test.describe.configure({ mode: 'default' });
  let results: RunResults;
  test.beforeAll(async () => {
    results = await runSample({ HAC_STRICT: '0' });
  });

  test('lists every server requirement of the catalogue and no client one', () => {
    expect(results.requirements.map((r) => r.id)).toEqual([
      'SAMPLE-MUST-PASS', 'SAMPLE-MUST-FAIL', 'SAMPLE-SHOULD-FAIL', 'SAMPLE-MAY-SKIP',
      'SAMPLE-ANNOTATED', 'SAMPLE-NO-TEST', 'SAMPLE-REVIEW', 'SAMPLE-SLOW',
    ]);
  });

  test('a passing test passes its requirement, whether declared by tag or annotation', () => {
    const ids = byId(results);
    expect(ids.get('SAMPLE-MUST-PASS')?.outcome).toBe('passed');
    expect(ids.get('SAMPLE-ANNOTATED')?.outcome).toBe('passed');
    expect(ids.get('SAMPLE-MUST-PASS')?.tests[0]).toMatchObject({ title: 'a passing check', status: 'passed' });
  });

  test('a failed MUST is failed with the failure message as reason', () => {
    const must = byId(results).get('SAMPLE-MUST-FAIL');
    expect(must?.outcome).toBe('failed');
    expect(must?.reason).toContain('status of an unknown id');
    expect(must?.tests[0]?.error).toContain('Received: 404');
  });

  test('a failed SHOULD is a warning without --strict', () => {
    expect(byId(results).get('SAMPLE-SHOULD-FAIL')?.outcome).toBe('warning');
  });

  test('skips carry the reason: the test\'s own, "no test" or "review only"', () => {
    const ids = byId(results);
    expect(ids.get('SAMPLE-MAY-SKIP')).toMatchObject({ outcome: 'skipped', reason: 'feature not implemented (MAY)' });
    expect(ids.get('SAMPLE-NO-TEST')).toMatchObject({ outcome: 'skipped', reason: 'no test' });
    expect(ids.get('SAMPLE-REVIEW')?.reason).toMatch(/^review only/);
  });

  test('the run is complete, the failed MUST makes the exit code 1, and the summary counts outcomes', () => {
    expect(results.complete).toBe(true);
    expect(results.exitCode).toBe(1);
    expect(results.summary).toEqual({ passed: 3, failed: 1, warning: 1, skipped: 3 });
    expect(results.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Date.parse(results.finishedAt) - Date.parse(results.startedAt)).toBe(results.durationMs);
  });

  test('IDs that the catalogue lacks are reported', () => {
    expect(results.unknownIds).toEqual(['SAMPLE-NOT-IN-CATALOGUE']);
  });
});

test('with --strict a failed SHOULD is failed', async () => {
  const results = await runSample({ HAC_STRICT: '1' });
  expect(results.strict).toBe(true);
  expect(byId(results).get('SAMPLE-SHOULD-FAIL')?.outcome).toBe('failed');
});

test('a run cut short is incomplete and never a success', async () => {
  const results = await runSample({ HAC_SAMPLE_GLOBAL_TIMEOUT: '5000', HAC_SAMPLE_SLOW_MS: '30000' });
  expect(results.complete).toBe(false);
  expect(results.exitCode).toBe(1);
  expect(results.errors?.join('\n')).toContain('timedout');
  const slow = byId(results).get('SAMPLE-SLOW');
  expect(slow?.outcome).not.toBe('passed');
});

test('a check that runs out of time is no verdict: the run is incomplete, naming the check and its phase, and no MUST fails for it', async () => {
  const results = await runSample({ HAC_SAMPLE_TEST_TIMEOUT: '1500', HAC_SAMPLE_SLOW_MS: '30000' });
  expect(results.complete).toBe(false);
  expect(results.exitCode).toBe(1);
  expect(results.errors?.join('\n')).toMatch(/check "a slow check" ran out of time after \d+ ms, in waiting for the target/);
  const slow = byId(results).get('SAMPLE-SLOW');
  expect(slow?.outcome).toBe('skipped');
  expect(slow?.reason).toBe('not judged: "a slow check" ran out of time');
  expect(results.findings?.map((f) => f.cause) ?? []).not.toContain('SAMPLE-SLOW');
});
