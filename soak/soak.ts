/**
 * The soak run: two instances on Redis, bounded load, then the checks — zero 5xx,
 * exact rate limits, no idempotency result lost — as figures and a list of problems.
 */
import { PACED_PLAN, PACED_TOKEN, TINY_PLAN, TINY_TOKEN, startCluster } from './cluster.ts';
import { type LoadResult, runLoad } from './load.ts';
import { type ReplayFigures, verifyReplays } from './verify.ts';

export interface SoakReport {
  load: Omit<LoadResult, 'firstCreated'> & { keysAnswered201: number };
  replays: ReplayFigures;
  pacedBound: { upper: number; lower: number };
  tinyAfter: number;
  pacedAfterRemaining: number;
  cleanup: { exitCodes: (number | null)[]; keysDeleted: number };
  problems: string[];
}

async function status(url: string, token: string): Promise<{ status: number; remaining: number }> {
  const response = await fetch(`${url}/account`, { headers: { Authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return { status: response.status, remaining: Number(response.headers.get('ratelimit-remaining')) };
}

/** Runs the whole soak; never leaves processes or keys behind. */
export async function runSoak({ durationSeconds = 30, connections = 8 } = {}): Promise<SoakReport> {
  const cluster = await startCluster();
  try {
    const load = await runLoad(cluster.urls, durationSeconds, connections);
    const tinyAfter = (await status(cluster.urls[1], TINY_TOKEN)).status;
    const pacedAfterRemaining = (await status(cluster.urls[0], PACED_TOKEN)).remaining;
    const replays = await verifyReplays(cluster.urls, load);
    const problems: string[] = [];
    if (load.fiveHundreds > 0) problems.push(`${load.fiveHundreds} answers were 5xx`);
    if (load.connectionErrors > 0) problems.push(`${load.connectionErrors} connection errors (${load.timeouts} timeouts)`);
    const other = Object.keys(load.statuses).filter((s) => !['200', '201', '409', '429'].includes(s));
    if (other.length > 0) problems.push(`unexpected statuses ${other.join(', ')}`);
    if (load.tiny.admitted !== TINY_PLAN.capacity) problems.push(`zero-refill token admitted ${load.tiny.admitted}, expected exactly ${TINY_PLAN.capacity}`);
    if (tinyAfter !== 429) problems.push(`zero-refill token answered ${tinyAfter} after the run, expected 429`);
    const upper = PACED_PLAN.capacity + Math.floor(PACED_PLAN.refillPerSecond * load.paced.windowSeconds);
    const lower = Math.floor(0.9 * (PACED_PLAN.capacity + PACED_PLAN.refillPerSecond * load.durationSeconds)) - 2;
    if (load.paced.admitted > upper) problems.push(`paced token admitted ${load.paced.admitted} > capacity + rate × elapsed = ${upper}`);
    if (load.paced.admitted < lower) problems.push(`paced token admitted ${load.paced.admitted} < ${lower}: the limit is stricter than configured`);
    if (replays.failed > 0 || replays.mismatched > 0)
      problems.push(`${replays.failed} replays failed and ${replays.mismatched} differed from the original: ${replays.examples.join(' | ')}`);
    if (replays.distinctPayments !== replays.keys) problems.push(`${replays.distinctPayments} distinct payments for ${replays.keys} keys`);
    if (replays.storedPayments !== replays.keys) problems.push(`${replays.storedPayments} payments stored for ${replays.keys} keys`);
    const cleanup = await cluster.stop();
    if (cleanup.exitCodes.some((code) => code !== 0)) problems.push(`instances exited with ${cleanup.exitCodes.join(', ')} on SIGTERM`);
    const { firstCreated, ...rest } = load;
    return { load: { ...rest, keysAnswered201: firstCreated.size }, replays, pacedBound: { upper, lower }, tinyAfter, pacedAfterRemaining, cleanup, problems };
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
}

/** The figures as text for the report. */
export function formatSoak(report: SoakReport): string {
  const { load, replays } = report;
  const statuses = Object.entries(load.statuses).map(([s, n]) => `${s}×${n}`).join(' ');
  return [
    `load: ${load.durationSeconds} s on 2 instances (Redis), ${load.requests} responses (${load.requestsPerSecond.toFixed(0)}/s): ${statuses}`,
    `5xx: ${load.fiveHundreds}; connection errors: ${load.connectionErrors}; timeouts: ${load.timeouts}`,
    `rate limit, zero-refill token (capacity ${TINY_PLAN.capacity}): admitted ${load.tiny.admitted}, rejected ${load.tiny.rejected}, next request ` +
    `${report.tinyAfter}`,
    `rate limit, paced token (capacity ${PACED_PLAN.capacity}, ${PACED_PLAN.refillPerSecond}/s, window ${load.paced.windowSeconds.toFixed(1)} s): ` +
    `admitted ${load.paced.admitted} (bounds ${report.pacedBound.lower}…${report.pacedBound.upper}), rejected ${load.paced.rejected}`,
    `idempotency: ${replays.keys} keys (${load.keysAnswered201} answered 201 during the load); replays identical ${replays.replayedIdentical}, run ` +
    `on replay (cut off at the end) ${replays.ranOnReplay}, differing ${replays.mismatched}, failed ${replays.failed}; distinct payments ` +
    `${replays.distinctPayments}, stored ${replays.storedPayments}`,
    `cleanup: exit codes ${report.cleanup.exitCodes.join(', ')}, ${report.cleanup.keysDeleted} Redis keys deleted`,
    report.problems.length === 0 ? 'RESULT: PASS' : `RESULT: FAIL\n- ${report.problems.join('\n- ')}`,
  ].join('\n');
}
