import { defineConfig } from '@playwright/test';

/**
 * One runner for everything. The project's own tests live beside the part they test
 * (`<part>/tests`, the command's in `cli/tests`); the `conformance` project runs the conformance
 * suite against the embedded reference server (README.md, "Certify your server", runs it against
 * any target).
 */
export default defineConfig({
  timeout: 60_000,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  // Three workers on the two cores of the target machine: the long tests mostly wait (real-time client
  // scenarios, rate-limit refills, failovers), so a third worker fills the cores the waits leave idle.
  workers: 3,
  reporter: [['list'], ['json', { outputFile: 'test-results/report.json' }]],
  // Playwright hands out tests in project order. The timing-sensitive reference-impl and client tests
  // go first, while the machine is least loaded; the two meta-tests (about four minutes each) in
  // conformance-tools then start before the quick spec checks, so the run does not end on them.
  // Not made dependencies of the later projects: their own real-time scenarios flipped client verdicts at
  // load ~7 with nothing else running, and a dependency failing skips every later project (421 tests did
  // not run in that fresh-clone run), which hides the rest of the evidence.
  projects: [
    { name: 'reference-impl', testDir: 'reference-impl/tests' },
    { name: 'client', testDir: 'client/tests' },
    { name: 'conformance-tools', testDir: 'conformance/tests' },
    { name: 'cli', testDir: 'cli/tests' },
    { name: 'spec', testDir: 'spec/tests' },
    { name: 'conformance', testDir: 'conformance/suite' },
  ],
});
