/**
 * D-WORKER-KEPT: a check that fails by its assertions keeps its worker.
 *
 * Playwright replaces a worker after every failed test, so that browser state a failure may leave
 * behind never reaches the next test; it offers no switch to turn that off (microsoft/playwright
 * #32803). A conformance check holds no such state: each check clears its exchange log, HAR and
 * traffic recorder, and releases its token leases in its fixtures whatever its outcome, and the
 * worker-scoped fixtures (the profile, the target, the token pool) are not spoiled by a failed
 * assertion. A run against a non-conforming target fails dozens of checks, and each replacement is
 * a process start: on the Prism mock of the corpus' paddle-billing.yaml (70 failed checks, 2 workers,
 * quiet machine) a run took 74 s and 132 CPU-s with replacements, 15 s and 21 CPU-s without, with
 * the same skipped checks.
 *
 * How: in the worker, a check whose status is `failed` (its assertions, not a timeout or an
 * interruption, which still replace the worker) is marked expected-to-fail at the end of its own
 * fixtures, which is what Playwright reads to decide; the mark is noted as an annotation. The
 * requirements reporter, the first of the run's reporters, sets the test back to expected-to-pass
 * when the result arrives, so every reporter after it (list, junit, json, html) and results.json see
 * an unexpected failure, as without the mark.
 */
import type { TestInfo } from '@playwright/test';
import type { TestCase, TestResult } from '@playwright/test/reporter';

/** The annotation that says a failed check's worker was kept. */
export const KEPT_WORKER = 'worker kept after failure';

/** In the worker, at the end of a check's fixtures: a check failed by its assertions keeps its worker. */
export function keepWorkerAfterFailure(testInfo: TestInfo): void {
  if (testInfo.status !== 'failed' || testInfo.expectedStatus !== 'passed') return;
  testInfo.annotations.push({ type: KEPT_WORKER, description: 'failed by its assertions; the worker went on to the next check (D-WORKER-KEPT)' });
  testInfo.expectedStatus = 'failed';
}

/** In the reporter, as the result arrives: a kept worker's failed check is an unexpected failure again. */
export function restoreExpectedStatus(test: TestCase, result: TestResult): void {
  if (result.annotations.some((a) => a.type === KEPT_WORKER)) test.expectedStatus = 'passed';
}
