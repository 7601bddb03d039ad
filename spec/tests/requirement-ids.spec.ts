/**
 * Requirement IDs are typed from the catalogue: spec/requirement-ids.ts is generated from
 * spec/requirements.json by `npm run ids` and must be current, and an ID the catalogue does not list
 * fails `tsc` wherever the suite (`req`), a broken variant (`breaks`) or a valid variant (`warns`) names it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { test, expect } from '@playwright/test';
import { PACKAGE_ROOT } from '../package-files.ts';
import { currentRequirementIds, REQUIREMENT_IDS_PATH } from '../requirement-ids-file.ts';

const run = promisify(execFile);

test('spec/requirement-ids.ts is current with spec/requirements.json (else run `npm run ids`)', () => {
  expect(readFileSync(REQUIREMENT_IDS_PATH, 'utf8')).toBe(currentRequirementIds());
});

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
test('an ID the catalogue does not list fails tsc with the project configuration', async ({}, testInfo) => {
  test.setTimeout(120_000);
  // test-results/ is inside the repository (so the probe resolves the project's modules and types) but
  // excluded from the project's own tsc and eslint runs.
  const dir = testInfo.outputPath('probe');
  mkdirSync(dir, { recursive: true });
  const from = (path: string): string => relative(dir, join(PACKAGE_ROOT, path)).split('\\').join('/');
  const lines = [
    `import { req } from '${from('conformance/support/requirement.ts')}';`,
    `import type { BrokenVariant } from '${from('fixtures/broken/variant.ts')}';`,
    `import type { ValidVariant } from '${from('fixtures/valid/variant.ts')}';`,
    `export const known = req(['AUTH-401-MISSING', 'CLIENT-TIMEOUT'], '@generic');`,
    `export const mistyped = req('AUTH-401-MISSNG', '@generic');`,
    `export const inList = req(['AUTH-401-MISSING', 'NOT-AN-ID']);`,
    `export const broken = { name: 'x', description: 'x', breaks: ['AUTH-403-PERMISION'] } satisfies BrokenVariant;`,
    `export const valid = { name: 'x', choice: 'x', allowedBy: 'x', warns: ['CACHE-ETAG-NOPE'] } satisfies ValidVariant;`,
  ];
  writeFileSync(join(dir, 'probe.ts'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: from('tsconfig.json'), include: ['probe.ts'], exclude: [] }),
  );
  const tsc = join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(process.execPath, [tsc, '--noEmit', '-p', join(dir, 'tsconfig.json')], { cwd: PACKAGE_ROOT })
    .then(() => ({ code: 0, out: '' }))
    .catch((error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, out: error.stdout ?? '' }));
  expect(result.code, result.out).not.toBe(0);
  const errorLines = [...result.out.matchAll(/probe\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]));
  // Line 4 names catalogue IDs and compiles; each mistyped ID on lines 5-8 is an error.
  expect(new Set(errorLines), result.out).toEqual(new Set([5, 6, 7, 8]));
  for (const id of ['AUTH-401-MISSNG', 'NOT-AN-ID', 'AUTH-403-PERMISION', 'CACHE-ETAG-NOPE']) expect(result.out).toContain(id);
});
