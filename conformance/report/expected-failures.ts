/**
 * A baseline of known failures (D-EXPECTED-FAILURES): `run --expected-failures FILE` reads a file of
 * requirement IDs, each with a reason and optionally the team's ticket
 * (spec/schemas/expected-failures.schema.json). A listed requirement that fails or warns does not fail
 * the run; any other failure does; a listed one that passes fails the run ("passes now: remove it from
 * FILE") unless `--allow-fixed` makes that a warning. `run --write-expected-failures FILE` writes the
 * file from a finished run's failures, keeping the reasons and links of the entries it already had.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { getValidator } from '../../spec/schemas.ts';
import { exitCodeFor } from '../../spec/results.ts';
import type { ExpectedFailure, RunResults } from '../../spec/results.ts';
import { markExpected } from './findings.ts';

export interface ExpectedFailuresFile {
  $schema?: string;
  expectedFailures: Record<string, ExpectedFailure>;
}

export const EXPECTED_FAILURES_SCHEMA = 'https://http-api-conformance.dev/schemas/expected-failures.schema.json';

/** The file cannot be used: the message names the problem and the fix. */
export class ExpectedFailuresError extends Error {}

/** Reads and checks an expected-failures file; throws ExpectedFailuresError naming every problem. */
export function readExpectedFailures(file: string): ExpectedFailuresFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new ExpectedFailuresError(`cannot read --expected-failures ${file}: ${(error as Error).message}`);
  }
  const validate = getValidator('expected-failures');
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
    throw new ExpectedFailuresError(
      `--expected-failures ${file} does not match spec/schemas/expected-failures.schema.json:\n  ${problems.join('\n  ')}\n` +
        'write it as {"expectedFailures": {"REQUIREMENT-ID": {"reason": "why", "link": "https://your-tracker/TICKET"}}}, ' +
        'or let `run --write-expected-failures FILE` write it from a run',
    );
  }
  return data as ExpectedFailuresFile;
}

/** The console lines of a listed requirement that passes now. */
export function passesNowMessages(results: Pick<RunResults, 'expectedFailures'>): string[] {
  const x = results.expectedFailures;
  if (!x) return [];
  return x.passingNow.map((id) => `${id} passes now: remove it from ${x.file}${x.allowFixed ? ' (a warning: --allow-fixed)' : ''}`);
}

/**
 * Applies `baseline` (read from `file`) to `results`: marks the listed failures `expected`, records
 * how the run met the baseline, and derives the exit code again. A run that could not start (exit 2)
 * is left as it is.
 */
export function applyExpectedFailures(results: RunResults, baseline: ExpectedFailuresFile, file: string, allowFixed: boolean): RunResults {
  if (results.exitCode === 2) return results;
  const byId = new Map(results.requirements.map((r) => [r.id, r]));
  const stillFailing: string[] = [];
  const passingNow: string[] = [];
  const notJudged: string[] = [];
  for (const [id, entry] of Object.entries(baseline.expectedFailures)) {
    const r = byId.get(id);
    if (r && (r.outcome === 'failed' || r.outcome === 'warning')) {
      r.expected = { reason: entry.reason, ...(entry.link ? { link: entry.link } : {}) };
      stillFailing.push(id);
    } else if (r?.outcome === 'passed') passingNow.push(id);
    else notJudged.push(id);
  }
  results.expectedFailures = { file, stillFailing, passingNow, notJudged, allowFixed };
  if (results.findings) markExpected(results.findings, results.requirements);
  if (allowFixed && passingNow.length > 0) results.warnings = [...(results.warnings ?? []), ...passesNowMessages(results)];
  results.exitCode = exitCodeFor(results.requirements, results.complete, results.expectedFailures);
  return results;
}

/**
 * The baseline of `results`: every failed requirement, with the reason and link `previous` gave it,
 * else the headline of its finding (or its own failure summary).
 */
export function expectedFailuresOf(results: RunResults, previous?: ExpectedFailuresFile): ExpectedFailuresFile {
  const entries: Record<string, ExpectedFailure> = {};
  for (const r of results.requirements.filter((x) => x.outcome === 'failed')) {
    const kept = previous?.expectedFailures[r.id];
    const finding = results.findings?.find((f) => f.breaks.includes(r.id));
    const because = r.consequenceOf ? `consequence of ${r.consequenceOf}: ` : '';
    entries[r.id] = kept ?? { reason: `${because}${finding?.headline ?? r.reason ?? 'failed'}` };
  }
  return { $schema: EXPECTED_FAILURES_SCHEMA, expectedFailures: entries };
}

/** Writes `baseline` to `file` (pretty JSON). */
export function writeExpectedFailures(file: string, baseline: ExpectedFailuresFile): void {
  writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
}
