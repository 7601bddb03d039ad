/**
 * Load generation with autocannon's programmatic API: one bounded run against one URL, reduced to
 * the figures of the throughput table (requests per second, p50, p99, status counts).
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before every request; its headers are added (e.g. a fresh Idempotency-Key). */
  perRequestHeaders?: () => Record<string, string>;
}

export interface LoadOptions {
  url: string;
  request: LoadRequest;
  durationSeconds: number;
  connections: number;
}

export interface LoadStats {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  /** Requests sent, including those still in flight when the run stopped. */
  sent: number;
  errors: number;
  durationSeconds: number;
  statusCounts: Record<string, number>;
}

/** Runs autocannon for `durationSeconds` and summarises the result. */
export async function runLoad({ url, request, durationSeconds, connections }: LoadOptions): Promise<LoadStats> {
  const { perRequestHeaders } = request;
  const base: autocannon.Request = {
    method: request.method,
    path: request.path,
    headers: request.headers ?? {},
    ...(request.body !== undefined ? { body: request.body } : {}),
  };
  if (perRequestHeaders) {
    base.setupRequest = (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, ...perRequestHeaders() } });
  }
  const result = await autocannon({
    url,
    connections,
    duration: durationSeconds,
    pipelining: 1,
    timeout: 10,
    requests: [base],
  });
  const statusCounts: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = stats.count ?? 0;
  const total = Object.values(statusCounts).reduce((sum, n) => sum + n, 0);
  return {
    requestsPerSecond: round(total / result.duration, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total,
    sent: result.requests.sent,
    errors: result.errors,
    durationSeconds: result.duration,
    statusCounts,
  };
}

/**
 * Combines the rounds of one target: req/s over the summed time, the median of the rounds' p50
 * and p99, summed counts.
 */
export function combineRounds(rounds: LoadStats[]): LoadStats {
  const total = rounds.reduce((sum, r) => sum + r.total, 0);
  const durationSeconds = rounds.reduce((sum, r) => sum + r.durationSeconds, 0);
  const statusCounts: Record<string, number> = {};
  for (const round of rounds) {
    for (const [code, count] of Object.entries(round.statusCounts)) statusCounts[code] = (statusCounts[code] ?? 0) + count;
  }
  return {
    requestsPerSecond: durationSeconds > 0 ? round(total / durationSeconds, 1) : 0,
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    total,
    sent: rounds.reduce((sum, r) => sum + r.sent, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    durationSeconds: round(durationSeconds, 2),
    statusCounts,
  };
}

/** The median of `values` (0 for none). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
