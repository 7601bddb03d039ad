/**
 * The bounded load of the soak: autocannon against both instances at once for a
 * fixed duration — idempotent payments (every key sent twice, often to both instances at the same
 * moment), and two rate-limited tokens (a zero-refill one and a paced one) split over the instances.
 */
import autocannon from 'autocannon';
import { LOAD_TOKEN, PACED_TOKEN, TINY_TOKEN } from './cluster.ts';

export interface StatusCounts {
  [status: string]: number;
}

export interface LoadResult {
  durationSeconds: number;
  requests: number;
  statuses: StatusCounts;
  fiveHundreds: number;
  connectionErrors: number;
  timeouts: number;
  /** Highest key index handed out; keys are `prefix-0` … `prefix-(keysIssued-1)`. */
  keysIssued: number;
  keyPrefix: string;
  /** The first 201 body answered for each key index. */
  firstCreated: Map<number, string>;
  tiny: { admitted: number; rejected: number; other: number };
  paced: { admitted: number; rejected: number; other: number; windowSeconds: number };
  requestsPerSecond: number;
}

/** The payment body of key index `i` (the same body for both sends of a key). */
export function paymentBody(i: number): string {
  return JSON.stringify({ amount: 1000 + (i % 100_000), currency: 'usd' });
}

function merge(into: StatusCounts, result: autocannon.Result): void {
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    into[status] = (into[status] ?? 0) + (stats.count ?? 0);
  }
}

function counts(result: autocannon.Result): { admitted: number; rejected: number; other: number } {
  const stats = result.statusCodeStats ?? {};
  const admitted = stats['200']?.count ?? 0;
  const rejected = stats['429']?.count ?? 0;
  const total = Object.values(stats).reduce((sum, s) => sum + (s.count ?? 0), 0);
  return { admitted, rejected, other: total - admitted - rejected };
}

/** Runs the load for `durationSeconds` against both `urls`. */
export async function runLoad(urls: [string, string], durationSeconds: number, connections = 8): Promise<LoadResult> {
  const keyPrefix = `soak-${Date.now().toString(36)}`;
  let counter = 0;
  const firstCreated = new Map<number, string>();
  const payments = (url: string): Promise<autocannon.Result> =>
    autocannon({
      url,
      connections,
      pipelining: 1,
      duration: durationSeconds,
      timeout: 10,
      requests: [
        {
          method: 'POST',
          path: '/payments',
          setupRequest(request, context) {
            const index = Math.floor(counter / 2);
            counter += 1;
            (context as { index?: number }).index = index;
            return {
              ...request,
              headers: {
                ...request.headers,
                authorization: `Bearer ${LOAD_TOKEN}`,
                'content-type': 'application/json',
                'idempotency-key': `${keyPrefix}-${index}`,
              },
              body: paymentBody(index),
            };
          },
          onResponse(status, body, context) {
            const index = (context as { index?: number }).index;
            if (status === 201 && index !== undefined && !firstCreated.has(index)) firstCreated.set(index, body);
          },
        },
      ],
    });
  const limited = (url: string, token: string): Promise<autocannon.Result> =>
    autocannon({ url: `${url}/account`, connections: 2, pipelining: 1, duration: durationSeconds, timeout: 10, headers: { authorization: `Bearer ${token}` } });

  const started = performance.now();
  const results = await Promise.all([
    payments(urls[0]),
    payments(urls[1]),
    limited(urls[0], TINY_TOKEN),
    limited(urls[1], TINY_TOKEN),
    limited(urls[0], PACED_TOKEN),
    limited(urls[1], PACED_TOKEN),
  ]);
  const windowSeconds = (performance.now() - started) / 1000;
  const statuses: StatusCounts = {};
  for (const result of results) merge(statuses, result);
  const sum = (pick: (r: autocannon.Result) => number): number => results.reduce((total, r) => total + pick(r), 0);
  const [, , tinyA, tinyB, pacedA, pacedB] = results as [
    autocannon.Result, autocannon.Result, autocannon.Result, autocannon.Result, autocannon.Result, autocannon.Result,
  ];
  const add = (a: ReturnType<typeof counts>, b: ReturnType<typeof counts>) => ({
    admitted: a.admitted + b.admitted,
    rejected: a.rejected + b.rejected,
    other: a.other + b.other,
  });
  const requests = Object.values(statuses).reduce((total, n) => total + n, 0);
  return {
    durationSeconds,
    requests,
    statuses,
    fiveHundreds: sum((r) => r['5xx']),
    connectionErrors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    keysIssued: Math.ceil(counter / 2),
    keyPrefix,
    firstCreated,
    tiny: add(counts(tinyA), counts(tinyB)),
    paced: { ...add(counts(pacedA), counts(pacedB)), windowSeconds },
    requestsPerSecond: requests / windowSeconds,
  };
}
