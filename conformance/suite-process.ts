/**
 * Runs the conformance suite in a child Playwright process (the package's own @playwright/test
 * CLI, started with the current Node), with the environment the suite and the reporter read
 * (conformance/run-environment.ts).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../spec/package-files.ts';
import { suiteEnvironment } from './run-environment.ts';
import type { SuiteSettings } from './run-environment.ts';
import { grepPattern } from './selection.ts';

const here = fileURLToPath(import.meta.url);
/** True in an installed package: this module, the config and the suite are JavaScript compiled into dist/. */
const COMPILED = extname(here) === '.js';
/** The suite's Playwright config beside this module: TypeScript in the repository, compiled JavaScript in dist/ when installed. */
export const SUITE_CONFIG = join(dirname(here), `playwright.config${extname(here)}`);

/**
 * The environment of the suite process: the run's settings (run-environment.ts), and, for the
 * compiled suite, Playwright's opt-out of its TypeScript loader for ES modules (PW_DISABLE_TS_ESM,
 * the switch Playwright's maintainers recommend when nothing needs its transform). The compiled
 * suite is plain JavaScript that Node loads as it is; the loader would start a module-hooks thread
 * in the suite process and in every worker, each waiting for it before loading a file (Node 20),
 * and pass every module through it. An installed smoke run: 3.13-3.46 -> 2.92-2.98 s wall and 0.5 s
 * less CPU (3 alternating runs each); test locations in results.json are the same. In the
 * repository the suite is TypeScript and keeps the loader.
 */
export function suiteProcessEnvironment(settings: SuiteSettings, compiled = COMPILED): NodeJS.ProcessEnv {
  const env = suiteEnvironment(settings);
  if (compiled) env.PW_DISABLE_TS_ESM = '1';
  return env;
}

/** Path of the Playwright test CLI this package depends on. */
function playwrightCli(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@playwright/test/package.json')), 'cli.js');
}

/** How long a stopped suite process may take to end (its reporter writing results.json) before it is killed. */
const STOP_GRACE_MS = 10_000;

/** A started suite process. */
export interface SuiteProcess {
  /** Resolves with its exit code (the CLI does not use it for the verdict). */
  exited: Promise<number>;
  /** Stops the run (SIGTERM) and resolves once the process has exited. */
  stop(): Promise<void>;
}

/** Spawns `playwright test` for the suite with the run's settings; the selection (`grep`) becomes its `--grep` pattern. */
export function startSuite(settings: SuiteSettings): SuiteProcess {
  const args = ['test', '-c', SUITE_CONFIG];
  if (settings.grep) args.push('--grep', grepPattern(settings.grep));
  const child = spawn(process.execPath, [playwrightCli(), ...args], { cwd: PACKAGE_ROOT, env: suiteProcessEnvironment(settings), stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const exited = new Promise<number>((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
  return {
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // D-BOUNDED-RUN: a suite that does not end on SIGTERM within STOP_GRACE_MS is killed.
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(kill);
    },
  };
}
