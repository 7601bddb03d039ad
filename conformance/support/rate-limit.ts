/**
 * Driving one caller's rate limit (document section 8 "Rate limiting", draft-ietf-httpapi-
 * ratelimit-headers-06): reading the headers, waiting until the bucket is full again (using the
 * announced RateLimit-Reset, never a guess), and exhausting it.
 */
import { delay } from './http.ts';
import type { HttpResponse } from './http.ts';
import type { Client } from './client.ts';
import { describe } from './problem.ts';

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  reset?: number;
  retryAfter?: number;
}

function intHeader(response: HttpResponse, name: string): number | undefined {
  const value = response.headers[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** The four rate-limit headers of a response; NaN when present but not a non-negative integer. */
export function rateHeaders(response: HttpResponse): RateHeaders {
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

export interface Policy {
  capacity: number;
  refillPerSecond: number;
  /** True when the refill rate was estimated from the headers (wider tolerance). */
  estimated: boolean;
}

/** One caller's bucket on one target, probed with a cheap GET. */
export class Bucket {
  constructor(
    readonly client: Client,
    readonly probePath: string,
  ) {}

  /** Sends one probe request (no 429 waiting). */
  probe(client: Client = this.client): Promise<HttpResponse> {
    return client.get(this.probePath);
  }

  /**
   * Waits until the bucket is full: one probe, then the RateLimit-Reset it announces (D-RATE-LIMIT:
   * seconds until the bucket is full again, rounded up). Returns the probe.
   */
  async waitFull(maxSeconds = 30): Promise<HttpResponse> {
    const response = await this.probe();
    const { reset, retryAfter } = rateHeaders(response);
    const seconds = response.status === 429 ? Math.max(reset ?? 0, retryAfter ?? 1) : (reset ?? 0);
    if (!Number.isFinite(seconds)) throw new Error(`no usable RateLimit-Reset: ${describe(response)}`);
    if (seconds > maxSeconds) throw new Error(`the bucket refills in ${seconds} s, longer than ${maxSeconds} s`);
    const waitUntil = response.receivedAt + seconds * 1000 + 100;
    await delay(waitUntil - performance.now());
    return response;
  }

  /**
   * Sends requests (in concurrent batches) until one is 429; returns every response in order. Gives
   * up after three times the announced RateLimit-Limit (or the hint) plus 50 requests.
   */
  async exhaust(limitHint?: number): Promise<HttpResponse[]> {
    const first = await this.probe();
    const all: HttpResponse[] = [first];
    if (first.status === 429) return all;
    const announced = rateHeaders(first).limit;
    const limit = announced !== undefined && Number.isFinite(announced) ? announced : limitHint;
    if (limit === undefined) throw new Error(`no RateLimit-Limit header and no profile rateLimit: cannot tell when a 429 is due: ${describe(first)}`);
    const maxRequests = limit * 3 + 50;
    const batch = Math.max(1, Math.min(50, Math.ceil(limit / 2)));
    while (all.length < maxRequests) {
      const responses = await Promise.all(Array.from({ length: batch }, () => this.probe()));
      all.push(...responses);
      if (responses.some((r) => r.status === 429)) return all;
    }
    throw new Error(`no 429 after ${all.length} requests with RateLimit-Limit ${limit}: ${describe(all[all.length - 1] as HttpResponse)}`);
  }

  /** The latest 429 after exhausting the bucket. */
  async rejected(limitHint?: number): Promise<HttpResponse> {
    const responses = await this.exhaust(limitHint);
    const rejected = responses.filter((r) => r.status === 429);
    return rejected[rejected.length - 1] as HttpResponse;
  }
}

/** Counts admitted (non-429) responses. */
export function admitted(responses: HttpResponse[]): number {
  return responses.filter((r) => r.status !== 429).length;
}
