import { test, expect } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientCheckCommand } from '../client-check/command.ts';
import { readResults, resultsSchemaErrors } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import { certifyFixture, failureReport, fixtureCommand, idsWith, runClientCheck as runCli } from '../../client/tests/support/certify.ts';

test.describe.configure({ timeout: 120_000 });

/** Runs the command in-process with its console output captured, not printed. */
async function quietly(args: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const { log, error } = console;
  console.log = (...parts: unknown[]) => void lines.push(parts.join(' '));
  console.error = console.log;
  try {
    return { code: await clientCheckCommand(args), output: lines.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
  }
}

test.describe('client-check arguments', () => {
  const unusable: [string, string[]][] = [
    ['no --command', []],
    ['an empty --command', ['--command', '  ']],
    ['an unknown option', ['--command', 'true', '--fast']],
    ['a time scale of 0', ['--command', 'true', '--time-scale', '0']],
    ['a time scale above 1', ['--command', 'true', '--time-scale', '2']],
    ['an unknown scenario', ['--command', 'true', '--scenario', 'teapot-418']],
    ['a concurrency of 0', ['--command', 'true', '--concurrency', '0']],
  ];
  for (const [what, args] of unusable) {
    test(`${what} exits with 2`, async () => {
      const { code, output } = await quietly(args);
      expect(code).toBe(2);
      expect(output).toMatch(/^client-check: /);
    });
  }

  test('--help exits with 0 and lists every scenario', async () => {
    const { code, output } = await quietly(['--help']);
    expect(code).toBe(0);
    expect(output).toContain('links-follow');
  });

  test('a command that cannot be run exits with 2; results.json says why, with the stderr of the shell', async () => {
    const out = mkdtempSync(join(tmpdir(), 'hac-client-check-'));
    try {
      const { code, stderr } = await runCli(['--command', '/nonexistent/hac-client-adapter', '--out', out, '--scenario', 'bad-request-400']);
      expect(code).toBe(2);
      expect(stderr).toMatch(/exited with code 127 without its report line/);
      const results = readResults(join(out, 'results.json'));
      expect(results).toMatchObject({ complete: false, exitCode: 2 });
      expect(results.errors?.join('\n')).toMatch(/hac-client-adapter: not found|No such file/);
      expect(idsWith(results, 'failed')).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

test('--json prints results.json, and unselected requirements are skipped', async () => {
  const out = mkdtempSync(join(tmpdir(), 'hac-client-check-'));
  try {
    const { code, stdout } = await runCli([
      '--command', fixtureCommand('reference-client.ts'), '--out', out, '--scenario', 'bad-request-400', '--scenario', 'validation-422', '--json',
    ]);
    const printed = JSON.parse(stdout) as RunResults;
    expect(resultsSchemaErrors(printed)).toEqual([]);
    const written = readResults(join(out, 'results.json'));
    expect(printed).toEqual(written);
    expect(code).toBe(0);
    expect(printed.target).toMatchObject({ scenarios: ['bad-request-400', 'validation-422'] });
    expect(idsWith(printed, 'passed')).toEqual([
      'CLIENT-BEARER-EVERY-REQUEST', 'CLIENT-IDEMPOTENCY-KEY-PER-OPERATION', 'CLIENT-NO-RETRY-400-422', 'CLIENT-SURFACE-LAST-RESPONSE',
    ]);
    expect(idsWith(printed, 'skipped')).toContain('CLIENT-ATTEMPT-CAP');
    expect(printed.requirements.find((r) => r.id === 'CLIENT-ATTEMPT-CAP')?.reason).toBe('no selected scenario checks this requirement');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('a client that does not report the requested time scale is certified in real time with a warning', async () => {
  const started = performance.now();
  const { results, warnings } = await certifyFixture('real-time-client.ts', { scenarios: ['retry-after-delta', 'bad-request-400'] });
  expect(warnings.join('\n')).toMatch(/reported timeScale 1 for HAC_TIME_SCALE=0.25: .*certified in real time/);
  expect(results.target).toMatchObject({ timeScale: 1, requestedTimeScale: 0.25 });
  expect(idsWith(results, 'failed'), failureReport(results)).toEqual([]);
  expect(idsWith(results, 'passed')).toContain('CLIENT-RETRY-AFTER');
  // Retry-After 3-5 s, then 1 s twice, waited in real time.
  expect(performance.now() - started).toBeGreaterThan(5000);
});

test('an adapter that exits 1 at once makes the command unusable (exit 2), not a failing client, and its stderr is shown and kept', async () => {
  const out = mkdtempSync(join(tmpdir(), 'hac-client-check-'));
  try {
    const crash = `node -e "console.error('boom: adapter crashed'); process.exit(1)"`;
    const { code, stdout, stderr } = await runCli(['--command', crash, '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain('boom: adapter crashed');
    expect(stdout).not.toMatch(/FAIL/);
    const results = readResults(join(out, 'results.json'));
    expect(results).toMatchObject({ complete: false, exitCode: 2 });
    expect(results.summary.failed).toBe(0);
    expect(results.errors?.join('\n')).toMatch(/scenario bad-request-400: the adapter exited with code 1 without its report line .*boom: adapter crashed/s);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('an adapter that crashes or prints garbage in some scenarios gives an incomplete run (exit 1); those scenarios are not judged', async () => {
  const reference = fixtureCommand('reference-client.ts');
  const command = `case "$HAC_SCENARIO" in links-follow) echo 'boom in links' >&2; exit 1;; post-first-try) echo this-is-not-json;; *) exec ` +
    `${reference};; esac`;
  const { results, runs } = await certifyFixture('reference-client.ts', {
    command,
    scenarios: ['bad-request-400', 'links-follow', 'post-first-try', 'validation-422'],
  });
  expect(results.complete).toBe(false);
  expect(results.exitCode).toBe(1);
  expect(idsWith(results, 'failed'), failureReport(results)).toEqual([]);
  expect(results.errors).toHaveLength(2);
  expect(results.errors?.join('\n')).toMatch(/scenario links-follow: the adapter exited with code 1 .*boom in links/);
  expect(results.errors?.join('\n')).toMatch(/scenario post-first-try: .*not JSON: this-is-not-json/);
  // The crashed scenarios are not judged: LINKS-FOLLOWED has no check left.
  expect(results.requirements.find((r) => r.id === 'CLIENT-LINKS-FOLLOWED')?.outcome).toBe('skipped');
  expect(runs.map((r) => r.scenario).sort()).toEqual(['bad-request-400', 'validation-422']);
});
