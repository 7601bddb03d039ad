/**
 * The broken-variant meta-test's judgement of an inconclusive run (fixtures/broken/check.ts,
 * `inconclusiveVariants`): a variant only a state model sequence catches, missed in a run whose model was
 * stopped by its time budget, is played again instead of reported as missed; every other miss stands.
 */
import { test, expect } from '@playwright/test';
import { inconclusiveVariants } from '../../fixtures/broken/check.ts';
import { BUDGET_STOPPED, TIME_BUDGET_MS } from '../state/run.ts';
import type { RunResults, TestRecord } from '../../spec/results.ts';

const STATE_CHECK = 'conformance/suite/state.spec.ts:28';

/** A run's results where IDEMPOTENCY-REPLAY passed by the check at `location` with `notes`. */
function resultsOf(location: string, notes: string[]): { results: RunResults } {
  const record: TestRecord = { title: 'state holds over model-based sequences on one instance', location, status: 'passed', durationMs: 12_000, notes };
  const results = {
    requirements: [{ id: 'IDEMPOTENCY-REPLAY', level: 'MUST', outcome: 'passed', tests: [record] }],
  } as unknown as RunResults;
  return { results };
}

const stoppedNote = `3 sequence(s) (${BUDGET_STOPPED} of ${TIME_BUDGET_MS / 1000} s, of 50) of up to 20 commands, 41 request(s), over orders (3)`;
const fullNote = '50 sequence(s) of up to 20 commands, 612 request(s), over orders (50)';
const missed = [{ id: 'IDEMPOTENCY-REPLAY', outcome: 'passed' }];

test('a model-caught variant missed while the time budget stopped the model is played again', () => {
  const variants = [{ name: 'replay-reads-current', caughtBy: 'model' as const }];
  const outcomes = [{ variant: 'replay-reads-current', missed }];
  const stopped = new Map([['replay-reads-current', resultsOf(STATE_CHECK, [stoppedNote])]]);
  expect(inconclusiveVariants(variants, outcomes, stopped)).toEqual(['replay-reads-current']);
  // In a compiled build the state spec is `.js` under .cache/compiled-cli/<hash>/.
  const compiled = new Map([['replay-reads-current', resultsOf(`.cache/compiled-cli/0123/${STATE_CHECK.replace('.ts', '.js')}`, [stoppedNote])]]);
  expect(inconclusiveVariants(variants, outcomes, compiled)).toEqual(['replay-reads-current']);
});

test('every other miss stands: all sequences ran, another catcher, another check stopped, or nothing missed', () => {
  const model = [{ name: 'v', caughtBy: 'model' as const }];
  const outcomes = [{ variant: 'v', missed }];
  expect(inconclusiveVariants(model, outcomes, new Map([['v', resultsOf(STATE_CHECK, [fullNote])]])), 'every sequence ran').toEqual([]);
  const stopped = new Map([['v', resultsOf(STATE_CHECK, [stoppedNote])]]);
  expect(inconclusiveVariants([{ name: 'v', caughtBy: 'traffic' }], outcomes, stopped), 'caught by the response rules').toEqual([]);
  expect(inconclusiveVariants([{ name: 'v' }], outcomes, stopped), 'no declared catcher').toEqual([]);
  const elsewhere = new Map([['v', resultsOf('conformance/suite/properties.spec.ts:40', [stoppedNote])]]);
  expect(inconclusiveVariants(model, outcomes, elsewhere), 'the note is not the state check\'s').toEqual([]);
  expect(inconclusiveVariants(model, [{ variant: 'v', missed: [] }], stopped), 'nothing missed').toEqual([]);
  expect(inconclusiveVariants(model, outcomes, new Map()), 'no results').toEqual([]);
});
