/**
 * The waits the suite does for the target: a 429's Retry-After, a RateLimit-Reset, a bucket's refill
 * (D-RUN-TIMING). Each is announced to an observer, which the suite's `waits` fixture sets to note it
 * on the running test (annotation WAIT_ANNOTATION), so results.json can say where a run's time went:
 * the longest wait, and which check waited it. Without an observer (outside a test) a wait is a delay.
 */
import { delay } from './http.ts';

/** Annotation type of a recorded wait: its description is `<ms> <why>`. */
export const WAIT_ANNOTATION = 'hac-wait';

let observer: ((ms: number, why: string) => void) | undefined;

/** Sets (or clears) who hears of each wait. */
export function observeWaits(next: ((ms: number, why: string) => void) | undefined): void {
  observer = next;
}

/** Waits `ms` milliseconds for the target (nothing when `ms` ≤ 0) and announces how long it took and why. */
export async function waitFor(ms: number, why: string): Promise<void> {
  if (ms <= 0) return;
  const started = performance.now();
  await delay(ms);
  observer?.(Math.round(performance.now() - started), why);
}
