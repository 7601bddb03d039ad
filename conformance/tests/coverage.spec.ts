/**
 * The coverage check: every server MUST of the catalogue that the suite can check
 * over HTTP (`testable: conformance`) has at least one test in conformance/suite declaring it, and
 * every test declares its requirements once, through `req()` (conformance/support/requirement.ts), which
 * writes both the `@ID` tags and the `requirement` annotations; a hand-written pair that disagrees fails here.
 */
import { test, expect } from '@playwright/test';
import { basename, join } from 'node:path';
import { serverRequirements } from '../../spec/catalogue.ts';
import { grepPattern } from '../selection.ts';
import { filesFor, suiteDeclarations } from '../suite-declarations.ts';
import { PACKAGE_ROOT } from './support/subprocess.ts';
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

test('a selection loads every spec file holding a test it selects, and no other', () => {
  const declarations = suiteDeclarations(join(PACKAGE_ROOT, 'conformance', 'suite'), '.ts');
  expect(declarations.filter((d) => d.checks === undefined).map((d) => d.file), 'spec files whose req(...) calls cannot be read').toEqual([]);
  const selections = [...new Set(tests.flatMap((t) => t.tags))];
  expect(selections.length).toBeGreaterThan(100);
  const wrong: string[] = [];
  for (const selection of selections) {
    // Playwright's own matching of the CLI's pattern (case-insensitive) over the whole listing.
    const pattern = new RegExp(grepPattern(selection), 'i');
    const needed = [...new Set(tests.filter((t) => pattern.test(t.grepTitle)).map((t) => basename(t.file)))].sort();
    const loaded = filesFor(declarations, selection).sort();
    if (needed.join() !== loaded.join()) wrong.push(`${selection}: loads ${loaded.join(', ')}; needs ${needed.join(', ')}`);
  }
  expect(wrong, 'selections whose spec files differ from those holding their tests').toEqual([]);
  // A free pattern may match titles: every file.
  expect(filesFor(declarations, 'honest Retry-After|burst')).toHaveLength(declarations.length);
});

test('a whole run on a target elsewhere with five workers or more starts the state sequences on their own worker, and runs every check once', async () => {
  const key = (t: ListedTest): string => `${basename(t.file)}:${t.line}`;
  const shared = { HAC_PROFILE: join(PACKAGE_ROOT, 'fixtures', 'profiles', 'reference.json'), HAC_RATE_LIMIT_TOKENS: '8' };
  for (const [workers, projects] of [['3', ['rate-limit', 'suite']], ['6', ['rate-limit', 'sequences', 'suite']]] as const) {
    const listed = await listSuite({ ...shared, HAC_WORKERS: workers });
    expect(listed.errors, `${workers} workers`).toEqual([]);
    // Every check of the suite, each in one project: the split drops and repeats nothing.
    expect(listed.tests.map(key).sort(), `${workers} workers`).toEqual(tests.map(key).sort());
    expect(listed.tests.filter((t) => t.projects.length !== 1).map(key), `${workers} workers`).toEqual([]);
    const projectOf = (file: string): string[] => [...new Set(listed.tests.filter((t) => basename(t.file) === file).flatMap((t) => t.projects))];
    expect([...new Set(listed.tests.flatMap((t) => t.projects))].sort(), `${workers} workers`).toEqual([...projects].sort());
    expect(projectOf('rate-limit.spec.ts')).toEqual(['rate-limit']);
    expect(projectOf('state.spec.ts')).toEqual([workers === '6' ? 'sequences' : 'suite']);
    expect(projectOf('auth.spec.ts')).toEqual(['suite']);
  }
});
