import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import type { ReporterDescription } from '@playwright/test';
import { runEnvironment } from './run-environment.ts';
import { PROFILE_HANDOFF_SETUP } from './cli/profile-handoff.ts';

/**
 * Playwright configuration of a conformance run (used by `http-api-conformance run`, which sets the
 * environment): the suite in conformance/suite, the requirements reporter writing results.json, and
 * the reporter chosen with `--reporter` writing into the output directory.
 *
 * Environment: conformance/run-environment.ts (output directory, reporter, workers, global timeout;
 * a run cut short is incomplete, never a success). When the CLI writes the profile after starting
 * the suite, the global set-up waits for it (cli/profile-handoff.ts).
 *
 * Two projects, the rate-limit checks first: they are the longest of the run (they wait for buckets
 * to refill, up to capacity / rate seconds each) and mostly wait, so they start at once on their own
 * workers while the quick checks take the others (Playwright hands out tests in project order and
 * moves on to the next project when one is at its worker limit). A worker serves one project, so a
 * worker that has run out of rate-limit checks is replaced by a new one (a second or so of start-up).
 * Each rate-limit check holds one token of the profile's pool (support/rate-limit-fixtures.ts, a
 * lock shared by all workers). How many workers they take:
 * - one token on a shared target: one, so the checks run one after another instead of workers
 *   queueing for the same lock;
 * - the whole suite: all workers but one (the rate-limit group is about half the run's test time);
 * - a selection of the rate-limit group or of its requirements: all workers, there is nothing else;
 * - any other selection (`@smoke` holds two rate-limit checks): one, so the other workers run the
 *   rest from the start and none is replaced.
 * Without a shared target (no HAC_PROFILE: every worker starts its own embedded server) the pool is
 * never shared.
 */
const environment = runEnvironment();
const outDir = environment.outDir;
const chosen = environment.reporter;
const rateLimitSpec = 'rate-limit.spec.ts';
const rateLimitWorkers = ((): number => {
  if (environment.profile !== undefined && (environment.rateLimitTokens ?? 1) < 2) return 1;
  if (environment.grep === undefined) return Math.max(1, environment.workers - 1);
  return /rate-limit/i.test(environment.grep) ? environment.workers : 1;
})();
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
  ...(environment.profilePending ? { globalSetup: PROFILE_HANDOFF_SETUP } : {}),
  fullyParallel: true,
  retries: 0,
  workers: environment.workers,
  reporter: [[`./report/requirements-reporter${ownExtension}`, { outDir }], ...(formats[chosen] ?? formats.list ?? [])],
  projects: [
    { name: 'rate-limit', testMatch: rateLimitSpec, workers: rateLimitWorkers },
    { name: 'suite', testIgnore: rateLimitSpec },
  ],
});
