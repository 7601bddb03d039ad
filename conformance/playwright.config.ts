import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import type { Project, ReporterDescription } from '@playwright/test';
import { runEnvironment } from './run-environment.ts';
import { readSuitePlan } from './run-plan.ts';
import type { PlanTarget } from './run-plan.ts';
import { grepPattern } from './selection.ts';
import { filesFor, selectedChecks, suiteDeclarations } from './suite-declarations.ts';

/**
 * Playwright configuration of a conformance run (used by `http-api-conformance run`, which sets the
 * environment): the suite in conformance/suite, the requirements reporter writing results.json, and
 * the reporter chosen with `--reporter` writing into the output directory.
 *
 * Environment: conformance/run-environment.ts (output directory, reporter, workers, global timeout;
 * a run cut short is incomplete, never a success).
 *
 * Two projects, the rate-limit checks first: they are the longest of the run (they wait for buckets
 * to refill, up to capacity / rate seconds each) and mostly wait, so they start at once on their own
 * workers while the quick checks take the others (Playwright hands out tests in project order and
 * moves on to the next project when one is at its worker limit). A worker serves one project, so a
 * worker that has run out of rate-limit checks is replaced by a new one (a second or so of start-up).
 * Each rate-limit check holds one token of the profile's pool (rate-limit-fixtures.ts, a
 * lock shared by all workers). How many workers they take:
 * - one token on a shared target: one, so the checks run one after another instead of workers
 *   queueing for the same lock;
 * - the whole suite: all workers but one (the rate-limit group is about half the run's test time);
 * - a selection of the rate-limit group or of its requirements: all workers, there is nothing else;
 * - any other selection that holds rate-limit checks (`@smoke` holds two): one per selected check, at
 *   most all workers but one, and the quick checks get the other workers only, so the rate-limit
 *   checks wait side by side (each mostly waits out a Retry-After) and no worker is replaced mid-run;
 * - any other selection: the quick checks take every worker (one is left to the rate-limit project,
 *   which has nothing to run).
 * How many rate-limit checks a selection holds is read from the `req(...)` tags of the rate-limit
 * spec (suite-declarations.ts) before Playwright lists the tests; so are the spec files a selection
 * needs: each project matches only those, and the reading errs on loading too much, never too little
 * (the coverage test compares it with Playwright's own listing).
 * A whole run on a shared target with five workers or more (a target elsewhere gets six by default,
 * cli/run/workers.ts) has a third project between the two, `sequences`: the state check's model-based
 * sequences (state.spec), the longest quick check where every answer takes a round trip, on a worker
 * of its own from the start, while the rate-limit checks take all workers but two. In the suite
 * project it started when the other files' checks had been handed out (Playwright hands out a
 * project's checks in file order) and ended the run: behind a 50 ms latency proxy, 6 workers, it ran
 * 13 s from 24 s to 37 s of a 36.5-39.3 s run, and the runs took 28.6-32.1 s with the project (2
 * alternating runs each, 2 cores, load 1). On loopback (3 workers by default) the sequences take a
 * second or two and the split would cost a worker of the three, so they stay with the quick checks.
 * Without a shared target (no HAC_PROFILE: every worker starts its own embedded server) the pool is
 * never shared. A run with several targets (HAC_PLAN, D-RUN-PLAN) has the rate-limit and quick
 * projects per target.
 */
const environment = runEnvironment();
const outDir = environment.outDir;
const chosen = environment.reporter;
// `.ts` in the repository, `.js` compiled into dist/ in an installed package.
const ownFile = fileURLToPath(import.meta.url);
const ownExtension = extname(ownFile);
const rateLimitSpec = `rate-limit.spec${ownExtension}`;
const sequencesSpec = `state.spec${ownExtension}`;
/** The fewest workers with which a whole run gives the state sequences a worker of their own (see above). */
const SEQUENCES_FROM_WORKERS = 5;
// The spec files the selection needs (suite-declarations.ts): a one-requirement run loads only those.
const declarations = suiteDeclarations(join(dirname(ownFile), 'suite'), ownExtension);
const rateLimitDeclarations = declarations.find((d) => d.file === rateLimitSpec);

/** A target's selection and rate-limit tokens, and whether it shares one target between workers (a profile). */
interface Selection {
  grep?: string;
  rateLimitTokens?: number;
  shared: boolean;
}

/**
 * Workers of the rate-limit project, the quick checks' limit when they must leave the others to it,
 * and whether the state sequences get a project (and a worker) of their own.
 */
function scheduling({ grep, rateLimitTokens, shared }: Selection): { rateLimit: number; suite?: number; sequences?: true } {
  if (shared && (rateLimitTokens ?? 1) < 2) return { rateLimit: 1 };
  if (grep === undefined && shared && environment.workers >= SEQUENCES_FROM_WORKERS) {
    return { rateLimit: Math.min(environment.workers - 2, rateLimitTokens ?? environment.workers - 2), sequences: true };
  }
  if (grep === undefined) return { rateLimit: Math.max(1, environment.workers - 1) };
  if (/rate-limit/i.test(grep)) return { rateLimit: environment.workers };
  const selected = rateLimitDeclarations && selectedChecks(rateLimitDeclarations, grep);
  if (!selected || environment.workers < 2) return { rateLimit: 1 };
  const rateLimit = Math.min(selected, environment.workers - 1, rateLimitTokens ?? selected);
  return { rateLimit, suite: environment.workers - rateLimit };
}

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
  const workers = scheduling(selection);
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
