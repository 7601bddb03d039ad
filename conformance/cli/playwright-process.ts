/**
 * Runs the conformance suite in a child Playwright process (the package's own @playwright/test
 * CLI, started with the current Node), with the environment the suite and the reporter read
 * (conformance/run-environment.ts).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../../spec/package-files.ts';
import { suiteEnvironment } from '../run-environment.ts';

const here = fileURLToPath(import.meta.url);
/** The suite's Playwright config beside this module: TypeScript in the repository, compiled JavaScript in dist/ when installed. */
export const SUITE_CONFIG = join(dirname(here), '..', `playwright.config${extname(here)}`);

export interface SuiteRun {
  /** The resolved profile written for the run, and the file the user gave. */
  profilePath: string;
  profileSource: string;
  outDir: string;
  strict: boolean;
  reporter: string;
  /** Parallel workers (HAC_WORKERS of the suite's config); unset keeps the environment's or the default. */
  workers?: number;
  /** The user's selection (ID or tag) and the Playwright pattern built from it. */
  grep?: { selection: string; pattern: string };
}

/** Path of the Playwright test CLI this package depends on. */
function playwrightCli(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
}

/** Spawns `playwright test` for the suite and resolves with its exit code (the CLI does not use it for the verdict). */
export function runSuite(run: SuiteRun): Promise<number> {
  const args = [playwrightCli(), 'test', '-c', SUITE_CONFIG];
  if (run.grep) args.push('--grep', run.grep.pattern);
  const env = suiteEnvironment({
    profilePath: run.profilePath,
    profileSource: run.profileSource,
    outDir: run.outDir,
    strict: run.strict,
    reporter: run.reporter,
    ...(run.workers !== undefined ? { workers: run.workers } : {}),
    ...(run.grep ? { grep: run.grep.selection } : {}),
  });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, env, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}
