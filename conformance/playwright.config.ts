import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import type { Project, ReporterDescription } from '@playwright/test';
import { runEnvironment } from './run-environment.ts';
import { readSuitePlan } from './run-plan.ts';
import type { PlanTarget } from './run-plan.ts';
import { grepPattern } from './selection.ts';
import { scheduling } from './scheduling.ts';
import type { Selection } from './scheduling.ts';
import { filesFor, suiteDeclarations } from './suite-declarations.ts';

/**
 * Playwright configuration of a conformance run (used by `http-api-conformance run`, which sets the
 * environment): the suite in conformance/suite, the requirements reporter writing results.json, and
 * the reporter chosen with `--reporter` writing into the output directory.
 *
 * Environment: conformance/run-environment.ts (output directory, reporter, workers, global timeout;
 * a run cut short is incomplete, never a success).
 *
 * Two or three projects per target, the rate-limit checks first, with the workers conformance/scheduling.ts
 * gives them. The spec files a selection needs are read from the `req(...)` tags of the suite
 * (suite-declarations.ts) before Playwright lists the tests: each project matches only those, and the
 * reading errs on loading too much, never too little (the coverage test compares it with Playwright's
 * own listing). Without a shared target (no HAC_PROFILE: every worker starts its own embedded server)
 * the pool is never shared. A run with several targets (HAC_PLAN, D-RUN-PLAN) has the rate-limit and
 * quick projects per target.
 */
const environment = runEnvironment();
const outDir = environment.outDir;
const chosen = environment.reporter;
// `.ts` in the repository, `.js` compiled into dist/ in an installed package.
const ownFile = fileURLToPath(import.meta.url);
const ownExtension = extname(ownFile);
const rateLimitSpec = `rate-limit.spec${ownExtension}`;
const sequencesSpec = `state.spec${ownExtension}`;
// The spec files the selection needs (suite-declarations.ts): a one-requirement run loads only those.
const declarations = suiteDeclarations(join(dirname(ownFile), 'suite'), ownExtension);
const rateLimitDeclarations = declarations.find((d) => d.file === rateLimitSpec);

/**
 * The rate-limit project, the state sequences' project where they get one (only when `names` has a
 * name for it) and the quick checks' project of one selection; the spec files it needs only.
 */
function projectsOf(
  selection: Selection,
  names: { rateLimit: string; suite: string; sequences?: string },
  extra: { grep?: RegExp; metadata?: Record<string, unknown> } = {},
): Project[] {
  const files = filesFor(declarations, selection.grep);
  const workers = scheduling(selection, environment.workers, rateLimitDeclarations);
  const sequences = workers.sequences && names.sequences !== undefined && files.includes(sequencesSpec) ? names.sequences : undefined;
  const quick = files.filter((f) => f !== rateLimitSpec && (sequences === undefined || f !== sequencesSpec));
  return [
    { name: names.rateLimit, testMatch: files.filter((f) => f === rateLimitSpec), workers: workers.rateLimit, ...extra },
    ...(sequences !== undefined ? [{ name: sequences, testMatch: [sequencesSpec], workers: 1, ...extra }] : []),
    { name: names.suite, testMatch: quick, ...(workers.suite !== undefined ? { workers: workers.suite } : {}), ...extra },
  ];
}

/**
 * D-RUN-PLAN: a run with several targets gives each its two projects, with its selection as the
 * projects' grep (the `--grep` pattern of a one-target run, matched as Playwright matches it) and
 * its plan entry in their metadata (conformance/run-plan.ts); every target's rate-limit project comes
 * first, as in a one-target run. Each project gets an equal share of the workers, at least one (and
 * the rate-limit project no more than its tokens allow): a worker serves one project, so a project
 * spread over every worker would start a worker process per worker for each target. The valid-variant
 * meta-test's plan (28 targets, 3 workers) started 98 workers without the share.
 */
function planProjects(targets: readonly PlanTarget[]): Project[] {
  const share = Math.max(1, Math.floor(environment.workers / targets.length));
  const projects = targets.map((target) => {
    const [rateLimit, suite] = projectsOf(
      { ...(target.grep !== undefined ? { grep: target.grep } : {}), rateLimitTokens: target.rateLimitTokens, shared: true },
      { rateLimit: `rate-limit ${target.name}`, suite: `suite ${target.name}` },
      { ...(target.grep !== undefined ? { grep: new RegExp(grepPattern(target.grep), 'i') } : {}), metadata: { target } },
    ) as [Project, Project];
    const limit = typeof rateLimit.workers === 'number' ? Math.min(rateLimit.workers, share) : share;
    return { rateLimit: { ...rateLimit, workers: limit }, suite: { ...suite, workers: share } };
  });
  return [...projects.map((p) => p.rateLimit), ...projects.map((p) => p.suite)];
}

const projects =
  environment.plan === undefined
    ? projectsOf(
        {
          ...(environment.grep !== undefined ? { grep: environment.grep } : {}),
          ...(environment.rateLimitTokens !== undefined ? { rateLimitTokens: environment.rateLimitTokens } : {}),
          shared: environment.profile !== undefined,
          keepWorkers: environment.keepWorkers,
        },
        { rateLimit: 'rate-limit', sequences: 'sequences', suite: 'suite' },
      )
    : planProjects(readSuitePlan(environment.plan));

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
  projects,
});
