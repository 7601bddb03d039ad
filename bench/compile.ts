/**
 * The servers under test run as compiled JavaScript, as they are deployed (an installed package runs
 * dist/, never the TypeScript sources): `compileServers()` compiles bench/server-child.ts and what it
 * imports (the reference server, the baseline) with the package's build settings into
 * node_modules/.cache/hac-bench/<pid>/ (one folder per run, so two runs at once never compile over each
 * other), so the children run on plain `node` without tsx's loader. Under tsx the
 * reference server spent about 16 % more CPU per POST /payments than compiled (tsx keeps function names
 * by wrapping every closure it creates), while the one-file baseline was not affected: running both
 * from sources measured tsx, not the conventions.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { processAlive } from '../conformance/support/token-lock.ts';
import { PACKAGE_ROOT } from '../spec/package-files.ts';

const run = promisify(execFile);

/** Where the runs compile: inside the repository's node_modules, so compiled files resolve its packages. */
const RUNS_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'hac-bench');

/** Where this run's compiled servers live. */
export const COMPILED_DIR = join(RUNS_DIR, String(process.pid));

/** The repository path of a file, for a path into the compiled tree (profile frames name their source). */
export function sourcePathOf(path: string): string {
  return path.startsWith(`${COMPILED_DIR}/`) ? join(PACKAGE_ROOT, path.slice(COMPILED_DIR.length + 1)) : path;
}

/** Compiles the server entry; resolves with the path of the compiled bench/server-child.js. */
export async function compileServers(): Promise<string> {
  const outDir = COMPILED_DIR;
  mkdirSync(RUNS_DIR, { recursive: true });
  for (const name of readdirSync(RUNS_DIR)) {
    // A run that ended leaves its folder to the next run to remove.
    if (!/^\d+$/.test(name) || !processAlive(Number(name))) rmSync(join(RUNS_DIR, name), { recursive: true, force: true });
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const config = join(outDir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(PACKAGE_ROOT, 'tsconfig.build.json'),
      compilerOptions: { outDir, rootDir: PACKAGE_ROOT },
      files: [join(PACKAGE_ROOT, 'bench', 'server-child.ts')],
      include: [],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    await run(process.execPath, [tsc, '-p', config], { cwd: PACKAGE_ROOT });
  } catch (error) {
    const output = error instanceof Error && 'stdout' in error ? String((error as { stdout: unknown }).stdout) : String(error);
    throw new Error(`bench: compiling the servers under test failed (run with --from-sources to skip it):\n${output}`, { cause: error });
  }
  return join(outDir, 'bench', 'server-child.js');
}
