/**
 * Runs a command of this package as a child process for the suite's own tests: the CLI (compiled
 * from the current sources, fixtures/support/compiled-cli.ts) or the Playwright test runner, with its
 * output, exit code and measured wall time.
 */
import { compiledCli } from '../../../fixtures/support/compiled-cli.ts';
import { runProcess } from '../../../fixtures/support/process.ts';
import type { Finished } from '../../../fixtures/support/process.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const PLAYWRIGHT = join(PACKAGE_ROOT, 'node_modules', '@playwright', 'test', 'cli.js');

export { compiledCli, runProcess };
export type { Finished };

/** The output directories tempOut made in this process, removed when it exits. */
const madeDirs: string[] = [];

/**
 * A fresh output directory under the system temp dir, removed with everything in it when this process
 * (the test worker) exits: a test reads what a run wrote while it runs, and its failure messages carry
 * what a reader needs, so nothing is left behind in the temp dir run after run.
 */
export function tempOut(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `hac-${label}-`));
  if (madeDirs.length === 0) {
    process.once('exit', () => {
      for (const made of madeDirs) rmSync(made, { recursive: true, force: true });
    });
  }
  madeDirs.push(dir);
  return dir;
}

/** Runs `node <args>` in the package root; kills its process group after `killAfterMs` (the result then has code null). */
export function runNode(args: string[], env: NodeJS.ProcessEnv = {}, killAfterMs = 120_000): Promise<Finished> {
  return runProcess(process.execPath, args, { cwd: PACKAGE_ROOT, env, killAfterMs });
}

/** Runs `http-api-conformance run <args>`. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, killAfterMs?: number): Promise<Finished> {
  const unset = { HAC_PROFILE: undefined, HAC_OUT: undefined, HAC_STRICT: undefined, HAC_GREP: undefined };
  return runNode([compiledCli(), 'run', ...args], { ...unset, ...env }, killAfterMs);
}
