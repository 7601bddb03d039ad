/**
 * Certifies a client: runs the adapter command once per scenario against a scripted server, judges
 * the recorded attempts and the adapter's output, and builds the shared `results.json` structure.
 */
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pool } from '../../spec/pool.ts';
import { createResults, outcomeFor } from '../../spec/results.ts';
import type { RequirementResult, RunResults, TestRecord } from '../../spec/results.ts';
import { jitterChecks } from './backoff.ts';
import { LatenessSentinel } from './lateness.ts';
import type { LatenessProbe } from './lateness.ts';
import { loadClientRequirements } from './requirements.ts';
import { runAdapter } from './run-adapter.ts';
import { ProcessGroupRunQueue } from './run-queue.ts';
import { DEFAULT_TOLERANCE } from './scenario-kit.ts';
import type { Check, JitterSample, JudgeContext, Scenario, ScenarioRun, Tolerance, Verdict } from './scenario-kit.ts';
import { bearerCheck, buildScenarios, distinctKeysCheck } from './scenarios.ts';
import { startScriptedServer } from './scripted-server.ts';
import { StartGate } from './start-gate.ts';

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
  /** Shared limit on adapter processes starting at once (the matrix shares one over every adapter). */
  gate?: StartGate;
  /** Progress lines (one per scenario, warnings). */
  log?: (line: string) => void;
  /** Where the timer lateness is read (default: a LatenessSentinel in this process while the scenarios play). */
  lateness?: LatenessProbe;
}

export interface Certification {
  results: RunResults;
  runs: ScenarioRun[];
  warnings: string[];
  /** True when the adapter failed on the first scenario: the command cannot certify anything (exit code 2). */
  unusable: boolean;
}

/** Real milliseconds the adapter may take to start and report, on top of the scenario's budget. */
const STARTUP_ALLOWANCE_MS = 15_000;

/** Adapter processes allowed to start at once when no gate is given: two per core of a 2-core machine (see StartGate). */
export const DEFAULT_STARTING_AT_ONCE = 4;

/**
 * D-CLIENT-TIMING: how many times a scenario is played, at most, while a timing it holds is
 * inconclusive (the machine was too late at that moment to judge it); after that it is reported
 * inconclusive with its figures. Each play of a backoff scenario adds its waits to the jitter samples.
 */
export const MAX_PLAYS = 3;

/** The scenario whose attempts measure the client's cap: every answer is a 500, so the client stops only at its cap. */
const CAP_SCENARIO = '500-always';

/** Characters of an adapter's stderr kept in `results.json` per failed scenario. */
const STDERR_KEPT = 2000;

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
  const release = options.gate ? await options.gate.acquire(scenario.budgetSeconds) : () => undefined;
  try {
    // D-CLIENT-TIMING: each arrival and end is stamped with the client's run-queue wait, once its process group is known.
    let client: ProcessGroupRunQueue | undefined;
    const server = await startScriptedServer(scenario.script, () => release(), () => client?.stamp());
    try {
      const budget = scenario.budgetSeconds * 1000 * scale + STARTUP_ALLOWANCE_MS;
      const env = envFor(scenario, server.url, token, scale);
      const adapter = await runAdapter(options.command, env, budget, options.cwd, (group) => (client = new ProcessGroupRunQueue(group)));
      return { scenario: scenario.name, attempts: server.attempts, adapter };
    } finally {
      await server.close();
    }
  } finally {
    release();
  }
}

/**
 * Why the adapter itself failed in `run`, or undefined when it reported. An adapter that exits
 * without its report line (a crash, nothing printed, garbage) says nothing about the client: the
 * scenario is not judged and the run is incomplete. An adapter the harness stopped at its budget is
 * judged: that is the client still retrying or waiting.
 */
export function adapterFailure(run: ScenarioRun): string | undefined {
  const a = run.adapter;
  if (a.output !== null || a.killed) return undefined;
  const exit = a.signal ? `was ended by ${a.signal}` : `exited with code ${String(a.exitCode)}`;
  const stderr = a.stderr.trim();
  return `scenario ${run.scenario}: the adapter ${exit} without its report line (${a.outputError ?? 'no output'}); stderr: ` +
    `${stderr === '' ? '(empty)' : stderr.slice(-STDERR_KEPT)}`;
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
 * Certifies the client behind `options.command` against every selected scenario. The first
 * scenario runs alone: an adapter that fails there makes the command unusable (exit 2); its report
 * says which time scale the client applied (`timeScale`), and a client that did not apply the
 * requested one is certified in real time, every rule judged on that time base.
 */
export async function certifyClient(options: CertifyOptions): Promise<Certification> {
  const log = options.log ?? (() => undefined);
  const startedAt = new Date();
  const started = performance.now();
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const token = `hac-${randomBytes(16).toString('hex')}`;
  const warnings: string[] = [];
  const errors: string[] = [];
  const selected = (scale: number) => buildScenarios(scale).filter((s) => !options.scenarios?.length || options.scenarios.includes(s.name));

  // The harness's own event-loop delay while it plays: it notices abandoned attempts late by that much.
  const lag = monitorEventLoopDelay({ resolution: 20 });
  lag.enable();
  // D-CLIENT-TIMING: the timer lateness of this machine while the scenarios play, read at the end of each wait.
  const ownSentinel = options.lateness ? undefined : new LatenessSentinel().start();
  const sentinel: LatenessProbe = options.lateness ?? (ownSentinel as LatenessSentinel);
  let scale = options.timeScale;
  const gated: CertifyOptions = { ...options, gate: options.gate ?? new StartGate(DEFAULT_STARTING_AT_ONCE) };
  const playSafe = async (scenario: Scenario): Promise<ScenarioRun | undefined> => {
    try {
      const run = await play(scenario, gated, token, scale);
      log(`${scenario.name}: ${run.attempts.length} attempt(s), ${Math.round(run.adapter.durationMs)} ms`);
      return run;
    } catch (error) {
      errors.push(`scenario ${scenario.name} could not be played: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };

  let list = selected(scale);
  let probe = list[0] ? await playSafe(list[0]) : undefined;
  const probeFailure = probe ? adapterFailure(probe) : undefined;
  if (probeFailure) {
    lag.disable();
    ownSentinel?.stop();
    errors.push(probeFailure);
    const results = buildResults(notJudged(), options, scale, startedAt, started, warnings, false, errors, 2);
    return { results, runs: [], warnings, unusable: true };
  }
  const reported = probe?.adapter.output?.timeScale;
  if (probe && scale < 1 && reported !== scale) {
    const warning = `the adapter reported ${reported === undefined ? 'no timeScale' : `timeScale ${reported}`} for HAC_TIME_SCALE=${scale}: the ` +
      `client does not apply the time scale, so it is certified in real time (time scale 1), which takes about a minute`;
    warnings.push(warning);
    log(`warning: ${warning}`);
    scale = 1;
    list = selected(scale);
    probe = list[0] ? await playSafe(list[0]) : undefined;
  }
  const played = [probe, ...(await pool(list.slice(1), options.concurrency ?? 1, playSafe))];

  const plays: JudgedRun[][] = [];
  list.forEach((scenario, i) => {
    const run = played[i];
    if (!run) return;
    const failure = adapterFailure(run);
    if (failure) errors.push(failure);
    else plays.push([{ scenario, run }]);
  });

  // CLIENT-RETRY-RETRYABLE: a stop is judged against the cap this certification measured.
  const capRun = plays.find((p) => p[0]?.scenario.name === CAP_SCENARIO)?.[0]?.run;
  const attemptCap = capRun && !capRun.adapter.killed ? capRun.attempts.length : undefined;
  const contextNow = (): JudgeContext => ({
    msPerSecond: 1000 * scale,
    tolerance: { ...tolerance, harnessLagMs: Math.round(lag.percentile(99) / 1e6) },
    token,
    lateness: sentinel,
    ...(attemptCap !== undefined ? { attemptCap } : {}),
  });
  // D-CLIENT-TIMING: a scenario with a timing too late to judge is played again, up to MAX_PLAYS in all.
  for (let round = 2; round <= MAX_PLAYS; round += 1) {
    const again = toPlayAgain(plays, contextNow());
    if (again.length === 0) break;
    log(`lateness too large to judge: playing ${again.map((p) => p[0]?.scenario.name).join(', ')} again (play ${round} of at most ${MAX_PLAYS})`);
    const replayed = await pool(
      again.map((p) => (p[0] as JudgedRun).scenario),
      options.concurrency ?? 1,
      playSafe,
    );
    again.forEach((scenarioPlays, i) => {
      const run = replayed[i];
      const scenario = scenarioPlays[0]?.scenario;
      if (!run || !scenario) return;
      const failure = adapterFailure(run);
      if (failure) errors.push(failure);
      else scenarioPlays.push({ scenario, run });
    });
  }
  for (const scenarioPlays of plays)
    if (scenarioPlays.length > 1) {
      const warning = `scenario ${scenarioPlays[0]?.scenario.name} was played ${scenarioPlays.length} times: the lateness measured ` +
        `during it was too large to judge a timing`;
      warnings.push(warning);
    }

  lag.disable();
  ownSentinel?.stop();
  const ctx = contextNow();
  const harnessLagMs = ctx.tolerance.harnessLagMs;
  const requirements = requirementResults(judgeRuns(plays, ctx, token), options.strict ?? false);
  const results = buildResults(requirements, { ...options, harnessLagMs }, scale, startedAt, started, warnings, errors.length === 0, errors);
  return { results, runs: plays.flat().map((r) => r.run), warnings, unusable: false };
}

/** A scenario whose adapter reported: its run is judged. */
interface JudgedRun {
  scenario: Scenario;
  run: ScenarioRun;
}

/** A check with the run it judged (undefined for the checks over all runs). */
interface RunCheck {
  check: Check;
  run: ScenarioRun | undefined;
}

/** Every client requirement, skipped: the adapter failed on the first scenario, so nothing was judged. */
function notJudged(): RequirementResult[] {
  return loadClientRequirements().map((req): RequirementResult => ({
    id: req.id,
    level: req.level,
    outcome: 'skipped',
    reason: 'not judged: the adapter failed on the first scenario',
    tests: [],
  }));
}

/** A play with its verdict. */
interface JudgedPlay extends JudgedRun {
  verdict: Verdict;
}

const unjudged = (verdict: Verdict): boolean => verdict.checks.some((c) => c.inconclusive);

/** Each scenario's plays with their verdicts. */
function judgePlays(plays: JudgedRun[][], ctx: JudgeContext): JudgedPlay[][] {
  return plays.map((scenarioPlays) => scenarioPlays.map((p) => ({ ...p, verdict: p.scenario.judge(p.run, ctx) })));
}

/** The play a scenario's verdict rests on: the first whose timings could all be judged, else the last (D-CLIENT-TIMING). */
function chosenPlay(scenarioPlays: JudgedPlay[]): JudgedPlay {
  return scenarioPlays.find((p) => !unjudged(p.verdict)) ?? (scenarioPlays.at(-1) as JudgedPlay);
}

/**
 * The scenarios to play again (D-CLIENT-TIMING): those whose every play holds an inconclusive timing,
 * and, while the jitter's randomness is inconclusive (too few waits ended at quiet moments), those
 * whose plays measured backoff waits. None once a scenario has had MAX_PLAYS.
 */
function toPlayAgain(plays: JudgedRun[][], ctx: JudgeContext): JudgedRun[][] {
  const judged = judgePlays(plays, ctx);
  const jitter = judged.flat().flatMap((p) => p.verdict.jitter ?? []);
  const jitterUnjudged = jitter.length > 0 && jitterChecks(jitter, ctx).some((c) => c.inconclusive);
  return plays.filter((scenarioPlays, i) => {
    const mine = judged[i] ?? [];
    if (scenarioPlays.length >= MAX_PLAYS) return false;
    return unjudged(chosenPlay(mine).verdict) || (jitterUnjudged && mine.some((p) => (p.verdict.jitter ?? []).length > 0));
  });
}

/**
 * The checks of the judged runs: each scenario's own verdict (of its chosen play) and the bearer check
 * of that run, then, when any run was judged, the checks over all runs: backoff jitter, over the waits
 * of every play, and distinct Idempotency-Keys. A check left inconclusive says how often it was played.
 */
function judgeRuns(plays: JudgedRun[][], ctx: JudgeContext, token: string): RunCheck[] {
  const checks: RunCheck[] = [];
  const jitter: JitterSample[] = [];
  const keys: (string | null)[] = [];
  const played = (n: number, check: Check): Check =>
    check.inconclusive && n > 1 ? { ...check, detail: `${check.detail ?? ''} (played ${n} times, each too late to judge)` } : check;
  for (const scenarioPlays of judgePlays(plays, ctx)) {
    const { run, verdict } = chosenPlay(scenarioPlays);
    for (const check of verdict.checks) checks.push({ check: played(scenarioPlays.length, check), run });
    checks.push({ check: bearerCheck(run, token), run });
    for (const p of scenarioPlays) jitter.push(...(p.verdict.jitter ?? []));
    if (verdict.operationKey !== undefined) keys.push(verdict.operationKey);
  }
  if (plays.length > 0) {
    const rounds = Math.max(...plays.map((p) => p.length));
    for (const check of jitterChecks(jitter, ctx)) checks.push({ check: played(rounds, check), run: undefined });
    checks.push({ check: distinctKeysCheck(keys), run: undefined });
  }
  return checks;
}

/**
 * One result per client requirement from the checks that carry its id: its outcome at its level
 * (`strict`: see outcomeFor), and why when it is skipped or failed.
 */
function requirementResults(checks: RunCheck[], strict: boolean): RequirementResult[] {
  return loadClientRequirements().map((req): RequirementResult => {
    const mine = checks.filter((c) => c.check.id === req.id);
    const tests = mine.map((c) => toTest(c.check, c.run));
    const firstFailure = mine.find((c) => c.check.status === 'failed');
    const firstUnjudged = mine.find((c) => c.check.inconclusive);
    // D-CLIENT-TIMING: an inconclusive timing is neither a pass nor a fail; without a failure the requirement is not judged.
    const judged = outcomeFor(req.level, tests.map((t) => t.status), strict);
    const outcome = judged === 'passed' && firstUnjudged ? 'skipped' : judged;
    const result: RequirementResult = { id: req.id, level: req.level, outcome, tests };
    if (outcome === 'skipped') result.reason = (firstUnjudged ?? mine[0])?.check.detail ?? 'no selected scenario checks this requirement';
    else if (firstFailure) result.reason = `${firstFailure.check.title}: ${firstFailure.check.detail ?? ''}`;
    return result;
  });
}

function buildResults(
  requirements: RequirementResult[],
  options: CertifyOptions & { harnessLagMs?: number },
  scale: number,
  startedAt: Date,
  started: number,
  warnings: string[],
  complete: boolean,
  errors: string[],
  exitCode?: 2,
): RunResults {
  return createResults({
    kind: 'client',
    target: {
      command: options.command,
      requestedTimeScale: options.timeScale,
      timeScale: scale,
      scenarios: options.scenarios ?? [],
      warnings,
      ...(options.harnessLagMs !== undefined ? { harnessLagMs: options.harnessLagMs } : {}),
    },
    startedAt,
    durationMs: Math.round(performance.now() - started),
    strict: options.strict ?? false,
    complete,
    requirements,
    errors,
    ...(exitCode ? { exitCode } : {}),
  });
}
