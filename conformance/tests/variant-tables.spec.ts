/**
 * The generated tables of the READMEs (fixtures/variant-tables.ts, `npm run tables`): the variant tables
 * of fixtures/broken/README.md and fixtures/valid/README.md, generated from the registries, and
 * README.md's table of profile fields, generated from spec/schemas/target-profile.schema.json. A stale
 * table fails here, and so does a break of the rule the registries find their variants by
 * (fixtures/support/discover.ts): every module of the folder is a variant but the folder's own modules,
 * and a module that is not a well-formed variant stops the registry, naming its file.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test, expect } from '@playwright/test';
import { OWN_MODULES as BROKEN_OWN, VARIANTS } from '../../fixtures/broken/index.ts';
import { asBrokenVariant } from '../../fixtures/broken/variant.ts';
import { STACKS } from '../../fixtures/stacks/index.ts';
import { discoverFiles } from '../../fixtures/support/discover.ts';
import { PACKAGE_ROOT } from '../../spec/package-files.ts';
import { OWN_MODULES as VALID_OWN, VALID_VARIANTS } from '../../fixtures/valid/index.ts';
import { currentTables, readmeStates, renderBrokenTable, TABLE_BEGIN, TABLE_END, withTable } from '../../fixtures/variant-tables.ts';

const folder = (name: string): string => fileURLToPath(new URL(`../../fixtures/${name}/`, import.meta.url));

/** The modules directly in a variants folder, without `.ts`, sorted. */
function modulesOf(name: string): string[] {
  return readdirSync(folder(name), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => entry.name.slice(0, -'.ts'.length))
    .sort();
}

for (const generated of currentTables()) {
  test(`the generated table of ${relative(PACKAGE_ROOT, generated.readme)} is current (else run \`npm run tables\`)`, () => {
    const { actual, expected } = readmeStates(generated);
    expect(actual).toBe(expected);
  });
}

for (const [name, own, variants] of [
  ['broken', BROKEN_OWN, VARIANTS],
  ['valid', VALID_OWN, VALID_VARIANTS],
] as const) {
  test(`every module of fixtures/${name}/ is a variant named after its file, but the folder's own modules, which export none`, () => {
    const modules = modulesOf(name);
    expect(modules, 'every own module is in the folder').toEqual(expect.arrayContaining([...own]));
    for (const module of own) {
      const source = readFileSync(join(folder(name), `${module}.ts`), 'utf8');
      expect(source, `fixtures/${name}/${module}.ts is not a variant: it has no default export`).not.toMatch(/^export default\b/m);
    }
    const names = variants.map((v) => v.name);
    const others = modules.filter((m) => !(own as readonly string[]).includes(m));
    expect(names, "one variant per module that is not the folder's own, sorted by name").toEqual(others);
  });
}

test('every folder of fixtures/stacks/ is a stack named after it, in name order', () => {
  const folders = readdirSync(folder('stacks'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  expect(STACKS.map((s) => s.name)).toEqual(folders);
});

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
test('a module that is not a well-formed variant stops the registry, naming its file and every wrong member', async ({}, testInfo) => {
  // test-results/ is inside the repository, so the modules resolve the project's own; excluded from tsc and eslint.
  const dir = testInfo.outputPath('variants');
  mkdirSync(dir, { recursive: true });
  const registry = pathToFileURL(join(dir, 'index.ts')).href;
  const discover = (): Promise<unknown> => discoverFiles({ registry, own: ['index', 'helper'], check: asBrokenVariant });
  writeFileSync(join(dir, 'index.ts'), 'export const registry = true;\n');
  writeFileSync(join(dir, 'helper.ts'), 'export const helper = true;\n');
  writeFileSync(join(dir, 'fine-one.ts'), "export default { name: 'fine-one', description: 'x', breaks: ['AUTH-401-MISSING'] };\n");
  await expect(discover()).resolves.toEqual([{ name: 'fine-one', description: 'x', breaks: ['AUTH-401-MISSING'] }]);

  writeFileSync(join(dir, 'bad-one.ts'), "export default { name: 'bad', description: '', breaks: ['NOT-AN-ID'], wrapapp() {} };\n");
  const error = await discover().then(
    () => undefined,
    (e: unknown) => (e as Error).message,
  );
  expect(error).toMatch(/\/variants\/bad-one\.ts: not a broken variant: /);
  for (const member of ['`name` must be "bad-one"', '`description` must be a non-empty string', '`breaks` must be a list', '`wrapapp` is unknown'])
    expect(error).toContain(member);

  // A module is imported once per process: the next case is another file.
  rmSync(join(dir, 'bad-one.ts'));
  writeFileSync(join(dir, 'no-default.ts'), 'export const notDefault = 1;\n');
  await expect(discover()).rejects.toThrow(/no-default\.ts: not a broken variant: the module has no default export/);
});

test('a table is rendered between its markers, with a | in a cell escaped', () => {
  const table = renderBrokenTable([{ name: 'x', description: 'a | b\nc', breaks: ['AUTH-401-MISSING'], instances: 2, store: 'redis' }]);
  expect(table.split('\n')[2]).toBe('| `x` | `AUTH-401-MISSING` | 2 × redis | a \\| b c |');
  const readme = `intro\n${TABLE_BEGIN}\nold\n${TABLE_END}\nafter\n`;
  expect(withTable(readme, table)).toBe(`intro\n${TABLE_BEGIN}\n${table}\n${TABLE_END}\nafter\n`);
  expect(() => withTable('no markers', table)).toThrow(/markers/);
});
