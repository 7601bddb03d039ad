/**
 * A miniature suite for the reporter's own tests (conformance/tests/reporter.spec.ts): one test per
 * kind of outcome, tagged like the real suite. Run only through playwright.sample.config.ts.
 */
import { test, expect } from '@playwright/test';

test('a passing check', { tag: ['@SAMPLE-MUST-PASS', '@generic'], annotation: [{ type: 'requirement', description: 'SAMPLE-MUST-PASS' }] }, () => {
  expect(1 + 1).toBe(2);
});

test('a failing MUST check', { tag: ['@SAMPLE-MUST-FAIL'], annotation: [{ type: 'requirement', description: 'SAMPLE-MUST-FAIL' }] }, () => {
  expect(404, 'status of an unknown id').toBe(200);
});

test('a failing SHOULD check', { tag: ['@SAMPLE-SHOULD-FAIL'] }, () => {
  expect('no-store').toBe('public');
});

test('a MAY feature the target lacks', { tag: ['@SAMPLE-MAY-SKIP'] }, () => {
  test.skip(true, 'feature not implemented (MAY)');
});

test('a check declared by annotation only', { annotation: [{ type: 'requirement', description: 'SAMPLE-ANNOTATED' }] }, () => {
  expect(true).toBe(true);
});

test('a check of an ID the catalogue lacks', { tag: ['@SAMPLE-NOT-IN-CATALOGUE'] }, () => {
  expect(true).toBe(true);
});

test('a slow check', { tag: ['@SAMPLE-SLOW'] }, async () => {
  const ms = Number(process.env.HAC_SAMPLE_SLOW_MS ?? 0);
  await test.step('waiting for the target', () => new Promise((resolve) => setTimeout(resolve, ms)));
});
