/**
 * The worker's side of the response rules (D-TRAFFIC): every answer the suite's HTTP client receives
 * while a check runs is judged by every rule of conformance/traffic/rules.ts. Per check, it counts the
 * exchanges each rule judged and keeps each violation once per rule and producer (status, method,
 * route template), with the first exchange that showed it and how many did; the suite's auto fixture
 * attaches that as `TRAFFIC_ATTACHMENT` when the check ends, whatever its own outcome, and the
 * requirements reporter merges the attachments of the whole run (conformance/report/traffic.ts).
 */
import { exchangeOf } from '../transport/exchange.ts';
import type { Exchange } from '../transport/exchange.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { TargetProfile } from '../target/profile.ts';
import { judgeExchange, RESPONSE_RULES } from './rules.ts';
import type { Judgement, RuleContext } from './rules.ts';
import { producerOf, routeOf, routeTemplates } from './producer.ts';
import { plansOf, REMAINING_RULE, RemainingWatch } from './remaining.ts';

/** Every rule the recorder judges with, as the report lists them: the single-exchange rules, then the Remaining watch. */
export const TRAFFIC_RULES: readonly { name: string; requirement: string; says: string }[] = [...RESPONSE_RULES, REMAINING_RULE];

/** Name of the Playwright attachment that carries a check's `TrafficLog` as JSON. */
export const TRAFFIC_ATTACHMENT = 'hac-traffic';

/** One rule broken by one producer during one check. */
export interface TrafficViolation {
  rule: string;
  requirement: string;
  says: string;
  producer: string;
  /** How many exchanges of the check showed it. */
  count: number;
  /** The violation, as the first exchange showed it. */
  violation: string;
  /** The first exchange that showed it. */
  exchange: Exchange;
}

/** What the rules saw during one check. */
export interface TrafficLog {
  /** Exchanges answered (a response received). */
  exchanges: number;
  /** Rule name → exchanges it judged (it applied: held or was violated). */
  judged: Record<string, number>;
  violations: TrafficViolation[];
  /** Rules that threw on an answer (a suite bug: the run is reported incomplete), the first few. */
  ruleErrors?: string[];
}

interface Recording {
  context: RuleContext;
  templates: ReturnType<typeof routeTemplates>;
  log: TrafficLog;
  byKey: Map<string, TrafficViolation>;
  remaining: RemainingWatch;
}

/** D-BOUNDED-RUN: at most this many distinct violations are kept per check (rules × producers stay far below). */
const KEPT_VIOLATIONS = 500;

let recording: Recording | undefined;

/** The rules' view of the profile: what it declares about the API's shapes. */
function contextOf(profile: TargetProfile): RuleContext {
  const invalidBodies = profile.collections.flatMap((c) => (c.invalid ? [c.invalid] : []));
  return { invalidBodies, ...(profile.credentials ? { credentials: profile.credentials } : {}) };
}

/** Starts judging the answers of a check against `profile`'s target. */
export function startTraffic(profile: TargetProfile): void {
  recording = {
    context: contextOf(profile),
    templates: routeTemplates(profile),
    log: { exchanges: 0, judged: {}, violations: [] },
    byKey: new Map(),
    remaining: new RemainingWatch(plansOf(profile), profile.credentials),
  };
}

/** Judges one answer (transport/exchange-log.ts calls it for every response while a check runs). */
export function observeAnswer(response: HttpResponse): void {
  const current = recording;
  if (current === undefined) return;
  current.log.exchanges += 1;
  const failures: string[] = [];
  const judged: { rule: (typeof TRAFFIC_RULES)[number]; judgement: Judgement }[] = judgeExchange(response, current.context, failures);
  const route = routeOf(new URL(response.request.url).pathname, current.templates);
  try {
    judged.push({ rule: REMAINING_RULE, judgement: current.remaining.judge(response, route) });
  } catch (error) {
    failures.push(`${REMAINING_RULE.name} could not judge ${response.request.method} ${response.request.url}: ${(error as Error).message}`);
  }
  if (failures.length > 0) current.log.ruleErrors = [...(current.log.ruleErrors ?? []), ...failures].slice(0, 10);
  for (const { rule, judgement } of judged) {
    if (judgement === 'not-applicable') continue;
    current.log.judged[rule.name] = (current.log.judged[rule.name] ?? 0) + 1;
    if (judgement === 'holds') continue;
    note(current, rule, judgement.violation, response);
  }
}

/** Counts one violation of `rule` by `response`'s producer; the first of its kind keeps its exchange. */
function note(current: Recording, rule: (typeof TRAFFIC_RULES)[number], text: string, response: HttpResponse): void {
  const producer = producerOf(response.status, response.request.method, response.request.url, current.templates);
  const key = `${rule.name} ${producer}`;
  const seen = current.byKey.get(key);
  if (seen) {
    seen.count += 1;
    return;
  }
  if (current.byKey.size >= KEPT_VIOLATIONS) return;
  const violation: TrafficViolation = {
    rule: rule.name,
    requirement: rule.requirement,
    says: rule.says,
    producer,
    count: 1,
    violation: text,
    exchange: exchangeOf(response.request, response),
  };
  current.byKey.set(key, violation);
  current.log.violations.push(violation);
}

/** Ends the check's recording and returns what it saw; undefined when nothing was recorded. */
export function stopTraffic(): TrafficLog | undefined {
  const log = recording?.log;
  recording = undefined;
  return log;
}
