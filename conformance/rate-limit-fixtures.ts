/**
 * The fixtures of the rate-limit checks (document section 8 "Rate limiting", D-PROFILE,
 * D-SUITE-TRUST). A check that drains, refills or counts a bucket holds one rate-limit token of the
 * profile for its whole run: a lock per target and token, shared by every worker and by concurrent
 * runs on one machine (token-lock.ts). Each fixture skips the check (`skipCheck`, the suite's one
 * way: conformance/fixtures.ts), with the reason, when the profile lacks what it needs, so a
 * check's body holds only its rule.
 *
 * How the checks are scheduled (in parallel with a pool of two or more tokens, one after another in
 * one worker with a single token) is decided by the run's Playwright configuration
 * (conformance/playwright.config.ts), never here.
 */
import type { TestInfo } from '@playwright/test';
import type { HttpResponse } from './transport/message.ts';
import { test as suite } from './fixtures.ts';
import { isWindow, rateLimitAlgorithm, rateLimitPool } from './target/profile.ts';
import type { TargetProfile } from './target/profile.ts';
import { exchangeText } from './support/problem.ts';
import { Bucket, otherRateLimitFields, rateHeaders } from './support/rate-limit.ts';
import type { Policy } from './support/rate-limit.ts';
import { Target } from './support/target.ts';
import { skipCheck } from './support/skip.ts';
import { acquireToken } from './support/token-lock.ts';
import type { HeldToken } from './support/token-lock.ts';

export { expect } from './fixtures.ts';

/** How long a check waits for a token of the pool held by other checks (or other runs). */
const HOLD_TIMEOUT_MS = 20_000;

/** The profile's rate-limit tokens, each its own bucket on one policy, shared by the checks of a run. */
export interface TokenPool {
  /** `tokens.rateLimit`, then `tokens.rateLimitPool` (D-PROFILE); empty when the profile names none. */
  readonly tokens: readonly string[];
  /**
   * Holds a token of the pool on the target `scope` until released, waiting while it is held
   * elsewhere. A worker takes its tokens in turn from its own share of the pool (every `workers`-th
   * token from its parallel index), so each check starts on the bucket that has rested longest.
   */
  hold(scope: string): Promise<HeldToken>;
}

/** A bucket with the policy a check judges it by. */
export interface JudgedBucket {
  bucket: Bucket;
  policy: Policy;
}

export interface RateLimitWorkerFixtures {
  tokenPool: TokenPool;
}

export interface RateLimitFixtures {
  /** A token of the pool, held by this check alone for its whole run. Skips: the profile names no rate-limit token. */
  limitedToken: string;
  /** The held token's own bucket on the target, probed with a cheap GET. Skips: no GET route to probe. */
  bucket: Bucket;
  /** The policy the bucket is judged by: the profile's `rateLimit`, else estimated from a 429's headers. */
  policy: Policy;
  /**
   * The bucket a burst is judged on exactly from its own headers: the slow-refill token's
   * (`tokens.rateLimitSlow`, held like a pool token) when the profile names one and declares the
   * token bucket, else `bucket` with `policy`; `slowRefill` says which.
   */
  burstBucket: JudgedBucket & { slowRefill: boolean };
  /** The held token's bucket on every instance of a multi-instance target, and the policy. Skips: one instance only. */
  sharedBuckets: { buckets: Bucket[]; policy: Policy };
}

export const noToken = 'the profile names no rateLimit token';

/** The algorithm the profile declares (D-SUITE-TRUST; default the document's reference, the token bucket). */
function algorithmOf(profile: TargetProfile): Policy['algorithm'] {
  return rateLimitAlgorithm(profile.rateLimit);
}

/** Where a bucket is probed: `protected` when it is a GET, else the first collection that allows GET. */
function probePathOf(profile: TargetProfile): string | undefined {
  const prot = profile.protected;
  return prot.method === 'GET' ? prot.path : profile.collections.find((c) => c.methods.includes('GET'))?.path;
}

/** Where a bucket is probed; skips the check when the profile names no GET route. */
function requireProbePath(profile: TargetProfile): string {
  const path = probePathOf(profile);
  if (path === undefined) skipCheck('the profile names no GET route to probe a bucket on (`protected` is no GET and no collection allows GET)');
  return path;
}

/** The policy from the profile, else estimated from a 429's headers (capacity = Limit, rate ≈ Limit / Reset). */
async function policyOf(profile: TargetProfile, bucket: Bucket): Promise<Policy> {
  const algorithm = algorithmOf(profile);
  const plan = profile.rateLimit;
  if (plan) {
    // A window's average rate stands in for a refill rate where a check needs one (the schema requires
    // windowSeconds for a window and refillPerSecond for a bucket).
    const windowSeconds = isWindow(algorithm) ? (plan.windowSeconds ?? plan.capacity / (plan.refillPerSecond ?? plan.capacity)) : undefined;
    const refillPerSecond = windowSeconds !== undefined ? plan.capacity / windowSeconds : (plan.refillPerSecond ?? plan.capacity);
    return { capacity: plan.capacity, refillPerSecond, ...(windowSeconds !== undefined ? { windowSeconds } : {}), estimated: false, algorithm };
  }
  const rejected = await bucket.rejected();
  const { limit, reset } = rateHeaders(rejected);
  if (!limit || !reset) throw new Error(`cannot read the policy from the headers: ${exchangeText(rejected)}`);
  return { capacity: limit, refillPerSecond: limit / reset, estimated: true, algorithm };
}

/**
 * The checks that hold without the three RateLimit headers (they read Retry-After, statuses and
 * counts); every other rate-limit check is skipped when the target sends other rate-limit fields,
 * which RATE-LIMIT-HEADER-LIMIT reports once (D-SUITE-TRUST: one fault, one finding).
 */
const WITHOUT_THE_THREE_HEADERS = [
  'RATE-LIMIT-HEADER-LIMIT', 'RATE-LIMIT-429', 'RATE-LIMIT-PROBLEM-BODY', 'RATE-LIMIT-RETRY-AFTER', 'RATE-LIMIT-RETRY-AFTER-HONEST', 'RATE-LIMIT-REFILL-RATE',
].map((id) => `@${id}`);

/**
 * What a bucket does with each probe's answer in this check: skip when it needs the three headers and
 * they are not sent. A probe may answer after its check ended, so the skip names the check's own `testInfo`.
 */
function headerGuard(testInfo: TestInfo): (response: HttpResponse) => void {
  const needsHeaders = !testInfo.tags.some((t) => WITHOUT_THE_THREE_HEADERS.includes(t));
  return (response) => {
    if (!needsHeaders) return;
    const other = otherRateLimitFields(response);
    if (other !== undefined) skipCheck(`${other} (reported once, by RATE-LIMIT-HEADER-LIMIT)`, testInfo);
  };
}

/** Runs `use` while `held` is held, releasing it however `use` ends. */
async function whileHeld(held: HeldToken, use: () => Promise<void>): Promise<void> {
  try {
    await use();
  } finally {
    held.release();
  }
}

export const test = suite.extend<RateLimitFixtures, RateLimitWorkerFixtures>({
  tokenPool: [
    async ({ profile }, use, workerInfo) => {
      const tokens = rateLimitPool(profile);
      let held = 0;
      await use({
        tokens,
        hold(scope) {
          const start = (workerInfo.parallelIndex + workerInfo.config.workers * held) % tokens.length;
          held += 1;
          return acquireToken(scope, tokens, { start, timeoutMs: HOLD_TIMEOUT_MS });
        },
      });
    },
    { scope: 'worker' },
  ],

  limitedToken: async ({ tokenPool, profile }, use) => {
    if (tokenPool.tokens.length === 0) skipCheck(noToken);
    const held = await tokenPool.hold(profile.baseUrls[0] ?? '');
    await whileHeld(held, () => use(held.token));
  },

  bucket: async ({ target, limitedToken }, use, testInfo) => {
    await use(new Bucket(target.as(limitedToken).raw(), requireProbePath(target.profile), headerGuard(testInfo), target.profile.rateLimit?.capacity));
  },

  policy: async ({ profile, bucket }, use) => {
    await use(await policyOf(profile, bucket));
  },

  burstBucket: async ({ profile, target, tokenPool }, use, testInfo) => {
    const slow = profile.tokens.rateLimitSlow;
    if (slow && algorithmOf(profile) === 'token-bucket') {
      const path = requireProbePath(profile);
      const held = await acquireToken(profile.baseUrls[0] ?? '', [slow.token], { timeoutMs: HOLD_TIMEOUT_MS });
      const policy: Policy = { capacity: slow.capacity, refillPerSecond: slow.refillPerSecond, estimated: false, algorithm: 'token-bucket' };
      const bucket = new Bucket(target.as(slow.token).raw(), path, headerGuard(testInfo), slow.capacity);
      await whileHeld(held, () => use({ bucket, policy, slowRefill: true }));
      return;
    }
    if (tokenPool.tokens.length === 0) skipCheck(noToken);
    const path = requireProbePath(profile);
    const held = await tokenPool.hold(profile.baseUrls[0] ?? '');
    await whileHeld(held, async () => {
      const bucket = new Bucket(target.as(held.token).raw(), path, headerGuard(testInfo), profile.rateLimit?.capacity);
      await use({ bucket, policy: await policyOf(profile, bucket), slowRefill: false });
    });
  },

  sharedBuckets: async ({ multi, tokenPool }, use, testInfo) => {
    if (!multi.profile) skipCheck(multi.skip);
    const profile = multi.profile;
    if (tokenPool.tokens.length === 0) skipCheck(noToken);
    const path = requireProbePath(profile);
    const held = await tokenPool.hold(profile.baseUrls[0] ?? '');
    await whileHeld(held, async () => {
      const capacity = profile.rateLimit?.capacity;
      const buckets = profile.baseUrls.map((url) => new Bucket(new Target(profile, url).as(held.token).raw(), path, headerGuard(testInfo), capacity));
      await use({ buckets, policy: await policyOf(profile, buckets[0] as Bucket) });
    });
  },
});
