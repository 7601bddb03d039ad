/**
 * D-RUN-TIMING: results.json says where a run's time went: per group of checks, and the longest wait
 * for the target a check noted.
 */
import { test, expect } from '@playwright/test';
import type { TestCase } from '@playwright/test/reporter';
import { runTiming } from '../report/timing.ts';
import { WAIT_ANNOTATION } from '../transport/waits.ts';

function ran(file: string, title: string, startMs: number, duration: number, waits: string[] = [], status = 'passed'): TestCase {
  const annotations = waits.map((description) => ({ type: WAIT_ANNOTATION, description }));
  return {
    title,
    location: { file: `/repo/conformance/suite/${file}`, line: 1, column: 1 },
    results: [{ startTime: new Date(startMs), duration, status, annotations }],
  } as unknown as TestCase;
}

test('groups by spec file with the summed and the wall time, and names the longest wait and the check that waited it', () => {
  const timing = runTiming([
    ran('rate-limit.spec.ts', 'burst', 1000, 3000, ['2950 Retry-After 3 s of a 429']),
    ran('rate-limit.spec.ts', 'reset', 2000, 5000, ['4980 RateLimit-Reset 5 s of a 429', '120 the bucket\'s refill, 1 s (RateLimit-Reset)']),
    ran('auth.spec.ts', 'missing token', 1000, 40),
    ran('auth.spec.ts', 'skipped one', 1000, 0, [], 'skipped'),
  ]);
  expect(timing.groups).toEqual([
    { group: 'rate-limit', tests: 2, testMs: 8000, wallMs: 6000 },
    { group: 'auth', tests: 1, testMs: 40, wallMs: 40 },
  ]);
  expect(timing.longestWait).toEqual({ ms: 4980, why: 'RateLimit-Reset 5 s of a 429', test: 'reset' });
  expect(runTiming([ran('auth.spec.ts', 'missing token', 1000, 40)]).longestWait).toBeUndefined();
});
