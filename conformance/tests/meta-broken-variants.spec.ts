/**
 * The meta-test: the conformance suite passes the unmodified reference server and
 * fails every broken variant of fixtures/broken/, with the variant's declared requirement IDs among
 * the failed (or, for SHOULD IDs, warning) requirements of results.json, and every failure's recorded
 * exchange is the one its headline names (fixtures/broken/evidence.ts). Every variant is started, and
 * the CLI certifies them all in one `run --plan` (D-RUN-PLAN), each with its own profile, grep and
 * results.json, bounded in time; the table (variant, declared IDs, caught or not, what else failed) is
 * printed and attached.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { VARIANTS, grepOf } from '../../fixtures/broken/index.ts';
import type { BrokenVariant } from '../../fixtures/broken/index.ts';
import { checkVariants, formatTable, metaSettings } from '../../fixtures/broken/check.ts';
import { REFERENCE } from '../../fixtures/broken/start.ts';
import { redisAnswers, sharedRedisUrl } from '../../reference-impl/tools/redis-admin.ts';

const { planTimeoutMs } = metaSettings();

/** The unmodified reference server, run with every selection the given variants use. */
function baselineFor(variants: readonly BrokenVariant[], instances: 1 | 2): BrokenVariant {
  const suffix = instances === 2 ? ' (2 instances, redis)' : '';
  return {
    ...REFERENCE,
    name: `reference${instances === 2 ? '-2-instances' : ''}`,
    description: `the unmodified reference server${suffix}`,
    instances,
    grep: variants.map(grepOf).join('|'),
  };
}

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
test('the suite passes the unmodified reference server and catches every broken variant by its declared IDs', async ({}, testInfo) => {
  // One plan run of 76 targets: 94 s wall and 145 CPU-s alone on 2 cores (2026-12-03), where 76 runs of
  // the CLI, two at a time, took 219 s and 344 CPU-s. The bound only stops a hang.
  test.setTimeout(planTimeoutMs + 120_000);
  const redisUrl = sharedRedisUrl();
  const redis = await redisAnswers(redisUrl);
  const multi = VARIANTS.filter((v) => (v.instances ?? 1) === 2);
  const single = VARIANTS.filter((v) => (v.instances ?? 1) === 1);
  const runnable = redis ? VARIANTS : single;
  if (!redis)
    testInfo.annotations.push({
      type: 'skipped variants',
      description: `Redis does not answer at ${redisUrl}: ${multi.map((v) => v.name).join(', ')} not run`,
    });
  expect(VARIANTS.length, 'at least 25 variants').toBeGreaterThanOrEqual(25);
  expect(new Set(VARIANTS.map((v) => v.name)).size, 'variant names are unique').toBe(VARIANTS.length);

  const baselines = [baselineFor(single, 1), ...(redis && multi.length > 0 ? [baselineFor(multi, 2)] : [])];
  // Outside test-results/: another Playwright run in the same tree would clean it mid-run.
  const outRoot = mkdtempSync(join(tmpdir(), 'hac-broken-variants-'));
  const started = performance.now();
  const outcomes = await checkVariants([...baselines, ...runnable], { outRoot, workers: 3, timeoutMs: planTimeoutMs });
  const table = formatTable(outcomes);
  const again = outcomes.filter((o) => o.playedAgain).length;
  const replays = again > 0 ? ` and ${again} played again in a second` : '';
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const summary = `${table}\n\n${outcomes.length} targets in one plan run${replays}, ${seconds} s; results under ${outRoot}`;
  console.log(`\nbroken variants:\n${summary}\n`);
  await testInfo.attach('broken-variants.txt', { body: summary, contentType: 'text/plain' });

  for (const outcome of outcomes.slice(0, baselines.length)) {
    expect.soft(outcome.error, `${outcome.variant}: the run is complete (${outcome.outDir})`).toBeUndefined();
    expect.soft(outcome.alsoFailed, `${outcome.variant}: nothing fails or warns against the unmodified reference server`).toEqual([]);
    expect.soft(outcome.exitCode, `${outcome.variant}: its exit code is 0`).toBe(0);
  }
  for (const outcome of outcomes.slice(baselines.length)) {
    expect.soft(outcome.error, `${outcome.variant}: the run is complete (${outcome.outDir})`).toBeUndefined();
    expect.soft(outcome.missed, `${outcome.variant}: every declared ID is failed or warning`).toEqual([]);
    expect.soft(outcome.caught.length, `${outcome.variant}: something was caught`).toBeGreaterThan(0);
    // D-FINDINGS: each failure's recorded exchange is the one its headline (and its message) names.
    expect.soft(outcome.evidence, `${outcome.variant}: each failure records the exchange its headline names`).toEqual([]);
    // D-TRAFFIC, D-STATE-MODEL: a mistake where no script looks is caught by its declared catcher alone.
    expect.soft(outcome.notCaughtBy, `${outcome.variant}: caught by its declared catcher (caughtBy) and by no other check`).toEqual([]);
    // D-FINDINGS: a variant that is one defect is one finding.
    expect.soft(outcome.notOneFinding, `${outcome.variant}: its declared IDs are one finding`).toEqual([]);
  }
  if (testInfo.errors.length === 0) rmSync(outRoot, { recursive: true, force: true });
});
