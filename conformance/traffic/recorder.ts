/**
 * The worker's side of the response rules (D-TRAFFIC): every answer the suite's HTTP client receives
 * while a check runs is judged by every rule of conformance/traffic/rules.ts. Per check, it counts the
 * exchanges each rule judged and keeps each violation once per rule and producer (status, method,
 * route template), with the first exchange that showed it and how many did; the suite's auto fixture
 * attaches that as `TRAFFIC_ATTACHMENT` when the check ends, whatever its own outcome, and the
 * requirements reporter merges the attachments of the whole run (conformance/report/traffic.ts).
 */
import { exchangeOf } from '../report/exchange.ts';
import type { Exchange } from '../report/exchange.ts';
import type { HttpResponse } from '../support/http.ts';
import type { TargetProfile } from '../target/profile.ts';
import { judgeExchange } from './rules.ts';
import type { RuleContext } from './rules.ts';
import { producerOf, routeTemplates } from './producer.ts';

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
}

interface Recording {
  context: RuleContext;
  templates: ReturnType<typeof routeTemplates>;
  log: TrafficLog;
  byKey: Map<string, TrafficViolation>;
}

/** D-BOUNDED-RUN: at most this many distinct violations are kept per check (rules × producers stay far below). */
const KEPT_VIOLATIONS = 500;

let recording: Recording | undefined;

/** The rules' view of the profile: what it declares about the API's shapes. */
function contextOf(profile: TargetProfile): RuleContext {
  return { invalidBodies: profile.collections.flatMap((c) => (c.invalid ? [c.invalid] : [])) };
}

/** Starts judging the answers of a check against `profile`'s target. */
export function startTraffic(profile: TargetProfile): void {
  recording = { context: contextOf(profile), templates: routeTemplates(profile), log: { exchanges: 0, judged: {}, violations: [] }, byKey: new Map() };
}

/** Judges one answer (support/exchange-log.ts calls it for every response while a check runs). */
export function observeAnswer(response: HttpResponse): void {
  const current = recording;
  if (current === undefined) return;
  current.log.exchanges += 1;
  for (const { rule, judgement } of judgeExchange(response, current.context)) {
    current.log.judged[rule.name] = (current.log.judged[rule.name] ?? 0) + 1;
    if (judgement === 'holds') continue;
    const producer = producerOf(response.status, response.request.method, response.request.url, current.templates);
    const key = `${rule.name} ${producer}`;
    const seen = current.byKey.get(key);
    if (seen) {
      seen.count += 1;
      continue;
    }
    if (current.byKey.size >= KEPT_VIOLATIONS) continue;
    const violation: TrafficViolation = {
      rule: rule.name,
      requirement: rule.requirement,
      says: rule.says,
      producer,
      count: 1,
      violation: judgement.violation,
      exchange: exchangeOf(response.request, response),
    };
    current.byKey.set(key, violation);
    current.log.violations.push(violation);
  }
}

/** Ends the check's recording and returns what it saw; undefined when nothing was recorded. */
export function stopTraffic(): TrafficLog | undefined {
  const log = recording?.log;
  recording = undefined;
  return log;
}
