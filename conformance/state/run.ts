/**
 * Runs the state model (D-STATE-MODEL) against the profile's instances: fast-check draws sequences of
 * commands (commands.ts) on one collection each, runs them against the target and the model, and shrinks a
 * failure to the shortest sequence that still fails. The failure prints that sequence as numbered
 * requests (instance, caller, answer, and for the last one what the model expected) with a curl line
 * each, and the replay command; it is reported under the one rule that broke (`broke` annotation).
 */
import { test } from '@playwright/test';
import fc from 'fast-check';
import { curlFor } from '../transport/curl.ts';
import { noteBreaks } from '../transport/exchange-log.ts';
import { exchangeText } from '../support/problem.ts';
import { replayCommand } from '../support/replay.ts';
import { BROKE_ANNOTATION } from '../support/requirement.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Target } from '../support/target.ts';
import type { TargetProfile } from '../target/profile.ts';
import { runEnvironment } from '../run-environment.ts';
import { givenProfile } from '../run-plan.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { LISTING_PAGES, planWeight, seedItem, StateViolation, stateCommands } from './commands.ts';
import type { LoggedExchange, ModelCollection, StatePlan, StateWorld } from './commands.ts';
import type { Spent, StateModel } from './model.ts';

/** The most commands of one sequence. */
export const SEQUENCE_STEPS = 20;
/** The most requests of one check, across its sequences (D-STATE-MODEL): past it, no command is sent. */
export const MAX_REQUESTS = 1_500;
/** The longest the sequences of one check may run (shrinking a failure included): a slow target gets fewer of them. */
export const TIME_BUDGET_MS = 12_000;
/** How the check's note begins to say the time budget stopped its sequences (read by the broken-variant meta-test, fixtures/broken/check.ts). */
export const BUDGET_STOPPED = 'stopped at the time budget';

/** The plans of the profile's collections the model can work on (created in, items read), or the reason there are none. */
export function statePlans(profile: TargetProfile): { plans: StatePlan[]; assumed: string[] } | { skip: string } {
  const other = profile.tokens.other !== undefined;
  const idem = profile.idempotency;
  const collections = profile.collections.filter(
    (c): c is ModelCollection => c.create !== undefined && c.methods.includes('POST') && c.itemPath !== undefined && (c.itemMethods ?? []).includes('GET'),
  );
  if (collections.length === 0) {
    return { skip: 'no collection of the profile has a create body, POST, an item path and GET on it (collections[].create, .itemPath, .itemMethods)' };
  }
  const plans = collections.map((collection) => ({
    collection,
    keyed: idem !== undefined && (idem.path === collection.path || idem.everyPost === true),
    replace: collection.replace !== undefined && (collection.itemMethods ?? []).includes('PUT'),
    remove: (collection.itemMethods ?? []).includes('DELETE'),
    list: collection.methods.includes('GET'),
    owned: collection.owned === true && other,
    lagMs: collection.listedWithinMs ?? 0,
    ...(collection.newestFirst !== undefined ? { newestFirst: collection.newestFirst } : {}),
  }));
  const assumed = [
    ...(collections.some((c) => c.listedWithinMs === undefined)
      ? ['listings show a new item at once on every instance (collections[].listedWithinMs absent)']
      : []),
    ...(collections.some((c) => c.owned === undefined) ? ['another caller\'s reads are not judged where collections[].owned is absent'] : []),
    ...(idem !== undefined && idem.everyPost !== true ? [`only ${idem.path} is sent Idempotency-Key (idempotency.everyPost absent)`] : []),
  ];
  return { plans, assumed };
}

/** A request of the printed sequence: `3. PUT /users/7 @1 as valid → 200`. */
function stepLine(n: number, entry: LoggedExchange): string {
  const { request, status } = entry.response;
  const url = new URL(request.url);
  const key = request.headers['idempotency-key'] !== undefined ? ' with its Idempotency-Key' : '';
  return `${n}. ${request.method} ${url.pathname}${url.search}${key} @instance ${entry.instance} as ${entry.caller} → ${status}`;
}

/** The rule a shrunk sequence broke: STATELESS-ANY-INSTANCE when it needs two instances (its requests went to both), else the model's own. */
function reportedRule(violation: StateViolation, log: readonly LoggedExchange[]): RequirementId {
  const rule = violation.broken.rule;
  const instances = new Set(log.map((entry) => entry.instance));
  return rule !== 'AUTH-OWNER-ONLY' && instances.size > 1 ? 'STATELESS-ANY-INSTANCE' : rule;
}

/** A sequence that broke the model: the rule it is reported under and the printed sequence. */
export interface StateFailure {
  rule: RequirementId;
  /** What the model expected of the answer that broke it. */
  expected: string;
  /** The answer that broke it. */
  response: HttpResponse;
  message: string;
}

/** What a model run found: what it covered, and the shrunk failure when a sequence broke the model. */
export interface StateOutcome {
  covered: string;
  failure?: StateFailure;
}

/** Runs `runs` sequences on `targets` (the profile's instances) and gives what they covered, or the shrunk failure. */
export async function runStateModel(
  targets: readonly Target[],
  plans: readonly StatePlan[],
  runs: number,
  otherToken?: string,
  title = '',
): Promise<StateOutcome> {
  const spent: Spent = { requests: 0, max: MAX_REQUESTS, longListings: new Set() };
  const covered = new Map<string, number>();
  let failing: { violation: StateViolation; log: LoggedExchange[]; plan: StatePlan } | undefined;
  const { replaySeed: seed, replayPath: path, replayCommands } = runEnvironment();
  // D-RUN-PLAN: the profile of the target this worker tests (its project's, in a run with several).
  const profileSource = givenProfile(test.info().project)?.source;
  const commandsOf = (plan: StatePlan): fc.Arbitrary<Iterable<fc.AsyncCommand<StateModel, StateWorld>>> =>
    fc.commands(stateCommands(plan, targets.length), { maxCommands: SEQUENCE_STEPS, size: 'max', ...(replayCommands ? { replayPath: replayCommands } : {}) });
  const sequences = fc.oneof(...plans.map((plan) => ({ weight: planWeight(plan), arbitrary: fc.tuple(fc.constant(plan), commandsOf(plan)) })));
  const property = fc.asyncProperty(sequences, async ([plan, commands]) => {
    covered.set(plan.collection.name, (covered.get(plan.collection.name) ?? 0) + 1);
    const world: StateWorld = { targets, ...(otherToken !== undefined ? { otherToken } : {}), log: [] };
    try {
      const model: StateModel = { items: [], spent };
      await seedItem(plan, model, world);
      await fc.asyncModelRun(() => ({ model, real: world }), commands);
    } catch (error) {
      if (error instanceof StateViolation) failing = { violation: error, log: world.log, plan };
      throw error;
    }
  });
  const details = await fc.check(property, {
    numRuns: runs,
    // D-BOUNDED-RUN: a slow target gets fewer sequences, not a check that runs out of time (the annotation says how many ran).
    interruptAfterTimeLimit: TIME_BUDGET_MS,
    markInterruptAsFailure: false,
    ...(seed !== undefined ? { seed } : {}),
    ...(path ? { path } : {}),
  });
  const coverage = [...covered].map(([name, n]) => `${name} (${n})`).join(', ');
  const stopped = details.interrupted ? ` (${BUDGET_STOPPED} of ${TIME_BUDGET_MS / 1000} s, of ${runs})` : '';
  const long = [...spent.longListings];
  // An inconclusive listing is neither a pass nor a fail: the note says which listings went unjudged.
  const unjudged = long.length > 0 ? `; listings longer than ${LISTING_PAGES} pages, not judged after that: ${long.join(', ')}` : '';
  const summary = `${details.numRuns} sequence(s)${stopped} of up to ${SEQUENCE_STEPS} commands, ${spent.requests} request(s), over ${coverage}${unjudged}`;
  if (!details.failed) return { covered: summary };
  if (!failing) throw details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
  const { violation, log, plan } = failing;
  const rule = reportedRule(violation, log);
  const commands = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[0]?.[1] ?? ''))?.[1];
  const replay = replayCommand({
    seed: details.seed,
    path: details.counterexamplePath ?? '',
    ...(commands ? { commands } : {}),
    title,
    ...(profileSource ? { profileSource } : {}),
  });
  const steps = log.flatMap((entry, i) => [
    `  ${stepLine(i + 1, entry)}${entry.response === violation.response ? `   ✗ expected ${violation.broken.expected}` : ''}`,
    `       ${curlFor(entry.response.request)}`,
  ]);
  const message = [
    `${rule}: a sequence of ${log.length} request(s) on ${plan.collection.name} breaks the state model ` +
      `(shrunk ${details.numShrinks} time(s), after ${details.numRuns} sequence(s))`,
    ...steps,
    `  replay: ${replay}`,
    `  exchange: ${exchangeText(violation.response)}`,
    `  (listings are followed for at most ${LISTING_PAGES} pages; a longer one is not judged)`,
  ].join('\n');
  return { covered: summary, failure: { rule, expected: violation.broken.expected, response: violation.response, message } };
}

/**
 * Checks that the state holds over `runs` sequences on `targets`: resolves with what was covered; a failure
 * is reported under the one rule it broke (`broke` annotation, D-STATE-MODEL) and throws the printed sequence.
 */
export async function assertStateHolds(targets: readonly Target[], plans: readonly StatePlan[], runs: number, otherToken?: string): Promise<string> {
  const outcome = await runStateModel(targets, plans, runs, otherToken, test.info().title);
  if (!outcome.failure) return outcome.covered;
  const { rule, response, expected, message } = outcome.failure;
  test.info().annotations.push({ type: BROKE_ANNOTATION, description: rule });
  noteBreaks(response, rule, expected);
  throw new Error(message);
}
