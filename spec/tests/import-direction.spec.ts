/**
 * The import graph runs one way, from the commands down: `cli/` (one folder per sub-command) imports
 * the functions of `spec/`, `reference-impl/`, `conformance/` and `client/`, and no module of those
 * imports anything from `cli/`, static, dynamic or re-exported. Inside, each layer imports only what
 * is under it (LAYERS): the suite reaches the reference server through the embedded target alone, the
 * transport and the rules' helpers never reach up into the suite's fixtures, and the bench never
 * imports a test.
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

/** The files an import of `file` names, resolved: `{ specifier, target }`. */
function importTargets(file: string, source: string): { specifier: string; target: string }[] {
  return relativeImports(source).map((specifier) => ({ specifier, target: resolve(dirname(file), specifier) }));
}

/** True when `path` is `place` or lies under it (a folder given with a trailing slash). */
function within(path: string, place: string): boolean {
  const absolute = resolve(PACKAGE_ROOT, place);
  return place.endsWith('/') ? path.startsWith(`${absolute}/`) : path === absolute;
}

/** A test: a spec file, or anything under a `tests/` folder. */
function isTest(path: string): boolean {
  return path.endsWith('.spec.ts') || relative(PACKAGE_ROOT, path).split('/').includes('tests');
}

interface Layer {
  /** What the rule says, as a reader would. */
  rule: string;
  /** The files it binds (folders end with `/`), tests excluded. */
  files: string[];
  /** The files of `files` it does not bind. */
  except?: string[];
  /** What they must not import. */
  never: (target: string) => boolean;
}

const LAYERS: Layer[] = [
  {
    rule: 'the suite reaches reference-impl/ through the embedded target alone (conformance/target/embedded.ts)',
    files: ['conformance/'],
    except: ['conformance/target/embedded.ts'],
    never: (target) => within(target, 'reference-impl/'),
  },
  {
    rule: 'the transport and its evidence (conformance/transport/) import only each other, spec/, the run environment and the profile type',
    files: ['conformance/transport/'],
    never: (target) =>
      !['conformance/transport/', 'spec/', 'conformance/run-environment.ts', 'conformance/target/profile.ts'].some((place) => within(target, place)),
  },
  {
    rule: "the rules' helpers (conformance/support/) never import the suite, its fixtures or the repository's fixtures/",
    files: ['conformance/support/'],
    never: (target) =>
      ['conformance/suite/', 'conformance/fixtures.ts', 'conformance/rate-limit-fixtures.ts', 'fixtures/'].some((place) => within(target, place)),
  },
  {
    rule: 'reference-impl/ imports nothing of the suite, the client, the fixtures or the bench',
    files: ['reference-impl/'],
    never: (target) => ['conformance/', 'client/', 'fixtures/', 'bench/'].some((place) => within(target, place)),
  },
  {
    rule: 'bench/ never imports a test',
    files: ['bench/'],
    never: isTest,
  },
];

/** The imports of `files` that break `layer`, as `file -> specifier`. */
function breaches(layer: Layer, files: readonly string[]): string[] {
  return files
    .filter((file) => !isTest(file) && layer.files.some((place) => within(file, place)) && !(layer.except ?? []).some((place) => within(file, place)))
    .flatMap((file) =>
      importTargets(file, readFileSync(file, 'utf8'))
        .filter(({ target }) => layer.never(target))
        .map(({ specifier }) => `${relative(PACKAGE_ROOT, file)} -> ${specifier}`),
    );
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

for (const layer of LAYERS) {
  test(`layer: ${layer.rule}`, () => {
    const files = layer.files.flatMap((place) => (place.endsWith('/') ? sources(resolve(PACKAGE_ROOT, place)) : [resolve(PACKAGE_ROOT, place)]));
    const bound = files.filter((file) => layer.files.some((place) => within(file, place)));
    expect(bound.length, `${layer.files.join(', ')} hold files`).toBeGreaterThan(0);
    expect(breaches(layer, files)).toEqual([]);
  });
}

test('a layer rule sees an import that breaks it', () => {
  const file = join(PACKAGE_ROOT, 'conformance', 'transport', 'probe.ts');
  const source = ["import { Target } from '../support/target.ts';", "import type { HttpResponse } from './message.ts';"].join('\n');
  const transport = LAYERS.find((layer) => layer.files.includes('conformance/transport/'));
  expect(transport).toBeDefined();
  const found = importTargets(file, source).filter(({ target }) => transport?.never(target));
  expect(found.map(({ specifier }) => specifier)).toEqual(['../support/target.ts']);
  const bench = LAYERS.find((layer) => layer.files.includes('bench/'));
  expect(bench?.never(join(PACKAGE_ROOT, 'conformance', 'tests', 'support', 'subprocess.ts'))).toBe(true);
  expect(bench?.never(join(PACKAGE_ROOT, 'fixtures', 'support', 'installed-package.ts'))).toBe(false);
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
