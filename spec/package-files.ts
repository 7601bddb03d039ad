/**
 * Where the package's own data files live (package.json, spec/requirements.json, spec/schemas/,
 * spec/decisions.md, fixtures/profiles/), for code that runs both from the TypeScript sources in
 * the repository and compiled into dist/ in an installed package: the data files stay
 * at the package root in both, so a path relative to the running module would differ by one level.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above this module holding package.json: the repository or the installed package. */
function findPackageRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`http-api-conformance: no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/** Absolute path of the package root (the folder of package.json). */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** Absolute path of a file of the package, from its path segments under the root: `packagePath('spec', 'requirements.json')`. */
export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}

let version: string | undefined;

/** The package's version, from package.json (read once). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
  return version;
}
