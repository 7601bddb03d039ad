/**
 * The suite process's environment (conformance/suite-process.ts): the run's settings, and for
 * the compiled suite of an installed package Playwright's opt-out of its TypeScript ES-module loader
 * (the installed runs of package-install.spec.ts run with it); the TypeScript suite of the repository keeps it.
 */
import { expect, test } from '@playwright/test';
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
