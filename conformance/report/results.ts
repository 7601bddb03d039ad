/**
 * The `results.json` written by every run of the server suite (`run`) and the client harness
 * (`client-check`): one outcome per requirement ID of spec/requirements.json, and the exit code
 * derived from those outcomes (never from the test runner's own exit status alone).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from './exchange.ts';

export type Level = 'MUST' | 'SHOULD' | 'MAY';

/**
 * `passed`: every check of the requirement passed. `failed`: a check failed and the requirement is a
 * MUST (or a SHOULD under `--strict`). `warning`: a SHOULD check failed without `--strict`.
 * `skipped`: no check ran (the reason says why: feature not in the profile, MAY feature absent, …).
 */
export type Outcome = 'passed' | 'failed' | 'warning' | 'skipped';

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
  /** When failed: the request that shows the failure (as a curl line) and the response it received. */
  exchange?: Exchange;
}

export interface RequirementResult {
  id: string;
  level: Level;
  outcome: Outcome;
  /** Why it was skipped, or a short failure summary. */
  reason?: string;
  tests: TestRecord[];
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
}

/** The outcome of one requirement from its level and whether each of its checks passed. */
export function outcomeFor(level: Level, statuses: TestRecord['status'][], strict: boolean): Outcome {
  const ran = statuses.filter((s) => s !== 'skipped');
  if (ran.length === 0) return 'skipped';
  if (ran.every((s) => s === 'passed')) return 'passed';
  if (level === 'MUST') return 'failed';
  if (level === 'SHOULD') return strict ? 'failed' : 'warning';
  // A MAY feature that is present but broken is reported, never fatal.
  return 'warning';
}

/** Exit code of a finished run: 0 when nothing failed and the run was complete, else 1. */
export function exitCodeFor(requirements: RequirementResult[], complete: boolean): 0 | 1 {
  if (!complete) return 1;
  return requirements.some((r) => r.outcome === 'failed') ? 1 : 0;
}

/** Counts requirements per outcome. */
export function summarize(requirements: RequirementResult[]): Record<Outcome, number> {
  const summary: Record<Outcome, number> = { passed: 0, failed: 0, warning: 0, skipped: 0 };
  for (const r of requirements) summary[r.outcome] += 1;
  return summary;
}

/** Writes `results.json` into `dir` (created when missing) and returns its path. */
export function writeResults(dir: string, results: RunResults): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'results.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}
