/**
 * Certifies a client: runs the adapter command once per scenario against a scripted server, judges
 * the recorded attempts and the adapter's output, and builds the shared `results.json` structure.
 */
import { randomBytes } from 'node:crypto';
import { packageVersion } from '../../spec/package-files.ts';
import { exitCodeFor, outcomeFor, summarize } from '../../conformance/report/results.ts';
import type { RequirementResult, RunResults, TestRecord } from '../../conformance/report/results.ts';
import { jitterChecks } from './backoff.ts';
import { loadClientRequirements } from './requirements.ts';
import { runAdapter } from './run-adapter.ts';
import { DEFAULT_TOLERANCE, waitAfter } from './scenario-kit.ts';
import type { Check, JitterSample, JudgeContext, Scenario, ScenarioRun, Tolerance } from './scenario-kit.ts';
import { bearerCheck, buildScenarios, distinctKeysCheck } from './scenarios.ts';
import { startScriptedServer } from './scripted-server.ts';

export interface CertifyOptions {
  /** Shell command of the adapter script. */
  command: string;
  /** Requested time scale (0 < scale ≤ 1); 1 is real time. */
  timeScale: number;
  /** Run only these scenarios (all when empty). */
  scenarios?: string[];
  strict?: boolean;
  cwd?: string;
  tolerance?: Tolerance;
  /** Scenarios played at the same time once the time scale is settled (default 1). */
  concurrency?: number;
  /** Progress lines (one per scenario, warnings). */
  log?: (line: string) => void;
}

export interface Certification {
  results: RunResults;
  runs: ScenarioRun[];
  warnings: string[];
  /** True when the command could not be run at all (exit 126/127 with no output). */
  unusable: boolean;
}

/** Real milliseconds the adapter may take to start and report, on top of the scenario's budget. */
const STARTUP_ALLOWANCE_MS = 15_000;

function envFor(scenario: Scenario, url: string, token: string, scale: number): Record<string, string> {
  const op = scenario.operation;
  return {
    HAC_BASE_URL: url,
    HAC_SCENARIO: scenario.name,
    HAC_TOKEN: token,
    HAC_TIME_SCALE: String(scale),
    HAC_OPERATION: op.kind,
    HAC_METHOD: op.method,
    HAC_PATH: op.path,
    HAC_BODY: op.body === undefined ? '' : JSON.stringify(op.body),
    HAC_LINK_REL: op.rel ?? '',
  };
}

async function play(scenario: Scenario, options: CertifyOptions, token: string, scale: number): Promise<ScenarioRun> {
  const server = await startScriptedServer(scenario.script);
  try {
    const budget = scenario.budgetSeconds * 1000 * scale + STARTUP_ALLOWANCE_MS;
    const adapter = await runAdapter(options.command, envFor(scenario, server.url, token, scale), budget, options.cwd);
    return { scenario: scenario.name, attempts: server.attempts, adapter };
  } finally {
    await server.close();
  }
}

/** True when the first wait shows that the client ignored a time scale below 1. */
function ignoresScale(scenario: Scenario, run: ScenarioRun, scale: number): boolean | undefined {
  const wait = waitAfter(run.attempts, 0);
  if (scale >= 1 || !scenario.firstWaitSeconds || wait === undefined) return undefined;
  const threshold = scenario.firstWaitSeconds[1] * 1000 * Math.sqrt(scale);
  return wait > threshold;
}

function toTest(check: Check, run: ScenarioRun | undefined): TestRecord {
  const record: TestRecord = {
    title: check.title,
    location: run ? `client-check scenario ${run.scenario}` : 'client-check (all scenarios)',
    status: check.status,
    durationMs: Math.round(run?.adapter.durationMs ?? 0),
  };
  if (check.status === 'failed' && check.detail) record.error = check.detail;
  if (check.status === 'skipped' && check.detail) record.reason = check.detail;
  if (check.status === 'passed' && check.detail) record.reason = check.detail;
  return record;
}

/**
 * Certifies the client behind `options.command` against every selected scenario. A client
 * that ignores a time scale below 1 is detected on its first wait and certified again in real time.
 */
export async function certifyClient(options: CertifyOptions): Promise<Certification> {
  const log = options.log ?? (() => undefined);
  const startedAt = new Date();
  const started = performance.now();
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const token = `hac-${randomBytes(16).toString('hex')}`;
  const warnings: string[] = [];
  const selected = (scale: number) => buildScenarios(scale).filter((s) => !options.scenarios?.length || options.scenarios.includes(s.name));

  let scale = options.timeScale;
  let list = selected(scale);
  let played: ({ scenario: Scenario; run: ScenarioRun } | undefined)[] = [];
  let probed = scale >= 1;
  let complete = true;
  const playSafe = async (scenario: Scenario): Promise<ScenarioRun | undefined> => {
    try {
      const run = await play(scenario, options, token, scale);
      log(`${scenario.name}: ${run.attempts.length} attempt(s), ${Math.round(run.adapter.durationMs)} ms`);
      return run;
    } catch (error) {
      complete = false;
      warnings.push(`scenario ${scenario.name} could not be played: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };

  // The first scenarios run alone: the first one tells whether the command runs at all, and the
  // first measured wait whether the client follows the time scale.
  let next = 0;
  while (next < list.length && (next === 0 || !probed)) {
    const scenario = list[next] as Scenario;
    const run = await playSafe(scenario);
    if (next === 0 && run && run.adapter.output === null && (run.adapter.exitCode === 126 || run.adapter.exitCode === 127)) {
      const results = buildResults([], options, scale, startedAt, started, warnings, false);
      return { results: { ...results, exitCode: 2 }, runs: [], warnings: [`the command could not be run (exit ${run.adapter.exitCode}): ${run.adapter.stderr.trim()}`], unusable: true };
    }
    const ignored = !probed && run ? ignoresScale(scenario, run, scale) : undefined;
    if (ignored !== undefined) probed = true;
    if (ignored) {
      const warning = `the client ignores HAC_TIME_SCALE=${scale} (scenario ${scenario.name} waited ${Math.round(waitAfter(run?.attempts ?? [], 0) ?? 0)} ms): certifying in real time, which takes several minutes`;
      warnings.push(warning);
      log(`warning: ${warning}`);
      scale = 1;
      list = selected(scale);
      played = [];
      next = 0;
      continue;
    }
    played[next] = run ? { scenario, run } : undefined;
    next += 1;
  }
  const worker = async (): Promise<void> => {
    while (next < list.length) {
      const index = next++;
      const scenario = list[index] as Scenario;
      const run = await playSafe(scenario);
      played[index] = run ? { scenario, run } : undefined;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
  const runs = played.filter((r): r is { scenario: Scenario; run: ScenarioRun } => r !== undefined);

  const ctx: JudgeContext = { msPerSecond: 1000 * scale, tolerance, token };
  const checks: { check: Check; run: ScenarioRun | undefined }[] = [];
  const jitter: JitterSample[] = [];
  const keys: (string | null)[] = [];
  for (const { scenario, run } of runs) {
    const verdict = scenario.judge(run, ctx);
    for (const check of verdict.checks) checks.push({ check, run });
    checks.push({ check: bearerCheck(run, token), run });
    jitter.push(...(verdict.jitter ?? []));
    if (verdict.operationKey !== undefined) keys.push(verdict.operationKey);
  }
  if (runs.length > 0) {
    for (const check of jitterChecks(jitter, ctx)) checks.push({ check, run: undefined });
    checks.push({ check: distinctKeysCheck(keys), run: undefined });
  }
  const requirements = loadClientRequirements().map((req): RequirementResult => {
    const mine = checks.filter((c) => c.check.id === req.id);
    const tests = mine.map((c) => toTest(c.check, c.run));
    const outcome = outcomeFor(req.level, tests.map((t) => t.status), options.strict ?? false);
    const firstFailure = mine.find((c) => c.check.status === 'failed');
    const result: RequirementResult = { id: req.id, level: req.level, outcome, tests };
    if (outcome === 'skipped') result.reason = mine[0]?.check.detail ?? 'no selected scenario checks this requirement';
    else if (firstFailure) result.reason = `${firstFailure.check.title}: ${firstFailure.check.detail ?? ''}`;
    return result;
  });
  const results = buildResults(requirements, options, scale, startedAt, started, warnings, complete);
  return { results, runs: runs.map((r) => r.run), warnings, unusable: false };
}

function buildResults(requirements: RequirementResult[], options: CertifyOptions, scale: number, startedAt: Date, started: number, warnings: string[], complete: boolean): RunResults {
  return {
    tool: 'http-api-conformance',
    version: packageVersion(),
    kind: 'client',
    target: { command: options.command, requestedTimeScale: options.timeScale, timeScale: scale, scenarios: options.scenarios ?? [], warnings },
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Math.round(performance.now() - started),
    strict: options.strict ?? false,
    complete,
    summary: summarize(requirements),
    requirements,
    exitCode: exitCodeFor(requirements, complete),
  };
}
