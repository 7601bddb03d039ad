/**
 * The variant tables of fixtures/broken/README.md and fixtures/valid/README.md are generated from the
 * registries (fixtures/variant-tables.ts, `npm run tables`): a stale table fails here, and so does a
 * variant file that the registry does not list.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { VARIANTS } from '../../fixtures/broken/index.ts';
import { VALID_VARIANTS } from '../../fixtures/valid/index.ts';
import { currentTables, readmeStates, renderBrokenTable, TABLE_BEGIN, TABLE_END, withTable } from '../../fixtures/variant-tables.ts';

/** Modules of a variants folder that are not variants (the shape, the registry, the runner and their helpers). */
const NOT_VARIANTS = new Set(['variant', 'index', 'start', 'check', 'run', 'evidence']);

function variantFiles(folder: string): string[] {
  const dir = fileURLToPath(new URL(`../../fixtures/${folder}/`, import.meta.url));
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => basename(f, '.ts'))
    .filter((n) => !NOT_VARIANTS.has(n))
    .sort();
}

for (const generated of currentTables()) {
  test(`the variant table of ${generated.readme.split('/fixtures/')[1]} is current (else run \`npm run tables\`)`, () => {
    const { actual, expected } = readmeStates(generated);
    expect(actual).toBe(expected);
  });
}

test('every variant file of fixtures/broken/ and fixtures/valid/ is in its registry, once', () => {
  expect(VARIANTS.map((v) => v.name).sort()).toEqual(variantFiles('broken'));
  expect(VALID_VARIANTS.map((v) => v.name).sort()).toEqual(variantFiles('valid'));
});

test('a table is rendered between its markers, with a | in a cell escaped', () => {
  const table = renderBrokenTable([{ name: 'x', description: 'a | b\nc', breaks: ['AUTH-401-MISSING'], instances: 2, store: 'redis' }]);
  expect(table.split('\n')[2]).toBe('| `x` | `AUTH-401-MISSING` | 2 × redis | a \\| b c |');
  const readme = `intro\n${TABLE_BEGIN}\nold\n${TABLE_END}\nafter\n`;
  expect(withTable(readme, table)).toBe(`intro\n${TABLE_BEGIN}\n${table}\n${TABLE_END}\nafter\n`);
  expect(() => withTable('no markers', table)).toThrow(/markers/);
});
