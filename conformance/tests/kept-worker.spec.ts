/**
 * D-WORKER-KEPT (conformance/report/kept-worker.ts): a check that fails by its assertions keeps its
 * worker, and every report still shows it as a failure. A broken variant whose 401s carry no
 * challenge fails the challenge check of the 401 checks, which run on one worker, in file order; with
 * Playwright's replacement the checks after the failure would run on a new worker (a new workerIndex).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import variant from '../../fixtures/broken/auth-401-no-challenge.ts';
import { runSuiteOn } from '../../fixtures/broken/check.ts';
import { startVariant } from '../../fixtures/broken/start.ts';
import { tempOut } from './support/subprocess.ts';

interface JsonReport {
  stats: { expected: number; unexpected: number };
  suites: JsonSuite[];
}
interface JsonSuite {
  suites?: JsonSuite[];
  specs?: {
    title: string;
    tests: { projectName: string; expectedStatus: string; status: string; results: { workerIndex: number; status: string; startTime: string }[] }[];
  }[];
}

function testsOf(suite: JsonSuite): NonNullable<JsonSuite['specs']>[number]['tests'] {
  return [...(suite.specs ?? []).flatMap((s) => s.tests), ...(suite.suites ?? []).flatMap(testsOf)];
}

test('a failed check keeps its worker, and results.json and the JSON report still count it as a failure', async () => {
  test.setTimeout(180_000);
  const running = await startVariant(variant);
  try {
    const outDir = tempOut('kept-worker');
    const options = { grep: '@AUTH-(401|WWW)', workers: 1, extraArgs: ['--reporter', 'json'], timeoutMs: 150_000 };
    const { results } = await runSuiteOn(running.profile, outDir, options);
    const report = JSON.parse(readFileSync(join(outDir, 'run', 'report.json'), 'utf8')) as JsonReport;
    const tests = report.suites.flatMap(testsOf).filter((t) => t.projectName === 'suite');
    const failed = tests.filter((t) => t.results.at(-1)?.status === 'failed');
    const startOf = (t: (typeof tests)[number]): number => Date.parse(t.results.at(-1)?.startTime ?? '');
    expect(failed.length, 'the variant fails a 401 check').toBeGreaterThanOrEqual(1);
    const firstFailure = Math.min(...failed.map(startOf));
    expect(tests.filter((t) => startOf(t) > firstFailure).length, 'a check ran after the failure').toBeGreaterThanOrEqual(1);
    // One worker served every check of the project, before and after the failure.
    expect(new Set(tests.flatMap((t) => t.results.map((r) => r.workerIndex))).size).toBe(1);
    // Every reporter after the requirements reporter sees an unexpected failure.
    expect(failed.every((t) => t.expectedStatus === 'passed')).toBe(true);
    expect(report.stats.unexpected).toBe(failed.length);
    const failedIds = (results?.requirements ?? []).filter((r) => r.outcome === 'failed').map((r) => r.id);
    expect(failedIds).toContain('AUTH-WWW-AUTHENTICATE');
  } finally {
    await running.close();
  }
});
