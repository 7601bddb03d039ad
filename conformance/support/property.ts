/**
 * Runs a fast-check property against the target. A failure names the seed and path with the command
 * that replays exactly that case (HAC_FC_SEED and HAC_FC_PATH, support/replay.ts), the shrunk
 * counterexample, its exchange (with a curl command reproducing it) and why it failed. The exchange is
 * the failure's evidence (D-FINDINGS): shrinking sends passing cases after it, and a finding's headline
 * must name the counterexample's request, not the last one sent.
 */
import { test } from '@playwright/test';
import fc from 'fast-check';
import type { HttpResponse } from '../transport/message.ts';
import { exchangeText } from './problem.ts';
import { replayCommand } from './replay.ts';
import { runEnvironment } from '../run-environment.ts';
import { givenProfile } from '../run-plan.ts';

export interface PropertyOptions<T = unknown> {
  runs: number;
  /** Values checked before the generated ones (fast-check `examples`), e.g. the cases that must never be left to chance. */
  examples?: T[];
}

/**
 * Checks `check(value)` for generated values; `check` sends the request, returns its response and
 * throws when the response breaks the rule.
 */
export async function assertProperty<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  check: (value: T, record: (response: HttpResponse) => void) => Promise<void>,
  options: PropertyOptions<T>,
): Promise<void> {
  let lastFailing: { value: T; response?: HttpResponse; error: unknown } | undefined;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    let response: HttpResponse | undefined;
    try {
      await check(value, (r) => {
        response = r;
      });
    } catch (error) {
      lastFailing = { value, error, ...(response ? { response } : {}) };
      throw error;
    }
  });
  const { replaySeed: seed, replayPath: path } = runEnvironment();
  // D-RUN-PLAN: the profile of the target this worker tests (its project's, in a run with several).
  const profileSource = givenProfile(test.info().project)?.source;
  const details = await fc.check(property, {
    numRuns: options.runs,
    ...(options.examples && options.examples.length > 0 ? { examples: options.examples.map((example): [T] => [example]) } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(path ? { path } : {}),
  });
  if (!details.failed) return;
  const reason = lastFailing?.error instanceof Error ? lastFailing.error.message : String(lastFailing?.error ?? details.errorInstance);
  const counterexamplePath = details.counterexamplePath ?? '';
  const replay = replayCommand({ seed: details.seed, path: counterexamplePath, title: test.info().title, ...(profileSource ? { profileSource } : {}) });
  const lines = [
    `property "${name}" failed after ${details.numRuns} run(s) (shrunk ${details.numShrinks} time(s))`,
    `  seed: ${details.seed}  path: ${counterexamplePath}`,
    `  replay: ${replay}`,
    `  counterexample: ${fc.stringify(details.counterexample?.[0])}`,
    `  exchange: ${lastFailing?.response ? exchangeText(lastFailing.response) : '(no request was sent)'}`,
    `  reason: ${reason.split('\n').slice(0, 12).join('\n          ')}`,
  ];
  throw new Error(lines.join('\n'));
}
