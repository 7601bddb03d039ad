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
  // The timing-sensitive reference-impl and client tests (real-time client waits, failovers) run first and
  // alone: every other project depends on them, so none of the CLI runs of the meta-tests loads the cores
  // while they measure time. Handed out in project order only, they did not: on a 2-core machine at load
  // 15-22 the meta-tests' CLI runs flipped the client harness's jitter and Retry-After verdicts and a
  // failover's timing (3 failures in one fresh-clone run). Running one of the later projects by itself
  // takes Playwright's --no-deps. The two meta-tests (about four minutes each) in conformance-tools then
  // start before the quick spec checks, so the run does not end on them.
  projects: [
    { name: 'reference-impl', testDir: 'reference-impl/tests' },
    { name: 'client', testDir: 'client/tests' },
    { name: 'conformance-tools', testDir: 'conformance/tests', dependencies: ['reference-impl', 'client'] },
    { name: 'cli', testDir: 'cli/tests', dependencies: ['reference-impl', 'client'] },
    { name: 'spec', testDir: 'spec/tests', dependencies: ['reference-impl', 'client'] },
    { name: 'conformance', testDir: 'conformance/suite', dependencies: ['reference-impl', 'client'] },
  ],
});
