/**
 * The import graph runs one way, from the commands down: `cli/` (one folder per sub-command) imports
 * the functions of `spec/`, `reference-impl/`, `conformance/` and `client/`, and no module of those
 * imports anything from `cli/`, static, dynamic or re-exported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { PACKAGE_ROOT } from '../package-files.ts';

const LOWER_FOLDERS = ['spec', 'reference-impl', 'conformance', 'client'];
const COMMANDS = resolve(PACKAGE_ROOT, 'cli');
/** This file, whose second test holds imports into cli/ as text. */
const OWN_FILE = fileURLToPath(import.meta.url);

/** Every TypeScript file under `folder`. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The relative module specifiers of `source`: `import … from`, `export … from`, `import(…)`, `import '…'`. */
function relativeImports(source: string): string[] {
  const found = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm);
  return [...found].map((match) => match[2] ?? '');
}

/** The imports of `file` (with `source`) that land in cli/, as `file -> specifier`. */
function commandImports(file: string, source: string): string[] {
  return relativeImports(source)
    .filter((specifier) => {
      const target = resolve(dirname(file), specifier);
      return target === COMMANDS || target.startsWith(`${COMMANDS}/`);
    })
    .map((specifier) => `${relative(PACKAGE_ROOT, file)} -> ${specifier}`);
}

test('no module of spec/, reference-impl/, conformance/ or client/ imports from cli/', () => {
  const files = LOWER_FOLDERS.flatMap((folder) => sources(join(PACKAGE_ROOT, folder))).filter((file) => file !== OWN_FILE);
  expect(files.length).toBeGreaterThan(200);
  expect(files.flatMap((file) => commandImports(file, readFileSync(file, 'utf8')))).toEqual([]);
});

test('the check sees every form of import into cli/', () => {
  const file = join(PACKAGE_ROOT, 'conformance', 'target', 'probe.ts');
  const source = [
    "import { optionsOrExit } from '../../cli/arguments.ts';",
    "import type { RunOptions } from '../../cli/run/options.ts';",
    "export { runCommand } from '../../cli/run/command.ts';",
    "const init = await import('../../cli/init/command.ts');",
    "import '../../cli/main.ts';",
    "import { send } from '../support/http.ts';",
  ].join('\n');
  expect(commandImports(file, source)).toEqual([
    'conformance/target/probe.ts -> ../../cli/arguments.ts',
    'conformance/target/probe.ts -> ../../cli/run/options.ts',
    'conformance/target/probe.ts -> ../../cli/run/command.ts',
    'conformance/target/probe.ts -> ../../cli/init/command.ts',
    'conformance/target/probe.ts -> ../../cli/main.ts',
  ]);
});
