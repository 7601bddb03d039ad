/**
 * Rate limiting (document section 8 "Rate limiting", D-RATE-LIMIT, draft-ietf-httpapi-ratelimit-
 * headers-06). Every check that spends a bucket holds one rate-limit token of the profile for its
 * whole run; the fixtures (rate-limit-fixtures.ts) hold it and skip a check the profile
 * cannot serve. Expectations come from the headers and measured time, with the tolerances given
 * next to each check.
 */
import { req } from '../support/requirement.ts';
import { waitFor } from '../transport/waits.ts';
import type { HttpResponse } from '../transport/message.ts';
import { exchangeText, problemIssues } from '../support/problem.ts';
import { provokeAll } from '../support/provocations.ts';
import { noteBreaks } from '../transport/exchange-log.ts';
import {
  admissions,
  admitted,
  decidedBy,
  emptyBucketReset,
  fullBurst,
  inconclusive,
  oneTokenSeconds,
  otherRateLimitFields,
  perRouteLimit,
  rateHeaders,
  refillRateBounds,
  remainingRiseAllowance,
  wholeRefills,
} from '../support/rate-limit.ts';
import { isWindow, rateLimitAlgorithm } from '../target/profile.ts';
import type { TargetProfile } from '../target/profile.ts';
import type { Target } from '../support/target.ts';
import type { Admissions, Bucket, PerRouteMeasure, Policy } from '../support/rate-limit.ts';
import { expect, noToken, test } from '../rate-limit-fixtures.ts';
import { fillTemplate, uniqueValue } from '../support/template.ts';
import { skipCheck } from '../support/skip.ts';

const leakyDeclared = 'the profile declares rateLimit.algorithm "leaky-bucket": this is a rule of the token bucket';
/** The skip of a bucket's own rule for a declared window (RATE-LIMIT-REFERENCE-ALGORITHM reports the algorithm once). */
const windowDeclared = (policy: Policy): string =>
  `the profile declares rateLimit.algorithm "${policy.algorithm}": a window has no refill rate (RATE-LIMIT-REFERENCE-ALGORITHM reports the algorithm)`;

/** Capacity + 5 requests at once on the caller's full bucket, judged by fullBurst (skipped when the capacity is too large to burst). */
async function burstOnFullBucket(bucket: Bucket, policy: Policy): Promise<Awaited<ReturnType<typeof fullBurst>>> {
  if (policy.capacity > 1000) skipCheck(`a capacity of ${policy.capacity} is too large to burst in a test`);
  const judged = await fullBurst(policy, () => bucket.waitFull(), () => bucket.burst(policy.capacity + 5));
  // D-FINDINGS: a burst past the capacity that nothing refused is the limit not enforced at all, one defect
  // (RATE-LIMIT-429's finding); the checks that measured the burst are its consequences.
  const last = judged.responses.at(-1);
  if (last && judged.admitted > judged.high && !judged.responses.some((r) => r.status === 429)) {
    noteBreaks(last, 'RATE-LIMIT-429', `a 429 once the ${policy.capacity} requests of the capacity are spent`);
    expect(judged.admitted, `none of ${judged.responses.length} requests was refused, ${policy.capacity} the capacity; the last: ${exchangeText(last)}`)
      .toBeLessThanOrEqual(judged.high);
  }
  return judged;
}

/** How a burst was judged, for the failure messages. */
function judgement(judged: Admissions & { responses: HttpResponse[] }, where = ''): string {
  return `admitted ${judged.admitted} of ${judged.responses.length}${where} in ${judged.window.toFixed(2)} s (allowed ${judged.low}…${judged.high})`;
}

// The headers, and the bucket over time: RateLimit-Reset and the refill rate come true. (The longest
// checks, each a few seconds of waiting: first in the file, so the run starts them first.)

test('every response of a limited route carries the three RateLimit headers', req('RATE-LIMIT-HEADERS-EVERY-RESPONSE', '@rate-limit'), async ({ target }) => {
  const responses = (await provokeAll(target)).map((r) => r.response);
  for (const c of target.profile.collections.filter((c) => c.methods.includes('GET'))) responses.push(await target.client.get(c.path));
  const other = responses.map(otherRateLimitFields).find((o) => o !== undefined);
  if (other !== undefined) skipCheck(`${other} (reported once, by RATE-LIMIT-HEADER-LIMIT)`);
  // No answer carrying any of the three is the target without a limiter when RATE-LIMIT-429 finds none (D-FINDINGS: one finding).
  const bare = (r: HttpResponse): boolean => {
    const h = rateHeaders(r);
    return [h.limit, h.remaining, h.reset].every((v) => v === undefined);
  };
  if (responses.length > 0 && responses.every(bare)) noteBreaks(responses[0] as HttpResponse, 'RATE-LIMIT-429', 'a rate limit on every route');
  for (const response of responses) {
    const h = rateHeaders(response);
    expect([h.limit, h.remaining, h.reset].every((v) => v !== undefined && Number.isInteger(v)), exchangeText(response)).toBe(true);
  }
});

test(
  'RateLimit-Reset is delta-seconds consistent with the refill, and the bucket is full after it',
  req('RATE-LIMIT-HEADER-RESET', '@rate-limit'),
  async ({ bucket, policy }) => {
    const rejected = await bucket.rejected(policy.capacity);
    noteHeaderless429(rejected);
    const { reset, limit } = rateHeaders(rejected);
    expect(Number.isInteger(reset), `RateLimit-Reset is an integer: ${exchangeText(rejected)}`).toBe(true);
    if (policy.windowSeconds !== undefined) {
      // A window: the true seconds to its end, rounded up, so at most the window's length (+1 s of rounding).
      const most = Math.ceil(policy.windowSeconds) + 1;
      expect(reset ?? Number.NaN, `at most the ${policy.windowSeconds} s window, not a timestamp: ${exchangeText(rejected)}`).toBeLessThanOrEqual(most);
    } else {
      // An empty bucket refills in capacity / rate seconds: Reset is that, rounded up, within emptyBucketReset's slack.
      const { full, most, least } = emptyBucketReset(policy);
      expect(reset ?? Number.NaN, `an empty bucket refills in about ${full} s, not a timestamp`).toBeLessThanOrEqual(most);
      expect(reset ?? Number.NaN).toBeGreaterThanOrEqual(least);
    }
    if ((reset ?? 0) > 30) skipCheck('the bucket takes longer than 30 s to refill');
    // 50 ms after the announced moment: timer slack, and the probe must arrive after it.
    await waitFor(rejected.receivedAt + (reset ?? 0) * 1000 + 50 - performance.now(), `RateLimit-Reset ${reset ?? 0} s of a 429`);
    const next = await bucket.probe();
    expect(next.status, exchangeText(next)).not.toBe(429);
    const { remaining } = rateHeaders(next);
    if (remaining !== undefined || limit === undefined) {
      expect(remaining, `after RateLimit-Reset seconds the bucket is full again: ${exchangeText(next)}`).toBe((limit ?? 0) - 1);
      return;
    }
    // The fields on the 429 only (D-SHAPES): full again means the rest of the limit is admitted at once
    // (a refill meanwhile only admits more, so this bound holds under any load).
    const rest = await bucket.burst(limit - 1);
    const refused = rest.find((r) => r.status === 429);
    const what = `after RateLimit-Reset seconds the bucket is full again: ${limit} requests admitted`;
    expect(refused === undefined, refused ? `${what}; ${exchangeText(refused)}` : what).toBe(true);
  },
);

test('after a burst, requests are admitted at the steady refill rate', req('RATE-LIMIT-REFILL-RATE', '@rate-limit'), async ({ bucket, policy }) => {
  if (isWindow(policy.algorithm)) skipCheck(windowDeclared(policy));
  const window = Math.min(2.5, (policy.capacity * 0.6) / policy.refillPerSecond);
  if (policy.refillPerSecond * window < 3) skipCheck('the refill is too slow to measure within 2.5 seconds');
  const rejected = await bucket.rejected(policy.capacity);
  await waitFor(rejected.receivedAt + window * 1000 - performance.now(), `${window} s of refill after a burst`);
  const burstStart = performance.now();
  const responses = await Promise.all(Array.from({ length: policy.capacity }, () => bucket.probe()));
  const burstEnd = Math.max(...decidedBy(responses));
  const rate = policy.refillPerSecond;
  // What refilled since the 429, within the rate tolerance (refillRateBounds).
  const { low, high } = refillRateBounds(rejected, burstStart, burstEnd, policy);
  const got = admitted(responses);
  const waited = (burstStart - rejected.receivedAt) / 1000;
  expect(got).toBeLessThanOrEqual(high);
  // A machine that stalled past the full refill leaves nothing to measure: the bucket was full again.
  const late = `inconclusive: the burst started ${waited.toFixed(2)} s after the 429 instead of ${window} s, when the bucket was full again (admitted ${got})`;
  if (low >= policy.capacity) skipCheck(late);
  expect(got, `admitted after ${waited.toFixed(2)} s at ${rate}/s (expected ${low}…${high})`).toBeGreaterThanOrEqual(Math.max(low, 1));
});

// What a full bucket admits, and what each request costs.

test(
  'a full bucket admits a burst of RateLimit-Limit requests, then answers 429',
  req('RATE-LIMIT-BURST-CAPACITY', '@rate-limit'),
  async ({ bucket, policy }) => {
    if (policy.algorithm === 'leaky-bucket') skipCheck(leakyDeclared);
    const judged = await burstOnFullBucket(bucket, policy);
    // RateLimit-Limit of the first answer, else of the first 429 (the fields may come on the 429 only, D-SHAPES).
    const announced = judged.responses.find((r) => rateHeaders(r).limit !== undefined) ?? (judged.responses[0] as HttpResponse);
    expect(rateHeaders(announced).limit, `RateLimit-Limit is the capacity: ${exchangeText(announced)}`).toBe(policy.capacity);
    expect(judged.admitted, `a full bucket admits its capacity: ${judgement(judged)}`).toBeGreaterThanOrEqual(judged.low);
    expect(judged.admitted, judgement(judged)).toBeLessThanOrEqual(judged.high);
    expect(judged.responses.some((r) => r.status === 429), 'the requests beyond the burst are 429').toBe(true);
    if (!judged.conclusive) skipCheck(inconclusive(judged, policy));
  },
);

test(
  'no burst is admitted beyond what the caller\'s own headers announced',
  req('RATE-LIMIT-NO-ADMISSION-BEYOND-ANNOUNCED', '@rate-limit'),
  async ({ burstBucket }) => {
    const { bucket, policy } = burstBucket;
    if (!burstBucket.slowRefill) {
      const judged = await burstOnFullBucket(bucket, policy);
      expect(judged.admitted, `a burst on a full bucket: ${judgement(judged)}`).toBeLessThanOrEqual(judged.high);
      if (!judged.conclusive) skipCheck(inconclusive(judged, policy));
      return;
    }
    // Exact: at a slow refill the caller's RateLimit-Remaining and RateLimit-Reset give its tokens to a
    // fraction, so any admission beyond them is a fault, however slow the burst (D-SUITE-TRUST).
    let judged: Admissions | undefined;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      // Without Remaining on an admitted answer (the fields on the 429 only, D-SHAPES), the announcement is a
      // 429 whose Reset was waited out.
      const probe = await bucket.probe();
      const waited = rateHeaders(probe).remaining === undefined;
      const announcement = waited ? await bucket.waitFull() : probe;
      const remaining = waited ? policy.capacity : (rateHeaders(announcement).remaining ?? 0);
      const burst = await bucket.burst(Math.min(policy.capacity, remaining) + 3);
      judged = admissions(announcement, burst, policy);
      const what = `a burst of ${burst.length} in ${judged.window.toFixed(2)} s: admitted ${judged.admitted}, the headers allowed at most ${judged.high}`;
      expect(judged.admitted, `after ${exchangeText(announcement)}\n${what}`).toBeLessThanOrEqual(judged.high);
      if (judged.conclusive) return;
    }
    skipCheck(judged ? inconclusive(judged, policy) : 'no burst was sent');
  },
);

/** The skip of a check that reads RateLimit-Remaining on admitted answers, where the target sends it on the 429 only (D-SHAPES). */
function remainingOn429Only(what: string): string {
  return `the target sends RateLimit-Remaining on the 429 only (the document names the fields for the 429), so no admitted answer shows ${what}`;
}

test('each admitted request lowers RateLimit-Remaining by one', req('RATE-LIMIT-ONE-TOKEN-PER-REQUEST', '@rate-limit'), async ({ bucket, policy }) => {
  await bucket.waitFull();
  const responses: HttpResponse[] = [];
  for (let i = 0; i < Math.min(Math.ceil(policy.capacity / 2), 30); i += 1) responses.push(await bucket.probe());
  const first = responses[0] as HttpResponse;
  if (first.status !== 429 && rateHeaders(first).remaining === undefined) {
    const judgedBy = "RATE-LIMIT-BURST-CAPACITY's burst (the capacity admitted from a full bucket, then 429) judges the count";
    skipCheck(remainingOn429Only(`what each admitted request cost; ${judgedBy}`));
  }
  // Remaining one too many from a full bucket (it counts before the take) is this rule's defect; one too few,
  // or a 429, says the bucket was not full when its RateLimit-Reset said it would be: RATE-LIMIT-HEADER-RESET's
  // to judge (D-FINDINGS: one defect, one finding), unless the steps below show a request costing more than one.
  const notFull = first.status === 429 || (rateHeaders(first).remaining ?? policy.capacity) < policy.capacity - 1;
  if (!notFull) expect(rateHeaders(first).remaining, `the first request from a full bucket: ${exchangeText(first)}`).toBe(policy.capacity - 1);
  for (let i = 1; i < responses.length; i += 1) {
    const previous = responses[i - 1] as HttpResponse;
    const current = responses[i] as HttpResponse;
    if (current.status === 429) break;
    // Remaining shows whole tokens of a fractional bucket: between two requests it can gain floor(interval × rate) + 1.
    const refill = remainingRiseAllowance(previous, current, policy);
    const before = rateHeaders(previous).remaining ?? Number.NaN;
    const after = rateHeaders(current).remaining ?? Number.NaN;
    expect(after, `request ${i + 1}: ${exchangeText(current)}`).toBeGreaterThanOrEqual(before - 1);
    if (isWindow(policy.algorithm)) {
      // A window: one less per request; when a fixed window ends the next starts at limit − 1, a sliding
      // window frees earlier requests' slots, never beyond limit − 1.
      if (after !== before - 1) {
        expect(after, `request ${i + 1}, after a window's end: ${exchangeText(current)}`).toBeLessThanOrEqual(policy.capacity - 1);
        if (policy.algorithm === 'fixed-window') expect(after, `request ${i + 1}: a new fixed window: ${exchangeText(current)}`).toBe(policy.capacity - 1);
      }
      continue;
    }
    expect(after, `request ${i + 1} (refill allowance ${refill}): ${exchangeText(current)}`).toBeLessThanOrEqual(before - 1 + refill);
    // From the full bucket the count is exact: after k requests at most capacity − k + floor(refill since the first).
    const since = wholeRefills(current.receivedAt - first.sentAt, policy);
    const what = `request ${i + 1}, counted from the full bucket (refill since ${since}): ${exchangeText(current)}`;
    if (!notFull) expect(after, what).toBeLessThanOrEqual(policy.capacity - (i + 1) + since);
  }
  if (notFull) {
    skipCheck(
      `the bucket was not full after its RateLimit-Reset had passed (RATE-LIMIT-HEADER-RESET's to judge), and each admitted request ` +
        `lowered Remaining by one: ${exchangeText(first)}`,
    );
  }
});

test('unknown paths and errors count against the caller too', req('RATE-LIMIT-EVERY-ROUTE', '@rate-limit'), async ({ profile, bucket, policy }) => {
  if (policy.refillPerSecond > 50) skipCheck('the refill is too fast to see single requests in RateLimit-Remaining');
  // The fields may come on the 429 only (D-SHAPES): judged on every admitted answer, the first and the one
  // after a wait (a 429 met first, the bucket spent by an earlier check, carries them anyway).
  const withoutRemaining = (r: HttpResponse): boolean => r.status !== 429 && rateHeaders(r).remaining === undefined;
  let start = await bucket.probe();
  if (withoutRemaining(start)) skipCheck(remainingOn429Only('what an error answer cost'));
  if ((rateHeaders(start).remaining ?? 0) < 6) {
    await bucket.waitFull();
    start = await bucket.probe();
    if (withoutRemaining(start)) skipCheck(remainingOn429Only('what an error answer cost'));
  }
  const first = profile.collections[0];
  const errors: HttpResponse[] = [];
  for (let i = 0; i < 2; i += 1) {
    const notFound = await bucket.client.get(`/hac-no-such-route-${uniqueValue()}`);
    expect(notFound.status, exchangeText(notFound)).toBe(404);
    errors.push(notFound);
    // A standard method the path does not allow (a 405): a method nobody knows may be refused by the HTTP parser before any limiter (D-SUITE-TRUST).
    const disallowed = ['PATCH', 'PUT', 'DELETE', 'POST'].find((m) => !first?.methods.includes(m));
    if (first && disallowed) errors.push(await bucket.client.request(disallowed, first.path, { json: {} }));
  }
  const end = await bucket.probe();
  const spent = (rateHeaders(start).remaining ?? 0) - (rateHeaders(end).remaining ?? 0);
  if (isWindow(policy.algorithm) && spent < 0) skipCheck('inconclusive: the window ended during the check');
  // Remaining shows whole tokens of a fractional bucket: over the interval it can gain floor(interval × rate) + 1.
  const refill = remainingRiseAllowance(start, end, policy);
  const counted = errors.length + 1;
  expect(spent, `tokens spent by ${counted} requests incl. 404s and 405s (refill allowance ${refill})`).toBeGreaterThanOrEqual(counted - refill);
  expect(spent).toBeLessThanOrEqual(counted);
});

test(
  'a caller refused on one route is refused on the others: one limit per caller, not one per route',
  req('RATE-LIMIT-EVERY-ROUTE', '@rate-limit'),
  async ({ profile, bucket, policy }) => {
    const other = otherRouteOf(profile, bucket);
    if (other === undefined) skipCheck(`the profile names no GET route besides ${bucket.probePath} (collections[].methods)`);
    const refused = await bucket.rejected(profile.rateLimit?.capacity);
    const measure = await perRouteLimit(bucket, refused, other, policy);
    if (measure.verdict === 'inconclusive') skipCheck(measure.text);
    const shown = measure.burst.find((r) => r.status !== 429) ?? measure.again;
    expect(measure.verdict, `${measure.text}: ${exchangeText(shown)}`).toBe('one-limit');
  },
);

test(
  'two instances share one limit: a burst split across them admits the capacity once',
  req('RATE-LIMIT-SHARED-STORE', '@rate-limit', '@multi-target'),
  async ({ sharedBuckets }) => {
    const { buckets, policy } = sharedBuckets;
    const [first] = buckets as [Bucket, ...Bucket[]];
    if (policy.capacity > 1000) skipCheck(`a capacity of ${policy.capacity} is too large to burst in a test`);
    const total = policy.capacity * 2;
    const spread = (): Promise<HttpResponse[]> => Promise.all(Array.from({ length: total }, (_, i) => (buckets[i % buckets.length] as Bucket).probe()));
    const judged = await fullBurst(policy, () => first.waitFull(), spread);
    const what = judgement(judged, ` across ${buckets.length} instances`);
    expect(judged.admitted, what).toBeLessThanOrEqual(judged.high);
    // Instances that do not share the limit admit too many. Fewer than the bucket held says it was not full when
    // its RateLimit-Reset said it would be: RATE-LIMIT-HEADER-RESET's and RATE-LIMIT-BURST-CAPACITY's to judge (D-FINDINGS).
    if (judged.admitted < Math.min(judged.low, policy.capacity)) {
      skipCheck(`${what}: fewer than the full bucket holds, so it was not full after its RateLimit-Reset (RATE-LIMIT-HEADER-RESET's to judge)`);
    }
    if (!judged.conclusive) skipCheck(inconclusive(judged, policy));
  },
);

// The answer over the limit, and the retry it announces.

/**
 * What became of the key of a keyed POST answered 429, after the caller waited out its Retry-After:
 * `unused` (the other body with the same key creates), `stored-429` (the 429 itself was stored under the
 * key and comes back), `processed` (the rejected request's own body with the key finds a 2xx: the work
 * was done), `limited` (after Retry-After even a fresh key is refused: the caller is still limited), or
 * `admitted` when the request right after a 429 found a refilled token three times.
 */
async function keyAfter429(
  { target, profile, limitedToken, bucket, policy }: { target: Target; profile: TargetProfile; limitedToken: string; bucket: Bucket; policy: Policy },
): Promise<
  | { fate: 'unused' | 'stored-429' | 'processed' | 'limited'; rejected: HttpResponse; later: HttpResponse }
  | { fate: 'admitted'; since: number[] }
  | { fate: 'per-route'; evidence: PerRouteMeasure }
> {
  const idem = profile.idempotency as NonNullable<TargetProfile['idempotency']>;
  const since: number[] = [];
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const exhausted = await bucket.rejected(profile.rateLimit?.capacity);
    const key = `hac-${uniqueValue()}`;
    const body = fillTemplate(idem.body);
    const rejected = await bucket.client.post(idem.path, body, { headers: { 'idempotency-key': key } });
    if (rejected.status !== 429) {
      since.push((rejected.sentAt - exhausted.receivedAt) / 1000);
      expect(rejected.status, `admitted only when a token refilled since the 429 (${since.at(-1)?.toFixed(2)} s): ${exchangeText(rejected)}`).toBeLessThan(300);
      // Admitted on another route than the one spent: a refilled token, or a limit per route, which a burst tells apart.
      const other = otherRouteOf(profile, bucket);
      const measure = other === undefined ? undefined : await perRouteLimit(bucket, exhausted, other, policy);
      if (measure?.verdict === 'per-route') return { fate: 'per-route', evidence: measure };
      continue;
    }
    // The caller waits out the 429's Retry-After (at least 1 s: a rounded-down 0 is RATE-LIMIT-RETRY-AFTER-HONEST's
    // finding), as the document tells it, then sends the other body with the key.
    const waitOut = (response: HttpResponse): Promise<void> => {
      const seconds = Math.min(Math.max(rateHeaders(response).retryAfter ?? 1, 1), 60);
      return waitFor(seconds * 1000, `Retry-After ${seconds} s of a 429`);
    };
    const withKey = (k: string): Promise<HttpResponse> => bucket.client.post(idem.path, fillTemplate(idem.otherBody), { headers: { 'idempotency-key': k } });
    await waitOut(rejected);
    let later = await withKey(key);
    if (later.status === 429) {
      // A 429 again: the limiter's (the caller is still limited) or the key's record. Once the whole bucket or
      // window has refilled, no limiter refuses one request: the key is asked again then. A fresh key right
      // after a refusal tells the limiter from the record: a sliding window hands back its slots one at a time,
      // so a fresh key admitted before the key proved nothing (measured on koa-ratelimit's sliding log).
      const refill = fullRefillSeconds(profile, later);
      if (refill === undefined) return { fate: 'limited', rejected, later };
      await waitFor(refill * 1000 + 250, `the whole bucket's refill, ${refill} s`);
      later = await withKey(key);
      if (later.status === 429 && (await withKey(`hac-${uniqueValue()}`)).status === 429) return { fate: 'limited', rejected, later };
    }
    if (later.status >= 200 && later.status < 300 && later.headers['idempotent-replayed'] === undefined) return { fate: 'unused', rejected, later };
    if (later.status === 429) return { fate: 'stored-429', rejected, later };
    // The key is taken: by the stored 429 (which the rejected body then gets back) or by work done.
    const same = await target.as(limitedToken).post(idem.path, body, { headers: { 'idempotency-key': key } });
    return same.status >= 200 && same.status < 300 ? { fate: 'processed', rejected, later: same } : { fate: 'stored-429', rejected, later: same };
  }
  return { fate: 'admitted', since };
}

/** A GET route of the profile other than the bucket's own, where a limit per route shows (RATE-LIMIT-EVERY-ROUTE). */
function otherRouteOf(profile: TargetProfile, bucket: Bucket): string | undefined {
  return profile.collections.find((c) => c.methods.includes('GET') && c.path !== bucket.probePath && c.auth?.read !== false)?.path
    ?? profile.collections.find((c) => c.methods.includes('GET') && c.path !== bucket.probePath)?.path;
}

/** Why the keyed request after a 429 was never refused, with what was measured (a skip never blames the machine without it). */
function admittedEachTime(since: readonly number[], policy: Policy, otherRouteTried: boolean): string {
  const times = since.map((s) => `${s.toFixed(2)} s`).join(', ');
  return `inconclusive: in ${since.length} rounds the request right after a 429 was admitted (${times} after it; one token refills in ` +
    `${(1 / policy.refillPerSecond).toFixed(2)} s at ${policy.refillPerSecond} tokens/s, and a fraction left by the 429 may complete sooner)` +
    (otherRouteTried ? ', and a burst on another route showed no limit per route' : '');
}

/** The skip of a check that needs one limit per caller on an API that limits per route: RATE-LIMIT-EVERY-ROUTE reports it. */
const perRouteSkip = (evidence: PerRouteMeasure): string => `${evidence.text} (RATE-LIMIT-EVERY-ROUTE reports it; this check needs one limit per caller)`;

/** The longest refill keyAfter429 waits out before asking a refused key again. */
const LONGEST_REFILL_SECONDS = 30;

/**
 * Seconds until `response`'s caller is surely refilled whole: the profile's plan (a window's length, a
 * bucket's capacity over its rate), else the answer's own RateLimit-Reset; undefined when neither is
 * known or it is longer than LONGEST_REFILL_SECONDS.
 */
function fullRefillSeconds(profile: TargetProfile, response: HttpResponse): number | undefined {
  const plan = profile.rateLimit;
  const declared = plan === undefined ? undefined : plan.windowSeconds ?? (plan.refillPerSecond ? plan.capacity / plan.refillPerSecond : undefined);
  const seconds = declared ?? rateHeaders(response).reset;
  return seconds !== undefined && Number.isFinite(seconds) && seconds <= LONGEST_REFILL_SECONDS ? Math.ceil(seconds) : undefined;
}

const STILL_LIMITED =
  'inconclusive: the key was refused again once the whole bucket or window had refilled, and so was a fresh key right after: the caller is still limited ' +
  '(or its refill is unknown or over 30 s)';

test(
  'a request over the limit is a 429 and is not processed',
  req('RATE-LIMIT-429', '@rate-limit', '@smoke'),
  async ({ target, profile, limitedToken, bucket, policy }) => {
    if (!profile.idempotency) {
      // Without a keyed endpoint only the 429 itself is checked, on the bucket's own route: three rounds, as a token may refill.
      const since: number[] = [];
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        const rejected = await bucket.rejected(profile.rateLimit?.capacity);
        const next = await bucket.probe();
        if (next.status === 429) return;
        since.push((next.sentAt - rejected.receivedAt) / 1000);
      }
      skipCheck(admittedEachTime(since, policy, false));
    }
    // A rejected keyed request must not have run: its own body with its key later finds no 2xx result.
    const after = await keyAfter429({ target, profile, limitedToken, bucket, policy });
    if (after.fate === 'per-route') skipCheck(perRouteSkip(after.evidence));
    if (after.fate === 'admitted') skipCheck(admittedEachTime(after.since, policy, otherRouteOf(profile, bucket) !== undefined));
    if (after.fate === 'limited') skipCheck(`${STILL_LIMITED}: ${exchangeText(after.later)}`);
    if (after.fate === 'processed')
      expect(after.later.status, `the request answered 429 was processed: its body with its key now gets its result: ${exchangeText(after.later)}`).toBe(429);
  },
);

test(
  'a 429 is not stored under the Idempotency-Key: the retry the client is told to make runs the request',
  req('IDEMPOTENCY-429-NOT-STORED', '@idempotency', '@rate-limit'),
  async ({ target, profile, limitedToken, bucket, policy }) => {
    if (!profile.idempotency) skipCheck('the profile names no idempotent endpoint (idempotency)');
    const after = await keyAfter429({ target, profile, limitedToken, bucket, policy });
    if (after.fate === 'per-route') skipCheck(perRouteSkip(after.evidence));
    if (after.fate === 'admitted') skipCheck(admittedEachTime(after.since, policy, otherRouteOf(profile, bucket) !== undefined));
    // One defect, one finding: a 429 whose work was done is RATE-LIMIT-429's.
    if (after.fate === 'processed') skipCheck('the request answered 429 was processed (RATE-LIMIT-429 reports it)');
    if (after.fate === 'limited') skipCheck(`${STILL_LIMITED}: ${exchangeText(after.later)}`);
    if (after.fate === 'stored-429')
      expect(after.later.status, `the key of a request answered 429 is still taken after Retry-After: ${exchangeText(after.later)}`).toBeLessThan(300);
  },
);

test('a 429 is a problem document with status 429', req('RATE-LIMIT-PROBLEM-BODY', '@rate-limit'), async ({ profile, bucket }) => {
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  expect(problemIssues(rejected)).toEqual([]);
  expect((rejected.json as { status?: unknown }).status).toBe(429);
});

/**
 * D-FINDINGS: a 429 that carries none of the three RateLimit fields (and no other draft's) is one
 * defect, the headers missing from the limiter's refusal: the Remaining and Reset checks that read it
 * are consequences of RATE-LIMIT-HEADER-LIMIT, which reports it.
 */
function noteHeaderless429(rejected: HttpResponse): void {
  const h = rateHeaders(rejected);
  if (rejected.status !== 429 || otherRateLimitFields(rejected) !== undefined) return;
  if ([h.limit, h.remaining, h.reset].every((v) => v === undefined)) noteBreaks(rejected, 'RATE-LIMIT-HEADER-LIMIT', 'a 429 with the RateLimit headers');
}

test('a 429 carries RateLimit-Limit, the capacity', req('RATE-LIMIT-HEADER-LIMIT', '@rate-limit'), async ({ profile, bucket }) => {
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  // One finding for a target sending other rate-limit fields, naming the draft and the fix (D-SUITE-TRUST).
  const other = otherRateLimitFields(rejected);
  expect(other === undefined, `${other ?? ''}\n${exchangeText(rejected)}`).toBe(true);
  const { limit } = rateHeaders(rejected);
  expect(Number.isInteger(limit) && (limit ?? -1) >= 0, exchangeText(rejected)).toBe(true);
  if (profile.rateLimit) expect(limit).toBe(profile.rateLimit.capacity);
});

test(
  'a 429 carries RateLimit-Remaining, an integer no greater than the limit',
  req('RATE-LIMIT-HEADER-REMAINING', '@rate-limit'),
  async ({ profile, bucket }) => {
    const rejected = await bucket.rejected(profile.rateLimit?.capacity);
    noteHeaderless429(rejected);
    const { limit, remaining } = rateHeaders(rejected);
    expect(Number.isInteger(remaining) && (remaining ?? -1) >= 0, exchangeText(rejected)).toBe(true);
    expect(remaining ?? Number.NaN).toBeLessThanOrEqual(limit ?? Number.NaN);
    expect(remaining, 'nothing is left when a request is rejected').toBe(0);
  },
);

test('a 429 carries Retry-After in delta-seconds, at least 1', req('RATE-LIMIT-RETRY-AFTER', '@rate-limit'), async ({ profile, bucket, policy }) => {
  const rejected = await bucket.rejected(profile.rateLimit?.capacity);
  const { retryAfter } = rateHeaders(rejected);
  expect(Number.isInteger(retryAfter), exchangeText(rejected)).toBe(true);
  expect(retryAfter ?? 0).toBeGreaterThanOrEqual(1);
  if (policy.windowSeconds !== undefined) {
    // A window admits again when it ends: no longer than the seconds to its end (its own RateLimit-Reset,
    // at most the window), +1 s for rounding up (D-SUITE-TRUST).
    const { reset } = rateHeaders(rejected);
    const toEnd = Math.min(Math.ceil(policy.windowSeconds), reset !== undefined && Number.isFinite(reset) ? reset : Number.POSITIVE_INFINITY);
    const what = `no longer than the seconds to the window's end (${toEnd}) + 1: ${exchangeText(rejected)}`;
    expect(retryAfter ?? Number.POSITIVE_INFINITY, what).toBeLessThanOrEqual(toEnd + 1);
    return;
  }
  // No longer than one token takes to refill, rounded up to whole seconds, +1: a server that rounds the
  // fractional wait up once more is still honest (the document asks for "seconds the client must wait";
  // RATE-LIMIT-RETRY-AFTER-HONEST judges the short side; D-SHAPES). +1 more when the rate is estimated.
  const oneToken = oneTokenSeconds(policy) + 1 + (policy.estimated ? 1 : 0);
  expect(retryAfter ?? Number.POSITIVE_INFINITY, `no longer than one token takes to refill, rounded up, + 1 s: ${exchangeText(rejected)}`)
    .toBeLessThanOrEqual(oneToken);
});

test(
  'a request sent Retry-After seconds after a 429 is admitted',
  req('RATE-LIMIT-RETRY-AFTER-HONEST', '@rate-limit', '@smoke'),
  async ({ profile, bucket, policy }) => {
    // A Retry-After of at least the time one token takes is honest by construction and one round shows
    // it. A shorter one is only disproved when the retry lands before the next token, which a slow
    // machine can miss, so it gets up to three rounds (each from a fresh exhaustion). The retry goes
    // 20 ms after the announced time: the header has whole seconds, the margin covers timer slack.
    // A window's Retry-After is the time to its end: one round shows it.
    // A refused retry after a burst request was admitted behind the 429 is inconclusive, and played again.
    const oneToken = isWindow(policy.algorithm) ? 0 : oneTokenSeconds(policy);
    let inconclusive: string | undefined;
    for (let round = 1; round <= 3; round += 1) {
      const rejected = await bucket.rejected(profile.rateLimit?.capacity);
      const { retryAfter } = rateHeaders(rejected);
      expect(Number.isInteger(retryAfter), exchangeText(rejected)).toBe(true);
      await waitFor(rejected.receivedAt + (retryAfter ?? 0) * 1000 + 20 - performance.now(), `Retry-After ${retryAfter ?? 0} s of a 429`);
      const next = await bucket.probe();
      if (next.status === 429) {
        inconclusive = await stragglersExplain(bucket, rejected);
        if (inconclusive !== undefined) continue;
        noteEarlyReset(rejected, next);
      }
      expect(next.status, `round ${round}, after waiting Retry-After ${retryAfter} s: ${exchangeText(next)}`).not.toBe(429);
      if ((retryAfter ?? 0) >= oneToken) return;
      inconclusive = undefined;
    }
    if (inconclusive !== undefined) skipCheck(`inconclusive: in 3 rounds ${inconclusive}`);
  },
);

/**
 * D-FINDINGS: a retry refused once the 429's Retry-After had passed, where the same 429's
 * RateLimit-Reset announced no later moment, breaks RATE-LIMIT-HEADER-RESET too (the limit was not
 * restored when the Reset said). Both headers then tell one early reset (the Python `limits` moving
 * window truncates it to the second): when RATE-LIMIT-HEADER-RESET fails as well, it is one finding.
 */
function noteEarlyReset(rejected: HttpResponse, refused: HttpResponse): void {
  const { reset, retryAfter } = rateHeaders(rejected);
  if (reset === undefined || retryAfter === undefined || reset > retryAfter) return;
  noteBreaks(refused, 'RATE-LIMIT-HEADER-RESET', `a request admitted once the 429's RateLimit-Reset of ${reset} s had passed`);
}

/**
 * Why a refused retry at Retry-After proves nothing, if it does not (undefined): requests of the same
 * burst admitted after the 429 arrived, each of which may have taken a token refilled meanwhile.
 */
async function stragglersExplain(bucket: Bucket, rejected: HttpResponse): Promise<string | undefined> {
  const late = await bucket.admittedAfter(rejected);
  if (late.length === 0) return undefined;
  const after = ((late[late.length - 1] as HttpResponse).receivedAt - rejected.receivedAt).toFixed(0);
  const what = `${late.length} request(s) of the same burst were admitted behind the 429 (the last ${after} ms later)`;
  return `the retry was refused after ${what}, taking tokens refilled meanwhile`;
}

/** The longest Retry-After the slow-plan check waits out (D-TRAFFIC: a constant 1 s is the lie it disproves). */
const SLOW_PLAN_LONGEST_WAIT_SECONDS = 5;

test(
  'on the slow-refill plan too, a request sent Retry-After seconds after a 429 is admitted',
  req('RATE-LIMIT-RETRY-AFTER-HONEST', '@rate-limit'),
  async ({ burstBucket: { bucket, policy, slowRefill } }) => {
    if (!slowRefill) skipCheck('the profile names no slow-refill token (tokens.rateLimitSlow): the main plan is checked above');
    // D-TRAFFIC: a Retry-After fixed at 1 s is honest on a plan that refills a token a second, and only a
    // plan slower than that shows it. A Retry-After of at least one token's refill is honest by
    // construction and is not waited out; a shorter one is, and the retry must then be admitted.
    const rejected = await bucket.rejected(policy.capacity);
    const { retryAfter } = rateHeaders(rejected);
    if (retryAfter === undefined || !Number.isInteger(retryAfter)) {
      skipCheck(`no delta-seconds Retry-After (RATE-LIMIT-RETRY-AFTER reports it): ${exchangeText(rejected)}`);
    }
    if (retryAfter >= Math.floor(oneTokenSeconds(policy))) return;
    // A run is as long as its longest necessary wait: a short Retry-After (the constant 1 s this check is
    // for) is waited out; a longer one, honest when a token was partly refilled, is not worth the wait here.
    if (retryAfter > SLOW_PLAN_LONGEST_WAIT_SECONDS) {
      skipCheck(`inconclusive: Retry-After ${retryAfter} s on the slow-refill plan, longer than the ${SLOW_PLAN_LONGEST_WAIT_SECONDS} s this check waits out`);
    }
    await waitFor(rejected.receivedAt + retryAfter * 1000 + 20 - performance.now(), `Retry-After ${retryAfter} s of a 429 on the slow-refill plan`);
    const next = await bucket.probe();
    const explained = next.status === 429 ? await stragglersExplain(bucket, rejected) : undefined;
    if (explained !== undefined) skipCheck(`inconclusive: ${explained}`);
    if (next.status === 429) noteEarlyReset(rejected, next);
    const plan = `${policy.refillPerSecond} tokens/s, one token in ${oneTokenSeconds(policy)} s`;
    expect(next.status, `after waiting Retry-After ${retryAfter} s on a plan of ${plan}: ${exchangeText(next)}`).not.toBe(429);
  },
);

test(
  'the 429 problem is typed rate-limited and repeats limit and retryAfter',
  req('RATE-LIMIT-PROBLEM-MEMBERS', '@rate-limit'),
  async ({ profile, bucket }) => {
    const rejected = await bucket.rejected(profile.rateLimit?.capacity);
    const body = rejected.json as { type?: unknown; limit?: unknown; retryAfter?: unknown };
    const headers = rateHeaders(rejected);
    expect(String(body.type), exchangeText(rejected)).toMatch(/\/rate-limited$/);
    expect(body.limit).toBe(headers.limit);
    expect(body.retryAfter).toBe(headers.retryAfter);
  },
);

// Whose bucket a request spends.

test(
  'one caller exhausting its limit does not limit another caller',
  req('RATE-LIMIT-PER-CALLER', '@rate-limit'),
  async ({ target, profile, bucket, policy }) => {
    const spent = await bucket.exhaust(profile.rateLimit?.capacity);
    const exhaustedAt = performance.now();
    const lastReject = spent.filter((r) => r.status === 429).pop();
    const others = [profile.tokens.valid, profile.tokens.other].filter((t): t is string => t !== undefined);
    const exhaustedLimit = rateHeaders(lastReject ?? (spent[0] as HttpResponse)).limit;
    for (const token of others) {
      const response = await bucket.probe(target.as(token).raw());
      expect(response.status, `${exchangeText(response)}`).not.toBe(429);
      // Admitted is the proof; a Remaining sent with it must agree (the fields may come on the 429 only, D-SHAPES):
      // a shared bucket that just refilled one token admits with Remaining 0. Under another RateLimit-Limit than the
      // exhausted caller's the answer comes from another bucket, whose own traffic may have spent it (a FastAPI
      // stack's standard caller, admitted with Remaining 0 in a loaded fresh-clone run).
      const { remaining, limit } = rateHeaders(response);
      const otherBucket = limit !== undefined && exhaustedLimit !== undefined && limit !== exhaustedLimit;
      if (remaining !== undefined && !otherBucket) expect(remaining, `the other caller has its own bucket: ${exchangeText(response)}`).toBeGreaterThan(0);
    }
    const still = await bucket.probe();
    // The others' requests gave the exhausted caller nothing. It held under one token when its 429 was
    // decided, so it may have earned one since; after taking it, at most floor(elapsed × rate) remain.
    // The elapsed time is the longest the server can have seen between the two decisions (the 429's
    // request sent → this answer received): a loaded machine only lengthens it (D-TRAFFIC).
    let refilled = wholeRefills(still.receivedAt - (lastReject?.sentAt ?? exhaustedAt), policy);
    if (isWindow(policy.algorithm)) {
      // A window gives nothing back until it ends (its 429's RateLimit-Reset, rounded up), then its limit.
      // A Reset longer than the window (koa-ratelimit's epoch timestamp, RATE-LIMIT-HEADER-RESET's finding)
      // says nothing of when this window ends: the window may have ended meanwhile (a fresh-clone run on Koa).
      const reset = lastReject ? (rateHeaders(lastReject).reset ?? 0) : 0;
      const endKnown = policy.windowSeconds === undefined || reset <= policy.windowSeconds + 1;
      refilled = lastReject && endKnown && performance.now() < lastReject.sentAt + Math.max(0, reset - 1) * 1000 ? 0 : policy.capacity;
    }
    // Without Remaining on an admitted answer (the fields on the 429 only, D-SHAPES) the admission alone says
    // nothing: the 429 left a fraction of a token, which may complete at any moment after it.
    const { remaining } = rateHeaders(still);
    if (still.status !== 429 && remaining !== undefined) {
      expect(remaining, `the exhausted caller regained at most its own refill (${refilled}): ${exchangeText(still)}`).toBeLessThanOrEqual(refilled);
    }
  },
);

test(
  'a known token is its own caller and an unknown token is not charged to it',
  req('RATE-LIMIT-CALLER-IDENTITY', '@rate-limit'),
  async ({ target, profile, bucket }) => {
    await bucket.exhaust(profile.rateLimit?.capacity);
    const unknown = await bucket.probe(target.as(`hac-unknown-${uniqueValue()}`).raw());
    expect(unknown.status, `an unknown token is limited as its address, not as the exhausted token: ${exchangeText(unknown)}`).toBe(401);
    const anonymous = await bucket.probe(target.anonymous.raw());
    expect(anonymous.status, exchangeText(anonymous)).not.toBe(429);
    // Admitted is the proof; a Remaining sent with it must agree (the fields may come on the 429 only, D-SHAPES).
    const { remaining } = rateHeaders(anonymous);
    if (remaining !== undefined) expect(remaining, 'the address has its own bucket').toBeGreaterThan(0);
  },
);

// The algorithm itself.

test(
  'the limiter is the document\'s token bucket, or the leaky bucket it names as the alternative',
  req('RATE-LIMIT-REFERENCE-ALGORITHM', '@rate-limit'),
  async ({ profile, tokenPool }) => {
    if (tokenPool.tokens.length === 0) skipCheck(noToken);
    // Every rule that holds for all algorithms is a MUST of its own; this is the one place a declared window is reported (D-SUITE-TRUST).
    const algorithm = rateLimitAlgorithm(profile.rateLimit);
    const what = `the profile declares rateLimit.algorithm "${algorithm}": document section 8.3 gives the token bucket as the reference, 8.4 the leaky bucket`;
    expect(['token-bucket', 'leaky-bucket'], what).toContain(algorithm);
  },
);
