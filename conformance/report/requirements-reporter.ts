/**
 * Playwright reporter of the conformance suite: groups the tests by the requirement IDs they declare
 * and writes `results.json` (spec/results.ts) with an outcome for every server
 * requirement of the catalogue. The CLI's exit code comes from this file, not from Playwright's.
 *
 * Settings come from the options of the reporter entry or from the environment the CLI sets
 * (conformance/run-environment.ts: output directory, strict, the resolved profile, the selection).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { serverRequirements } from '../../spec/catalogue.ts';
import { requirementResults } from './requirement-outcomes.ts';
import { groupFindings } from './findings.ts';
import { createResults, writeResults } from '../../spec/results.ts';
import type { TestRecord } from '../../spec/results.ts';
import { recordOf, recordsByRequirement, stripAnsi } from './test-record.ts';
import { runTiming } from './timing.ts';
import { restoreExpectedStatus } from './kept-worker.ts';
import { trafficLogOf, trafficVerdicts } from './traffic.ts';
import type { TrafficLog } from '../traffic/recorder.ts';
import type * as ReportFiles from './report-files.ts';
import { runEnvironment } from '../run-environment.ts';
import { projectTarget, readSuitePlan } from '../run-plan.ts';

export interface RequirementsReporterOptions {
  outDir?: string;
  strict?: boolean;
  profile?: string;
  /** The profile file the user gave (HAC_PROFILE_SOURCE, or a plan target's), named in results.json. */
  profileSource?: string;
  grep?: string;
  /** Another catalogue file (tests of the reporter itself). */
  catalogue?: string;
}

/** What was tested, from the resolved profile file (`source`: the file the user gave, HAC_PROFILE_SOURCE or the plan's). */
function targetOf(profilePath: string | undefined, source = profilePath): Record<string, unknown> {
  if (!profilePath) return { embedded: true };
  try {
    const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as { name?: unknown; baseUrls?: unknown };
    return { name: profile.name, baseUrls: profile.baseUrls, profile: source, resolvedProfile: profilePath };
  } catch {
    return { profile: source, resolvedProfile: profilePath };
  }
}

/**
 * D-BOUNDED-RUN: a check that ran out of time is no verdict on the target: the run is incomplete, and
 * this says which check, in which phase (its last step), and the last request it had made.
 */
function timedOutText(test: TestCase, record: TestRecord): string {
  const result = test.results.at(-1);
  // The phase: the innermost step that had begun when the bound ran out (the clean-up after it is not the phase).
  const bound = (result?.startTime.getTime() ?? 0) + test.timeout;
  const phase: string[] = [];
  for (let steps = result?.steps ?? []; ; ) {
    const step = steps.filter((x) => x.startTime.getTime() < bound && x.title !== 'After Hooks' && x.title !== 'Worker Cleanup').at(-1);
    if (!step) break;
    phase.push(step.title);
    steps = step.steps;
  }
  const request = record.exchange ? `; its last request: ${record.exchange.request.method} ${record.exchange.request.url}` : '';
  return `check "${test.title}" ran out of time after ${Math.round(record.durationMs)} ms${phase.length > 0 ? `, in ${phase.join(' › ')}` : ''}${request}`;
}

/** Writes results.json at the end of a conformance run (per requirement: level and outcome). */
export default class RequirementsReporter implements Reporter {
  private readonly options: Required<Pick<RequirementsReporterOptions, 'outDir' | 'strict'>> & RequirementsReporterOptions;
  private suite: Suite | undefined;
  private started = new Date();
  private readonly errors: string[] = [];
  /**
   * report.html's and badge.svg's modules, needed at the end only: loaded while the tests run, once
   * every worker the run can start has begun its first test (`preloadAfter` workers), not while
   * Playwright or its workers start. Those start-ups share the cores and decide when the longest
   * checks (the rate-limit waits) begin; the modules' ~0.1 s of CPU then goes where a worker mostly
   * waits (the smoke goal, bench/README.md: under 3 s wall). A run that never gets there loads them at
   * its end.
   */
  private reportFiles: Promise<typeof ReportFiles> | undefined;
  private preloadAfter = 1;
  private readonly workersBegun = new Set<number>();

  private loadReportFiles(): Promise<typeof ReportFiles> {
    return (this.reportFiles ??= import('./report-files.ts'));
  }

  constructor(options: RequirementsReporterOptions = {}) {
    const environment = runEnvironment();
    const grep = options.grep ?? environment.grep;
    const profile = options.profile ?? environment.profile;
    const profileSource = options.profileSource ?? environment.profileSource;
    this.options = {
      ...options,
      ...(profileSource ? { profileSource } : {}),
      outDir: options.outDir ? resolve(options.outDir) : environment.outDir,
      strict: options.strict ?? environment.strict,
      ...(profile ? { profile } : {}),
      ...(grep ? { grep } : {}),
    };
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.suite = suite;
    this.started = new Date();
    this.preloadAfter = Math.max(1, Math.min(config.workers, suite.allTests().length));
  }

  onTestBegin(_test: TestCase, result: TestResult): void {
    if (this.reportFiles) return;
    this.workersBegun.add(result.parallelIndex);
    if (this.workersBegun.size >= this.preloadAfter) void this.loadReportFiles().catch(() => undefined);
  }

  /** D-WORKER-KEPT: this reporter comes first, so every reporter after it sees the failure as unexpected. */
  onTestEnd(test: TestCase, result: TestResult): void {
    restoreExpectedStatus(test, result);
  }

  onError(error: TestError): void {
    this.errors.push(stripAnsi(error.message ?? error.value ?? 'unknown error').split('\n')[0] ?? 'unknown error');
  }

  async onEnd(result: FullResult): Promise<void> {
    const tests = this.suite?.allTests() ?? [];
    const { plan } = runEnvironment();
    if (plan === undefined) {
      await this.writeFor(tests, result, this.options);
      return;
    }
    // D-RUN-PLAN: each target's results.json from its own projects' tests, into its own directory.
    const { grep: _runGrep, ...common } = this.options;
    for (const target of readSuitePlan(plan)) {
      const own = tests.filter((test) => projectTarget(test.parent.project() ?? {})?.name === target.name);
      await this.writeFor(own, result, {
        ...common,
        outDir: target.outDir,
        profile: target.profilePath,
        profileSource: target.profileSource,
        ...(target.grep !== undefined ? { grep: target.grep } : {}),
      });
    }
  }

  /** Writes results.json, report.html and badge.svg of one target from its tests. */
  private async writeFor(
    tests: readonly TestCase[],
    result: FullResult,
    options: Required<Pick<RequirementsReporterOptions, 'outDir' | 'strict'>> & RequirementsReporterOptions,
  ): Promise<void> {
    const finished = new Date();
    const testsById = new Map<string, TestRecord[]>();
    let notRun = 0;
    let interrupted = 0;
    const ranOutOfTime: string[] = [];
    const catalogue = serverRequirements(options.catalogue);
    const summaries = new Map(catalogue.map((r) => [r.id, r.summary]));
    const logs: { title: string; log: TrafficLog }[] = [];
    for (const test of tests) {
      const log = test.results.at(-1) && trafficLogOf(test.results.at(-1) as TestResult);
      if (log) logs.push({ title: test.titlePath().slice(3).join(' › ') || test.title, log });
      let record = recordOf(test, process.cwd(), (id) => summaries.get(id));
      if (!record) {
        notRun += 1;
        record = { title: test.title, status: 'skipped', durationMs: 0, reason: 'did not run: the run ended early' };
      }
      if (record.status === 'interrupted') interrupted += 1;
      if (record.status === 'timedOut') ranOutOfTime.push(timedOutText(test, record));
      for (const [id, own] of recordsByRequirement(test, test.results.at(-1), record)) {
        const list = testsById.get(id) ?? [];
        list.push(own);
        testsById.set(id, list);
      }
    }
    // D-TRAFFIC: a response rule broken anywhere in the run's traffic fails its requirement, with that exchange.
    const traffic = trafficVerdicts(logs);
    for (const [id, records] of traffic.records) testsById.set(id, [...(testsById.get(id) ?? []), ...records]);
    const errors = [...this.errors, ...traffic.ruleErrors];
    if (result.status === 'interrupted' || result.status === 'timedout') errors.push(`the run ended early: ${result.status}`);
    if (notRun > 0) errors.push(`${notRun} test(s) did not run`);
    if (interrupted > 0) errors.push(`${interrupted} test(s) were interrupted`);
    errors.push(...ranOutOfTime);
    const complete = errors.length === 0;

    const known = new Set(catalogue.map((r) => r.id));
    const requirements = requirementResults(catalogue, testsById, { strict: options.strict, ...(options.grep ? { grep: options.grep } : {}) });
    const unknownIds = [...testsById.keys()].filter((id) => !known.has(id)).sort();
    const results = createResults({
      kind: 'server',
      target: targetOf(options.profile, options.profileSource ?? options.profile),
      startedAt: this.started,
      finishedAt: finished,
      strict: options.strict,
      complete,
      requirements,
      ...(options.grep ? { grep: options.grep } : {}),
      errors,
      unknownIds,
      findings: groupFindings(requirements),
      ...(logs.length > 0 ? { traffic: traffic.summary } : {}),
      timing: runTiming(tests),
    });
    writeResults(options.outDir, results);
    (await this.loadReportFiles()).writeReportFiles(options.outDir, results, options.catalogue);
  }
}
