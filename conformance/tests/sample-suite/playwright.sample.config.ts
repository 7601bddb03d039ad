import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

/**
 * Configuration of the reporter's miniature suite: the requirements reporter with the sample
 * catalogue, writing into `HAC_OUT`. `HAC_SAMPLE_GLOBAL_TIMEOUT` cuts the run short;
 * `HAC_SAMPLE_TEST_TIMEOUT` is each check's own bound.
 */
const outDir = process.env.HAC_OUT ?? 'conformance-results/sample';

export default defineConfig({
  testDir: '.',
  testMatch: '*.sample.ts',
  outputDir: join(outDir, 'test-output'),
  workers: 2,
  fullyParallel: true,
  globalTimeout: Number(process.env.HAC_SAMPLE_GLOBAL_TIMEOUT ?? 0),
  timeout: Number(process.env.HAC_SAMPLE_TEST_TIMEOUT ?? 30_000),
  reporter: [['../../report/requirements-reporter.ts', { outDir, catalogue: join(import.meta.dirname, 'catalogue.json') }]],
});
