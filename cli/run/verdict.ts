/**
 * The end of `run`: the suite's results.json (runs merged for --repeat), the run's own additions
 * (a deadline that cut the suite short, D-BOUNDED-RUN; the baseline, D-EXPECTED-FAILURES; warnings;
 * the HAR, D-HAR), the console summary, and the exit code results.json carries.
 */
import { join } from 'node:path';
import type { RunResults } from '../../spec/results.ts';
import { formatSummary } from '../../conformance/report/summary-table.ts';
import { applyExpectedFailures, expectedFailuresOf, passesNowMessages, writeExpectedFailures } from '../../conformance/report/expected-failures.ts';
import type { ExpectedFailuresFile } from '../../conformance/report/expected-failures.ts';
import { joinHarParts } from '../../conformance/transport/har.ts';
import { formatDisagreements, mergeRuns } from '../../conformance/report/repeat.ts';
import { seconds, suiteCutMessage } from './deadline.ts';
import type { RunOptions } from './options.ts';
import type { RunRecord } from './record.ts';

export interface SuiteOutcome {
  /** Each run's results.json, undefined where the suite wrote none. */
  runs: (RunResults | undefined)[];
  baseUrls: string[];
  /** The suite's global timeout was the run deadline's share (D-BOUNDED-RUN). */
  cutByDeadline: boolean;
  baseline?: ExpectedFailuresFile;
  warnings: string[];
  harDir?: string;
  suiteMs: number;
  started: Date;
}

/** The run's results with what the run itself adds, written when changed; undefined when a run wrote no results.json. */
async function finalResults(options: RunOptions, record: RunRecord, outcome: SuiteOutcome): Promise<RunResults | undefined> {
  const finished = outcome.runs.filter((r): r is RunResults => r !== undefined);
  if (finished.length !== outcome.runs.length || finished.length === 0) return undefined;
  const results = mergeRuns(finished);
  let changed = options.repeat > 1;
  // D-BOUNDED-RUN: a suite cut short by its global timeout (the run deadline's share) says so by name.
  if (outcome.cutByDeadline && !results.complete && (results.errors ?? []).some((e) => e.includes('ended early: timedout'))) {
    const message = suiteCutMessage(options.deadlineSeconds);
    results.errors = [...(results.errors ?? []), message];
    console.error(`http-api-conformance run: ${message}`);
    changed = true;
  }
  if (outcome.baseline !== undefined && options.expectedFailures !== undefined) {
    applyExpectedFailures(results, outcome.baseline, options.expectedFailures, options.allowFixed);
  }
  if (outcome.warnings.length > 0 || outcome.baseline !== undefined) {
    results.warnings = [...(results.warnings ?? []), ...outcome.warnings];
    if (results.warnings.length === 0) delete results.warnings;
    changed = true;
  }
  if (changed) await record.write(results);
  return results;
}

/** Prints the run's summary and files; resolves with the exit code (1 when the suite wrote no results). */
export async function verdict(options: RunOptions, record: RunRecord, outcome: SuiteOutcome): Promise<number> {
  const results = await finalResults(options, record, outcome);
  if (!results) return record.unfinished('the suite wrote no results.json: the run did not finish', { baseUrls: outcome.baseUrls });
  if (options.har !== undefined && outcome.harDir !== undefined) {
    const entries = joinHarParts(outcome.harDir, options.har, `http-api-conformance run against ${outcome.baseUrls.join(', ')}`);
    console.log(`HAR: ${options.har} (${entries} exchanges${options.harSecrets ? ', tokens NOT masked: --har-secrets' : ', tokens masked'})`);
  }
  if (options.writeExpectedFailures !== undefined) {
    const written = expectedFailuresOf(results, outcome.baseline);
    writeExpectedFailures(options.writeExpectedFailures, written);
    console.log(`expected failures: ${Object.keys(written.expectedFailures).length} written to ${options.writeExpectedFailures}`);
  }
  console.log(`\n${formatSummary(results)}\n`);
  for (const line of passesNowMessages(results)) console.log(`${options.allowFixed ? 'WARNING' : 'FAIL'}: ${line}`);
  if (results.repeat) console.log(`${formatDisagreements(results)}\n`);
  const verdictWord = results.exitCode === 0 ? 'PASS' : results.complete ? 'FAIL' : 'FAIL (incomplete run)';
  const { passed, failed, warning, skipped } = results.summary;
  const expected = results.requirements.filter((r) => r.expected && r.outcome === 'failed').length;
  console.log(`${verdictWord}: ${passed} passed, ${failed} failed${expected > 0 ? ` (${expected} expected)` : ''}, ${warning} warning, ${skipped} skipped`);
  console.log(`results: ${record.resultsFile}`);
  console.log(`report: ${join(options.out, 'report.html')} (badge: ${join(options.out, 'badge.svg')})`);
  for (const warning of outcome.warnings) console.warn(`WARNING: ${warning}`);
  // D-RUN-TIMING: a run is as long as its longest necessary wait; the user sees which one that was.
  const wait = results.timing?.longestWait;
  const longest = wait ? `; longest wait ${seconds(wait.ms)}: ${wait.why}, in "${wait.test}"` : '';
  console.log(`duration: suite ${seconds(outcome.suiteMs)}, total ${seconds(Date.now() - outcome.started.getTime())}${longest}`);
  return results.exitCode;
}
