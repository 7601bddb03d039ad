/**
 * The suite process's environment (conformance/suite-process.ts): the run's settings, and for
 * the compiled suite of an installed package Playwright's opt-out of its TypeScript ES-module loader
 * (the installed runs of package-install.spec.ts run with it); the TypeScript suite of the repository keeps it.
 */
import { expect, test } from '@playwright/test';
import { exportRunBounds, runEnvironment, suiteEnvironment } from '../run-environment.ts';
import { suiteProcessEnvironment } from '../suite-process.ts';

const settings = {
  profilePath: '/tmp/hac-out/profile.json',
  profileSource: 'profile.json',
  outDir: '/tmp/hac-out',
  strict: false,
  reporter: 'list',
  rateLimitTokens: 1,
};

test('the compiled suite runs without Playwright\'s TypeScript loader, the TypeScript suite with it', () => {
  const compiled = suiteProcessEnvironment(settings, true);
  expect(compiled.PW_DISABLE_TS_ESM).toBe('1');
  expect(compiled.HAC_OUT).toBe('/tmp/hac-out');
  const sources = suiteProcessEnvironment(settings, false);
  expect(sources.PW_DISABLE_TS_ESM).toBe(process.env.PW_DISABLE_TS_ESM);
  expect(sources.HAC_OUT).toBe('/tmp/hac-out');
});

test('keeping the workers goes through the contract as HAC_KEEP_WORKERS, and only for the run that says so', () => {
  expect(runEnvironment(suiteProcessEnvironment({ ...settings, keepWorkers: true }, false)).keepWorkers).toBe(true);
  expect(runEnvironment(suiteProcessEnvironment(settings, false)).keepWorkers).toBe(false);
  // A value inherited from the CLI's own environment does not leak into a run that does not keep them.
  expect(runEnvironment(suiteEnvironment(settings, { ...process.env, HAC_KEEP_WORKERS: '1' })).keepWorkers).toBe(false);
});

test('the run\'s bounds go through the contract: the CLI exports them and runEnvironment reads them back', () => {
  const env: NodeJS.ProcessEnv = {};
  expect(runEnvironment(env)).toMatchObject({ workersGiven: false, workers: 3 });
  exportRunBounds({ maxResponseBytes: 1024, globalTimeoutMs: 5000 }, env);
  expect(runEnvironment({ ...env, HAC_WORKERS: '2' })).toMatchObject({ maxResponseBytes: 1024, globalTimeoutMs: 5000, workers: 2, workersGiven: true });
  // Bounds not given leave the defaults.
  const untouched: NodeJS.ProcessEnv = {};
  exportRunBounds({}, untouched);
  expect(untouched).toEqual({});
});
