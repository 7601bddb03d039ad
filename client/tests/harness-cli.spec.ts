import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientCheckCommand } from '../harness/check-command.ts';
import { readResults, resultsSchemaErrors } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import { certifyFixture, fixtureCommand, idsWith, ROOT } from './support/certify.ts';

test.describe.configure({ timeout: 120_000 });

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/http-api-conformance.js'), 'client-check', ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

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

  test('a command that cannot be run exits with 2 and writes no results', async () => {
    const out = mkdtempSync(join(tmpdir(), 'hac-client-check-'));
    try {
      const { code, stderr } = await runCli(['--command', '/nonexistent/hac-client-adapter', '--out', out, '--scenario', 'bad-request-400']);
      expect(code).toBe(2);
      expect(stderr).toMatch(/could not be run \(exit 127\)/);
      expect(existsSync(join(out, 'results.json'))).toBe(false);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

test('--json prints results.json, and unselected requirements are skipped', async () => {
  const out = mkdtempSync(join(tmpdir(), 'hac-client-check-'));
  try {
    const { code, stdout } = await runCli(['--command', fixtureCommand('reference-client.ts'), '--out', out, '--scenario', 'bad-request-400', '--scenario', 'validation-422', '--json']);
    const printed = JSON.parse(stdout) as RunResults;
    expect(resultsSchemaErrors(printed)).toEqual([]);
    const written = readResults(join(out, 'results.json'));
    expect(printed).toEqual(written);
    expect(code).toBe(0);
    expect(printed.target).toMatchObject({ scenarios: ['bad-request-400', 'validation-422'] });
    expect(idsWith(printed, 'passed')).toEqual(['CLIENT-BEARER-EVERY-REQUEST', 'CLIENT-IDEMPOTENCY-KEY-PER-OPERATION', 'CLIENT-NO-RETRY-400-422', 'CLIENT-SURFACE-LAST-RESPONSE']);
    expect(idsWith(printed, 'skipped')).toContain('CLIENT-ATTEMPT-CAP');
    expect(printed.requirements.find((r) => r.id === 'CLIENT-ATTEMPT-CAP')?.reason).toBe('no selected scenario checks this requirement');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('a client that ignores the time scale is certified in real time with a warning', async () => {
  const started = performance.now();
  const { results, warnings } = await certifyFixture('real-time-client.ts', { scenarios: ['retry-after-delta', 'bad-request-400'] });
  expect(warnings.join('\n')).toMatch(/ignores HAC_TIME_SCALE=0.25 .*certifying in real time/);
  expect(results.target).toMatchObject({ timeScale: 1, requestedTimeScale: 0.25 });
  expect(idsWith(results, 'failed')).toEqual([]);
  expect(idsWith(results, 'passed')).toContain('CLIENT-RETRY-AFTER');
  // Retry-After: 3 was waited twice in real time (detection, then the real-time run).
  expect(performance.now() - started).toBeGreaterThan(6000);
});

test('an adapter that prints no JSON fails the checks that need its output', async () => {
  const { results, runs } = await certifyFixture('plain-fetch.mjs', { command: 'echo this-is-not-json', scenarios: ['bad-request-400'] });
  expect(runs[0]?.adapter.outputError).toMatch(/not JSON/);
  expect(idsWith(results, 'failed')).toEqual(['CLIENT-NO-RETRY-400-422', 'CLIENT-SURFACE-LAST-RESPONSE']);
  expect(results.exitCode).toBe(1);
});
