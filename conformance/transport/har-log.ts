/**
 * The worker's side of `run --har FILE` (D-HAR): while HAC_HAR_DIR is set, every exchange of the
 * running test is kept, and when the test ends its HAR entries (conformance/transport/har.ts) are
 * appended to this worker's part file, commented with the test's requirement IDs and title. The
 * exchange a failure is about is commented `FAILED`.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runEnvironment } from '../run-environment.ts';
import { harComment, harEntryOf } from './har.ts';
import type { HarSource } from './har.ts';

/** Exchanges of one test kept for the HAR; a test sending more keeps its last ones (the rate-limit bursts stay far below). */
const KEPT = 5000;
let recorded: HarSource[] = [];

let recording: boolean | undefined;

/** Whether this run writes a HAR (read once per worker). */
export function harRecording(): boolean {
  return (recording ??= runEnvironment().harDir !== undefined);
}

/** Keeps one answered exchange of the running test (transport/exchange-log.ts calls it). */
export function recordForHar(source: HarSource): void {
  recorded.push(source);
  if (recorded.length > KEPT) recorded = recorded.slice(-KEPT);
}

/**
 * Appends the running test's exchanges to this worker's part file and forgets them. `failed`: the
 * request object of the exchange the test's failure is about, when it failed.
 */
export function flushHar(ids: readonly string[], title: string, failed?: object): void {
  const { harDir, harSecrets } = runEnvironment();
  const list = recorded;
  recorded = [];
  if (harDir === undefined || list.length === 0) return;
  // The failing exchange is the evidence's own request object: two requests to one URL are never confused.
  const failedIndex = failed ? list.findLastIndex((s) => s.request === failed) : -1;
  const lines = list.map((source, index) => JSON.stringify(harEntryOf(source, harComment(ids, title, index === failedIndex), harSecrets)));
  mkdirSync(harDir, { recursive: true });
  appendFileSync(join(harDir, `worker-${process.pid}.jsonl`), `${lines.join('\n')}\n`);
}

/** Forgets the exchanges kept (a test starts). */
export function clearHar(): void {
  recorded = [];
}
