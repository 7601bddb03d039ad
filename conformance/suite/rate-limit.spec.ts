/**
 * Rate limiting (document section 8 "Rate limiting", D-RATE-LIMIT, draft-ietf-httpapi-ratelimit-
 * headers-06). Every check that spends a bucket holds one rate-limit token of the profile for its
 * whole run (see `limitedToken`); expectations come from the headers and measured time, with tolerances.
 */
import { test as suite, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import type { MultiTarget } from '../fixtures.ts';
import { delay } from '../support/http.ts';
import type { HttpResponse } from '../support/http.ts';
import { describe, problemIssues } from '../support/problem.ts';
import { provokeAll } from '../support/provocations.ts';
import { admissions, admitted, Bucket, decidedBy, rateHeaders } from '../support/rate-limit.ts';
import type { Admissions, Policy } from '../support/rate-limit.ts';
import { Target } from '../support/target.ts';
import { acquireToken } from '../support/token-lock.ts';
import { fillTemplate, uniqueValue } from '../support/template.ts';
import { loadProfile } from '../target/profile.ts';
import type { TargetProfile } from '../target/profile.ts';
import { runEnvironment } from '../run-environment.ts';

/** The profile's rate-limit tokens: `tokens.rateLimit`, then `tokens.rateLimitPool` (D-PROFILE). */
function rateLimitPool(profile: TargetProfile): string[] {
  const { rateLimit, rateLimitPool: more = [] } = profile.tokens;
  return rateLimit === undefined ? [] : [...new Set([rateLimit, ...more])];
}

// Every check below that drains, refills or counts a bucket holds one token of the pool for its whole
// run (`limitedToken`, a lock per target and token shared by all workers). With a pool of two or more
// tokens the checks run in parallel; with one token they run in order in one worker, which waits less
// than workers queueing for the same lock. Without HAC_PROFILE every worker starts its own embedded
// server, so nothing is shared and the checks run in parallel.
const profileFile = runEnvironment().profile;
const sharedPoolSize = profileFile === undefined ? Number.POSITIVE_INFINITY : rateLimitPool(loadProfile(profileFile)).length;

interface RateLimitFixtures {
  /** The rate-limit token this check holds exclusively, or undefined when the profile names none. */
  limitedToken: string | undefined;
}

const test = suite.extend<RateLimitFixtures>({
  limitedToken: async ({ profile }, use, testInfo) => {
    const pool = rateLimitPool(profile);
    if (pool.length === 0) {
      await use(undefined);
      return;
    }
    const held = await acquireToken(profile.baseUrls[0] ?? '', pool, { start: testInfo.parallelIndex, timeoutMs: 20_000 });
    try {
      await use(held.token);
    } finally {
      held.release();
    }
  },
});

test.describe.configure({ mode: sharedPoolSize > 1 ? 'parallel' : 'default' });

function bucketFor(target: Target, token: string | undefined): Bucket | undefined {
  if (!token) return undefined;
  const prot = target.profile.protected;
  const path = prot.method === 'GET' ? prot.path : target.profile.collections.find((c) => c.methods.includes('GET'))?.path;
  return path ? new Bucket(target.as(token).raw(), path) : undefined;
}

const noToken = 'the profile names no rateLimit token';

/**
 * Sends `burst(n)` on a full bucket (D-SUITE-TRUST): waits until the bucket is full by its own
 * RateLimit-Reset, sends the burst and judges it against what the headers announced. A burst so slow
 * that a whole token could have refilled cannot tell one admission too many apart: it is tried again,
 * up to three times, and the last judgement is returned either way.
 */
async function fullBurst(policy: Policy, waitFull: () => Promise<HttpResponse>, burst: () => Promise<HttpResponse[]>): Promise<Admissions & { responses: HttpResponse[] }> {
  for (let attempt = 1; ; attempt += 1) {
    const announcement = await waitFull();
    const responses = await burst();
    const judged = admissions(announcement, responses, policy);
    if (judged.conclusive || judged.admitted > judged.high || attempt === 3) return { ...judged, responses };
  }
}

/**
 * Capacity + 5 requests on the caller's full bucket, judged by fullBurst; the test is skipped when the
 * profile names no rate-limit token or the capacity is too large to burst.
 */
async function burstOnFullBucket(target: Target, profile: TargetProfile, token: string | undefined): Promise<{ policy: Policy; judged: Awaited<ReturnType<typeof fullBurst>> }> {
  const bucket = bucketFor(target, token);
  test.skip(!bucket, noToken);
  if (!bucket) throw new Error(noToken);
  const policy = await policyOf(profile, bucket);
  test.skip(policy.capacity > 1000, `a capacity of ${policy.capacity} is too large to burst in a test`);
  const judged = await fullBurst(policy, () => bucket.waitFull(), () => bucket.burst(policy.capacity + 5));
  return { policy, judged };
}

/** The measured reason a burst could not conclude, for the skip. */
function inconclusive(judged: Admissions, policy: Pick<Policy, 'refillPerSecond'>): string {
  return `inconclusive: the burst took ${judged.window.toFixed(2)} s (3 tries), long enough at ${policy.refillPerSecond} tokens/s for a token to refill, so one admission too many (${judged.admitted} admitted, ${judged.low}…${judged.high} allowed) cannot be told apart; name a slow-refill token in the profile (tokens.rateLimitSlow) to make this check exact`;
}

/** The algorithm the profile declares (D-SUITE-TRUST; default the document's reference, the token bucket). */
function algorithmOf(profile: TargetProfile): Policy['algorithm'] {
  return profile.rateLimit?.algorithm ?? 'token-bucket';
}

/** The policy from the profile, else estimated from a 429's headers (capacity = Limit, rate ≈ Limit / Reset). */
async function policyOf(profile: TargetProfile, bucket: Bucket): Promise<Policy> {
  const algorithm = algorithmOf(profile);
  if (profile.rateLimit) return { capacity: profile.rateLimit.capacity, refillPerSecond: profile.rateLimit.refillPerSecond, estimated: false, algorithm };
  const rejected = await bucket.rejected();
  const { limit, reset } = rateHeaders(rejected);
  if (!limit || !reset) throw new Error(`cannot read the policy from the headers: ${describe(rejected)}`);
  return { capacity: limit, refillPerSecond: limit / reset, estimated: true, algorithm };
}

const leakyDeclared = 'the profile declares rateLimit.algorithm "leaky-bucket": this is a rule of the token bucket';

test('every response of a limited route carries the three RateLimit headers', req('RATE-LIMIT-HEADERS-EVERY-RESPONSE', '@rate-limit'), async ({ target }) => {
  const responses = (await provokeAll(target)).map((r) => r.response);
  for (const c of target.profile.collections.filter((c) => c.methods.includes('GET'))) responses.push(await target.client.get(c.path));
  for (const response of responses) {
    const h = rateHeaders(response);
    expect([h.limit, h.remaining, h.reset].every((v) => v !== undefined && Number.isInteger(v)), describe(response)).toBe(true);
  }
});

test('a full bucket admits a burst of RateLimit-Limit requests, then answers 429', req('RATE-LIMIT-BURST-CAPACITY', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  test.skip(algorithmOf(profile) === 'leaky-bucket', leakyDeclared);
  const { policy, judged } = await burstOnFullBucket(target, profile, limitedToken);
  const limit = rateHeaders(judged.responses[0] as HttpResponse).limit;
  expect(limit, 'RateLimit-Limit is the capacity').toBe(policy.capacity);
  const what = `admitted ${judged.admitted} of ${judged.responses.length} in ${judged.window.toFixed(2)} s (allowed ${judged.low}…${judged.high})`;
  expect(judged.admitted, `a full bucket admits its capacity: ${what}`).toBeGreaterThanOrEqual(judged.low);
  expect(judged.admitted, what).toBeLessThanOrEqual(judged.high);
  expect(judged.responses.some((r) => r.status === 429), 'the requests beyond the burst are 429').toBe(true);
  test.skip(!judged.conclusive, inconclusive(judged, policy));
});

test('no burst is admitted beyond what the caller\'s own headers announced', req('RATE-LIMIT-NO-ADMISSION-BEYOND-ANNOUNCED', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const slow = profile.tokens.rateLimitSlow;
  if (slow && algorithmOf(profile) === 'token-bucket') {
    // Exact: at a slow refill the caller's RateLimit-Remaining and RateLimit-Reset give its tokens to a
    // fraction, so any admission beyond them is a fault, however slow the burst (D-SUITE-TRUST).
    const held = await acquireToken(profile.baseUrls[0] ?? '', [slow.token], { timeoutMs: 20_000 });
    try {
      const bucket = new Bucket(target.as(slow.token).raw(), bucketFor(target, slow.token)?.probePath ?? '/');
      let judged: Admissions | undefined;
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        const announcement = await bucket.probe();
        const remaining = rateHeaders(announcement).remaining ?? 0;
        const burst = await bucket.burst(Math.min(slow.capacity, remaining) + 3);
        judged = admissions(announcement, burst, slow);
        expect(judged.admitted, `after ${describe(announcement)}\na burst of ${burst.length} in ${judged.window.toFixed(2)} s: admitted ${judged.admitted}, the headers allowed at most ${judged.high}`).toBeLessThanOrEqual(judged.high);
        if (judged.conclusive) return;
      }
      test.skip(true, judged ? inconclusive(judged, slow) : 'no burst was sent');
    } finally {
      held.release();
    }
    return;
  }
  const { policy, judged } = await burstOnFullBucket(target, profile, limitedToken);
  expect(judged.admitted, `a burst of ${judged.responses.length} on a full bucket in ${judged.window.toFixed(2)} s: admitted ${judged.admitted}, the headers allowed at most ${judged.high}`).toBeLessThanOrEqual(judged.high);
  test.skip(!judged.conclusive, inconclusive(judged, policy));
});

test('a request over the limit is a 429 and is not processed', req('RATE-LIMIT-429', '@rate-limit', '@smoke'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const idem = profile.idempotency;
  // The request right after a 429 may find a token that refilled meanwhile (a loaded machine): then it is
  // admitted, rightly, and the round is tried again; three admitted rounds skip with that reason.
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const exhausted = await bucket.rejected(profile.rateLimit?.capacity);
    if (!idem) {
      const response = await bucket.probe();
      if (response.status === 429) return;
      continue;
    }
    // A rejected keyed request must leave its key unused: had it been processed, the same key with
    // another body would then be refused (or replayed) instead of creating.
    const key = `hac-${uniqueValue()}`;
    const rejected = await bucket.client.post(idem.path, fillTemplate(idem.body), { headers: { 'idempotency-key': key } });
    if (rejected.status !== 429) {
      expect(rejected.status, `admitted only when a token refilled since the 429 (${((rejected.sentAt - exhausted.receivedAt) / 1000).toFixed(2)} s): ${describe(rejected)}`).toBeLessThan(300);
      continue;
    }
    const later = await target.as(limitedToken ?? null).post(idem.path, fillTemplate(idem.otherBody), { headers: { 'idempotency-key': key } });
    expect(later.status >= 200 && later.status < 300, `the key of the rejected request is still unused: ${describe(later)}`).toBe(true);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    return;
  }
  test.skip(true, 'inconclusive: in 3 rounds the request right after a 429 found a refilled token each time (a slow machine or network)');
});

test('a 429 is a problem document with status 429', req('RATE-LIMIT-PROBLEM-BODY', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  expect(problemIssues(rejected)).toEqual([]);
  expect((rejected.json as { status?: unknown }).status).toBe(429);
});

test('a 429 carries RateLimit-Limit, the capacity', req('RATE-LIMIT-HEADER-LIMIT', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  const { limit } = rateHeaders(rejected);
  expect(Number.isInteger(limit) && (limit ?? -1) >= 0, describe(rejected)).toBe(true);
  if (profile.rateLimit) expect(limit).toBe(profile.rateLimit.capacity);
});

test('a 429 carries RateLimit-Remaining, an integer no greater than the limit', req('RATE-LIMIT-HEADER-REMAINING', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  const { limit, remaining } = rateHeaders(rejected);
  expect(Number.isInteger(remaining) && (remaining ?? -1) >= 0, describe(rejected)).toBe(true);
  expect(remaining ?? Number.NaN).toBeLessThanOrEqual(limit ?? Number.NaN);
  expect(remaining, 'nothing is left when a request is rejected').toBe(0);
});

test('a 429 carries Retry-After in delta-seconds, at least 1', req('RATE-LIMIT-RETRY-AFTER', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const policy = await policyOf(profile, bucket);
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  const { retryAfter } = rateHeaders(rejected);
  expect(Number.isInteger(retryAfter), describe(rejected)).toBe(true);
  expect(retryAfter ?? 0).toBeGreaterThanOrEqual(1);
  expect(retryAfter ?? Number.POSITIVE_INFINITY, 'no longer than one token takes to refill, rounded up').toBeLessThanOrEqual(Math.ceil(1 / policy.refillPerSecond) + (policy.estimated ? 1 : 0));
});

test('the 429 problem is typed rate-limited and repeats limit and retryAfter', req('RATE-LIMIT-PROBLEM-MEMBERS', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  const body = rejected.json as { type?: unknown; limit?: unknown; retryAfter?: unknown };
  const headers = rateHeaders(rejected);
  expect(String(body.type), describe(rejected)).toMatch(/\/rate-limited$/);
  expect(body.limit).toBe(headers.limit);
  expect(body.retryAfter).toBe(headers.retryAfter);
});

test('one caller exhausting its limit does not limit another caller', req('RATE-LIMIT-PER-CALLER', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const policy = await policyOf(profile, bucket);
  await bucket.exhaust(profile.rateLimit?.capacity);
  const exhaustedAt = performance.now();
  const others = [profile.tokens.valid, profile.tokens.other].filter((t): t is string => t !== undefined);
  for (const token of others) {
    const response = await bucket.probe(target.as(token).raw());
    expect(response.status, `${describe(response)}`).not.toBe(429);
    expect(rateHeaders(response).remaining ?? 0, 'the other caller has its own bucket').toBeGreaterThan(0);
  }
  const still = await bucket.probe();
  // The others' requests gave the exhausted caller nothing. It held under one token when exhausted,
  // so it may have earned one since; after taking it, at most floor(elapsed × rate) remain.
  const refilled = Math.floor(((performance.now() - exhaustedAt) / 1000) * policy.refillPerSecond);
  if (still.status !== 429) {
    const remaining = rateHeaders(still).remaining;
    expect(remaining, `RateLimit-Remaining on the exhausted caller: ${describe(still)}`).toBeDefined();
    expect(remaining as number, `the exhausted caller regained at most its own refill (${refilled})`).toBeLessThanOrEqual(refilled);
  }
});

test('a known token is its own caller and an unknown token is not charged to it', req('RATE-LIMIT-CALLER-IDENTITY', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  await bucket.exhaust(profile.rateLimit?.capacity);
  const unknown = await bucket.probe(target.as(`hac-unknown-${uniqueValue()}`).raw());
  expect(unknown.status, `an unknown token is limited as its address, not as the exhausted token: ${describe(unknown)}`).toBe(401);
  const anonymous = await bucket.probe(target.anonymous.raw());
  expect(anonymous.status, describe(anonymous)).not.toBe(429);
  expect(rateHeaders(anonymous).remaining ?? 0, 'the address has its own bucket').toBeGreaterThan(0);
});

test('a request sent Retry-After seconds after a 429 is admitted', req('RATE-LIMIT-RETRY-AFTER-HONEST', '@rate-limit', '@smoke'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const policy = await policyOf(profile, bucket);
  // A Retry-After of at least the time one token takes is honest by construction and one round shows
  // it. A shorter one is only disproved when the retry lands before the next token, which a slow
  // machine can miss, so it gets up to three rounds (each from a fresh exhaustion).
  const oneToken = Math.ceil(1 / policy.refillPerSecond);
  for (let round = 1; round <= 3; round += 1) {
    const rejected = await bucket.rejected(profile.rateLimit?.capacity);
    const { retryAfter } = rateHeaders(rejected);
    expect(Number.isInteger(retryAfter), describe(rejected)).toBe(true);
    await delay(rejected.receivedAt + (retryAfter ?? 0) * 1000 + 20 - performance.now());
    const next = await bucket.probe();
    expect(next.status, `round ${round}, after waiting Retry-After ${retryAfter} s: ${describe(next)}`).not.toBe(429);
    if ((retryAfter ?? 0) >= oneToken) break;
  }
});

test('after a burst, requests are admitted at the steady refill rate', req('RATE-LIMIT-REFILL-RATE', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const policy = await policyOf(profile, bucket);
  const window = Math.min(2.5, (policy.capacity * 0.6) / policy.refillPerSecond);
  test.skip(policy.refillPerSecond * window < 3, 'the refill is too slow to measure within 2.5 seconds');
  for (const factor of [1]) {
    const rejected = await bucket.rejected(policy.capacity);
    await delay(rejected.receivedAt + window * factor * 1000 - performance.now());
    const burstStart = performance.now();
    const responses = await Promise.all(Array.from({ length: policy.capacity }, () => bucket.probe()));
    const burstEnd = Math.max(...decidedBy(responses));
    const rate = policy.refillPerSecond;
    const tolerance = policy.estimated ? 0.35 : 0.15;
    const low = Math.floor(rate * ((burstStart - rejected.receivedAt) / 1000) * (1 - tolerance)) - 1;
    const high = Math.ceil(1 + rate * ((burstEnd - rejected.sentAt) / 1000) * (1 + tolerance));
    const got = admitted(responses);
    const waited = (burstStart - rejected.receivedAt) / 1000;
    expect(got).toBeLessThanOrEqual(high);
    // A machine that stalled past the full refill leaves nothing to measure: the bucket was full again.
    test.skip(low >= policy.capacity, `inconclusive: the burst started ${waited.toFixed(2)} s after the 429 instead of ${window} s, when the bucket was full again (admitted ${got})`);
    expect(got, `admitted after ${waited.toFixed(2)} s at ${rate}/s (expected ${low}…${high})`).toBeGreaterThanOrEqual(Math.max(low, 1));
  }
});

test('RateLimit-Reset is delta-seconds consistent with the refill, and the bucket is full after it', req('RATE-LIMIT-HEADER-RESET', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const policy = await policyOf(profile, bucket);
  const rejected = await bucket.rejected(policy.capacity);
  const { reset, limit } = rateHeaders(rejected);
  expect(Number.isInteger(reset), `RateLimit-Reset is an integer: ${describe(rejected)}`).toBe(true);
  const full = policy.capacity / policy.refillPerSecond;
  expect(reset ?? Number.NaN, `an empty bucket refills in about ${full} s, not a timestamp`).toBeLessThanOrEqual(Math.ceil(full) + 1);
  expect(reset ?? Number.NaN).toBeGreaterThanOrEqual(Math.floor(full * (policy.estimated ? 0.5 : 0.9)));
  test.skip((reset ?? 0) > 30, 'the bucket takes longer than 30 s to refill');
  await delay(rejected.receivedAt + (reset ?? 0) * 1000 + 50 - performance.now());
  const next = await bucket.probe();
  expect(next.status, describe(next)).not.toBe(429);
  expect(rateHeaders(next).remaining, `after RateLimit-Reset seconds the bucket is full again: ${describe(next)}`).toBe((limit ?? 0) - 1);
});

test('each admitted request lowers RateLimit-Remaining by one', req('RATE-LIMIT-ONE-TOKEN-PER-REQUEST', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const policy = await policyOf(profile, bucket);
  await bucket.waitFull();
  const responses: HttpResponse[] = [];
  for (let i = 0; i < Math.min(Math.ceil(policy.capacity / 2), 30); i += 1) responses.push(await bucket.probe());
  const first = rateHeaders(responses[0] as HttpResponse);
  expect(first.remaining, `the first request from a full bucket: ${describe(responses[0] as HttpResponse)}`).toBe(policy.capacity - 1);
  for (let i = 1; i < responses.length; i += 1) {
    const previous = responses[i - 1] as HttpResponse;
    const current = responses[i] as HttpResponse;
    if (current.status === 429) break;
    // Remaining shows whole tokens of a fractional bucket: between two requests it can gain floor(interval × rate) + 1.
    const refill = Math.floor(((current.receivedAt - previous.sentAt) / 1000) * policy.refillPerSecond) + 1;
    const before = rateHeaders(previous).remaining ?? Number.NaN;
    const after = rateHeaders(current).remaining ?? Number.NaN;
    expect(after, `request ${i + 1}: ${describe(current)}`).toBeGreaterThanOrEqual(before - 1);
    expect(after, `request ${i + 1} (refill allowance ${refill}): ${describe(current)}`).toBeLessThanOrEqual(before - 1 + refill);
    // From the full bucket the count is exact: after k requests at most capacity − k + floor(refill since the first).
    const since = Math.floor(((current.receivedAt - (responses[0] as HttpResponse).sentAt) / 1000) * policy.refillPerSecond);
    expect(after, `request ${i + 1}, counted from the full bucket (refill since ${since}): ${describe(current)}`).toBeLessThanOrEqual(policy.capacity - (i + 1) + since);
  }
});

test('unknown paths and errors count against the caller too', req('RATE-LIMIT-EVERY-ROUTE', '@rate-limit'), async ({ target, profile, limitedToken }) => {
  const bucket = bucketFor(target, limitedToken);
  test.skip(!bucket, noToken);
  if (!bucket) return;
  const policy = await policyOf(profile, bucket);
  test.skip(policy.refillPerSecond > 50, 'the refill is too fast to see single requests in RateLimit-Remaining');
  let start = await bucket.probe();
  if ((rateHeaders(start).remaining ?? 0) < 6) {
    await bucket.waitFull();
    start = await bucket.probe();
  }
  const first = profile.collections[0];
  const errors: HttpResponse[] = [];
  for (let i = 0; i < 2; i += 1) {
    const notFound = await bucket.client.get(`/hac-no-such-route-${uniqueValue()}`);
    expect(notFound.status, describe(notFound)).toBe(404);
    errors.push(notFound);
    if (first) errors.push(await bucket.client.request(first.methods.includes('PATCH') ? 'BREW' : 'PATCH', first.path));
  }
  const end = await bucket.probe();
  const spent = (rateHeaders(start).remaining ?? 0) - (rateHeaders(end).remaining ?? 0);
  // Remaining shows whole tokens of a fractional bucket: over the interval it can gain floor(interval × rate) + 1.
  const refill = Math.floor(((end.receivedAt - start.sentAt) / 1000) * policy.refillPerSecond) + 1;
  const counted = errors.length + 1;
  expect(spent, `tokens spent by ${counted} requests incl. 404s and 405s (refill allowance ${refill})`).toBeGreaterThanOrEqual(counted - refill);
  expect(spent).toBeLessThanOrEqual(counted);
});

test('two instances share one limit: a burst split across them admits the capacity once', req('RATE-LIMIT-SHARED-STORE', '@rate-limit', '@multi-target'), async ({ multi, limitedToken }) => {
  const m: MultiTarget = multi;
  test.skip(!m.profile, m.skip ?? '');
  if (!m.profile) return;
  const targets = m.profile.baseUrls.map((url) => new Target(m.profile as TargetProfile, url));
  const buckets = targets.map((t) => bucketFor(t, limitedToken));
  test.skip(buckets.some((b) => !b), noToken);
  const [a] = buckets as Bucket[];
  if (!a) return;
  const policy = await policyOf(m.profile, a);
  test.skip(policy.capacity > 1000, `a capacity of ${policy.capacity} is too large to burst in a test`);
  const total = policy.capacity * 2;
  const judged = await fullBurst(policy, () => a.waitFull(), () => Promise.all(Array.from({ length: total }, (_, i) => (buckets[i % buckets.length] as Bucket).probe())));
  const what = `admitted ${judged.admitted} of ${total} across ${buckets.length} instances in ${judged.window.toFixed(2)} s (allowed ${judged.low}…${judged.high})`;
  expect(judged.admitted, what).toBeGreaterThanOrEqual(Math.min(judged.low, policy.capacity));
  expect(judged.admitted, what).toBeLessThanOrEqual(judged.high);
  test.skip(!judged.conclusive, inconclusive(judged, policy));
});
