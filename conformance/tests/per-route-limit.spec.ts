/**
 * D-RATE-LIMIT's one limit per caller, told from a refill (RATE-LIMIT-EVERY-ROUTE): on a target that
 * keys its buckets by caller and route (fixtures/broken/rate-limit-per-route.ts, as @nestjs/throttler
 * does by default), the suite reports the limit per route once, with its figures, and the checks that
 * need one limit per caller skip naming that cause, never a slow machine.
 */
import { test, expect } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import perRoute from '../../fixtures/broken/rate-limit-per-route.ts';
import { startVariant } from '../../fixtures/broken/start.ts';
import { readResults } from '../../spec/results.ts';
import { runCli, tempOut } from './support/subprocess.ts';

test('a limit per route is one finding with its figures, and the checks needing one limit per caller skip naming it', async () => {
  test.setTimeout(150_000);
  const target = await startVariant(perRoute);
  try {
    const dir = tempOut('per-route-limit');
    const file = join(dir, 'profile.json');
    writeFileSync(file, JSON.stringify(target.profile));
    const grep = '@(RATE-LIMIT-429|IDEMPOTENCY-429-NOT-STORED|RATE-LIMIT-EVERY-ROUTE)(?![A-Za-z0-9-])';
    const run = await runCli(['--profile', file, '--out', join(dir, 'out'), '--grep', grep], {}, 140_000);
    const results = readResults(join(dir, 'out', 'results.json'));
    expect(results.complete, run.stdout + run.stderr).toBe(true);
    const byId = new Map(results.requirements.map((r) => [r.id, r]));
    expect(byId.get('RATE-LIMIT-EVERY-ROUTE')?.outcome, 'a SHOULD: warned').toBe('warning');
    const record = byId.get('RATE-LIMIT-EVERY-ROUTE')?.tests.find((t) => t.title.startsWith('a caller refused on one route'));
    expect(record?.status).toBe('failed');
    expect(record?.error).toMatch(/this API limits per route; the document's rate limit is per caller: right after GET \/\S+ answered 429, \d+ of \d+ GET \/\S+ were admitted/);
    // Its evidence is an answer the route's own limit admitted right after the 429.
    expect(record?.headline).toMatch(/^GET \/\S+ → 200;/);
    expect(record?.headline, 'not the refused route (the reference profile probes GET /account)').not.toMatch(/^GET \/account /);
    for (const id of ['RATE-LIMIT-429', 'IDEMPOTENCY-429-NOT-STORED']) {
      const reasons = byId.get(id)?.tests.map((t) => t.reason ?? t.status) ?? [];
      expect(reasons.join('\n'), `${id} skips naming the cause`).toContain('this API limits per route');
    }
    const skips = results.requirements.flatMap((r) => r.tests.map((t) => t.reason ?? '')).join('\n');
    expect(skips).not.toMatch(/slow machine|slow network/);
    expect(results.findings?.filter((f) => f.breaks.some((id) => id.startsWith('RATE-LIMIT-')))).toHaveLength(1);
  } finally {
    await target.close();
  }
});
