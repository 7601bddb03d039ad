/**
 * The CLI refuses what it cannot test: an unreachable target, a silent one, one
 * that does not speak HTTP, an unusable profile or bad options all exit 2 with a clear message,
 * quickly, and never leave a results.json that claims success.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { readResults } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import { closedPortUrl, garbageServer, silentServer } from '../../conformance/tests/support/bad-targets.ts';
import { PACKAGE_ROOT, runCli, tempOut } from '../../conformance/tests/support/subprocess.ts';

const REFERENCE_PROFILE = join(PACKAGE_ROOT, 'fixtures', 'profiles', 'reference.json');

/** results.json of a refused run: present, incomplete, exit code 2. */
function expectRefusedResults(out: string): RunResults {
  const file = join(out, 'results.json');
  expect(existsSync(file)).toBe(true);
  const results = readResults(file);
  expect(results.complete).toBe(false);
  expect(results.exitCode).toBe(2);
  expect(results.requirements.some((r) => r.outcome === 'passed')).toBe(false);
  return results;
}

test('a --target without --profile exits 2 before any request, naming --profile and init (D-PROFILE)', { tag: ['@cli'] }, async () => {
  const url = await closedPortUrl();
  const out = tempOut('no-profile');
  const run = await runCli(['--target', url, '--out', out], {}, 30_000);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('needs --profile FILE');
  expect(run.stderr).toContain('http-api-conformance init');
  expect(run.stderr).not.toContain('unreachable');
  expectRefusedResults(out);
});

test('a closed port exits 2 within 10 seconds, naming the refused connection', { tag: ['@cli'] }, async () => {
  const url = await closedPortUrl();
  const out = tempOut('closed');
  const run = await runCli(['--profile', REFERENCE_PROFILE, '--target', url, '--out', out], {}, 30_000);
  expect(run.code).toBe(2);
  expect(run.elapsedMs).toBeLessThan(10_000);
  expect(run.stderr).toContain('unreachable');
  expect(run.stderr).toContain('connection refused');
  expect(expectRefusedResults(out).errors?.join('\n')).toContain(new URL(url).host);
});

test('a target that accepts connections but never answers exits 2 after the 5 s probe', { tag: ['@cli'] }, async () => {
  const target = await silentServer();
  try {
    const out = tempOut('silent');
    const run = await runCli(['--profile', REFERENCE_PROFILE, '--target', target.url, '--out', out], {}, 40_000);
    expect(run.code).toBe(2);
    // The probe waits 5 s; the process start adds a little, a hang would hit the 40 s kill.
    expect(run.elapsedMs).toBeGreaterThanOrEqual(5_000);
    expect(run.elapsedMs).toBeLessThan(15_000);
    expect(run.stderr).toContain('no HTTP response');
    expectRefusedResults(out);
  } finally {
    await target.close();
  }
});

test('a target answering with bytes that are not HTTP exits 2', { tag: ['@cli'] }, async () => {
  const target = await garbageServer();
  try {
    const out = tempOut('garbage');
    const run = await runCli(['--profile', REFERENCE_PROFILE, '--target', target.url, '--out', out], {}, 30_000);
    expect(run.code).toBe(2);
    expect(run.elapsedMs).toBeLessThan(10_000);
    expect(run.stderr).toContain('did not answer with HTTP');
    expectRefusedResults(out);
  } finally {
    await target.close();
  }
});

test('a profile violating the schema exits 2 naming each bad field', { tag: ['@cli'] }, async () => {
  const out = tempOut('bad-profile');
  const profile = join(out, 'bad-profile.json');
  writeFileSync(profile, JSON.stringify({ name: 'broken', baseUrls: ['http://127.0.0.1:1'], tokens: { valid: 5 }, protected: { method: 'GET', path: '/me' } }));
  const run = await runCli(['--profile', profile, '--out', out], {}, 30_000);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('/tokens/valid');
  expect(run.stderr).toContain('collections');
  expectRefusedResults(out);
});

test('a profile that is not JSON exits 2', { tag: ['@cli'] }, async () => {
  const out = tempOut('not-json');
  const profile = join(out, 'profile.json');
  writeFileSync(profile, '{ "name": "half');
  const run = await runCli(['--profile', profile, '--out', out], {}, 30_000);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('not valid JSON');
});

test('a missing profile file exits 2', { tag: ['@cli'] }, async () => {
  const out = tempOut('missing');
  const run = await runCli(['--profile', join(out, 'nope.json'), '--out', out], {}, 30_000);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('ENOENT');
});

test('unknown options and reporters exit 2 with the usage', { tag: ['@cli'] }, async () => {
  const unknown = await runCli(['--colour', 'blue'], {}, 30_000);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('usage: http-api-conformance run');
  const reporter = await runCli(['--reporter', 'tap'], {}, 30_000);
  expect(reporter.code).toBe(2);
  expect(reporter.stderr).toContain('--reporter must be one of list, html, junit, json');
  const target = await runCli(['--target', 'ftp://example.com'], {}, 30_000);
  expect(target.code).toBe(2);
  for (const bad of ['0', 'two', '2.5', '65']) {
    const workers = await runCli(['--workers', bad], {}, 30_000);
    expect(workers.code, `--workers ${bad}`).toBe(2);
    expect(workers.stderr).toContain(`--workers must be a whole number from 1 to 64 (got "${bad}")`);
  }
});

test('--help prints the options and exits 0', { tag: ['@cli'] }, async () => {
  const run = await runCli(['--help'], {}, 30_000);
  expect(run.code).toBe(0);
  for (const option of ['--target', '--profile', '--grep', '--strict', '--reporter', '--out', '--workers']) expect(run.stdout).toContain(option);
});
