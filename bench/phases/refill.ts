/**
 * Phase 3 (RATE-LIMIT-REFILL-RATE): the admitted rate over seconds of steady pressure against the
 * configured refill rate, as a relative error, by count and by a least-squares fit, over the time
 * the pressure actually held (see effectiveTimes).
 */
import { REFILL, REFILL_TOKEN, benchConfig, storeConfig } from '../bench-config.ts';
import { steadyPressure } from '../http-burst.ts';
import { startBenchServer, type BenchServer } from '../servers.ts';
import type { RefillResult, StoreKind } from '../types.ts';

export interface RefillOptions {
  stores: StoreKind[];
  redisUrl: string;
  /** Seed nodes of the local cluster (the `cluster` store). */
  clusterNodes?: readonly string[];
  keyPrefix: string;
  durationSeconds: number;
  concurrency: number;
  log: (line: string) => void;
}

/**
 * Maps reply times onto a time axis without the stretches in which the bucket was full and its
 * refill wasted: a gap between consecutive replies longer than the fill time (capacity / rate)
 * means nobody took a token for that long (the client or the server was not scheduled on a busy
 * machine), so the excess of the gap is removed from the axis and reported as `lostMs`.
 */
export function effectiveTimes(times: number[], fillMs: number): { times: number[]; lostMs: number; maxGapMs: number } {
  let lostMs = 0;
  let maxGapMs = 0;
  const out: number[] = [];
  for (let i = 0; i < times.length; i++) {
    const gap = i === 0 ? 0 : (times[i] ?? 0) - (times[i - 1] ?? 0);
    maxGapMs = Math.max(maxGapMs, gap);
    lostMs += Math.max(0, gap - fillMs);
    out.push((times[i] ?? 0) - lostMs);
  }
  return { times: out, lostMs, maxGapMs };
}

/** Least-squares slope of y over x (0 when fewer than two points). */
export function slope(xs: number[], ys: number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sx += xs[i] ?? 0;
    sy += ys[i] ?? 0;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - mx;
    num += dx * ((ys[i] ?? 0) - my);
    den += dx * dx;
  }
  return den === 0 ? 0 : num / den;
}

async function measureStore(store: StoreKind, options: RefillOptions): Promise<RefillResult> {
  let target: BenchServer | undefined;
  try {
    target = await startBenchServer({
      kind: 'reference',
      config: benchConfig(storeConfig(store, options.redisUrl, `${options.keyPrefix}refill:`, options.clusterNodes)),
    });
    const { replies, startedAt, endedAt } = await steadyPressure(
      `${target.url}/users/1`,
      { authorization: `Bearer ${REFILL_TOKEN}` },
      options.concurrency,
      options.durationSeconds * 1000,
    );
    const sorted = replies.filter((r) => r.status !== 0).sort((a, b) => a.at - b.at);
    const fillMs = (REFILL.capacity / REFILL.refillPerSecond) * 1000;
    const effective = effectiveTimes(
      sorted.map((r) => r.at),
      fillMs,
    );
    const admittedEffective = sorted.flatMap((r, i) => (r.status === 200 ? [effective.times[i] ?? 0] : []));
    const spanMs = (effective.times.at(-1) ?? 0) - (effective.times[0] ?? 0);
    const countRate = ((admittedEffective.length - REFILL.capacity) / spanMs) * 1000;
    const afterBurst = admittedEffective.slice(REFILL.capacity);
    const fitRate =
      slope(
        afterBurst,
        afterBurst.map((_, i) => i),
      ) * 1000;
    const error = (rate: number): number => Math.round(((rate - REFILL.refillPerSecond) / REFILL.refillPerSecond) * 10_000) / 10_000;
    return {
      store,
      capacity: REFILL.capacity,
      configuredPerSecond: REFILL.refillPerSecond,
      durationMs: Math.round(endedAt - startedAt),
      sent: replies.length,
      admitted: admittedEffective.length,
      lostMs: Math.round(effective.lostMs),
      maxGapMs: Math.round(effective.maxGapMs),
      countRatePerSecond: Math.round(countRate * 100) / 100,
      fitRatePerSecond: Math.round(fitRate * 100) / 100,
      countError: error(countRate),
      fitError: error(fitRate),
    };
  } finally {
    await target?.close();
  }
}

/** Measures the refill of every store on a fresh bucket. */
export async function refillPhase(options: RefillOptions): Promise<RefillResult[]> {
  const results: RefillResult[] = [];
  for (const store of options.stores) {
    const result = await measureStore(store, options);
    results.push(result);
    options.log(
      `  ${store.padEnd(6)} ${result.sent} sent in ${result.durationMs} ms, admitted ${result.admitted}, ` +
        `pressure lost ${result.lostMs} ms (max gap ${result.maxGapMs} ms): ` +
        `${result.countRatePerSecond}/s by count (${(result.countError * 100).toFixed(2)} %), ` +
        `${result.fitRatePerSecond}/s by fit (${(result.fitError * 100).toFixed(2)} %), configured ${result.configuredPerSecond}/s`,
    );
  }
  return results;
}
