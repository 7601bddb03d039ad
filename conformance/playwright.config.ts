import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import type { ReporterDescription } from '@playwright/test';

/**
 * Playwright configuration of a conformance run (used by `http-api-conformance run`, which sets the
 * environment): the suite in conformance/suite, the requirements reporter writing results.json, and
 * the reporter chosen with `--reporter` writing into the output directory.
 *
 * Environment: `HAC_OUT` output directory, `HAC_REPORTER` list|html|junit|json, `HAC_WORKERS`,
 * `HAC_GLOBAL_TIMEOUT` (ms; a run cut short is incomplete, never a success), `HAC_PROFILE`,
 * `HAC_STRICT`, `HAC_GREP` (read by the suite and the reporter).
 */
const outDir = resolve(process.env.HAC_OUT ?? 'conformance-results');
const chosen = process.env.HAC_REPORTER ?? 'list';
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
  globalTimeout: Number(process.env.HAC_GLOBAL_TIMEOUT ?? 10 * 60_000),
  fullyParallel: true,
  retries: 0,
  workers: Number(process.env.HAC_WORKERS ?? 3),
  reporter: [[`./report/requirements-reporter${ownExtension}`, { outDir }], ...(formats[chosen] ?? formats.list ?? [])],
});
