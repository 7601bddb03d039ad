import { defineConfig } from '@playwright/test';

/**
 * One runner for everything. The project's own tests live beside the part they test
 * (`<part>/tests`); the `conformance` project runs the conformance suite against the
 * embedded reference server (README.md, "Certify your server", runs it against any target).
 */
export default defineConfig({
  timeout: 60_000,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  workers: process.env.CI ? 3 : 3,
  reporter: [['list'], ['json', { outputFile: 'test-results/report.json' }]],
  projects: [
    { name: 'spec', testDir: 'spec/tests' },
    { name: 'reference-impl', testDir: 'reference-impl/tests' },
    { name: 'client', testDir: 'client/tests' },
    { name: 'conformance-tools', testDir: 'conformance/tests' },
    { name: 'conformance', testDir: 'conformance/suite' },
  ],
});
