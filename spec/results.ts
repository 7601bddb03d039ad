/**
 * The `results.json` of every run, the server suite's (`run`) and the client harness's
 * (`client-check`): its type, its one constructor, and reading and writing it. The contract is
 * spec/schemas/results.schema.json; `readResults` checks a file against it. One outcome per
 * requirement ID of spec/requirements.json, and the exit code derived from those outcomes (never
 * from the test runner's own exit status alone).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Level } from './catalogue.ts';
import { packageVersion } from './package-files.ts';
import { getValidator } from './schemas.ts';

export type { Level };

/** The version of the suite every report carries (package.json `version`, read once). */
export const VERSION: string = packageVersion();

/**
 * `passed`: every check of the requirement passed. `failed`: a check failed and the requirement is a
 * MUST (or a SHOULD under `--strict`). `warning`: a SHOULD check failed without `--strict`.
 * `skipped`: no check ran (the reason says why: feature not in the profile, MAY feature absent, …).
 */
export type Outcome = 'passed' | 'failed' | 'warning' | 'skipped';

/** The evidence of a failed check: the request as a curl line and what came back (conformance/transport/exchange.ts builds it). */
export interface Exchange {
  /** A `curl` command that repeats the request; a body longer than the excerpt is cut (see `request.bodyBytes`). */
  curl: string;
  request: {
    method: string;
    url: string;
    /** Size of the body sent, when there was one. */
    bodyBytes?: number;
    /** The request headers, lower-case names; credentials masked (D-FINDINGS). */
    headers?: Record<string, string>;
  };
  /** Absent when the target did not answer (`error` says why). */
  response?: {
    status: number;
    /** Every response header, lower-case names. */
    headers: Record<string, string>;
    /** The first characters of the body. */
    body: string;
    bodyBytes: number;
  };
  /** Why no response was received (timeout, connection reset). */
  error?: string;
}

export interface TestRecord {
  title: string;
  /** The file and line of the test, relative to the package root. */
  location?: string;
  status: 'passed' | 'failed' | 'skipped' | 'timedOut' | 'interrupted';
  durationMs: number;
  /** First line(s) of the failure, when failed. */
  error?: string;
  /** Skip reason, when skipped. */
  reason?: string;
  /** What the check covered and assumed, where it says (`note` annotations: the state model's, D-STATE-MODEL). */
  notes?: string[];
  /** When failed: the request the failing assertion is about (as a curl line) and the response it received. */
  exchange?: Exchange;
  /**
   * When failed: one sentence saying what was sent, what came back and what the rule expects
   * (`POST /widgets with Content-Type: text/plain → 201; expected … (STATUS-415-MEDIA-TYPE)`); the raw
   * assertion text stays in `error` (D-FINDINGS).
   */
  headline?: string;
  /** When failed because a value another requirement governs was missing: that requirement's ID (D-FINDINGS). */
  consequenceOf?: string;
  /** When the exchanges the failure names break several other requirements: all of them, `consequenceOf` first (D-FINDINGS). */
  causes?: Cause[];
}

/** A requirement a failure's named exchange breaks, with that answer's status (D-FINDINGS). */
export interface Cause {
  requirement: string;
  status?: number;
}

export interface RequirementResult {
  id: string;
  level: Level;
  outcome: Outcome;
  /** Why it was skipped, or a short failure summary. */
  reason?: string;
  /** Failed or warning only because of the defect the finding of this requirement ID reports (D-FINDINGS). */
  consequenceOf?: string;
  /** Listed in the run's `--expected-failures` file: its failure does not fail the run (D-EXPECTED-FAILURES). */
  expected?: ExpectedFailure;
  tests: TestRecord[];
}

/** One entry of an expected-failures file (spec/schemas/expected-failures.schema.json). */
export interface ExpectedFailure {
  reason: string;
  /** The team's own ticket. */
  link?: string;
}

/**
 * One defect (D-FINDINGS): the requirement that reports it (`cause`), one sentence about the exchange
 * that shows it, and every requirement it makes fail or warn (`breaks`, cause first). Findings count
 * defects; the exit code and the badge still come from the requirement outcomes.
 */
export interface Finding {
  cause: string;
  level: Level;
  outcome: 'failed' | 'warning';
  headline: string;
  breaks: string[];
  /**
   * The status of the answers the finding is about, where one rule's defect is told per producing
   * status (error answers that are no problem document: the 401s of an auth plugin, the 429s of a limiter).
   */
  status?: number;
  /** Every breaking requirement is listed in the run's expected-failures file. */
  expected?: boolean;
}

/** The response rules of a run (D-TRAFFIC): per rule, the exchanges it judged and the producers that broke it. */
export interface TrafficSummary {
  /** Responses the suite's checks received. */
  exchanges: number;
  rules: { rule: string; requirement: string; says: string; judged: number; violations: number; producers: string[] }[];
}

/** How the run's `--expected-failures FILE` was applied (D-EXPECTED-FAILURES). */
export interface ExpectedFailuresApplied {
  file: string;
  /** Listed IDs that failed or warned, as expected. */
  stillFailing: string[];
  /** Listed IDs that passed: the run fails unless `allowFixed`. */
  passingNow: string[];
  /** Listed IDs that were skipped or are unknown to the catalogue (not judged). */
  notJudged: string[];
  allowFixed: boolean;
}

export interface RunResults {
  tool: 'http-api-conformance';
  /** Version of the suite (package.json `version`). */
  version: string;
  kind: 'server' | 'client';
  /** What was tested: base URLs for the server suite, the command for the client harness. */
  target: Record<string, unknown>;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  strict: boolean;
  /** False when the run did not finish every case (interrupted, crashed, timed out): never a success. */
  complete: boolean;
  summary: Record<Outcome, number>;
  requirements: RequirementResult[];
  exitCode: 0 | 1 | 2;
  /** The test selection (`--grep`) of the run, when one was given. */
  grep?: string;
  /** Why the run is incomplete or could not start (unreachable target, unusable profile, load errors). */
  errors?: string[];
  /** Requirement IDs declared by tests but absent from the catalogue (a suite bug). */
  unknownIds?: string[];
  /** What weakens the run's evidence without failing it (TLS verification turned off by --insecure). */
  warnings?: string[];
  /** `run --repeat N`: the outcome of every requirement in each run, and which requirements the runs disagreed on. */
  repeat?: RepeatedRuns;
  /** The defects of the run, one per cause, MUST failures first (D-FINDINGS). */
  findings?: Finding[];
  /** The response rules run on every exchange (D-TRAFFIC). */
  traffic?: TrafficSummary;
  /** Where the run's time went (D-RUN-TIMING). */
  timing?: RunTiming;
  /** `run --expected-failures FILE`: the baseline of known failures and how the run met it. */
  expectedFailures?: ExpectedFailuresApplied;
}

/** Where a run's time went (D-RUN-TIMING). */
export interface RunTiming {
  /** Each group of checks (a spec file of the suite): checks run, their summed duration, and its wall time from the first start to the last end. */
  groups: { group: string; tests: number; testMs: number; wallMs: number }[];
  /** The longest wait the suite did for the target, why, and the check that waited it. */
  longestWait?: { ms: number; why: string; test: string };
}

/** The runs of `run --repeat N` against one target (conformance/report/repeat.ts). */
export interface RepeatedRuns {
  runs: number;
  /** Each run's exit code, in order. */
  exitCodes: (0 | 1 | 2)[];
  /** Requirement ID → its outcome in each run, in order. */
  outcomes: Record<string, Outcome[]>;
  /** IDs whose outcome was not the same in every run (skips by --grep excluded: they never differ). */
  disagreeing: string[];
}

/** What a run knows at its end; `createResults` derives the rest. */
export interface ResultsInput {
  kind: RunResults['kind'];
  target: Record<string, unknown>;
  startedAt: Date;
  /** Default: now. */
  finishedAt?: Date;
  /** Default: finishedAt - startedAt. */
  durationMs?: number;
  strict: boolean;
  complete: boolean;
  requirements: RequirementResult[];
  /** 2 for a run that could not start; otherwise derived from the outcomes (`exitCodeFor`). */
  exitCode?: 2;
  grep?: string;
  errors?: readonly string[];
  unknownIds?: readonly string[];
  warnings?: readonly string[];
  /** The defects of the run (conformance/report/findings.ts). */
  findings?: readonly Finding[];
  traffic?: TrafficSummary;
  timing?: RunTiming;
}

/** The outcome of one requirement from its level and whether each of its checks passed. */
export function outcomeFor(level: Level, statuses: TestRecord['status'][], strict: boolean): Outcome {
  // D-BOUNDED-RUN: a check that ran out of time or was interrupted judged nothing; the run is incomplete instead.
  const ran = statuses.filter((s) => s !== 'skipped' && s !== 'timedOut' && s !== 'interrupted');
  if (ran.length === 0) return 'skipped';
  if (ran.every((s) => s === 'passed')) return 'passed';
  if (level === 'MUST') return 'failed';
  if (level === 'SHOULD') return strict ? 'failed' : 'warning';
  // A MAY feature that is present but broken is reported, never fatal.
  return 'warning';
}

/**
 * Exit code of a finished run: 0 when nothing failed but what the expected-failures file lists, the
 * run was complete and no listed failure passes now (unless allowed), else 1 (D-EXPECTED-FAILURES).
 */
export function exitCodeFor(
  requirements: RequirementResult[],
  complete: boolean,
  expected?: Pick<ExpectedFailuresApplied, 'passingNow' | 'allowFixed'>,
): 0 | 1 {
  if (!complete) return 1;
  if (expected && !expected.allowFixed && expected.passingNow.length > 0) return 1;
  return requirements.some((r) => r.outcome === 'failed' && !r.expected) ? 1 : 0;
}

/** Counts requirements per outcome. */
export function summarize(requirements: RequirementResult[]): Record<Outcome, number> {
  const summary: Record<Outcome, number> = { passed: 0, failed: 0, warning: 0, skipped: 0 };
  for (const r of requirements) summary[r.outcome] += 1;
  return summary;
}

/** Builds the results of a run: tool, version, times, summary and exit code filled in; empty lists left out. */
export function createResults(input: ResultsInput): RunResults {
  const finishedAt = input.finishedAt ?? new Date();
  const results: RunResults = {
    tool: 'http-api-conformance',
    version: VERSION,
    kind: input.kind,
    target: input.target,
    startedAt: input.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: input.durationMs ?? finishedAt.getTime() - input.startedAt.getTime(),
    strict: input.strict,
    complete: input.complete,
    summary: summarize(input.requirements),
    requirements: input.requirements,
    exitCode: input.exitCode ?? exitCodeFor(input.requirements, input.complete),
  };
  if (input.grep) results.grep = input.grep;
  if (input.errors && input.errors.length > 0) results.errors = [...input.errors];
  if (input.unknownIds && input.unknownIds.length > 0) results.unknownIds = [...input.unknownIds];
  if (input.warnings && input.warnings.length > 0) results.warnings = [...input.warnings];
  if (input.findings && input.findings.length > 0) results.findings = [...input.findings];
  if (input.traffic) results.traffic = input.traffic;
  if (input.timing) results.timing = input.timing;
  return results;
}

/** Where `data` breaks results.schema.json, one line per error; empty when it is valid. */
export function resultsSchemaErrors(data: unknown): string[] {
  const validate = getValidator('results');
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
}

/** Writes `results.json` into `dir` (created when missing) and returns its path. */
export function writeResults(dir: string, results: RunResults): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'results.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}

/** Reads a results.json and checks it against results.schema.json; throws naming every violation. */
export function readResults(file: string): RunResults {
  const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const errors = resultsSchemaErrors(data);
  if (errors.length > 0) throw new Error(`${file} does not match spec/schemas/results.schema.json:\n  ${errors.join('\n  ')}`);
  return data as RunResults;
}
