/**
 * The coverage check: every server MUST of the catalogue that the suite can check
 * over HTTP (`testable: conformance`) has at least one test in conformance/suite declaring it, and
 * every test declares its requirements once, through `req()` (conformance/support/requirement.ts), which
 * writes both the `@ID` tags and the `requirement` annotations; a hand-written pair that disagrees fails here.
 */
import { test, expect } from '@playwright/test';
import { serverRequirements } from '../../spec/catalogue.ts';
import { listSuite } from './support/suite-list.ts';
import type { ListedTest } from './support/suite-list.ts';

test.describe.configure({ mode: 'default' });

let tests: ListedTest[] = [];
let errors: string[] = [];
test.beforeAll(async () => {
  ({ tests, errors } = await listSuite());
});

test('the suite loads without errors and has tests', () => {
  expect(errors, 'spec files that failed to load').toEqual([]);
  expect(tests.length).toBeGreaterThan(0);
});

test('every testable server MUST requirement has a test in the conformance suite', () => {
  const covered = new Set(tests.flatMap((t) => t.requirementIds));
  const musts = serverRequirements().filter((r) => r.level === 'MUST' && r.testable === 'conformance');
  expect(musts.length).toBeGreaterThan(0);
  const uncovered = musts.map((r) => r.id).filter((id) => !covered.has(id));
  expect(uncovered, 'MUST requirements without a test').toEqual([]);
});

test('every test of the suite declares at least one requirement, and its tags and annotations name the same ones', () => {
  const undeclared = tests.filter((t) => t.requirementIds.length === 0).map((t) => `${t.file}:${t.line} ${t.title}`);
  expect(undeclared, 'tests without a requirement').toEqual([]);
  const mismatched = tests
    .filter((t) => [...t.taggedIds].sort().join() !== [...t.annotatedIds].sort().join())
    .map((t) => `${t.file}:${t.line} tags ${t.taggedIds.join(',')} ≠ annotations ${t.annotatedIds.join(',')}`);
  expect(mismatched, 'tests whose tags and annotations name different requirements').toEqual([]);
});

test('every requirement a suite test declares exists in the catalogue', () => {
  const known = new Set(serverRequirements().map((r) => r.id));
  const unknown = [...new Set(tests.flatMap((t) => t.requirementIds))].filter((id) => !known.has(id));
  expect(unknown).toEqual([]);
});
