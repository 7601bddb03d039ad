/**
 * The state model (D-STATE-MODEL): what its rules accept and refuse, how a failure is reported under the
 * one rule it broke, and that the printed replay line runs exactly the shrunk sequence again.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { readResults } from '../../spec/results.ts';
import { runCli, tempOut } from './support/subprocess.ts';
import { judgeListing, judgeOtherRead, judgeRead, judgeReplay } from '../state/model.ts';
import type { ModelItem, StateModel } from '../state/model.ts';
import { runStateModel, statePlans } from '../state/run.ts';
import { recordsByRequirement } from '../report/test-record.ts';
import { Target } from '../support/target.ts';
import { VARIANTS } from '../../fixtures/broken/index.ts';
import { REFERENCE, startVariant } from '../../fixtures/broken/start.ts';
import type { BrokenVariant } from '../../fixtures/broken/variant.ts';
import type { StatePlan } from '../state/commands.ts';

function item(members: Partial<ModelItem> = {}): ModelItem {
  return { path: '/users/7', id: 7, sent: { name: 'ann' }, answered: { id: 7, name: 'ann' }, live: true, lastWrite: 'POST', createdAt: 0, ...members };
}

function model(items: ModelItem[]): StateModel {
  return { items, spent: { requests: 0, max: 100, longListings: new Set() } };
}

test.describe('the rules', () => {
  test('a read of a live item shows what its last write was answered with; a member it leaves out is not judged', () => {
    expect(judgeRead(item(), 200, { id: 7, name: 'ann', createdAt: 'x' })).toBeUndefined();
    expect(judgeRead(item(), 200, { id: 7 })).toBeUndefined();
    expect(judgeRead(item(), 200, { id: 7, name: 'bob' })?.rule).toBe('STATE-CHANGES-SEEN');
    expect(judgeRead(item(), 404, undefined)?.expected).toMatch(/^200 with the item/);
    // The server's normalised answer wins over what was sent (an email lowercased, say).
    expect(judgeRead(item({ sent: { email: 'A@x' }, answered: { email: 'a@x' } }), 200, { email: 'a@x' })).toBeUndefined();
  });

  test('a deleted item is 404, whatever else it answers', () => {
    const gone = item({ live: false, lastWrite: 'DELETE', deletedAt: 0 });
    expect(judgeRead(gone, 404, undefined)).toBeUndefined();
    expect(judgeRead(gone, 200, { id: 7, name: 'ann' })?.expected).toMatch(/^404: the item was deleted/);
    expect(judgeRead(gone, 410, undefined)?.rule).toBe('STATE-CHANGES-SEEN');
  });

  test('a whole listing holds every settled live item and no deleted one; a part of one is judged on what it shows', () => {
    const live = item({ createdAt: 1_000 });
    const gone = item({ path: '/users/8', id: 8, live: false, deletedAt: 1_000 });
    const whole = (listed: string[]) => ({ listed, complete: true, newestFirst: false });
    const part = (listed: string[]) => ({ listed, complete: false, newestFirst: false });
    expect(judgeListing(model([live, gone]), whole(['7']), 0, 1_000)).toBeUndefined();
    expect(judgeListing(model([live]), whole([]), 0, 1_000)?.rule).toBe('COLLECTION-LISTS-LIVE-ITEMS');
    expect(judgeListing(model([live]), part([]), 0, 1_000)).toBeUndefined();
    expect(judgeListing(model([gone]), part(['8']), 0, 1_000)?.expected).toMatch(/no deleted item/);
    // collections[].listedWithinMs: an item younger than the declared lag may be missing, an older one may not.
    expect(judgeListing(model([live]), whole([]), 500, 1_400)).toBeUndefined();
    expect(judgeListing(model([live]), whole([]), 500, 1_500)?.rule).toBe('COLLECTION-LISTS-LIVE-ITEMS');
  });

  test('a part of a listing asked newest first must show every item newer than one it shows, when it shows them in that order', () => {
    const first = item({ path: '/users/1', id: 1 });
    const second = item({ path: '/users/2', id: 2 });
    const third = item({ path: '/users/3', id: 3 });
    const part = (listed: string[]) => ({ listed, complete: false, newestFirst: true });
    expect(judgeListing(model([first, second, third]), part(['3', '2', '1', '99']), 0, 0)).toBeUndefined();
    expect(judgeListing(model([first, second, third]), part(['3', '1']), 0, 0)?.expected).toBe('every live item, /users/2 included');
    // Nothing shown: the part may end before the model's items.
    expect(judgeListing(model([first, second]), part(['99', '98']), 0, 0)).toBeUndefined();
    // Shown oldest first: the declared order does not hold, so the part proves nothing.
    expect(judgeListing(model([first, second, third]), part(['1', '3']), 0, 0)).toBeUndefined();
  });

  test('a replay is the stored result while the item lives, and the stored result or a 4xx once it is gone', () => {
    const stored = { key: 'k', body: {}, status: 201, json: { id: 7, name: 'ann' } };
    const keyed = { ...item(), stored };
    expect(judgeReplay(keyed, 201, { id: 7, name: 'ann' })).toBeUndefined();
    expect(judgeReplay(keyed, 201, { id: 7, name: 'bob' })?.rule).toBe('IDEMPOTENCY-REPLAY');
    expect(judgeReplay(keyed, 409, {})?.rule).toBe('IDEMPOTENCY-REPLAY');
    const gone = { ...keyed, live: false };
    expect(judgeReplay(gone, 409, {})).toBeUndefined();
    expect(judgeReplay(gone, 201, { id: 7, name: 'ann' })).toBeUndefined();
    expect(judgeReplay(gone, 201, { id: 9, name: 'ann' })?.expected).toMatch(/or a 4xx/);
  });

  test('another caller is refused an owned item with 403 or 404', () => {
    expect(judgeOtherRead(404)).toBeUndefined();
    expect(judgeOtherRead(403)).toBeUndefined();
    expect(judgeOtherRead(200)?.rule).toBe('AUTH-OWNER-ONLY');
  });
});

test('a failure that names the rule it broke fails that requirement alone; the check passes its other IDs', () => {
  const check = { annotations: [], tags: ['@STATE-CHANGES-SEEN', '@IDEMPOTENCY-REPLAY', '@property'] };
  const failed = { title: 'state', status: 'failed' as const, durationMs: 5, error: 'x' };
  const byId = new Map(recordsByRequirement(check, { annotations: [{ type: 'broke', description: 'IDEMPOTENCY-REPLAY' }] }, failed));
  expect(byId.get('IDEMPOTENCY-REPLAY')?.status).toBe('failed');
  expect(byId.get('STATE-CHANGES-SEEN')).toEqual({ title: 'state', status: 'passed', durationMs: 5 });
  // Without the annotation every declared ID carries the failure, as for any other check.
  expect(new Map(recordsByRequirement(check, { annotations: [] }, failed)).get('STATE-CHANGES-SEEN')?.status).toBe('failed');
});

/** Runs `runs` sequences against `variant` started in-process, with the plans of its profile. */
async function onVariant<T>(variant: BrokenVariant, use: (targets: Target[], plans: StatePlan[], other?: string) => Promise<T>): Promise<T> {
  const running = await startVariant(variant);
  try {
    const { profile } = running;
    const planned = statePlans(profile);
    if ('skip' in planned) throw new Error(planned.skip);
    return await use(profile.baseUrls.map((url) => new Target(profile, url)), planned.plans, profile.tokens.other);
  } finally {
    await running.close();
  }
}

test('the reference server keeps the model on one instance', async () => {
  const outcome = await onVariant(REFERENCE, (targets, plans, other) => runStateModel(targets, plans, 40, other));
  expect(outcome.failure?.message).toBeUndefined();
  expect(outcome.covered).toMatch(/^40 sequence\(s\) of up to 20 commands, \d+ request\(s\), over /);
});

test('a replay built from the current item is found, shrunk to three requests, and its replay line runs the same sequence again', async () => {
  const variant = VARIANTS.find((v) => v.name === 'idempotency-replay-reads-current') as BrokenVariant;
  const saved = { ...process.env };
  try {
    const [first, again] = await onVariant(variant, async (targets, plans, other) => {
      // 100 sequences, not the check's 40: the defect needs a keyed create, a PUT and the key's replay in one sequence,
      // which 40 drew in all but 1 of the CI runs seen (found after sequence 1 to 17 otherwise); a test of the finding
      // and its replay line must not depend on that draw.
      const found = await runStateModel(targets, plans, 100, other, 'state holds over model-based sequences on one instance');
      const line = /replay: (.*)/.exec(found.failure?.message ?? '')?.[1] ?? '';
      for (const m of line.matchAll(/(HAC_FC_[A-Z]+)=(\S+)/g)) process.env[m[1] ?? ''] = m[2]?.replace(/^'|'$/g, '');
      return [found, await runStateModel(targets, plans, 100, other)] as const;
    });
    expect(first.failure?.rule).toBe('IDEMPOTENCY-REPLAY');
    const steps = (message: string | undefined): string[] =>
      (message ?? '').split('\n').filter((l) => /^ {2}\d+\. /.test(l)).map((l) => l.replace(/\/\d+/g, '/{id}').replace(/ {3}✗.*/, ''));
    expect(steps(first.failure?.message)).toEqual([
      '  1. POST /users with its Idempotency-Key @instance 0 as valid → 201',
      '  2. PUT /users/{id} @instance 0 as valid → 200',
      '  3. POST /users with its Idempotency-Key @instance 0 as valid → 201',
    ]);
    expect(first.failure?.message).toMatch(/replay: HAC_FC_SEED=-?\d+ HAC_FC_PATH=\S+ HAC_FC_COMMANDS=\S+ npx http-api-conformance run --grep /);
    expect(steps(again.failure?.message)).toEqual(steps(first.failure?.message));
  } finally {
    for (const name of ['HAC_FC_SEED', 'HAC_FC_PATH', 'HAC_FC_COMMANDS']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
});

test('a run keeps what the state model covered and assumed in results.json: across two instances, or on the one there is', async () => {
  for (const [embedded, ran, skipped] of [
    ['redis', 'state holds over model-based sequences across instances', 'state holds over model-based sequences on one instance'],
    ['memory', 'state holds over model-based sequences on one instance', 'state holds over model-based sequences across instances'],
  ] as const) {
    const out = tempOut('state-notes');
    try {
      const run = await runCli(['--grep', '@state', '--out', out], embedded === 'memory' ? { HAC_EMBEDDED: 'memory' } : {}, 120_000);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const results = readResults(join(out, 'results.json'));
      const checks = new Map(results.requirements.flatMap((r) => r.tests).map((t) => [t.title, t]));
      expect([...checks.keys()].sort(), embedded).toEqual([ran, skipped].sort());
      const notes = checks.get(ran)?.notes ?? [];
      expect(notes[0], embedded).toMatch(/^\d+ sequence\(s\).* of up to 20 commands, \d+ request\(s\), over (users|orders|payments|authors) \(\d+\)/);
      // The reference profile says which collections are owned, how they list newest first and that every POST takes a key:
      // the one assumption left is the listing's immediacy.
      expect(notes.slice(1), embedded).toEqual(['assumed: listings show a new item at once on every instance (collections[].listedWithinMs absent)']);
      expect(checks.get(skipped)?.status, embedded).toBe('skipped');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
});
