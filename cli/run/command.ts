/**
 * `http-api-conformance run`, from the command line to the suite (several targets: `--plan`, plan.ts): parse the options, settle the
 * profile (preflight.ts), start the embedded reference server when there is no target, probe the
 * target and verify its declared features, run the suite in Playwright, and give the verdict
 * (verdict.ts). Exit 0 every MUST passed (and every SHOULD with --strict), 1 a requirement failed
 * or the run did not finish, 2 unusable options, profile or target (D-BOUNDED-RUN bounds it all).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportRunBounds, runEnvironment } from '../../conformance/run-environment.ts';
import { runDirectory } from '../../conformance/report/repeat.ts';
import { startSuite } from '../../conformance/suite-process.ts';
import type { SuiteProcess } from '../../conformance/suite-process.ts';
import type { EmbeddedTarget } from '../../conformance/target/embedded.ts';
import { rateLimitPool } from '../../conformance/target/profile.ts';
import { optionsOrExit } from '../arguments.ts';
import { DeadlinePassed, runDeadline } from './deadline.ts';
import { parseRunOptions, RUN_USAGE } from './options.ts';
import { runPlan } from './plan.ts';
import { preflight } from './preflight.ts';
import { CannotRun, RunRecord } from './record.ts';
import { meetTarget } from './target.ts';
import { verdict } from './verdict.ts';
import { defaultWorkers, isLocalTarget, REMOTE_WORKERS } from './workers.ts';

/** Room left after the suite's own global timeout for stopping it and writing the report (at least; a tenth of the deadline when more). */
const REPORT_MARGIN_MS = 15_000;

/** Runs the `run` sub-command with `args` and resolves with the process exit code. */
export async function runCommand(args: string[]): Promise<number> {
  const started = new Date();
  const options = optionsOrExit('http-api-conformance run', RUN_USAGE, () => parseRunOptions(args));
  if (typeof options === 'number') return options;
  // D-BOUNDED-RUN: the run's bounds, handed on through the contract (run-environment.ts); the suite's own
  // global timeout ends it in time to report when the deadline is the shorter bound.
  const deadline = runDeadline(options.deadlineSeconds * 1000);
  const suiteBudgetMs = options.deadlineSeconds * 1000 - Math.max(REPORT_MARGIN_MS, options.deadlineSeconds * 100);
  const cutByDeadline = suiteBudgetMs < runEnvironment().globalTimeoutMs;
  exportRunBounds({
    ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
    ...(cutByDeadline ? { globalTimeoutMs: Math.max(1000, suiteBudgetMs) } : {}),
  });
  if (options.plan !== undefined) {
    try {
      return await runPlan({ ...options, plan: options.plan }, started, deadline, cutByDeadline);
    } finally {
      deadline.clear();
    }
  }
  const record = new RunRecord(options.out, started, options.strict);
  const running: { embedded?: EmbeddedTarget; suite?: SuiteProcess } = {};
  let baseUrls: unknown;
  try {
    const ready = preflight(options);
    baseUrls = ready.profile.baseUrls;
    const valid = await meetTarget(options, ready, deadline, running);
    baseUrls = valid.baseUrls;
    // Neither --workers nor HAC_WORKERS: 3 workers for a target on this machine, 6 for one elsewhere (workers.ts).
    const chosen = options.workers === undefined && !runEnvironment().workersGiven;
    const targetUrls = running.embedded ? [] : valid.baseUrls;
    const workers = options.workers ?? (chosen ? defaultWorkers(targetUrls) : undefined);
    if (options.workers === undefined && workers === REMOTE_WORKERS) {
      console.log(`workers: ${REMOTE_WORKERS} (the target is not on this machine: its checks mostly wait on the network; --workers N to choose)`);
    }
    // The suite reads the validated profile from a file (HAC_PROFILE_CHECKED: its workers do not validate it again).
    const profilePath = join(options.out, 'profile.json');
    const { $schema: _schema, ...resolved } = valid;
    writeFileSync(profilePath, `${JSON.stringify(resolved, null, 2)}\n`);
    const harDir = options.har === undefined ? undefined : join(options.out, '.har-parts');
    if (harDir !== undefined) rmSync(harDir, { recursive: true, force: true });
    const suiteStarted = performance.now();
    const runs = [];
    for (let index = 1; index <= options.repeat; index += 1) {
      const outDir = runDirectory(options.out, index, options.repeat);
      if (options.repeat > 1) console.log(`\nrun ${index} of ${options.repeat} (${outDir})`);
      running.suite = startSuite({
        profilePath,
        profileChecked: true,
        profileSource: ready.profileSource,
        outDir,
        strict: options.strict,
        reporter: options.reporter,
        rateLimitTokens: valid.tokens ? rateLimitPool({ tokens: valid.tokens }).length : 0,
        // The run shares this machine's cores with its target: a worker replaced mid-run costs more than it helps (conformance/scheduling.ts).
        keepWorkers: chosen && isLocalTarget(targetUrls),
        ...(harDir !== undefined ? { har: { dir: harDir, secrets: options.harSecrets } } : {}),
        ...(workers !== undefined ? { workers } : {}),
        ...(options.grep ? { grep: options.grep } : {}),
      });
      await deadline.within('suite', running.suite.exited);
      runs.push(record.reported(outDir));
    }
    const { baseline, warnings } = ready;
    const suiteMs = performance.now() - suiteStarted;
    return await verdict(options, record, { runs, baseUrls: valid.baseUrls, cutByDeadline, baseline, warnings, harDir, suiteMs, started });
  } catch (error) {
    await running.suite?.stop();
    if (error instanceof CannotRun) return await record.refused(error);
    if (!(error instanceof DeadlinePassed)) throw error;
    // Before the suite the target gave no usable answer: exit 2; during it, an incomplete run: exit 1.
    if (error.beforeSuite) return await record.refused(new CannotRun(error.message, { baseUrls }));
    return await record.unfinished(error.message, { baseUrls });
  } finally {
    deadline.clear();
    await running.suite?.stop();
    await running.embedded?.close();
  }
}
