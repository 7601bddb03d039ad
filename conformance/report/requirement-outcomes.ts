/**
 * Gives every server requirement of the catalogue its outcome from the tests that declared it
 * (a failed MUST fails the run, a failed SHOULD is a warning unless strict, a MAY
 * feature is detected and reported; a requirement without a run test is skipped with a reason).
 */
import type { CatalogueEntry } from '../../spec/catalogue.ts';
import { outcomeFor } from '../../spec/results.ts';
import type { RequirementResult, TestRecord } from '../../spec/results.ts';

export interface OutcomeOptions {
  strict: boolean;
  /** The `--grep` of the run, when tests were selected. */
  grep?: string;
}

/** Reason of a requirement none of whose tests ran. */
function skipReason(entry: CatalogueEntry, tests: TestRecord[], options: OutcomeOptions): string {
  const unfinished = tests.find((t) => t.status === 'timedOut' || t.status === 'interrupted');
  // D-BOUNDED-RUN: not judged, and the run is incomplete (results.json errors says where it stopped).
  if (unfinished) return `not judged: "${unfinished.title}" ${unfinished.status === 'timedOut' ? 'ran out of time' : 'was interrupted'}`;
  if (tests.length > 0) {
    const reasons = [...new Set(tests.map((t) => t.reason).filter((r): r is string => !!r))];
    return reasons.length > 0 ? reasons.join('; ') : 'skipped by the suite (no reason given)';
  }
  if (entry.testable === 'review') return 'review only: not checkable over HTTP';
  if (options.grep !== undefined) {
    return `not selected by --grep ${options.grep}`;
  }
  return 'no test';
}

/** Short failure summary: the first failing test and its first error line. */
function failureReason(tests: TestRecord[]): string | undefined {
  const failed = tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped');
  const first = failed[0];
  if (!first) return undefined;
  const line = first.headline ?? first.error?.split('\n')[0] ?? first.status;
  const more = failed.length > 1 ? ` (+${failed.length - 1} more)` : '';
  return `${first.title}: ${line}${more}`;
}

/** One result per catalogue entry, in catalogue order, from the records of the tests per ID. */
export function requirementResults(
  catalogue: CatalogueEntry[],
  testsById: ReadonlyMap<string, TestRecord[]>,
  options: OutcomeOptions,
): RequirementResult[] {
  return catalogue.map((entry) => {
    const tests = testsById.get(entry.id) ?? [];
    const outcome = outcomeFor(entry.level, tests.map((t) => t.status), options.strict);
    const result: RequirementResult = { id: entry.id, level: entry.level, outcome, tests };
    if (outcome === 'skipped') result.reason = skipReason(entry, tests, options);
    else if (outcome !== 'passed') {
      const reason = failureReason(tests);
      if (reason) result.reason = reason;
    }
    return result;
  });
}
