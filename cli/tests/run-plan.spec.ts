/**
 * `run --plan FILE` (D-RUN-PLAN): several running targets in one suite process, each with its own
 * selection, results.json, report and verdict; the command exits with the worst. A target that cannot
 * run is that target's exit 2, and the others still run; an unusable plan stops before any target.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { readResults } from '../../spec/results.ts';
import { VARIANTS } from '../../fixtures/broken/index.ts';
import { REFERENCE, startVariant } from '../../fixtures/broken/start.ts';
import type { RunningVariant } from '../../fixtures/broken/start.ts';
import { closedPortUrl } from '../../conformance/tests/support/bad-targets.ts';
import { runCli, tempOut } from '../../conformance/tests/support/subprocess.ts';

const BROKEN = 'auth-401-no-challenge';

test('two targets and one that cannot run: each its own results.json, selection and verdict; the command exits with the worst', async () => {
  test.setTimeout(120_000);
  const broken = VARIANTS.find((v) => v.name === BROKEN);
  if (!broken) throw new Error(`no broken variant ${BROKEN}`);
  const running: RunningVariant[] = [];
  try {
    running.push(await startVariant(REFERENCE), await startVariant(broken));
    const [reference, variant] = running as [RunningVariant, RunningVariant];
    const dir = tempOut('run-plan');
    writeFileSync(join(dir, 'reference.json'), JSON.stringify(reference.profile));
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(variant.profile));
    writeFileSync(join(dir, 'down.json'), JSON.stringify({ ...reference.profile, baseUrls: [await closedPortUrl()] }));
    const plan = {
      targets: [
        { name: 'reference', profile: 'reference.json', grep: 'AUTH-WWW-AUTHENTICATE' },
        { name: 'broken', profile: 'broken.json', grep: '@AUTH-WWW-AUTHENTICATE', out: 'broken-results' },
        { name: 'down', profile: 'down.json' },
      ],
    };
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    const run = await runCli(['--plan', join(dir, 'plan.json'), '--out', join(dir, 'out')], { HAC_WORKERS: '2' });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(2);

    const passed = readResults(join(dir, 'out', 'reference', 'results.json'));
    expect(passed.exitCode).toBe(0);
    expect(passed.grep).toBe('AUTH-WWW-AUTHENTICATE');
    expect(passed.target).toMatchObject({ baseUrls: reference.profile.baseUrls, profile: join(dir, 'reference.json') });
    expect(passed.requirements.find((r) => r.id === 'AUTH-WWW-AUTHENTICATE')?.outcome).toBe('passed');
    // Only its own selection ran: a requirement outside it is not judged.
    expect(passed.requirements.find((r) => r.id === 'STATUS-404-UNKNOWN-ROUTE')?.outcome).toBe('skipped');

    const failed = readResults(join(dir, 'broken-results', 'results.json'));
    expect(failed.exitCode).toBe(1);
    expect(failed.target).toMatchObject({ baseUrls: variant.profile.baseUrls });
    expect(failed.requirements.find((r) => r.id === 'AUTH-WWW-AUTHENTICATE')?.outcome).toBe('failed');
    for (const out of [join(dir, 'out', 'reference'), join(dir, 'broken-results')]) {
      expect(existsSync(join(out, 'report.html')), `${out}/report.html`).toBe(true);
      expect(existsSync(join(out, 'badge.svg')), `${out}/badge.svg`).toBe(true);
    }

    const down = readResults(join(dir, 'out', 'down', 'results.json'));
    expect(down.exitCode).toBe(2);
    expect(down.errors?.join('\n')).toContain('plan target "down": target unreachable');
    expect(run.stdout).toContain(`== reference (${reference.profile.baseUrls[0]})`);
    expect(run.stdout).toContain(`== broken (${variant.profile.baseUrls[0]})`);
    expect(run.stdout).toContain('plan: 3 targets, exit 2 (the worst of theirs)');
    expect(run.stdout).toMatch(/ {2}reference: exit 0 \(.*results\.json\)\n {2}broken: exit 1 .*\n {2}down: exit 2, could not run/);
  } finally {
    await Promise.all(running.map((r) => r.close()));
  }
});

test('an unusable plan stops before any target, naming the problem and the fix', async () => {
  const dir = tempOut('run-plan-unusable');
  const file = join(dir, 'plan.json');
  writeFileSync(file, JSON.stringify({ targets: [{ name: 'a', profile: 'a.json' }, { name: 'a', profile: 'b.json' }] }));
  const twice = await runCli(['--plan', file, '--out', join(dir, 'out')]);
  expect(twice.code).toBe(2);
  expect(twice.stderr).toContain('names the target "a" twice: give each target a name of its own');

  writeFileSync(file, JSON.stringify({ targets: [{ name: '../a', profile: 'a.json' }] }));
  const invalid = await runCli(['--plan', file, '--out', join(dir, 'out')]);
  expect(invalid.code).toBe(2);
  expect(invalid.stderr).toContain('does not match spec/schemas/run-plan.schema.json');
  expect(invalid.stderr).toContain('/targets/0/name');

  writeFileSync(file, JSON.stringify({ targets: [{ name: 'a', profile: 'a.json', out: 'same' }, { name: 'b', profile: 'b.json', out: './same' }] }));
  const sameOut = await runCli(['--plan', file, '--out', join(dir, 'out')]);
  expect(sameOut.code).toBe(2);
  expect(sameOut.stderr).toContain('"a" and "b" write into the same directory');

  writeFileSync(file, JSON.stringify({ targets: [{ name: '../a', profile: 'a.json' }] }));
  const combined = await runCli(['--plan', file, '--grep', '@smoke']);
  expect(combined.code).toBe(2);
  expect(combined.stderr).toContain('--plan cannot be combined with --grep');
  expect(existsSync(join(dir, 'out', 'a')), 'no target directory was written').toBe(false);
  expect(readFileSync(file, 'utf8'), 'the plan file is left as it was').toContain('../a');
});
