/**
 * The one response rule that reads two exchanges (D-TRAFFIC): a caller's `RateLimit-Remaining` never
 * goes up by more than its plan refilled in between (RATE-LIMIT-ONE-TOKEN-PER-REQUEST: each request
 * takes a token; nothing gives one back). Judged only where the profile gives the plan
 * (`rateLimit` for `tokens.rateLimit` and `tokens.rateLimitPool`, `tokens.rateLimitSlow` with its own),
 * and only between two exchanges of one check where the first was answered before the second was
 * sent, so the server surely counted them in that order; everything else is not judged.
 *
 * The bound is generous on purpose, so load cannot flip it: the time between the two is the longest
 * the server can have seen (first sent → second answered), the refill of that time is rounded up and
 * one more token is allowed for the header's rounding. A fixed window may start afresh once the first
 * answer's own `RateLimit-Reset` (delta-seconds, at most the window) has passed; a sliding window gives
 * requests back at any time and is not judged.
 */
import { isWindow, rateLimitAlgorithm } from '../target/profile.ts';
import type { Credentials, TargetProfile } from '../target/profile.ts';
import { callerKeyFor, callerKeyOf } from '../transport/sending.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Judgement } from './rules.ts';
import { rateHeaders } from '../support/rate-limit.ts';

/** The plan of one token, as the profile declares it. */
type Plan = { kind: 'bucket'; refillPerSecond: number } | { kind: 'window'; windowSeconds: number };

/** What a caller's earlier answer said, and when it was surely counted. */
interface Seen {
  remaining: number;
  reset: number | undefined;
  sentAt: number;
  receivedAt: number;
}

export const REMAINING_RULE = {
  name: 'remaining-never-rises-beyond-refill',
  requirement: 'RATE-LIMIT-ONE-TOKEN-PER-REQUEST',
  says: "a caller's RateLimit-Remaining never rises by more than its plan refilled since",
} as const;

/** The plans of the profile's rate-limit tokens, by caller key (the token as the API takes it, transport/sending.ts). */
export function plansOf(profile: Pick<TargetProfile, 'tokens' | 'rateLimit' | 'credentials'>): Map<string, Plan> {
  const credentials = profile.credentials ?? { scheme: 'bearer' };
  const plans = new Map<string, Plan>();
  const plan = profile.rateLimit;
  const algorithm = rateLimitAlgorithm(plan);
  let shared: Plan | undefined;
  if (plan && algorithm !== 'sliding-window') {
    if (algorithm === 'fixed-window' && plan.windowSeconds !== undefined) shared = { kind: 'window', windowSeconds: plan.windowSeconds };
    else if (algorithm !== 'fixed-window' && plan.refillPerSecond !== undefined) shared = { kind: 'bucket', refillPerSecond: plan.refillPerSecond };
  }
  const pool = [profile.tokens.rateLimit, ...(profile.tokens.rateLimitPool ?? [])];
  if (shared) for (const token of pool) if (token) plans.set(callerKeyFor(token, credentials), shared);
  const slow = profile.tokens.rateLimitSlow;
  if (slow && !isWindow(algorithm)) plans.set(callerKeyFor(slow.token, credentials), { kind: 'bucket', refillPerSecond: slow.refillPerSecond });
  return plans;
}

/** Watches the answers of one check for a Remaining that rises beyond the refill. */
export class RemainingWatch {
  private readonly last = new Map<string, Seen[]>();

  constructor(
    private readonly plans: ReadonlyMap<string, Plan>,
    private readonly credentials: Credentials = { scheme: 'bearer' },
  ) {}

  /** Judges `response` against the earlier answers of the same caller, route and origin, then remembers it. */
  judge(response: HttpResponse, route: string): Judgement {
    const authorization = callerKeyOf(response.request, this.credentials);
    const plan = authorization === undefined ? undefined : this.plans.get(authorization);
    const { remaining, reset } = rateHeaders(response);
    if (plan === undefined || remaining === undefined || !Number.isFinite(remaining)) return 'not-applicable';
    const key = `${new URL(response.request.url).origin} ${authorization} ${route}`;
    const earlier = this.last.get(key) ?? [];
    const announcedReset = reset !== undefined && Number.isFinite(reset) ? reset : undefined;
    const now: Seen = { remaining, reset: announcedReset, sentAt: response.sentAt, receivedAt: response.receivedAt };
    // Only answers that surely came before this request was counted; the last of them is the tightest bound.
    const before = earlier.filter((e) => e.receivedAt < now.sentAt).sort((a, b) => b.receivedAt - a.receivedAt)[0];
    earlier.push(now);
    if (earlier.length > 64) earlier.splice(0, earlier.length - 64);
    this.last.set(key, earlier);
    if (before === undefined) return 'not-applicable';
    const elapsedSeconds = (now.receivedAt - before.sentAt) / 1000;
    let allowed: number;
    if (plan.kind === 'bucket') allowed = before.remaining + Math.ceil(plan.refillPerSecond * elapsedSeconds) + 1;
    else {
      const toWindowEnd = before.reset !== undefined && before.reset <= Math.ceil(plan.windowSeconds) ? before.reset : undefined;
      if (toWindowEnd === undefined) return 'not-applicable';
      allowed = elapsedSeconds >= toWindowEnd - 1 ? Number.POSITIVE_INFINITY : before.remaining + 1;
    }
    if (remaining <= allowed) return 'holds';
    return {
      violation:
        `RateLimit-Remaining rose from ${before.remaining} to ${remaining} in at most ${elapsedSeconds.toFixed(2)} s, ` +
        `more than the plan refills then (at most ${allowed - before.remaining})`,
    };
  }
}
