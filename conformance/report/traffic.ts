/**
 * The reporter's side of the response rules (D-TRAFFIC): merges what every check of the run attached
 * (conformance/traffic/recorder.ts) into one count per rule, for results.json's `traffic`, and one
 * failed record per rule and producer, under the rule's requirement: a violation fails or warns its
 * requirement like any of its checks, with the first exchange that showed it as its evidence.
 */
import type { TestResult } from '@playwright/test/reporter';
import { TRAFFIC_ATTACHMENT, TRAFFIC_RULES } from '../traffic/recorder.ts';
import type { TrafficLog, TrafficViolation } from '../traffic/recorder.ts';
import { answerPhrase, requestPhrase } from './headline.ts';
import { jsonAttachment } from './test-record.ts';
import type { TestRecord, TrafficSummary } from '../../spec/results.ts';

/** Where the response rules live: the location of their records. */
const RULES_LOCATION = 'conformance/traffic/rules.ts';

/** Whether a record of results.json is a response rule's (D-TRAFFIC), not a scripted check's. */
export function isTrafficRecord(record: Pick<TestRecord, 'location'>): boolean {
  return record.location === RULES_LOCATION;
}

/** The traffic log a check attached, when any. */
export function trafficLogOf(result: Pick<TestResult, 'attachments'>): TrafficLog | undefined {
  return jsonAttachment<TrafficLog>(result, TRAFFIC_ATTACHMENT);
}

/** A violation merged over the run: its first exchange, the checks whose traffic showed it, and how often. */
interface MergedViolation extends TrafficViolation {
  checks: string[];
}

export interface TrafficVerdicts {
  summary: TrafficSummary;
  /** Rules that threw on an answer: a bug of the suite, which makes the run incomplete. */
  ruleErrors: string[];
  /** Requirement ID → one failed record per rule and producer that broke it. */
  records: Map<string, TestRecord[]>;
}

/** Merges the logs of every check (`title` names the check) into the run's counts and failed records. */
export function trafficVerdicts(logs: readonly { title: string; log: TrafficLog }[]): TrafficVerdicts {
  const judged = new Map<string, number>();
  const merged = new Map<string, MergedViolation>();
  let exchanges = 0;
  const ruleErrors: string[] = [];
  for (const { title, log } of logs) {
    exchanges += log.exchanges;
    for (const error of log.ruleErrors ?? []) ruleErrors.push(`response rule: ${error} (in ${title})`);
    for (const [rule, count] of Object.entries(log.judged)) judged.set(rule, (judged.get(rule) ?? 0) + count);
    for (const violation of log.violations) {
      const key = `${violation.rule} ${violation.producer}`;
      const seen = merged.get(key);
      if (seen) {
        seen.count += violation.count;
        if (!seen.checks.includes(title)) seen.checks.push(title);
      } else merged.set(key, { ...violation, checks: [title] });
    }
  }
  const records = new Map<string, TestRecord[]>();
  for (const v of merged.values()) {
    const list = records.get(v.requirement) ?? [];
    list.push(recordOf(v, judged.get(v.rule) ?? v.count));
    records.set(v.requirement, list);
  }
  const violated = (rule: string): MergedViolation[] => [...merged.values()].filter((v) => v.rule === rule);
  const summary: TrafficSummary = {
    exchanges,
    rules: TRAFFIC_RULES.map((rule) => ({
      rule: rule.name,
      requirement: rule.requirement,
      says: rule.says,
      judged: judged.get(rule.name) ?? 0,
      violations: violated(rule.name).reduce((sum, v) => sum + v.count, 0),
      producers: violated(rule.name).map((v) => v.producer),
    })),
  };
  return { summary, records, ruleErrors: ruleErrors.slice(0, 10) };
}

/** The failed record of one rule broken by one producer. */
function recordOf(v: MergedViolation, judged: number): TestRecord {
  const checks = v.checks.length > 3 ? `${v.checks.slice(0, 3).join('; ')} and ${v.checks.length - 3} more` : v.checks.join('; ');
  return {
    title: `every exchange › ${v.says} › ${v.producer}`,
    location: RULES_LOCATION,
    status: 'failed',
    durationMs: 0,
    error: `${v.violation}\n${v.count} of the run's ${judged} exchanges this rule judged broke it from ${v.producer}, in the traffic of: ${checks}`,
    exchange: v.exchange,
    headline:
      `${requestPhrase(v.exchange)} ${answerPhrase(v.exchange)}: ${v.violation}; ` +
      `expected: ${v.says} (${v.requirement}, ${v.count} such exchange${v.count === 1 ? '' : 's'})`,
  };
}
