/**
 * Turns one Playwright test (and its last result) into the requirement IDs it declares and the
 * `TestRecord` that results.json keeps for it.
 */
import { relative } from 'node:path';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { REQUIREMENT_ID } from '../../spec/catalogue.ts';
import { EXCHANGE_ATTACHMENT, VERDICT_ATTACHMENT } from '../transport/exchange.ts';
import type { Exchange, Verdict } from '../transport/exchange.ts';
import { headlineOf } from './headline.ts';
import { BROKE_ANNOTATION, NOTE_ANNOTATION } from '../support/requirement.ts';
import type { TestRecord } from '../../spec/results.ts';

/**
 * The requirement IDs a test declares: `requirement` annotations (static, or added while it ran)
 * and `@ID` tags (shared design).
 */
export function requirementIdsOf(test: Pick<TestCase, 'annotations' | 'tags'>, result?: Pick<TestResult, 'annotations'>): string[] {
  const ids = new Set<string>();
  for (const a of [...test.annotations, ...(result?.annotations ?? [])]) {
    if (a.type === 'requirement' && a.description) ids.add(a.description.trim());
  }
  for (const tag of test.tags) {
    const id = tag.replace(/^@/, '');
    if (REQUIREMENT_ID.test(id)) ids.add(id);
  }
  return [...ids];
}

/** The requirements a failure broke, when the check named them (`broke` annotations, D-STATE-MODEL): empty when it named none. */
export function brokeIdsOf(result: Pick<TestResult, 'annotations'> | undefined): string[] {
  return (result?.annotations ?? []).filter((a) => a.type === BROKE_ANNOTATION && a.description).map((a) => (a.description ?? '').trim());
}

/** The requirements a test's failure is judged under: those it named as broken, else every one it declares. */
function judgedIdsOf(test: Pick<TestCase, 'annotations' | 'tags'>, result: Pick<TestResult, 'annotations'>): string[] {
  const broke = brokeIdsOf(result);
  return broke.length > 0 ? broke : requirementIdsOf(test, result);
}

/**
 * The record of a test under each requirement it declares: a failure that named the requirements it broke
 * (D-FINDINGS, D-STATE-MODEL) fails those alone, and the check passes its other IDs (nothing it ran broke them).
 */
export function recordsByRequirement(
  test: Pick<TestCase, 'annotations' | 'tags'>,
  result: Pick<TestResult, 'annotations'> | undefined,
  record: TestRecord,
): [string, TestRecord][] {
  const broke = brokeIdsOf(result);
  const { title, location, durationMs, notes } = record;
  const passed: TestRecord = { title, ...(location ? { location } : {}), status: 'passed', durationMs, ...(notes ? { notes } : {}) };
  const judged = broke.length > 0 && record.status === 'failed';
  return requirementIdsOf(test, result).map((id) => [id, judged && !broke.includes(id) ? passed : record]);
}

/** The reason given to `test.skip(condition, reason)` (static or at run time), when any. */
export function skipReasonOf(test: Pick<TestCase, 'annotations'>, result: Pick<TestResult, 'annotations'> | undefined): string | undefined {
  const all = [...(result?.annotations ?? []), ...test.annotations];
  const skip = all.find((a) => (a.type === 'skip' || a.type === 'fixme') && a.description);
  return skip?.description;
}

/** `text` without ANSI colour sequences. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/** The first lines of a failure message, without ANSI colours. */
export function errorSummary(result: Pick<TestResult, 'errors'>): string | undefined {
  const first = result.errors[0];
  const text = first?.message ?? first?.value;
  if (!text) return undefined;
  const plain = stripAnsi(text);
  // Enough lines for an expect() diff to name what differed, not only its counts.
  return plain.split('\n').filter((l) => l.trim() !== '').slice(0, 12).join('\n');
}

/** The JSON body of the attachment `name` of a result, when it has one that parses. */
export function jsonAttachment<T>(result: Pick<TestResult, 'attachments'>, name: string): T | undefined {
  const attachment = result.attachments.find((a) => a.name === name && a.body !== undefined);
  if (!attachment?.body) return undefined;
  try {
    return JSON.parse(attachment.body.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The evidence a failing test attached (conformance/transport/exchange-log.ts), when any. */
export function exchangeOf(result: Pick<TestResult, 'attachments'>): Exchange | undefined {
  return jsonAttachment<Exchange>(result, EXCHANGE_ATTACHMENT);
}

/** The verdict details a failing test attached (expected value, consequence of), when any. */
export function verdictOf(result: Pick<TestResult, 'attachments'>): Verdict | undefined {
  return jsonAttachment<Verdict>(result, VERDICT_ATTACHMENT);
}

/**
 * The record of a test from its last attempt. `undefined` when the test never ran (no result at
 * all): the run is then incomplete.
 */
export function recordOf(test: TestCase, rootDir: string, summaryOf: (id: string) => string | undefined = () => undefined): TestRecord | undefined {
  const result = test.results.at(-1);
  if (!result) return undefined;
  const record: TestRecord = {
    // titlePath: root, project, file, describes…, title.
    title: test.titlePath().slice(3).join(' › ') || test.title,
    location: `${relative(rootDir, test.location.file)}:${test.location.line}`,
    // `test.fail()` tests that failed as declared, and retried tests that passed, count as passed.
    status: result.status !== 'skipped' && (test.outcome() === 'expected' || test.outcome() === 'flaky') ? 'passed' : result.status,
    durationMs: result.duration,
  };
  const notes = result.annotations.filter((a) => a.type === NOTE_ANNOTATION && a.description).map((a) => a.description ?? '');
  if (notes.length > 0) record.notes = notes;
  if (result.status === 'skipped') {
    const reason = skipReasonOf(test, result);
    if (reason) record.reason = reason;
  } else if (record.status !== 'passed') {
    const error = errorSummary(result);
    if (error) record.error = error;
    const exchange = exchangeOf(result);
    if (exchange) record.exchange = exchange;
    const verdict = verdictOf(result);
    if (verdict?.consequenceOf) record.consequenceOf = verdict.consequenceOf;
    if (verdict?.causes) record.causes = verdict.causes;
    // D-FINDINGS: one sentence from the exchange; the assertion's own text stays in `error`.
    record.headline = headlineOf({
      ids: judgedIdsOf(test, result),
      title: record.title,
      ...(exchange ? { exchange } : {}),
      ...(verdict ? { verdict } : {}),
      ...(error ? { error } : {}),
      summaryOf,
    });
  }
  return record;
}
