/**
 * A FastAPI team's shortest path to a certificate: the document FastAPI generates at `/openapi.json`,
 * `init` from it against the two running instances of the FastAPI stack (fixtures/stacks/fastapi/),
 * then a whole `run`. It must fail the MUSTs the hand-written widgets profile fails on the same stack
 * (fixtures/stacks/fastapi/expected.ts), but for the differences listed below, each with the reason
 * the generated profile differs. Failures declared `sometimes` (timing, random inputs) are left out of
 * the comparison on both sides.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { readResults } from '../../spec/results.ts';
import { STACKS } from '../../fixtures/stacks/index.ts';
import { startStack } from '../../fixtures/stacks/stack.ts';
import type { StartedStack } from '../../fixtures/stacks/stack.ts';
import { CALLERS, SMALL_LIMIT } from '../../fixtures/stacks/common.ts';
import { redisAnswers, sharedRedisUrl } from '../../reference-impl/tools/redis-admin.ts';
import { CLI, runCli, runNode, tempOut } from './support/subprocess.ts';

/** MUSTs the generated profile fails and the hand-written one does not, and why. */
const ONLY_FROM_DOCUMENT: Record<string, string> = {
  'RATE-LIMIT-REFILL-RATE':
    "an OpenAPI document cannot state the limiter's algorithm: without rateLimit the suite judges the reference token bucket " +
    '(D-SUITE-TRUST), and the limits moving window admits nothing 2.5 s after a burst',
  'RATE-LIMIT-RETRY-AFTER': "as RATE-LIMIT-REFILL-RATE: the window's Retry-After (up to 5 s) is longer than a 2-per-second bucket owes",
};

/**
 * Failures of the generated profile on some runs only, left out of the comparison like the stack's own
 * `sometimes`: without rateLimit the plan is read from a 429's RateLimit-Reset, which the limits moving
 * window truncates to 0 in its last second (the declared limits/strategies.py:121 defect). Whichever
 * rate-limit check reads the plan first then fails with this message.
 */
const PLAN_UNREADABLE = 'cannot read the policy from the headers';

/** MUSTs the hand-written profile fails and the generated one does not, and why. */
const ONLY_BY_HAND: Record<string, string> = {};

const byHandIds = (declared: readonly { id: string }[]): string[] => declared.map((f) => f.id);

const tokenOf = (predicate: (c: (typeof CALLERS)[string]) => boolean): string[] =>
  Object.entries(CALLERS)
    .filter(([, c]) => predicate(c))
    .map(([token]) => token);

test.describe('FastAPI certified from the OpenAPI document it generates', () => {
  const stack = STACKS.find((s) => s.name === 'fastapi');
  test.describe.configure({ timeout: 10 * 60_000 });
  let started: StartedStack | undefined;

  test.beforeAll(async () => {
    const why = stack?.unavailable?.();
    test.skip(stack === undefined || why !== undefined, `the FastAPI stack cannot run here: ${why ?? 'not found'}`);
    test.skip(!(await redisAnswers(sharedRedisUrl())), `the stack runs two instances on Redis, which does not answer at ${sharedRedisUrl()}`);
    started = await startStack(stack as NonNullable<typeof stack>);
  });
  test.afterAll(async () => {
    await started?.close();
  });

  test('init from /openapi.json, then run: the hand-written profile\'s failures, but for the differences listed', async () => {
    const declared = stack?.expected ?? [];
    const [first, second] = started?.profile.baseUrls ?? [];
    expect(first && second, 'two instances').toBeTruthy();
    const dir = tempOut('fastapi-openapi');
    const profilePath = join(dir, 'profile.json');
    const [valid, other] = tokenOf((c) => c.permissions.includes('widgets:write') && c.limit !== SMALL_LIMIT);
    const [limited] = tokenOf((c) => !c.permissions.includes('widgets:write'));
    const rateLimited = tokenOf((c) => c.limit === SMALL_LIMIT);
    const init = await runNode([
      CLI, 'init', '--openapi', `${first}/openapi.json`, '--target', first as string, '--target', second as string, '--out', profilePath,
      '--token', valid as string, '--token', other as string, '--limited-token', limited as string,
      ...rateLimited.flatMap((t) => ['--rate-limit-token', t]),
    ]);
    // FastAPI 0.92 says openapi 3.0.2 and writes 3.1 schemas (D-OPENAPI-VERSION); the smoke check meets HTTPBearer's 403 (exit 1).
    expect([0, 1], init.stdout + init.stderr).toContain(init.code);
    expect(init.stdout, 'init reads the document as 3.1 and says so').toContain('is valid only as OpenAPI 3.1');
    expect(existsSync(profilePath), init.stdout + init.stderr).toBe(true);
    const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as { collections: { path: string }[] };
    expect(profile.collections.map((c) => c.path)).toEqual(['/widgets']);

    const run = await runCli(['--profile', profilePath, '--out', join(dir, 'results'), '--workers', '2'], {}, 8 * 60_000);
    expect(existsSync(join(dir, 'results', 'results.json')), `run exit ${run.code}: ${run.stdout.slice(-2000)}${run.stderr}`).toBe(true);
    const results = readResults(join(dir, 'results', 'results.json'));
    expect(results.complete, (results.errors ?? []).join('; ')).toBe(true);
    const sometimes = new Set(declared.filter((f) => f.sometimes).map((f) => f.id));
    const steady = (id: string): boolean => !sometimes.has(id) || declared.some((f) => f.id === id && !f.sometimes);
    const unreadablePlan = (r: (typeof results.requirements)[number]): boolean =>
      r.tests.filter((t) => t.status !== 'passed' && t.status !== 'skipped').every((t) => (t.error ?? '').includes(PLAN_UNREADABLE));
    const failed = results.requirements
      .filter((r) => r.level === 'MUST' && r.outcome === 'failed' && (byHandIds(declared).includes(r.id) || !unreadablePlan(r)))
      .map((r) => r.id)
      .filter(steady);
    const byHand = [...new Set(declared.filter((f) => !f.sometimes).map((f) => f.id))];
    const listing = results.requirements
      .filter((r) => r.level === 'MUST' && r.outcome === 'failed')
      .map((r) => `${r.id}: ${(r.tests.find((t) => t.status !== 'passed')?.error ?? '').split('\n')[0]?.slice(0, 160)}`);
    test.info().annotations.push({ type: 'must-failures', description: listing.join('\n') });
    test.info().annotations.push({ type: 'wall', description: `init ${Math.round(init.elapsedMs)} ms, run ${Math.round(run.elapsedMs)} ms` });
    expect(failed.filter((id) => !byHand.includes(id)).sort(), listing.join('\n')).toEqual(Object.keys(ONLY_FROM_DOCUMENT).sort());
    expect(byHand.filter((id) => !failed.includes(id)).sort(), listing.join('\n')).toEqual(Object.keys(ONLY_BY_HAND).sort());
  });
});
