import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import type { ReporterDescription } from '@playwright/test';
import { runEnvironment } from './run-environment.ts';

/**
 * Playwright configuration of a conformance run (used by `http-api-conformance run`, which sets the
 * environment): the suite in conformance/suite, the requirements reporter writing results.json, and
 * the reporter chosen with `--reporter` writing into the output directory.
 *
 * Environment: conformance/run-environment.ts (output directory, reporter, workers, global timeout;
 * a run cut short is incomplete, never a success).
 */
const environment = runEnvironment();
const outDir = environment.outDir;
const chosen = environment.reporter;
// `.ts` in the repository, `.js` compiled into dist/ in an installed package.
const ownExtension = extname(fileURLToPath(import.meta.url));

const formats: Record<string, ReporterDescription[]> = {
  list: [['list']],
  junit: [['line'], ['junit', { outputFile: join(outDir, 'junit.xml') }]],
  json: [['line'], ['json', { outputFile: join(outDir, 'report.json') }]],
  html: [['line'], ['html', { outputFolder: join(outDir, 'html'), open: 'never' }]],
};

export default defineConfig({
  testDir: './suite',
  outputDir: join(outDir, 'test-output'),
  timeout: 30_000,
  globalTimeout: environment.globalTimeoutMs,
  fullyParallel: true,
  retries: 0,
  workers: environment.workers,
  reporter: [[`./report/requirements-reporter${ownExtension}`, { outDir }], ...(formats[chosen] ?? formats.list ?? [])],
});
