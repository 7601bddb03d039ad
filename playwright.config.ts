import { defineConfig } from '@playwright/test';

/**
 * One runner for everything. The project's own tests live beside the part they test
 * (`<part>/tests`, the command's in `cli/tests`); the `conformance` project runs the conformance
 * suite against the embedded reference server (README.md, "Certify your server", runs it against
 * any target).
 *
 * `npm test` runs the projects in three phases (package.json, `test:timing`, `test:matrix`, then
 * `test:others`), each a Playwright run of its own with its own JSON report: test-results/report-<phase>.json.
 * - `timing`: the tests whose verdicts are real-time measurements (the client harness and matrix, the
 *   bucket arithmetic, failovers), alone on the machine. Beside the CPU-heavy meta-tests (each then ran
 *   the CLI dozens of times, load average 10-17 on 2 cores) a correct client's wait measured 4.8 s
 *   where 4 s was its bound, a no-jitter client passed CLIENT-BACKOFF-JITTER, and a failover test ran
 *   past its 240 s bound. Not a project dependency: a failing dependency skips every later project
 *   (421 tests did not run in one fresh-clone run), which hides the rest of the evidence.
 * - `matrix`: the clients matrix in real time (tag `@alone`), by itself: it starts ~230 adapter
 *   processes at once, and beside it the reference client's own jitter measured 3.3 s in a [0, 1) s
 *   range while the harness saw 0.19 s of lateness (the adapters' lateness is their own process's),
 *   and the matrix itself ran past its 240 s bound (2026-12-02, two fresh-clone runs out of two).
 * - `others`: everything else, the meta-tests first.
 * Each project writes into its own directory under test-results/, so the second phase, which empties
 * the output directories of its own projects, keeps the first phase's report and failure context.
 */
const phase = process.env.HAC_TEST_PHASE;
/** The meta-tests of conformance/tests: the suite against every broken and valid variant and every stack. */
const META_TESTS = /(^|[\\/])meta-[^\\/]*\.spec\.ts$/;
const report = phase === undefined ? 'test-results/report.json' : `test-results/report-${phase}.json`;

export default defineConfig({
  timeout: 60_000,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  // Three workers on the two cores of the target machine: the long tests mostly wait (real-time client
  // scenarios, rate-limit refills, failovers), so a third worker fills the cores the waits leave idle.
  workers: 3,
  reporter: [['list'], ['json', { outputFile: report }]],
  // npm test's phases build the CLI the tests start (fixtures/support/compiled-cli.ts) before any test runs.
  ...(phase === undefined ? {} : { globalSetup: './fixtures/support/compiled-cli-setup.ts' }),
  // Playwright hands out tests in project order, then file order: each phase starts with its longest
  // tests, so it does not end on them. In `timing` the client harness (real-time scenarios, one test of
  // 50 s, ten of 4-32 s) comes before the reference server's tests, which fill the other workers; in
  // `others` the three meta-tests (7 min each beside the rest) come before the other tests of
  // conformance/tests, which sort ahead of them by name (corpus-mocks, fastapi-openapi, ...). A
  // fresh-clone run with the meta-tests third: they started at 160-169 s, and the last 130 s of the
  // phase ran the cli and spec projects behind them.
  projects: [
    { name: 'client', testDir: 'client/tests', outputDir: 'test-results/client', grepInvert: /@alone/ },
    { name: 'reference-impl', testDir: 'reference-impl/tests', outputDir: 'test-results/reference-impl' },
    { name: 'client-matrix', testDir: 'client/tests', outputDir: 'test-results/client-matrix', grep: /@alone/ },
    { name: 'meta', testDir: 'conformance/tests', testMatch: META_TESTS, outputDir: 'test-results/meta' },
    { name: 'conformance-tools', testDir: 'conformance/tests', testIgnore: META_TESTS, outputDir: 'test-results/conformance-tools' },
    { name: 'cli', testDir: 'cli/tests', outputDir: 'test-results/cli' },
    { name: 'spec', testDir: 'spec/tests', outputDir: 'test-results/spec' },
    { name: 'conformance', testDir: 'conformance/suite', outputDir: 'test-results/conformance' },
  ],
});
