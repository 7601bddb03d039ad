/**
 * Judging the exponential backoff with jitter (conventions document section 7, rule 5) from the
 * measured waits between attempts.
 */
import { ID } from './requirements.ts';
import {
  boundedWait, fail, inconclusive, latenessAfter, latenessAt, lowerBound, ms, pass, skip, upperBound, waitAfter, attemptSummary,
} from './scenario-kit.ts';
import type { Check, JitterSample, JudgeContext, ScenarioRun } from './scenario-kit.ts';

/**
 * BACKOFF-EXPONENTIAL: every measured wait after a failure without Retry-After is the 2^k step: in
 * [2^k, 2^(k+1)) seconds (scaled, with tolerance). Returns the jitter samples (the wait minus 2^k)
 * for BACKOFF-JITTER, which holds them to [0, 1).
 */
export function backoffOf(run: ScenarioRun, ctx: JudgeContext): { check: Check; jitter: JitterSample[] } {
  const title = `${run.scenario}: waits grow as 2^attempt seconds`;
  const waits: number[] = [];
  for (let k = 0; k + 1 < run.attempts.length; k += 1) {
    const wait = waitAfter(run.attempts, k);
    if (wait !== undefined) waits.push(wait);
  }
  if (waits.length === 0) return { check: skip(ID.exponential, title, `the client did not retry (attempts: ${attemptSummary(run.attempts)})`), jitter: [] };
  const S = ctx.msPerSecond;
  const bad: string[] = [];
  const unjudged: string[] = [];
  const jitter: JitterSample[] = [];
  waits.forEach((wait, k) => {
    const min = 2 ** k * S;
    // The wait after attempt k is the 2^k step: at least 2^k s, and below the next step, 2^(k+1) s.
    // Whether the part above 2^k stays below 1 s is the jitter's rule (CLIENT-BACKOFF-JITTER), judged
    // there; the tolerance only adds what the measurement adds (and the cold start on the first wait).
    const next = 2 ** (k + 1) * S;
    const high = upperBound(next, ctx.tolerance, k === 0);
    const afterAbandoned = run.attempts[k]?.outcome === 'abandoned';
    const lateMs = latenessAfter(run.attempts, k, ctx);
    const startLate = latenessAt(run.attempts[k]?.endedAt, ctx);
    const judged = boundedWait(wait, lowerBound(min, ctx.tolerance, afterAbandoned), high, lateMs, ctx.tolerance, startLate);
    const line = `wait ${k} was ${ms(wait)}, expected [${ms(min)}, ${ms(next)}) (${judged.bounds})`;
    if (judged.outcome === 'short' || judged.outcome === 'long') bad.push(line);
    if (judged.outcome === 'inconclusive') unjudged.push(line);
    jitter.push({ scenario: run.scenario, attempt: k, jitterSeconds: wait / S - 2 ** k, lateMs, ...(afterAbandoned ? { afterAbandoned } : {}) });
  });
  const detail = `waits ${waits.map((w) => ms(w)).join(', ')}${bad.length > 0 ? `: ${bad.join('; ')}` : ''}`;
  const check =
    bad.length > 0
      ? fail(ID.exponential, title, detail)
      : unjudged.length > 0
        ? inconclusive(ID.exponential, title, `${detail}: ${unjudged.join('; ')}: too late a machine to judge the upper bound`)
        : pass(ID.exponential, title, detail);
  return { check, jitter };
}

/** Sample standard deviation. */
function standardDeviation(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1));
}

/** Standard deviation (in seconds) below which the jitters count as constant. */
export const MIN_JITTER_SD = 0.11;

/** Fewest warm samples (waits after the second attempt on) the randomness check needs. */
export const MIN_JITTER_SAMPLES = 6;

/**
 * The floor test, beside the standard deviation: a timer never fires early, so the measuring noise of
 * a constant jitter only adds, and the waits it did not delay gather just above the smallest one;
 * on a loaded machine the delayed few can lift the standard deviation above MIN_JITTER_SD (the
 * no-jitter fixture passed it once at load ~15). When at least MIN_FLOOR_SAMPLES warm jitters were
 * measured and half or more of them lie within FLOOR_BAND_MS real ms of the smallest, the jitter is
 * constant. A uniform jitter in [0, 1) s at time scale 0.25 (a 60 ms band in document seconds) does
 * that with probability about 2e-3 at 10 samples and 4e-4 at 12 (simulated: 400,000 runs, with 10-30 %
 * of the waits delayed by up to 150-400 ms), while a constant jitter escapes it in 2 % of such runs.
 */
export const FLOOR_BAND_MS = 15;
export const MIN_FLOOR_SAMPLES = 10;

/**
 * D-CLIENT-TIMING: the most timer lateness measured at the two ends of a wait (lateness.ts) whose
 * jitter may enter the randomness statistics, as a fraction of a second of the document: 25 ms at
 * time scale 0.25, 100 ms in real time. Noise that looks like spread is lateness: a constant jitter
 * measured at moments no later than this spreads over at most a tenth of the [0, 1) s interval (a
 * standard deviation of at most 0.03-0.04 s of the document, far below MIN_JITTER_SD), while a
 * uniform jitter spreads over all of it.
 */
export const QUIET_LATE_FRACTION = 0.1;

/**
 * CLIENT-BACKOFF-JITTER over every backoff wait of the certification: each jitter lies in [0, 1)
 * second, the document's bound, widened only by the measuring tolerance and the lateness measured at
 * the wait's two ends (and the cold start on the first wait of a run); and the jitters are random over that
 * interval, not constant or confined to a sliver of it: the standard deviation of the jitters of waits
 * after attempt 1 on is at least 0.11 s (D-CLIENT-TIMING). A uniform jitter in [0, 1) has 0.29 s; 6
 * uniform samples fall below 0.11 s with probability about 1e-3. The first wait of each run is left
 * out of that statistic: it includes the client's cold start. So are the waits that ended while the
 * harness measured more than QUIET_LATE_FRACTION of a second of timer lateness: with fewer than MIN_JITTER_SAMPLES
 * quiet waits the randomness is inconclusive (certifyClient plays the backoff scenarios again).
 */
export function jitterChecks(samples: readonly JitterSample[], ctx: JudgeContext): Check[] {
  const rangeTitle = 'backoff jitter lies in [0, 1) second';
  const randomTitle = 'backoff jitter is random over [0, 1) second, not constant';
  if (samples.length === 0) {
    const why = 'no backoff wait was measured';
    return [skip(ID.jitter, rangeTitle, why), skip(ID.jitter, randomTitle, why)];
  }
  const S = ctx.msPerSecond;
  const judged = samples.map((s) => {
    const base = 2 ** s.attempt * S;
    const low = lowerBound(base, ctx.tolerance, s.afterAbandoned);
    return boundedWait(base + s.jitterSeconds * S, low, upperBound(base + S, ctx.tolerance, s.attempt === 0), s.lateMs, ctx.tolerance);
  });
  const outside = samples.filter((_, i) => judged[i]?.outcome === 'short' || judged[i]?.outcome === 'long');
  const unjudged = samples.filter((_, i) => judged[i]?.outcome === 'inconclusive');
  const list = samples.map((s) => s.jitterSeconds.toFixed(2)).join(', ');
  const warm = samples.filter((s) => s.attempt >= 1);
  const quietMs = Math.round(QUIET_LATE_FRACTION * S);
  const quiet = warm.filter((s) => s.lateMs <= quietMs).map((s) => s.jitterSeconds);
  const sd = quiet.length >= 2 ? standardDeviation(quiet) : 0;
  const band = FLOOR_BAND_MS / S;
  const floor = quiet.length > 0 ? Math.min(...quiet) : 0;
  const atFloor = quiet.filter((j) => j - floor < band).length;
  const gathered = quiet.length >= MIN_FLOOR_SAMPLES && atFloor * 2 >= quiet.length;
  const listed = `over ${quiet.length} jitters measured at quiet moments (${quiet.map((j) => j.toFixed(2)).join(', ')})`;
  const lateness = `lateness measured over the ${warm.length} warm waits (harness timers, client CPU wait): ${warm.map((s) => `${s.lateMs} ms`).join(', ')}`;
  const randomness =
    warm.length < MIN_JITTER_SAMPLES
      ? skip(ID.jitter, randomTitle, `only ${warm.length} waits after a second attempt were measured (${MIN_JITTER_SAMPLES} needed)`)
      : quiet.length < MIN_JITTER_SAMPLES
        ? inconclusive(
            ID.jitter,
            randomTitle,
            `only ${quiet.length} of ${warm.length} waits after a second attempt had at most ${quietMs} ms of lateness ` +
              `(${MIN_JITTER_SAMPLES} needed): ${lateness}`,
          )
        : sd < MIN_JITTER_SD
          ? fail(
              ID.jitter,
              randomTitle,
              `the jitters are constant or confined to a narrow band: standard deviation ${sd.toFixed(3)} s (< ${MIN_JITTER_SD} s; a uniform jitter ` +
                `in [0, 1) s has 0.29 s) ${listed}`,
            )
          : gathered
            ? fail(
                ID.jitter,
                randomTitle,
                `the jitters are constant, lifted by measuring delays: ${atFloor} of ${quiet.length} lie within ${FLOOR_BAND_MS} ms of the smallest ` +
                  `(${floor.toFixed(2)} s) ${listed}`,
              )
            : pass(
                ID.jitter,
                randomTitle,
                `standard deviation ${sd.toFixed(3)} s, ${atFloor} of ${quiet.length} within ${FLOOR_BAND_MS} ms of the smallest, ${listed}`,
              );
  const range =
    outside.length > 0
      ? fail(
          ID.jitter,
          rangeTitle,
          `jitters outside [0, 1) s (measuring tolerance ${ctx.tolerance.lateMs} ms, plus the lateness measured at each): ` +
            `${outside.map((s) => `${s.scenario} wait ${s.attempt}: ${s.jitterSeconds.toFixed(2)} (${s.lateMs} ms late)`).join('; ')}; all: ${list}`,
        )
      : unjudged.length > 0
        ? inconclusive(
            ID.jitter,
            rangeTitle,
            `jitters above 1 s at moments of more than ${ctx.tolerance.lateMs} ms of lateness: ` +
              `${unjudged.map((s) => `${s.scenario} wait ${s.attempt}: ${s.jitterSeconds.toFixed(2)} (${s.lateMs} ms late)`).join('; ')}; all: ${list}`,
          )
        : pass(ID.jitter, rangeTitle, `jitters (s): ${list}`);
  return [range, randomness];
}
