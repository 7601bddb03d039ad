/**
 * The suite's fixtures. `profile` (worker-scoped): the target profile of HAC_PROFILE, or, when it is
 * unset, the embedded reference server started for this worker. `target`: helpers over the profile's
 * first base URL. `multi`: a profile with two or more base URLs (the profile itself, or two embedded
 * instances on Redis when no HAC_PROFILE is given), or the reason why there is none. The embedded
 * target is imported only when needed, so a run against another target never loads the reference server.
 *
 * Skipping has one rule: a check is skipped only by `skipCheck(reason)` (support/skip.ts), called
 * where the lack is found, never by Playwright's `test.skip` or `testInfo.skip` directly. The reason
 * is what the report shows: what is lacking, and the profile member to set when the profile lacks
 * it. Where the call goes follows from what is lacking:
 * - a profile member that checks take as a fixture: the fixture calls it, so a test body never
 *   tests for one: `creatableCollection`, `orders`, `otherCaller`, `limitedCaller`,
 *   `idempotentEndpoint`, `faultInjection`, `instances` (and the rate-limit fixtures,
 *   rate-limit-fixtures.ts);
 * - a feature a whole spec file needs: the file's `test.beforeAll`, before any check's own fixtures;
 * - what one check derives from the profile in its own way or measures: its body, as
 *   `if (condition) skipCheck(reason)` right where the value is known.
 * `countingCaller` is the caller whose collections a check may count, held exclusively while it does.
 */
// The suite speaks HTTP through its own client (transport/client.ts) and never opens a browser, so it
// extends Playwright's root test type, which lacks the browser fixtures: `test` from '@playwright/test'
// sets up its trace-recording and context-configuration fixtures around every check, each a step with
// a source-mapped stack, and loads the browser client in every worker. Kept for speed, measured on the
// embedded full run (`run`, 152 checks), 6 alternating pairs on 2 cores at load 1.5-3.6: `_baseTest`
// 14.2 s wall and 21.3 s of CPU (medians) against 17.2 s and 27.1 s with `test`; every pair faster,
// by 2.1-5.5 s wall (median 3.1 s) and 4.8-11.6 s of CPU (median 5.8 s). `_baseTest` is declared in
// @playwright/test's types.
import { _baseTest as base } from '@playwright/test';
import { runEnvironment } from './run-environment.ts';
import { givenProfile } from './run-plan.ts';
import { loadProfile, loadValidatedProfile } from './target/profile.ts';
import type { ProfileCollection, ProfileRequest, TargetProfile } from './target/profile.ts';
import { Target } from './support/target.ts';
import type { Client } from './transport/client.ts';
import { NO_EXAMPLE_API } from './support/example-api.ts';
import { idempotentEndpointOf, NO_IDEMPOTENT_ENDPOINT } from './support/idempotency.ts';
import { Orders } from './support/orders.ts';
import type { IdempotentEndpoint } from './support/idempotency.ts';
import { acquireToken } from './support/token-lock.ts';
import { multiTargetSkip } from './support/multi-target.ts';
import { clearExchanges, evidenceAttachments, evidenceRequest, observeAnswers } from './transport/exchange-log.ts';
import { observeAnswer, startTraffic, stopTraffic, TRAFFIC_ATTACHMENT } from './traffic/recorder.ts';
import { clearHar, flushHar } from './transport/har-log.ts';
import { inFlightSettled } from './transport/http.ts';
import { skipCheck } from './support/skip.ts';
import { observeWaits, WAIT_ANNOTATION } from './transport/waits.ts';
import { keepWorkerAfterFailure } from './report/kept-worker.ts';
import { brokeIdsOf } from './report/test-record.ts';

export { expect } from '@playwright/test';

export type MultiTarget = { profile: TargetProfile; skip?: undefined } | { profile?: undefined; skip: string };

/** The caller lacking a permission and the request it may not make (`tokens.limited`, D-PROFILE). */
export interface LimitedCaller {
  client: Client;
  request: ProfileRequest;
}

/** The profile's fault injection (features.faultInjection, D-PROFILE). */
export interface FaultInjection {
  header: string;
  slowValue?: string;
  /** The profile's first collection: where injected faults go. */
  path: string;
}

interface TestFixtures {
  /** Automatic: a failing test attaches the request that shows the failure and its response (report.html shows it). */
  evidence: void;
  /** Automatic: every answer of the check is judged by the response rules, and what they saw is attached (D-TRAFFIC). */
  traffic: void;
  /** Automatic: each wait for the target (a Retry-After, a refill) is noted on the test, for results.json's timing (D-RUN-TIMING). */
  waits: void;
  /** The first collection that allows POST and has a create body (`collections[].create`); skipped when none has. */
  creatableCollection: ProfileCollection & { create: Record<string, unknown> };
  /** The example API's orders of the valid caller: the check is skipped unless the profile declares `features.exampleApi`. */
  orders: Orders;
  /** A second caller, `tokens.other`: the check is skipped when the profile names none. */
  otherCaller: Client;
  /** The caller lacking a permission and the request it may not make, `tokens.limited`; skipped when absent. */
  limitedCaller: LimitedCaller;
  /**
   * `tokens.other`, else `tokens.valid`, held for the whole check by a lock per target and caller
   * shared by all workers: the checks that count what this caller's collections list (the
   * idempotency checks, the payment an order's pay link creates) never run at the same time, so no
   * one of them writes to a collection another is counting. Other checks use the valid caller; a
   * profile without `tokens.other` shares it with them.
   */
  countingCaller: Client;
  /** The profile's idempotent endpoint (`idempotency`) for the counting caller; skipped when absent. */
  idempotentEndpoint: IdempotentEndpoint;
  /** The profile's fault-injection header (`features.faultInjection`); skipped when absent. */
  faultInjection: FaultInjection;
  /** The target at each of two or more base URLs (`multi`); skipped with its reason when there are fewer. */
  instances: [Target, Target, ...Target[]];
}

interface WorkerFixtures {
  profile: TargetProfile;
  target: Target;
  multi: MultiTarget;
}

/** How long a check's end waits for the answers it left in flight, so the response rules judge them (D-TRAFFIC). */
const TRAFFIC_SETTLE_MS = 2_000;

export const NO_FAULT_INJECTION = 'the profile declares no fault-injection header (features.faultInjection), so no server fault can be provoked';

/** The profile's fault injection, with the first collection as where faults go; undefined when it declares none. */
export function faultInjectionOf(profile: TargetProfile): FaultInjection | undefined {
  const fault = profile.features?.faultInjection;
  const first = profile.collections[0];
  return fault === undefined || first === undefined ? undefined : { ...fault, path: first.path };
}

/** Property run count: HAC_RUNS, else the profile's `runs.properties`, else 25. */
export function propertyRuns(profile: TargetProfile): number {
  return givenRuns(profile) ?? DEFAULT_PROPERTY_RUNS;
}

/** The run count the user gave: HAC_RUNS, else the profile's `runs.properties`. */
function givenRuns(profile: TargetProfile): number | undefined {
  return runEnvironment().propertyRuns ?? profile.runs?.properties;
}

const DEFAULT_PROPERTY_RUNS = 25;
/** D-SCHEMA-INPUTS: the generated cases of one property over every collection, by default: four collections' worth. */
const COLLECTIONS_BUDGET = 4 * DEFAULT_PROPERTY_RUNS;
/** D-SCHEMA-INPUTS: the fewest generated cases a collection gets from the shared budget. */
const FEWEST_PER_COLLECTION = 5;

/**
 * D-SCHEMA-INPUTS: generated cases per collection of a property run over `collections` collections.
 * HAC_RUNS or the profile's `runs.properties` when given, for each collection; by default 25 each up to
 * four collections, then the 100 shared (at least 5 each): a document of 36 collections gets 5 each,
 * not 900 requests per property. The cases that find a lax validator (fast-check `examples`) are sent
 * for every collection whatever the count.
 */
export function collectionPropertyRuns(profile: TargetProfile, collections: number): number {
  const given = givenRuns(profile);
  if (given !== undefined) return given;
  return Math.max(FEWEST_PER_COLLECTION, Math.min(DEFAULT_PROPERTY_RUNS, Math.ceil(COLLECTIONS_BUDGET / Math.max(1, collections))));
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  evidence: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
    async ({}, use, testInfo) => {
      clearExchanges();
      clearHar();
      await use();
      const failed = testInfo.status !== testInfo.expectedStatus && testInfo.status !== 'skipped';
      const failureText = testInfo.errors.map((error) => error.message ?? error.value ?? '').join('\n');
      // D-STATE-MODEL: a check that named the requirement its failure broke is judged under it alone.
      const broke = brokeIdsOf(testInfo);
      const declared = broke.length > 0 ? broke : testInfo.annotations.filter((a) => a.type === 'requirement' && a.description).map((a) => a.description ?? '');
      // D-FINDINGS: the exchange the failure is about and its verdict; D-HAR: every exchange of the test.
      for (const attachment of failed ? evidenceAttachments(failureText, declared) : []) {
        await testInfo.attach(attachment.name, { body: attachment.body, contentType: attachment.contentType });
      }
      flushHar(declared, testInfo.titlePath.slice(1).join(' › '), failed ? evidenceRequest(failureText) : undefined);
      // D-WORKER-KEPT: the last fixture torn down, so every other fixture has settled the check.
      keepWorkerAfterFailure(testInfo);
    },
    { auto: true },
  ],
  traffic: [
    async ({ profile }, use, testInfo) => {
      startTraffic(profile);
      observeAnswers(observeAnswer);
      try {
        await use();
        // The answers a check did not wait for (the rest of a burst) are judged too, within a bound (D-BOUNDED-RUN).
        await inFlightSettled(TRAFFIC_SETTLE_MS);
      } finally {
        observeAnswers(undefined);
        const log = stopTraffic();
        if (log && log.exchanges > 0) await testInfo.attach(TRAFFIC_ATTACHMENT, { body: JSON.stringify(log), contentType: 'application/json' });
      }
    },
    { auto: true },
  ],
  waits: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
    async ({}, use, testInfo) => {
      observeWaits((ms, why) => testInfo.annotations.push({ type: WAIT_ANNOTATION, description: `${ms} ${why}` }));
      try {
        await use();
      } finally {
        observeWaits(undefined);
      }
    },
    { auto: true },
  ],
  profile: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
    async ({}, use, workerInfo) => {
      // D-RUN-PLAN: the worker's project names its target in a run with several; else HAC_PROFILE.
      const given = givenProfile(workerInfo.project);
      if (given) {
        await use(given.checked ? loadValidatedProfile(given.path) : loadProfile(given.path));
        return;
      }
      const { startEmbeddedTarget } = await import('./target/embedded.ts');
      const embedded = await startEmbeddedTarget({ instances: 1, store: 'memory' });
      try {
        await use(embedded.profile);
      } finally {
        await embedded.close();
      }
    },
    { scope: 'worker' },
  ],
  target: [
    async ({ profile }, use) => {
      await use(new Target(profile));
    },
    { scope: 'worker' },
  ],
  multi: [
    async ({ profile }, use, workerInfo) => {
      const skip = multiTargetSkip(profile);
      if (skip === undefined) {
        await use({ profile });
        return;
      }
      if (givenProfile(workerInfo.project)) {
        await use({ skip });
        return;
      }
      // Loaded here only: the reference server's configuration (its schema compiled on load) and ioredis cost every process ~0.3 s.
      const { startTwoInstances } = await import('./target/embedded.ts');
      const embedded = await startTwoInstances();
      if ('skip' in embedded) {
        await use({ skip: embedded.skip });
        return;
      }
      try {
        await use({ profile: embedded.profile });
      } finally {
        await embedded.close();
      }
    },
    { scope: 'worker' },
  ],
  creatableCollection: async ({ target }, use) => {
    const collection = target.creatable();
    if (collection === undefined) skipCheck('no collection of the profile has a create body (collections[].create)');
    await use(collection);
  },
  orders: async ({ target }, use) => {
    if (!target.profile.features?.exampleApi) skipCheck(NO_EXAMPLE_API);
    await use(new Orders(target));
  },
  otherCaller: async ({ target }, use) => {
    const token = target.profile.tokens.other;
    if (token === undefined) skipCheck('the profile names no second caller (tokens.other)');
    await use(target.as(token));
  },
  limitedCaller: async ({ target }, use) => {
    const limited = target.profile.tokens.limited;
    if (limited === undefined) skipCheck('the profile names no token lacking a permission (tokens.limited)');
    await use({ client: target.as(limited.token), request: limited.request });
  },
  countingCaller: async ({ target }, use) => {
    const caller = target.countingCaller();
    const held = await acquireToken(`${target.baseUrl} counted collections`, [caller.options.token ?? ''], { timeoutMs: 30_000 });
    try {
      await use(caller);
    } finally {
      held.release();
    }
  },
  idempotentEndpoint: async ({ profile, countingCaller }, use) => {
    const endpoint = idempotentEndpointOf(profile, countingCaller);
    if (endpoint === undefined) skipCheck(NO_IDEMPOTENT_ENDPOINT);
    await use(endpoint);
  },
  faultInjection: async ({ profile }, use) => {
    const fault = faultInjectionOf(profile);
    if (fault === undefined) skipCheck(NO_FAULT_INJECTION);
    await use(fault);
  },
  instances: async ({ multi }, use) => {
    if (multi.profile === undefined) skipCheck(multi.skip);
    const profile = multi.profile;
    await use(profile.baseUrls.map((url) => new Target(profile, url)) as [Target, Target, ...Target[]]);
  },
});
