/**
 * `http-api-conformance run`: resolves the target profile, starts the embedded
 * reference server when no target is given, probes every target, runs the suite in Playwright and
 * derives the exit code from results.json: 0 every MUST passed (and every SHOULD with --strict),
 * 1 a requirement failed or the run did not finish, 2 unusable options, profile or target.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createResults, readResults, writeResults } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import type { EmbeddedTarget } from '../target/embedded.ts';
import type * as ReportFiles from '../report/report-files.ts';
import { formatSummary } from '../report/summary-table.ts';
import {
  applyExpectedFailures,
  expectedFailuresOf,
  ExpectedFailuresError,
  passesNowMessages,
  readExpectedFailures,
  writeExpectedFailures,
} from '../report/expected-failures.ts';
import type { ExpectedFailuresFile } from '../report/expected-failures.ts';
import { joinHarParts } from '../report/har.ts';
import { grepPattern, parseRunOptions, RUN_USAGE, UsageError } from './options.ts';
import type { RunOptions } from './options.ts';
import { startSuite } from './playwright-process.ts';
import type { SuiteProcess, SuiteRun } from './playwright-process.ts';
import { writeWhole } from './profile-handoff.ts';
import { probeTargets } from './probe.ts';
import { defaultWorkers, REMOTE_WORKERS } from './workers.ts';
import { formatDisagreements, mergeRuns, runDirectory } from './repeat.ts';
import { exportTlsTrust, runEnvironment } from '../run-environment.ts';
import { hasBaseUrls, parseProfile, ProfileError, rateLimitPool, readProfile, REFERENCE_PROFILE, withTargets } from '../target/profile.ts';
import type { ProfileDocument } from '../target/profile.ts';
import type { TargetProfile } from '../target/profile.ts';

type Embedded = EmbeddedTarget;

/**
 * Starts the embedded reference server (conformance/target/embedded.ts), loaded only when needed:
 * two instances sharing Redis when Redis answers, so the multi-target checks run too
 * (RATE-LIMIT-SHARED-STORE, STATELESS-ANY-INSTANCE), else one instance on the memory store. `HAC_EMBEDDED=memory` (run-environment.ts) forces the latter.
 */
async function startEmbedded(): Promise<Embedded> {
  const { startEmbeddedTarget } = await import('../target/embedded.ts');
  const { redisAnswers, sharedRedisUrl } = await import('../../reference-impl/redis-admin.ts');
  const redisUrl = sharedRedisUrl();
  if (!runEnvironment().embeddedMemoryOnly && (await redisAnswers(redisUrl, 500))) {
    console.log(`embedded reference server: two instances sharing Redis at ${redisUrl}`);
    return startEmbeddedTarget({ instances: 2, store: 'redis', redisUrl });
  }
  console.log('embedded reference server: one instance on the memory store (no Redis: the multi-target checks are skipped)');
  return startEmbeddedTarget({ instances: 1, store: 'memory' });
}

/** results.json of a run that could not start (exit 2), or (exit 1) one whose suite wrote no results: never a success. */
function notRun(options: RunOptions, target: Record<string, unknown>, errors: string[], started: Date): RunResults {
  return createResults({ kind: 'server', target, startedAt: started, strict: options.strict, complete: false, requirements: [], exitCode: 2, errors });
}

/** The results.json the reporter wrote (checked against its schema), or undefined when there is none or it is unusable. */
function reportedResults(file: string): RunResults | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readResults(file);
  } catch (error) {
    console.error(`http-api-conformance run: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The report modules (report.html's page, the badge's font metrics), loaded when first needed, never
 * before the suite process is started: writing report.html and badge.svg is no part of what a run must
 * do first. Only a run that writes them itself (merged repeats, a warning of the run) loads them while
 * the suite runs (`void reportFiles()` once the suite has its profile); in any other run the suite's
 * requirements reporter writes them, and loading them here too (about 0.1 s of CPU) would only take
 * the cores from the suite's workers while they start (the smoke goal, bench/README.md: under 3 s wall).
 */
let reportFilesModule: Promise<typeof ReportFiles> | undefined;
function reportFiles(): Promise<typeof ReportFiles> {
  return (reportFilesModule ??= import('../report/report-files.ts'));
}

/** Writes report.html and badge.svg beside results.json. */
async function writeReportFiles(out: string, results: RunResults): Promise<void> {
  (await reportFiles()).writeReportFiles(out, results);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The run deadline passed (D-BOUNDED-RUN) while `phase` was running; the message names the phase and what did not finish. */
class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
  constructor(
    readonly phase: string,
    message: string,
  ) {
    super(message);
  }
}

/** Phases before the suite: the target has given no usable answer yet when one of them runs out of time. */
const BEFORE_SUITE = new Set(['embedded server start', 'probe', 'feature check']);

/** Room left after the suite's own global timeout for stopping it and writing the report (at least; a tenth of the deadline when more). */
const REPORT_MARGIN_MS = 15_000;

/**
 * D-BOUNDED-RUN: one deadline over every phase of the run. `within(phase, work)` resolves with `work`
 * or rejects with DeadlinePassed naming the phase and the requests of this process that had not finished.
 */
function runDeadline(deadlineMs: number): { within<T>(phase: string, work: Promise<T>): Promise<T>; clear(): void } {
  let phase = 'start';
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      void import('../support/http.ts').then(({ unfinishedRequests }) => {
        const unfinished = unfinishedRequests();
        const what =
          unfinished.length > 0
            ? `; unfinished: ${unfinished.join('; ')}`
            : phase === 'suite'
              ? '; the suite did not end (its tests name their unfinished requests in results.json)'
              : '';
        reject(new DeadlinePassed(phase, `the run deadline of ${seconds(deadlineMs)} (--deadline) passed during the ${phase}${what}`));
      });
    }, deadlineMs);
    timer.unref();
  });
  expired.catch(() => undefined);
  return {
    within: <T>(name: string, work: Promise<T>): Promise<T> => {
      phase = name;
      return Promise.race([work, expired]);
    },
    clear: () => clearTimeout(timer),
  };
}

/** Runs the `run` sub-command with `args` and resolves with the process exit code. */
export async function runCommand(args: string[]): Promise<number> {
  const started = new Date();
  let options: RunOptions;
  try {
    options = parseRunOptions(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`http-api-conformance run: ${error.message}\n\n${RUN_USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(RUN_USAGE);
    return 0;
  }
  // D-BOUNDED-RUN: the run's bounds, in this process's environment so the suite's workers inherit them.
  if (options.maxResponseBytes !== undefined) process.env.HAC_MAX_RESPONSE_BYTES = String(options.maxResponseBytes);
  const deadline = runDeadline(options.deadlineSeconds * 1000);
  const suiteBudgetMs = options.deadlineSeconds * 1000 - Math.max(REPORT_MARGIN_MS, options.deadlineSeconds * 100);
  // The suite's own global timeout ends it in time to report when the deadline is the shorter bound.
  const suiteCutByDeadline = suiteBudgetMs < runEnvironment().globalTimeoutMs;
  if (suiteCutByDeadline) process.env.HAC_GLOBAL_TIMEOUT = String(Math.max(1000, suiteBudgetMs));
  mkdirSync(options.out, { recursive: true });
  const resultsFile = join(options.out, 'results.json');
  rmSync(resultsFile, { force: true });
  // The suite process, once started (below): a run that cannot go on stops it before reporting why.
  const running: { suite?: SuiteProcess } = {};
  /** An incomplete run (exit 1): the suite's results.json when it wrote one, marked incomplete, else one naming `message`. */
  const unfinishedRun = async (message: string, target: Record<string, unknown>): Promise<number> => {
    console.error(`http-api-conformance run: ${message}`);
    const reported = reportedResults(resultsFile);
    const results: RunResults = reported
      ? { ...reported, complete: false, exitCode: 1, errors: [...(reported.errors ?? []), message] }
      : createResults({ kind: 'server', target, startedAt: started, strict: options.strict, complete: false, requirements: [], errors: [message] });
    writeResults(options.out, results);
    await writeReportFiles(options.out, results);
    console.error(`results: ${resultsFile} (incomplete, exit 1)`);
    return 1;
  };
  const fail = async (message: string, target: Record<string, unknown> = {}): Promise<number> => {
    await running.suite?.stop();
    console.error(`http-api-conformance run: ${message}`);
    const results = notRun(options, target, [message], started);
    writeResults(options.out, results);
    await writeReportFiles(options.out, results);
    console.error(`results: ${resultsFile} (incomplete, exit 2)`);
    return 2;
  };

  // D-SUITE-TRUST: the TLS trust of every request of the run (this process's probe and the workers).
  const warnings: string[] = [];
  if (options.ca !== undefined) {
    try {
      const pem = readFileSync(options.ca, 'utf8');
      if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
        return fail(`--ca ${options.ca} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA or self-signed certificate in PEM form`);
      }
    } catch (error) {
      return fail(`cannot read --ca ${options.ca}: ${(error as Error).message}`);
    }
    exportTlsTrust({ caFile: options.ca });
  }
  if (options.insecure) {
    exportTlsTrust({ insecure: true });
    warnings.push('TLS certificate verification was OFF (--insecure): the target was not authenticated; use --ca FILE to trust a private CA instead');
    console.warn(`\n${'!'.repeat(100)}\n!! WARNING: ${warnings[0]}\n${'!'.repeat(100)}\n`);
  }

  // D-EXPECTED-FAILURES: an unusable baseline stops the run before the suite spends any time.
  let baseline: ExpectedFailuresFile | undefined;
  if (options.expectedFailures !== undefined) {
    try {
      baseline = readExpectedFailures(options.expectedFailures);
    } catch (error) {
      if (error instanceof ExpectedFailuresError) return fail(error.message);
      throw error;
    }
  }
  // D-HAR: the workers append their entries here; the run joins them into --har FILE at its end.
  const harDir = options.har === undefined ? undefined : join(options.out, '.har-parts');
  if (harDir !== undefined) rmSync(harDir, { recursive: true, force: true });

  // D-PROFILE: the default profile holds the reference server's development tokens and paths; used
  // against another API it would test nothing real, so a target given without a profile is refused.
  if (options.targets.length > 0 && options.profile === undefined) {
    return fail(
      `--target ${options.targets.join(' --target ')} needs --profile FILE: without one the run would use the reference server's ` +
        `development profile (its tokens, paths and bodies) against ${options.targets.length > 1 ? 'these targets' : 'this target'}. ` +
        'Describe your API in a profile (start one with `npx http-api-conformance init --openapi openapi.yaml --target URL`, README "Certify your server"); ' +
        `for a reference server started with \`serve\`, add --profile ${REFERENCE_PROFILE}; to test the embedded reference server, omit --target.`,
      { baseUrls: options.targets },
    );
  }

  const profileSource = options.profile ?? REFERENCE_PROFILE;
  let profile: ProfileDocument;
  try {
    profile = withTargets(readProfile(profileSource), options.targets);
  } catch (error) {
    if (error instanceof ProfileError) return fail(error.message);
    throw error;
  }
  // No target at all: the embedded reference server, with the default profile's
  // base URL only when the user named neither a target nor a profile.
  const useEmbedded = options.targets.length === 0 && (options.profile === undefined || !hasBaseUrls(profile));

  // The first run of the suite starts now, while this process starts the embedded server, probes the
  // target and checks the profile: Playwright's own start-up takes as long. It waits for the profile
  // (cli/profile-handoff.ts) and prints nothing before; a run that cannot go on stops it (`fail`).
  const profilePath = join(options.out, 'profile.json');
  rmSync(profilePath, { force: true });
  // Neither --workers nor HAC_WORKERS: 3 workers for a target on this machine, 6 for one elsewhere (cli/workers.ts).
  const targetUrls = useEmbedded || !Array.isArray(profile.baseUrls) ? [] : profile.baseUrls.filter((url): url is string => typeof url === 'string');
  const workers = options.workers ?? (process.env.HAC_WORKERS === undefined ? defaultWorkers(targetUrls) : undefined);
  const suiteRun = (outDir: string): SuiteRun => ({
    profilePath,
    profileSource,
    outDir,
    strict: options.strict,
    reporter: options.reporter,
    rateLimitTokens: profile.tokens ? rateLimitPool({ tokens: profile.tokens }).length : 0,
    ...(harDir !== undefined ? { har: { dir: harDir, secrets: options.harSecrets } } : {}),
    ...(workers !== undefined ? { workers } : {}),
    ...(options.grep ? { grep: { selection: options.grep, pattern: grepPattern(options.grep) } } : {}),
  });
  const suiteStarted = performance.now();
  const suite = startSuite({ ...suiteRun(runDirectory(options.out, 1, options.repeat)), profilePending: true });
  running.suite = suite;

  let embedded: Embedded | undefined;
  try {
    if (useEmbedded) {
      console.log('no --target: starting the embedded reference server');
      try {
        embedded = await deadline.within('embedded server start', startEmbedded());
      } catch (error) {
        return fail(`cannot start the embedded reference server: ${(error as Error).message}`);
      }
      profile = options.profile === undefined ? { ...embedded.profile } : { ...profile, baseUrls: embedded.profile.baseUrls };
    }
    let valid: TargetProfile;
    try {
      valid = parseProfile(profile, `profile ${profileSource}`);
    } catch (error) {
      if (error instanceof ProfileError) return fail(error.message, { profile: profileSource });
      throw error;
    }
    const baseUrls = valid.baseUrls;
    const target = { name: valid.name, baseUrls, profile: profileSource };

    // The embedded server is listening once started, here in this process: only another target is probed.
    const probePath = valid.collections[0]?.path ?? '/';
    const probes = embedded ? [] : await deadline.within('probe', probeTargets(baseUrls, probePath, 5000));
    const down = probes.filter((p) => !p.ok);
    if (down.length > 0) {
      return fail(`target unreachable:\n${down.map((p) => `  ${p.url}: ${p.problem}`).join('\n')}`, target);
    }
    console.log(`target${baseUrls.length > 1 ? 's' : ''}: ${baseUrls.join(', ')} (profile "${valid.name}")`);
    if (options.workers === undefined && workers === REMOTE_WORKERS) {
      console.log(`workers: ${REMOTE_WORKERS} (the target is not on this machine: its checks mostly wait on the network; --workers N to choose)`);
    }
    // Declared features are verified before use: one message and exit 2, not a dozen MUST failures.
    // The embedded server with its own profile is configured from that profile: nothing to verify.
    if (!embedded || options.profile !== undefined) {
      const { formatFeatureProblems, verifyFeatures } = await import('./verify-features.ts');
      const missing = await deadline.within('feature check', verifyFeatures(valid));
      if (missing.length > 0) return fail(formatFeatureProblems(missing), target);
    }

    const { $schema: _schema, ...resolved } = valid;
    const runs: (RunResults | undefined)[] = [];
    for (let index = 1; index <= options.repeat; index += 1) {
      const outDir = runDirectory(options.out, index, options.repeat);
      if (options.repeat > 1) console.log(`\nrun ${index} of ${options.repeat} (${outDir})`);
      if (index === 1) {
        writeWhole(profilePath, `${JSON.stringify(resolved, null, 2)}\n`);
        if (options.repeat > 1 || warnings.length > 0) void reportFiles().catch(() => undefined);
        await deadline.within('suite', suite.exited);
      } else {
        running.suite = startSuite(suiteRun(outDir));
        await deadline.within('suite', running.suite.exited);
      }
      runs.push(reportedResults(join(outDir, 'results.json')));
    }
    const suiteMs = performance.now() - suiteStarted;

    const finished = runs.filter((r): r is RunResults => r !== undefined);
    const results = finished.length === runs.length && finished.length > 0 ? mergeRuns(finished) : undefined;
    if (results && options.repeat > 1) {
      writeResults(options.out, results);
      await writeReportFiles(options.out, results);
    }
    if (!results) return await unfinishedRun('the suite wrote no results.json: the run did not finish', target);
    // D-BOUNDED-RUN: a suite cut short by its global timeout (the run deadline's share) says so by name.
    if (suiteCutByDeadline && !results.complete && (results.errors ?? []).some((e) => e.includes('ended early: timedout'))) {
      const message = `the run deadline of ${seconds(options.deadlineSeconds * 1000)} (--deadline) passed during the suite: the run is incomplete`;
      results.errors = [...(results.errors ?? []), message];
      console.error(`http-api-conformance run: ${message}`);
      writeResults(options.out, results);
      await writeReportFiles(options.out, results);
    }
    if (baseline !== undefined && options.expectedFailures !== undefined) {
      applyExpectedFailures(results, baseline, options.expectedFailures, options.allowFixed);
    }
    if (warnings.length > 0 || baseline !== undefined) {
      results.warnings = [...(results.warnings ?? []), ...warnings];
      if (results.warnings.length === 0) delete results.warnings;
      writeResults(options.out, results);
      await writeReportFiles(options.out, results);
    }
    if (options.har !== undefined && harDir !== undefined) {
      const entries = joinHarParts(harDir, options.har, `http-api-conformance run against ${baseUrls.join(', ')}`);
      console.log(`HAR: ${options.har} (${entries} exchanges${options.harSecrets ? ', tokens NOT masked: --har-secrets' : ', tokens masked'})`);
    }
    if (options.writeExpectedFailures !== undefined) {
      const written = expectedFailuresOf(results, baseline);
      writeExpectedFailures(options.writeExpectedFailures, written);
      console.log(`expected failures: ${Object.keys(written.expectedFailures).length} written to ${options.writeExpectedFailures}`);
    }
    console.log(`\n${formatSummary(results)}\n`);
    for (const line of passesNowMessages(results)) console.log(`${options.allowFixed ? 'WARNING' : 'FAIL'}: ${line}`);
    if (results.repeat) console.log(`${formatDisagreements(results)}\n`);
    const verdict = results.exitCode === 0 ? 'PASS' : results.complete ? 'FAIL' : 'FAIL (incomplete run)';
    const { passed, failed, warning, skipped } = results.summary;
    const expected = results.requirements.filter((r) => r.expected && r.outcome === 'failed').length;
    console.log(`${verdict}: ${passed} passed, ${failed} failed${expected > 0 ? ` (${expected} expected)` : ''}, ${warning} warning, ${skipped} skipped`);
    console.log(`results: ${resultsFile}`);
    console.log(`report: ${join(options.out, 'report.html')} (badge: ${join(options.out, 'badge.svg')})`);
    for (const warning of warnings) console.warn(`WARNING: ${warning}`);
    console.log(`duration: suite ${seconds(suiteMs)}, total ${seconds(Date.now() - started.getTime())}`);
    return results.exitCode;
  } catch (error) {
    if (!(error instanceof DeadlinePassed)) throw error;
    // Before the suite the target gave no usable answer: exit 2; during it, an incomplete run: exit 1.
    if (BEFORE_SUITE.has(error.phase)) return await fail(error.message, { baseUrls: profile.baseUrls });
    await running.suite?.stop();
    return await unfinishedRun(error.message, { baseUrls: profile.baseUrls });
  } finally {
    deadline.clear();
    await running.suite?.stop();
    await suite.stop();
    await embedded?.close();
  }
}
