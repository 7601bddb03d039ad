/**
 * A failed fast-check property prints a replay line (conformance/support/replay.ts): HAC_FC_SEED and
 * HAC_FC_PATH as printed replay exactly the shrunk counterexample, and the command's --grep selects the
 * failing test by its title. HAC_SEED (the reference server's seed users) and HAC_PATH (the client
 * harness's request path) do not touch the replay: one meaning per name.
 */
import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { runEnvironment } from '../run-environment.ts';
import { assertProperty } from '../support/property.ts';
import { replayCommand, titlePattern } from '../support/replay.ts';
import { REFERENCE_PROFILE } from '../target/profile.ts';

/** The `NAME=value` words of a replay line, unquoted as a POSIX shell would. */
function assignments(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/(HAC_[A-Z_]+)=('(?:[^']|'\\'')*'|\S+)/g)) {
    const raw = m[2] ?? '';
    out[m[1] ?? ''] = raw.startsWith("'") ? raw.slice(1, -1).replace(/'\\''/g, "'") : raw;
  }
  return out;
}

async function failure(run: () => Promise<void>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('the property did not fail');
}

test('the printed HAC_FC_SEED and HAC_FC_PATH replay exactly the shrunk counterexample, and --grep selects this test', async () => {
  const saved = { ...process.env };
  try {
    delete process.env.HAC_FC_SEED;
    delete process.env.HAC_FC_PATH;
    const property = (seen: number[]) => () =>
      assertProperty('numbers stay below 1000', fc.integer({ min: 0, max: 1_000_000 }), async (n) => {
        seen.push(n);
        expect(n).toBeLessThan(1000);
      }, { runs: 200 });
    const first: number[] = [];
    const message = await failure(property(first));
    const line = /^ {2}replay: (.*)$/m.exec(message)?.[1] ?? '';
    expect(line).toMatch(/^HAC_FC_SEED=-?\d+ HAC_FC_PATH=\S+ npx http-api-conformance run --grep /);
    const env = assignments(line);
    expect(Object.keys(env).sort()).toEqual(['HAC_FC_PATH', 'HAC_FC_SEED']);
    const counterexample = /counterexample: (.*)$/m.exec(message)?.[1];
    expect(counterexample).toBe('1000');

    // Replay as printed; HAC_SEED and HAC_PATH set to their own meanings change nothing.
    Object.assign(process.env, env, { HAC_SEED: 'true', HAC_PATH: '/payments' });
    const replayed: number[] = [];
    const again = await failure(property(replayed));
    expect(/counterexample: (.*)$/m.exec(again)?.[1]).toBe(counterexample);
    expect(replayed[0]).toBe(1000);
    expect(replayed.length).toBeLessThan(first.length);

    const grep = /--grep ('(?:[^']|'\\'')*'|\S+)/.exec(line)?.[1] ?? '';
    const pattern = new RegExp(grep.startsWith("'") ? grep.slice(1, -1).replace(/'\\''/g, "'") : grep);
    expect(pattern.test(test.info().title)).toBe(true);
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
});

test('HAC_FC_SEED and HAC_FC_PATH are the replay; HAC_SEED and HAC_PATH are not read by the suite', () => {
  expect(runEnvironment({ HAC_FC_SEED: '-42', HAC_FC_PATH: '3:0:1' })).toMatchObject({ replaySeed: -42, replayPath: '3:0:1' });
  const other = runEnvironment({ HAC_SEED: 'true', HAC_PATH: '/payments' });
  expect(other.replaySeed).toBeUndefined();
  expect(other.replayPath).toBeUndefined();
});

test('the replay command quotes the title as a literal pattern and names a profile other than the reference one', () => {
  const title = "any (odd) title: it's 1.5 * [x]";
  expect(new RegExp(titlePattern(title)).test(`suite › ${title} @generic`)).toBe(true);
  const line = replayCommand({ seed: 7, path: '0:1', title, profileSource: '/my api/profile.json' });
  const grep = `'any \\(odd\\) title: it'\\''s 1\\.5 \\* \\[x\\]'`;
  expect(line).toBe(`HAC_FC_SEED=7 HAC_FC_PATH=0:1 npx http-api-conformance run --grep ${grep} --profile '/my api/profile.json'`);
  expect(replayCommand({ seed: 7, path: '0', title: 'plain', profileSource: REFERENCE_PROFILE })).toBe(
    'HAC_FC_SEED=7 HAC_FC_PATH=0 npx http-api-conformance run --grep plain',
  );
});
