/**
 * The other half of the meta-test (STYLE.md, "Valid variants"): the conformance suite passes every
 * valid variant of fixtures/valid/, each a server that made one different-but-valid choice where
 * the document leaves it open. Each run must be complete, exit 0 with no MUST failed, and report
 * exactly the SHOULD/MAY warnings the variant declares; a variant that still meets a suite check
 * leaning on a SHOULD/MAY choice declares that as a known suite failure, which must then be
 * reported exactly (so the fix is noticed). The table is printed and attached.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { metaSettings } from '../../fixtures/broken/check.ts';
import { opensslAvailable } from '../../fixtures/proxies/index.ts';
import { asExpected, checkValidVariants, formatValidTable } from '../../fixtures/valid/check.ts';
import { VALID_VARIANTS } from '../../fixtures/valid/index.ts';
import { redisAnswers, sharedRedisUrl } from '../../reference-impl/tools/redis-admin.ts';

const { planTimeoutMs } = metaSettings();

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture arguments from the pattern
test('the suite passes every valid variant: exit 0, no MUST failed, exactly the declared warnings', async ({}, testInfo) => {
  // One plan run of every variant (D-RUN-PLAN); the bound only stops a hang.
  test.setTimeout(planTimeoutMs + 120_000);
  expect(VALID_VARIANTS.length, 'at least 15 valid variants').toBeGreaterThanOrEqual(15);
  expect(new Set(VALID_VARIANTS.map((v) => v.name)).size, 'variant names are unique').toBe(VALID_VARIANTS.length);
  expect(VALID_VARIANTS.some((v) => v.start), 'at least one independent server').toBe(true);
  const readme = readFileSync(new URL('../../fixtures/valid/README.md', import.meta.url), 'utf8');
  for (const variant of VALID_VARIANTS) {
    expect(variant.allowedBy.length, `${variant.name} cites what allows its choice`).toBeGreaterThan(20);
    expect(readme, `fixtures/valid/README.md has a line for ${variant.name}`).toContain(`| \`${variant.name}\` |`);
  }

  const redisUrl = sharedRedisUrl();
  const redis = await redisAnswers(redisUrl);
  const openssl = opensslAvailable();
  const runnable = VALID_VARIANTS.filter((v) => (redis || (v.instances ?? 1) === 1) && (openssl || v.proxy !== 'tls'));
  const left = VALID_VARIANTS.filter((v) => !runnable.includes(v)).map((v) => v.name);
  if (left.length > 0)
    testInfo.annotations.push({
      type: 'skipped variants',
      description: `${left.join(', ')}: ${redis ? '' : `Redis does not answer at ${redisUrl}; `}${openssl ? '' : 'no openssl command for the TLS certificate'}`,
    });

  // Outside test-results/: another Playwright run in the same tree would clean it mid-run.
  const outRoot = mkdtempSync(join(tmpdir(), 'hac-valid-variants-'));
  const started = performance.now();
  const outcomes = await checkValidVariants(runnable, { outRoot, workers: 3, timeoutMs: planTimeoutMs });
  const summary = `${formatValidTable(outcomes)}\n\n${outcomes.length} targets in one plan run, ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `results under ${outRoot}`;
  console.log(`\nvalid variants:\n${summary}\n`);
  await testInfo.attach('valid-variants.txt', { body: summary, contentType: 'text/plain' });

  for (const outcome of outcomes) {
    expect.soft(outcome.error, `${outcome.variant}: the run is complete (${outcome.outDir})`).toBeUndefined();
    expect.soft(outcome.unexpectedFailures, `${outcome.variant}: no MUST fails`).toEqual([]);
    expect.soft(outcome.fixedKnownFailures, `${outcome.variant}: a declared known suite failure passes now: remove it from the variant`).toEqual([]);
    expect.soft(outcome.unexpectedWarnings, `${outcome.variant}: no warning beyond the declared ones`).toEqual([]);
    expect.soft(outcome.missingWarnings, `${outcome.variant}: every declared warning is reported (the variant really makes its choice)`).toEqual([]);
    expect.soft(outcome.exitCode, `${outcome.variant}: its exit code is ${outcome.expectedExitCode}`).toBe(outcome.expectedExitCode);
  }
  if (outcomes.every(asExpected)) rmSync(outRoot, { recursive: true, force: true });
});
