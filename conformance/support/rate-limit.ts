/**
 * Driving one caller's rate limit (document section 8 "Rate limiting", draft-ietf-httpapi-
 * ratelimit-headers-06): reading the headers, waiting until the bucket is full again (using the
 * announced RateLimit-Reset, never a guess), and exhausting it.
 */
import { waitFor } from '../transport/waits.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Client } from '../transport/client.ts';
import { exchangeText } from './problem.ts';
import { noteBreaks } from '../transport/exchange-log.ts';
import { isWindow } from '../target/profile.ts';
import type { RateLimitAlgorithm } from '../target/profile.ts';

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  reset?: number;
  retryAfter?: number;
}

function intHeader(response: Pick<HttpResponse, 'headers'>, name: string): number | undefined {
  const value = response.headers[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** The four rate-limit headers of a response; NaN when present but not a non-negative integer. */
export function rateHeaders(response: Pick<HttpResponse, 'headers'>): RateHeaders {
  const headers: RateHeaders = {};
  const limit = intHeader(response, 'ratelimit-limit');
  const remaining = intHeader(response, 'ratelimit-remaining');
  const reset = intHeader(response, 'ratelimit-reset');
  const retryAfter = intHeader(response, 'retry-after');
  if (limit !== undefined) headers.limit = limit;
  if (remaining !== undefined) headers.remaining = remaining;
  if (reset !== undefined) headers.reset = reset;
  if (retryAfter !== undefined) headers.retryAfter = retryAfter;
  return headers;
}

/** The algorithm a profile declares (D-SUITE-TRUST: default the document's reference, the token bucket). */
export type Algorithm = RateLimitAlgorithm;

export interface Policy {
  capacity: number;
  /** Tokens per second of a bucket; for a window its average, capacity / windowSeconds. */
  refillPerSecond: number;
  /** The window's length in seconds (the fixed and sliding windows only). */
  windowSeconds?: number;
  /** True when the refill rate was estimated from the headers (wider tolerance). */
  estimated: boolean;
  algorithm: Algorithm;
}

/**
 * The newer rate-limit fields a target may send instead of the document's three headers
 * (RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset: draft-ietf-httpapi-ratelimit-headers-06),
 * named with the draft and the setting that gives the three headers; undefined when the three are
 * there or none of the others is (D-SUITE-TRUST: one finding, under RATE-LIMIT-HEADER-LIMIT).
 */
export function otherRateLimitFields(response: Pick<HttpResponse, 'headers'>): string | undefined {
  const h = response.headers;
  if (h['ratelimit-limit'] !== undefined) return undefined;
  const fix =
    'send the three headers RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (draft-06) the document names: express-rate-limit and ' +
    "hono-rate-limiter `standardHeaders: 'draft-6'`, @fastify/rate-limit `enableDraftSpec: true`";
  const combined = h.ratelimit;
  if (combined !== undefined) {
    // draft-07 (express-rate-limit 'draft-7'): `limit=10, remaining=9, reset=5`; draft-08 and later
    // (express-rate-limit 'draft-8', IETF draft-10/11): a structured list `"policy";r=9;t=5`.
    const draft = /\blimit\s*=\s*\d/i.test(combined)
      ? "draft-ietf-httpapi-ratelimit-headers-07 (express-rate-limit standardHeaders: 'draft-7')"
      : "draft-ietf-httpapi-ratelimit-headers-08 or later, as drafts 10 and 11 (express-rate-limit standardHeaders: 'draft-8')";
    const policy = h['ratelimit-policy'] === undefined ? '' : ` and RateLimit-Policy: ${h['ratelimit-policy']}`;
    return `the target sends the structured field RateLimit: ${combined}${policy} of ${draft} instead of the document's three headers; ` + fix;
  }
  if (h['ratelimit-policy'] !== undefined) {
    const policy = h['ratelimit-policy'];
    return `the target sends RateLimit-Policy: ${policy} (draft-ietf-httpapi-ratelimit-headers-07 or later) without the document's three headers; ${fix}`;
  }
  if (h['x-ratelimit-limit'] !== undefined) {
    const limit = h['x-ratelimit-limit'];
    const what = "(the pre-standard X- headers, @fastify/rate-limit's default) instead of the document's three headers; ";
    return `the target sends X-RateLimit-Limit: ${limit} ${what}` + fix;
  }
  return undefined;
}

/** Every answer of `requests` once all have settled (a transport error is left out: its check sees it through untilRejected). */
function settledAnswers(requests: Promise<HttpResponse>[]): Promise<HttpResponse[]> {
  return Promise.allSettled(requests).then((all) => all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
}

/** Resolves with the responses so far as soon as one is a 429, else with all of them; the rest run on. */
function untilRejected(requests: Promise<HttpResponse>[]): Promise<HttpResponse[]> {
  return new Promise((resolve, reject) => {
    const settled: HttpResponse[] = [];
    let done = false;
    let left = requests.length;
    for (const request of requests) {
      request.then(
        (response) => {
          if (done) return;
          settled.push(response);
          left -= 1;
          if (response.status === 429 || left === 0) {
            done = true;
            resolve(settled);
          }
        },
        (error: unknown) => {
          if (done) return;
          done = true;
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }
    if (requests.length === 0) resolve(settled);
  });
}

/** Requests of the burst that looks for a limit nothing announces: past this, no rate limit was observed (D-FINDINGS). */
const UNKNOWN_LIMIT_BURST = 100;
/** How many of them are in flight at once. */
const UNKNOWN_LIMIT_WAVE = 20;

/** One caller's bucket on one target, probed with a cheap GET. */
export class Bucket {
  constructor(
    readonly client: Client,
    readonly probePath: string,
    /** Sees every probe's answer first (the fixtures skip a check that needs headers the target does not send). */
    private readonly onResponse: (response: HttpResponse) => void = () => undefined,
    /** The profile's capacity: how many requests exhaust the bucket when no admitted answer announces RateLimit-Limit (D-SHAPES). */
    private readonly capacityHint?: number,
  ) {}

  /** Every request of the latest exhausting round, settled: `exhaust` returns at the first 429 while the rest run on. */
  private lastRound: Promise<HttpResponse[]> = Promise.resolve([]);

  /**
   * The requests of the latest exhausting round admitted after `rejected` arrived, once all of them
   * have settled: each may have taken a token refilled after the 429 was decided, so a retry at its
   * Retry-After that is refused proves nothing (a busy machine delays the stragglers of a burst).
   */
  async admittedAfter(rejected: HttpResponse): Promise<HttpResponse[]> {
    return (await this.lastRound).filter((r) => r.status !== 429 && r.receivedAt > rejected.receivedAt);
  }

  /** Sends one probe request (no 429 waiting). */
  async probe(client: Client = this.client): Promise<HttpResponse> {
    const response = await client.get(this.probePath);
    this.onResponse(response);
    return response;
  }

  /** Sends `n` probes at once and waits for every answer. */
  burst(n: number, client: Client = this.client): Promise<HttpResponse[]> {
    return Promise.all(Array.from({ length: n }, () => this.probe(client)));
  }

  /**
   * Waits until the bucket is full: one probe, then the RateLimit-Reset it announces (D-RATE-LIMIT:
   * seconds until the bucket is full again, rounded up). Returns the probe. Only Reset is trusted
   * here: the probe's RateLimit-Remaining would end the wait sooner (Remaining 9 of 10 at 2/s is full
   * after 0.5 s), but it is what RATE-LIMIT-ONE-TOKEN-PER-REQUEST checks, and a server whose Remaining
   * counts one too many (fixtures/broken/rate-limit-remaining-before-take.ts) would then pass it.
   */
  async waitFull(maxSeconds = 30): Promise<HttpResponse> {
    let response = await this.probe();
    // The document asks for the headers on a 429 only (D-SUITE-TRUST): without a Reset on an admitted
    // request, the bucket is spent and the 429's Reset (else its Retry-After) waited out.
    if (response.status !== 429 && rateHeaders(response).reset === undefined) response = await this.rejected();
    const { reset, retryAfter } = rateHeaders(response);
    const seconds = response.status === 429 ? Math.max(reset ?? 0, retryAfter ?? 1) : (reset ?? 0);
    if (!Number.isFinite(seconds)) throw new Error(`no usable RateLimit-Reset: ${exchangeText(response)}`);
    if (seconds > maxSeconds) {
      // D-FINDINGS: a wait this long read from RateLimit-Reset (koa-ratelimit sends a Unix timestamp) is that header's
      // defect when RATE-LIMIT-HEADER-RESET fails too; the checks that needed the wait are its consequences.
      if ((reset ?? 0) >= seconds) noteBreaks(response, 'RATE-LIMIT-HEADER-RESET', 'RateLimit-Reset in delta-seconds, within the window');
      throw new Error(`the bucket refills in ${seconds} s, longer than ${maxSeconds} s: ${exchangeText(response)}`);
    }
    const waitUntil = response.receivedAt + seconds * 1000 + 100;
    await waitFor(waitUntil - performance.now(), `the bucket's refill, ${seconds} s (RateLimit-Reset)`);
    return response;
  }

  /**
   * Spends the bucket until a request is 429 and returns the responses seen (the 429 last). Each
   * round sends what was announced as remaining (later: the capacity), plus three, all at once, and returns
   * at the first 429 without waiting for the admitted ones: a leaky bucket holds those in its queue
   * (D-RATE-LIMIT), and waiting for them would let the queue drain. Gives up after five rounds.
   */
  async exhaust(limitHint = this.capacityHint): Promise<HttpResponse[]> {
    const first = await this.probe();
    const all: HttpResponse[] = [first];
    if (first.status === 429) return all;
    const { remaining } = rateHeaders(first);
    let { limit } = rateHeaders(first);
    limit = limit !== undefined && Number.isFinite(limit) ? limit : limitHint;
    if (limit === undefined) return this.exhaustUnknown(all);
    // The first round trusts the announced Remaining; a later one sends the whole capacity: waiting for
    // a round's answers lets a leaky bucket's queue drain meanwhile, so what it announced is stale.
    for (let round = 0; round < 5; round += 1) {
      const left = round === 0 && remaining !== undefined && Number.isFinite(remaining) ? remaining : limit;
      const requests = Array.from({ length: Math.min(left + 3, limit * 3 + 50) }, () => this.probe());
      this.lastRound = settledAnswers(requests);
      const responses = await untilRejected(requests);
      all.push(...responses);
      if (responses.some((r) => r.status === 429)) return all;
    }
    const last = all[all.length - 1] as HttpResponse;
    // D-FINDINGS: a target that never refuses is one defect, RATE-LIMIT-429's: every check that needed its 429 is a consequence.
    noteBreaks(last, 'RATE-LIMIT-429', `a 429 once the ${limit} requests of its limit are spent`);
    throw new Error(`no 429 after ${all.length} requests with RateLimit-Limit ${limit}: ${exchangeText(last)}`);
  }

  /**
   * Spends a bucket whose size nothing names (no RateLimit-Limit on the admitted answer, no profile
   * rateLimit.capacity): one burst of UNKNOWN_LIMIT_BURST requests. None refused is one defect,
   * RATE-LIMIT-429's (D-FINDINGS: no rate limit observed at all), and every check that needed the 429 is
   * its consequence; the message names the profile member that declares a higher limit.
   */
  private async exhaustUnknown(all: HttpResponse[]): Promise<HttpResponse[]> {
    // In waves of UNKNOWN_LIMIT_WAVE (D-BOUNDED-RUN: at most that many answers of up to 8 MiB in flight), back to back.
    for (let sent = 0; sent < UNKNOWN_LIMIT_BURST; sent += UNKNOWN_LIMIT_WAVE) {
      const requests = Array.from({ length: UNKNOWN_LIMIT_WAVE }, () => this.probe());
      this.lastRound = settledAnswers(requests);
      const responses = await untilRejected(requests);
      all.push(...responses);
      if (responses.some((r) => r.status === 429)) return all;
    }
    const last = all[all.length - 1] as HttpResponse;
    noteBreaks(last, 'RATE-LIMIT-429', `a 429 within ${UNKNOWN_LIMIT_BURST} back-to-back requests`);
    throw new Error(
      `no rate limit observed: none of ${all.length} back-to-back requests was refused, and neither a RateLimit-Limit header nor the profile's ` +
        `rateLimit.capacity names a higher limit (declare it in the profile if the limit is higher): ${exchangeText(last)}`,
    );
  }

  /** The latest 429 after exhausting the bucket. */
  async rejected(limitHint = this.capacityHint): Promise<HttpResponse> {
    const responses = await this.exhaust(limitHint);
    const rejected = responses.filter((r) => r.status === 429);
    return rejected[rejected.length - 1] as HttpResponse;
  }
}

/**
 * A burst on another route right after a 429 (D-RATE-LIMIT: the limit is per caller): `per-route` when
 * one bucket per caller could not have admitted what was admitted, `one-limit` when it could, and
 * `inconclusive` when the measurement took so long that a refill explains even a whole burst.
 */
export interface PerRouteMeasure {
  verdict: 'per-route' | 'one-limit' | 'inconclusive';
  /** The burst on the other route, sent right after the 429. */
  burst: HttpResponse[];
  /** The bucket's own route asked again after the burst. */
  again: HttpResponse;
  /** What one bucket could have admitted meanwhile: the whole tokens refilled since the 429 left, + 1 for a fraction completing. */
  allowance: number;
  /** What was measured, in words: the finding's, or the skip's. */
  text: string;
}

/**
 * How many requests the per-route burst sends: the capacity, at most 10 (a bucket per route starts
 * full; the more it sends, the longer a refill would have to be to explain it on a busy machine).
 */
const PER_ROUTE_BURST = 10;

/**
 * Measures whether the limiter counts per route rather than per caller: right after `refused` (a 429
 * on the bucket's own route), a burst on `otherPath` and one more request on the bucket's own route,
 * against the whole tokens one bucket can have refilled meanwhile (from the 429's request leaving to the
 * last answer, + 1 for the fraction the 429 left). A window gives everything back when it ends, so there
 * the bucket's own route must also still be refused after the burst.
 */
export async function perRouteLimit(
  bucket: Bucket,
  refused: HttpResponse,
  otherPath: string,
  policy: Pick<Policy, 'refillPerSecond' | 'algorithm' | 'capacity'>,
): Promise<PerRouteMeasure> {
  const size = Math.max(2, Math.min(policy.capacity, PER_ROUTE_BURST));
  const burst = await Promise.all(Array.from({ length: size }, () => bucket.client.get(otherPath)));
  const again = await bucket.probe();
  const allowance = wholeRefills(again.receivedAt - refused.flushedAt, policy) + 1;
  const got = admitted(burst) + admitted([again]);
  const route = (r: HttpResponse): string => `${r.request.method} ${new URL(r.request.url).pathname}`;
  const ms = (again.receivedAt - refused.receivedAt).toFixed(0);
  const after = again.status === 429 ? 'was still refused after them' : 'was admitted after them';
  const measured =
    `right after ${route(refused)} answered 429, ${admitted(burst)} of ${burst.length} ${route(burst[0] as HttpResponse)} were admitted ` +
    `and ${route(again)} ${after}, within ${ms} ms (one limit per caller refills at most ${allowance} meanwhile, at ${policy.refillPerSecond} tokens/s)`;
  const verdict = (): PerRouteMeasure['verdict'] => {
    if (isWindow(policy.algorithm)) return again.status === 429 && admitted(burst) > 1 ? 'per-route' : 'one-limit';
    if (got > allowance) return 'per-route';
    return allowance >= size + 1 ? 'inconclusive' : 'one-limit';
  };
  const v = verdict();
  const text = v === 'per-route' ? `this API limits per route; the document's rate limit is per caller: ${measured}`
    : v === 'inconclusive' ? `inconclusive: a limit per route cannot be told from a refill: ${measured}` : measured;
  return { verdict: v, burst, again, allowance, text };
}

/** Counts admitted (non-429) responses. */
export function admitted(responses: HttpResponse[]): number {
  return responses.filter((r) => r.status !== 429).length;
}

/**
 * The latest moment each response's admission can have been decided: its arrival, or, for an answer
 * held back after the decision (a leaky bucket's queue), the moment its request was written plus the
 * longest round trip of a 429 of the same burst (a request rejected at once).
 */
export function decidedBy(responses: HttpResponse[]): number[] {
  const roundTrips = responses.filter((r) => r.status === 429).map((r) => r.receivedAt - r.flushedAt);
  const roundTrip = roundTrips.length > 0 ? Math.max(...roundTrips) : Number.POSITIVE_INFINITY;
  return responses.map((r) => Math.min(r.receivedAt, r.flushedAt + roundTrip));
}

// Refill allowances: what a bucket may have gained while a check measured it, from measured times
// (milliseconds of performance.now(), as HttpResponse's sentAt and receivedAt) and the policy's rate.

/**
 * The tokens a bucket refills in `elapsedMs` at the policy's rate, fractions included (D-RATE-LIMIT:
 * a continuous refill of `refillPerSecond` tokens a second).
 */
export function refillDuring(elapsedMs: number, policy: Pick<Policy, 'refillPerSecond'>): number {
  return (elapsedMs / 1000) * policy.refillPerSecond;
}

/**
 * The whole tokens a bucket can have gained in `elapsedMs`: floor(elapsed × rate) (D-RATE-LIMIT: every
 * request takes a whole token). RATE-LIMIT-ONE-TOKEN-PER-REQUEST counts from the full bucket with it;
 * RATE-LIMIT-PER-CALLER bounds what an exhausted caller (under one token) may hold after its next request.
 */
export function wholeRefills(elapsedMs: number, policy: Pick<Policy, 'refillPerSecond'>): number {
  return Math.floor(refillDuring(elapsedMs, policy));
}

/**
 * How much RateLimit-Remaining may rise from `earlier` to `later` beyond what the requests between
 * them took (D-RATE-LIMIT: Remaining is the whole tokens left of a fractional bucket): the whole tokens
 * refilled from `earlier`'s request leaving to `later`'s answer arriving, + 1 for a fraction held at
 * the start that completes meanwhile. RATE-LIMIT-ONE-TOKEN-PER-REQUEST (two successive requests) and
 * RATE-LIMIT-EVERY-ROUTE (the probes around the 404s and 405s).
 */
export function remainingRiseAllowance(earlier: HttpResponse, later: HttpResponse, policy: Pick<Policy, 'refillPerSecond'>): number {
  return wholeRefills(later.receivedAt - earlier.sentAt, policy) + 1;
}

/**
 * RATE-LIMIT-REFILL-RATE's tolerance on the measured refill rate: 15 %, 35 % when the rate is estimated
 * from the headers (D-SUITE-TRUST: a slow machine must not fail a correct bucket).
 */
function refillRateTolerance(policy: Pick<Policy, 'estimated'>): number {
  return policy.estimated ? 0.35 : 0.15;
}

/**
 * RATE-LIMIT-REFILL-RATE: what a bucket that answered `rejected` (a 429: under one token) admits of a
 * burst that started at `burstStart` and whose last admission was decided by `burstEnd` (`decidedBy`).
 * At least what refilled from the 429's answer to the burst's start, less the rate tolerance and 1 for
 * the whole-token edge; at most what refilled from the 429's request to the burst's last decision,
 * more the rate tolerance, + 1 for the fraction the 429 left, rounded up.
 */
export function refillRateBounds(
  rejected: HttpResponse,
  burstStart: number,
  burstEnd: number,
  policy: Pick<Policy, 'refillPerSecond' | 'estimated'>,
): { low: number; high: number } {
  const tolerance = refillRateTolerance(policy);
  return {
    low: Math.floor(refillDuring(burstStart - rejected.receivedAt, policy) * (1 - tolerance)) - 1,
    high: Math.ceil(1 + refillDuring(burstEnd - rejected.sentAt, policy) * (1 + tolerance)),
  };
}

/**
 * RATE-LIMIT-HEADER-RESET on an empty bucket (D-RATE-LIMIT: RateLimit-Reset is the seconds until the
 * bucket is full again, rounded up): it refills in `full` = capacity / rate seconds; Reset is at most
 * that rounded up + 1 s of slack, and at least 90 % of it (50 % when the rate is estimated from the headers).
 */
export function emptyBucketReset(policy: Pick<Policy, 'capacity' | 'refillPerSecond' | 'estimated'>): { full: number; most: number; least: number } {
  const full = policy.capacity / policy.refillPerSecond;
  return { full, most: Math.ceil(full) + 1, least: Math.floor(full * (policy.estimated ? 0.5 : 0.9)) };
}

/**
 * The seconds one token takes to refill, rounded up as Retry-After is (D-RATE-LIMIT: Retry-After is the
 * seconds until one token is available, rounded up): the most RATE-LIMIT-RETRY-AFTER allows a bucket's
 * 429 to announce, and what RATE-LIMIT-RETRY-AFTER-HONEST's Retry-After must reach to be honest by construction.
 */
export function oneTokenSeconds(policy: Pick<Policy, 'refillPerSecond'>): number {
  return Math.ceil(1 / policy.refillPerSecond);
}

/**
 * The tokens (free queue slots) a caller holds right after the decision of `announcement`, from its
 * own headers (D-RATE-LIMIT): `RateLimit-Remaining` r means [r, r + 1); `RateLimit-Reset` s seconds
 * until full means capacity − s × rate ≤ tokens < capacity − (s − 1) × rate.
 */
export function announcedTokens(announcement: HttpResponse, policy: Pick<Policy, 'capacity' | 'refillPerSecond'>): { min: number; max: number } {
  const { remaining, reset } = rateHeaders(announcement);
  const r = remaining !== undefined && Number.isFinite(remaining) ? remaining : 0;
  let min = r;
  let max = Math.min(r + 1, policy.capacity);
  if (reset !== undefined && Number.isFinite(reset) && reset > 0) {
    min = Math.max(min, policy.capacity - reset * policy.refillPerSecond);
    max = Math.min(max, policy.capacity - (reset - 1) * policy.refillPerSecond);
  }
  return { min, max: Math.max(min, max) };
}

export interface Admissions {
  /** Requests of the burst that were admitted. */
  admitted: number;
  /** The fewest a correct bucket admits (tokens held when the burst started, capped by its size). */
  low: number;
  /** The most the headers allow: tokens when the burst started plus whole refills until the last decision. */
  high: number;
  /** Seconds from the first request of the burst to its last decision. */
  window: number;
  /** True when one admission too many would exceed `high` for sure: the measurement can conclude. */
  conclusive: boolean;
}

/**
 * RATE-LIMIT-NO-ADMISSION-BEYOND-ANNOUNCED: what the caller's headers in `announcement` allow a burst
 * sent after it, for either algorithm (D-SUITE-TRUST). Refill is counted from the earliest moment the
 * announcement can have been decided (its request left) for `high`, and from the latest (its answer
 * arrived) for `low`; the burst's decisions end at its last answer (a leaky bucket's at `decidedBy`).
 */
export function admissions(
  announcement: HttpResponse,
  burst: HttpResponse[],
  policy: Pick<Policy, 'capacity' | 'refillPerSecond'> & Partial<Pick<Policy, 'algorithm' | 'windowSeconds'>>,
): Admissions {
  if (policy.algorithm && isWindow(policy.algorithm)) return windowAdmissions(announcement, burst, { ...policy, algorithm: policy.algorithm });
  const tokens = announcedTokens(announcement, policy);
  const start = Math.min(...burst.map((r) => r.sentAt));
  // A token bucket answers as it decides, so the last answer bounds the last decision however late a loaded
  // machine delivers it; only a leaky bucket holds admitted answers back after deciding (`decidedBy`).
  const end = policy.algorithm === 'leaky-bucket' ? Math.max(...decidedBy(burst)) : Math.max(...burst.map((r) => r.receivedAt));
  const rate = policy.refillPerSecond / 1000;
  const atStartMax = Math.min(policy.capacity, tokens.max + Math.max(0, start - announcement.sentAt) * rate);
  const atStartMin = Math.min(policy.capacity, tokens.min + Math.max(0, start - announcement.receivedAt) * rate);
  const high = Math.floor(atStartMax + (end - start) * rate + 1e-9);
  const low = Math.min(burst.length, Math.floor(atStartMin + 1e-9));
  return { admitted: admitted(burst), low, high, window: (end - start) / 1000, conclusive: high <= low };
}

/**
 * RATE-LIMIT-NO-ADMISSION-BEYOND-ANNOUNCED for a declared window (D-SUITE-TRUST). `RateLimit-Remaining`
 * r and `RateLimit-Reset` s of the announcement: the announced window ends within [its request sent
 * + (s − 1) s, its answer received + s s] (Reset rounded up, as the limiters do); until then a fixed
 * window admits at most r, afterwards each window its limit. An interval of length L meets at most
 * floor(L / W) + 2 windows of length W. A sliding window frees its slots one by one, so before the
 * announced end it is bounded by its limit per window only. A burst after the announced end and
 * within one window length of it meets exactly one fresh window: it admits the limit exactly.
 */
function windowAdmissions(
  announcement: HttpResponse,
  burst: HttpResponse[],
  policy: Pick<Policy, 'capacity' | 'refillPerSecond' | 'windowSeconds'> & { algorithm: 'fixed-window' | 'sliding-window' },
): Admissions {
  const { remaining, reset } = rateHeaders(announcement);
  const windowMs = (policy.windowSeconds ?? policy.capacity / policy.refillPerSecond) * 1000;
  const r = remaining !== undefined && Number.isFinite(remaining) ? remaining : policy.capacity;
  const s = reset !== undefined && Number.isFinite(reset) ? reset : windowMs / 1000;
  const endMin = announcement.sentAt + Math.max(0, s - 1) * 1000;
  const endMax = announcement.receivedAt + s * 1000;
  const start = Math.min(...burst.map((x) => x.sentAt));
  const end = Math.max(...decidedBy(burst));
  const meets = Math.floor((end - start) / windowMs) + 2;
  const inAnnounced = start < endMax;
  const later = end < endMin ? 0 : Math.min(meets - (inAnnounced ? 1 : 0), 1 + Math.floor((end - endMin) / windowMs));
  const announcedShare = !inAnnounced ? 0 : policy.algorithm === 'fixed-window' ? r : policy.capacity;
  const high = announcedShare + later * policy.capacity;
  let low = 0;
  if (!inAnnounced && end < endMin + windowMs) low = Math.min(burst.length, policy.capacity);
  else if (policy.algorithm === 'fixed-window' && end < endMin) low = Math.min(burst.length, r);
  return { admitted: admitted(burst), low, high, window: (end - start) / 1000, conclusive: high <= low };
}

/**
 * Sends `burst()` on a full bucket (D-SUITE-TRUST): waits until the bucket is full by its own
 * RateLimit-Reset (`waitFull`), sends the burst and judges it against what the headers announced. A
 * burst so slow that a whole token could have refilled cannot tell one admission too many apart: it
 * is tried again, up to three times, and the last judgement is returned either way.
 */
export async function fullBurst(
  policy: Pick<Policy, 'capacity' | 'refillPerSecond'> & Partial<Pick<Policy, 'algorithm' | 'windowSeconds'>>,
  waitFull: () => Promise<HttpResponse>,
  burst: () => Promise<HttpResponse[]>,
): Promise<Admissions & { responses: HttpResponse[] }> {
  for (let attempt = 1; ; attempt += 1) {
    const announcement = await waitFull();
    const responses = await burst();
    const judged = admissions(announcement, responses, policy);
    if (judged.conclusive || judged.admitted > judged.high || attempt === 3) return { ...judged, responses };
  }
}

/** The measured reason a burst could not conclude after the three tries of `fullBurst`, for the skip. */
export function inconclusive(judged: Admissions, policy: Pick<Policy, 'refillPerSecond'>): string {
  return (
    `inconclusive: the burst took ${judged.window.toFixed(2)} s (3 tries), long enough at ${policy.refillPerSecond} tokens/s for a token to refill, ` +
    `so one admission too many (${judged.admitted} admitted, ${judged.low}…${judged.high} allowed) cannot be told apart; ` +
    'name a slow-refill token in the profile (tokens.rateLimitSlow) to make this check exact'
  );
}
