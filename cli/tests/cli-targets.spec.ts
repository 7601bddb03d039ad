/**
 * The CLI against real servers (README, "Certify your server"): the stub answering `200 {}` to everything
 * fails most MUSTs and exits 1, the independent widgets API passes the generic checks through its own
 * profile with the example-API group skipped for a reason, `--grep` selects one requirement and
 * `--reporter junit` writes a JUnit file. That the embedded reference server passes every testable MUST
 * is the README's `npm run conformance` (conformance/tests/readme-commands.spec.ts): one whole run of
 * it, not two.
 *
 * The runs share the machine's two cores, so they run one after another in one worker.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { start as startStub } from '../../fixtures/stub-200/server.ts';
import { start as startWidgets } from '../../fixtures/widgets-api/server.ts';
import { serverRequirements } from '../../spec/catalogue.ts';
import { readResults as readResultsFile } from '../../spec/results.ts';
import type { RunResults } from '../../spec/results.ts';
import { withServer } from '../../conformance/tests/support/servers.ts';
import { listSuite } from '../../conformance/tests/support/suite-list.ts';
import { PACKAGE_ROOT, runCli, tempOut } from '../../conformance/tests/support/subprocess.ts';

test.describe.configure({ mode: 'default', timeout: 240_000 });

const WIDGETS_PROFILE = join(PACKAGE_ROOT, 'fixtures', 'profiles', 'widgets.json');
const REFERENCE_PROFILE = join(PACKAGE_ROOT, 'fixtures', 'profiles', 'reference.json');

/** The run's results.json, checked against results.schema.json. */
function readResults(out: string): RunResults {
  return readResultsFile(join(out, 'results.json'));
}

/** The CLI's output, attached to the report when an assertion fails. */
function explain(run: { stdout: string; stderr: string }): string {
  return `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`;
}

test('against a stub answering 200 {} the smoke run exits 1 with most MUSTs failed', { tag: ['@cli'] }, async () => {
  // Playwright restarts a worker after every failed test, so a run where nearly everything fails is
  // the slowest there is: the fast @smoke subset keeps this test short (the full run's time is measured
  // by bench/phases/suite-time.ts).
  // The reference profile without the features a stub cannot provide (fault injection, extra rate-limit
  // tokens, a declared plan): with them the run stops before the suite with exit 2 naming the first
  // (conformance/target/verify-features.ts, tested in verify-features.spec.ts).
  const profile = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as {
    $schema?: string; tokens: Record<string, unknown>; features: Record<string, unknown>; rateLimit?: unknown;
  };
  delete profile.$schema;
  delete profile.features.faultInjection;
  delete profile.tokens.rateLimitPool;
  delete profile.tokens.rateLimitSlow;
  delete profile.rateLimit;
  const stubProfile = join(tempOut('stub-profile'), 'stub.json');
  writeFileSync(stubProfile, JSON.stringify(profile));
  await withServer(() => startStub(0), async (url) => {
    const out = tempOut('stub');
    const run = await runCli(['--profile', stubProfile, '--target', url, '--grep', '@smoke', '--out', out], {}, 220_000);
    const results = readResults(out);
    expect(run.code, explain(run)).toBe(1);
    expect(results.exitCode).toBe(1);
    expect(results.complete, explain(run)).toBe(true);
    const ran = results.requirements.filter((r) => r.level === 'MUST' && r.outcome !== 'skipped');
    const failed = ran.filter((r) => r.outcome === 'failed');
    test.info().annotations.push({ type: 'measured', description: `${failed.length} of ${ran.length} MUSTs that ran failed` });
    expect(ran.length).toBeGreaterThan(5);
    expect(failed.length / ran.length).toBeGreaterThanOrEqual(0.7);
    expect(run.stdout).toContain('FAIL');
  });
});

test('the widgets API passes the generic checks; the example-API group is skipped with its reason', { tag: ['@cli'] }, async () => {
  const { tests } = await listSuite();
  const exampleOnly = new Set(tests.filter((t) => t.tags.includes('@example-api')).flatMap((t) => t.requirementIds));
  for (const t of tests) if (!t.tags.includes('@example-api')) for (const id of t.requirementIds) exampleOnly.delete(id);

  await withServer(() => startWidgets(0), async (url) => {
    const out = tempOut('widgets');
    const run = await runCli(['--profile', WIDGETS_PROFILE, '--target', url, '--out', out], {}, 200_000);
    const results = readResults(out);
    const failed = results.requirements.filter((r) => r.outcome === 'failed').map((r) => `${r.id}: ${r.reason ?? ''}`);
    expect(failed, 'failed requirements').toEqual([]);
    expect(results.complete, explain(run)).toBe(true);
    expect(run.code).toBe(0);
    expect(results.target.baseUrls).toEqual([url]);

    const listed = new Set(results.requirements.map((r) => r.id));
    const musts = serverRequirements().filter((r) => r.level === 'MUST');
    expect(musts.filter((r) => !listed.has(r.id)).map((r) => r.id), 'MUSTs missing from results.json').toEqual([]);

    expect(exampleOnly.size, 'requirements only the example-API group checks').toBeGreaterThan(0);
    for (const id of exampleOnly) {
      const result = results.requirements.find((r) => r.id === id);
      expect(result?.outcome, id).toBe('skipped');
      expect(result?.reason, id).toBeTruthy();
      expect(result?.reason, id).not.toBe('no test');
    }
  });
});

test('--grep selects one requirement and --reporter junit writes a JUnit file', { tag: ['@cli'] }, async () => {
  await withServer(() => startWidgets(0), async (url) => {
    const out = tempOut('junit');
    const run = await runCli(
      ['--profile', WIDGETS_PROFILE, '--target', url, '--grep', 'STATUS-404-UNKNOWN-ROUTE', '--reporter', 'junit', '--out', out],
      {},
      120_000,
    );
    expect(run.code, explain(run)).toBe(0);
    const junit = join(out, 'junit.xml');
    expect(existsSync(junit)).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites');
    expect(xml).toContain('STATUS-404-UNKNOWN-ROUTE');
    const results = readResults(out);
    expect(results.grep).toBe('STATUS-404-UNKNOWN-ROUTE');
    expect(results.requirements.find((r) => r.id === 'STATUS-404-UNKNOWN-ROUTE')?.outcome).toBe('passed');
    const other = results.requirements.find((r) => r.id === 'STATUS-404-UNKNOWN-RESOURCE');
    expect(other?.outcome).toBe('skipped');
    expect(other?.reason).toBe('not selected by --grep STATUS-404-UNKNOWN-ROUTE');
  });
});
