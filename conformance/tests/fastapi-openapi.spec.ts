/**
 * A FastAPI team's shortest path to a certificate: the document FastAPI generates at `/openapi.json`,
 * `init` from it against the two running instances of the FastAPI stack (fixtures/stacks/fastapi/),
 * then a whole `run`. It must fail the MUSTs the hand-written widgets profile fails on the same stack
 * (fixtures/stacks/fastapi/expected.ts), but for the plan-dependent rate-limit checks, which a
 * document cannot settle (below). Failures declared `sometimes` (timing, random inputs) are left out of
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
import { compiledCli, runCli, runNode, tempOut } from './support/subprocess.ts';

/**
 * What the generated profile cannot say: an OpenAPI document has no place for the limiter's algorithm,
 * so without `rateLimit` the suite judges the reference token bucket (D-SUITE-TRUST) and reads its plan
 * from a 429 (capacity = RateLimit-Limit, rate = Limit / Reset). The limits moving window is then judged
 * as a bucket of 10 refilled at 2 per second: the refill check fails on every run (nothing is admitted
 * 2.5 s after a burst), and where in the window each other plan-dependent check lands decides whether it
 * fails too (the burst, Retry-After against a 2-per-second refill, a plan unreadable from a 429 whose
 * truncated RateLimit-Reset is 0, the 429 an idempotent replay needs). Those are the differences allowed.
 */
const ALWAYS_FROM_DOCUMENT = ['RATE-LIMIT-REFILL-RATE'];
const planDependent = (id: string): boolean => id.startsWith('RATE-LIMIT-') || id === 'IDEMPOTENCY-429-NOT-STORED';

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

  test('init from /openapi.json, then run: the hand-written profile\'s failures, and beyond them only plan-dependent rate-limit checks', async () => {
    const declared = stack?.expected ?? [];
    const [first, second] = started?.profile.baseUrls ?? [];
    expect(first && second, 'two instances').toBeTruthy();
    const dir = tempOut('fastapi-openapi');
    const profilePath = join(dir, 'profile.json');
    const [valid, other] = tokenOf((c) => c.permissions.includes('widgets:write') && c.limit !== SMALL_LIMIT);
    const [limited] = tokenOf((c) => !c.permissions.includes('widgets:write'));
    const rateLimited = tokenOf((c) => c.limit === SMALL_LIMIT);
    const init = await runNode([
      compiledCli(), 'init', '--openapi', `${first}/openapi.json`, '--target', first as string, '--target', second as string, '--out', profilePath,
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
    const failed = results.requirements.filter((r) => r.level === 'MUST' && r.outcome === 'failed').map((r) => r.id).filter(steady);
    const byHand = [...new Set(declared.filter((f) => !f.sometimes).map((f) => f.id))];
    const listing = results.requirements
      .filter((r) => r.level === 'MUST' && r.outcome === 'failed')
      .map((r) => `${r.id}: ${(r.tests.find((t) => t.status !== 'passed')?.error ?? '').split('\n')[0]?.slice(0, 160)}`);
    test.info().annotations.push({ type: 'must-failures', description: listing.join('\n') });
    test.info().annotations.push({ type: 'wall', description: `init ${Math.round(init.elapsedMs)} ms, run ${Math.round(run.elapsedMs)} ms` });
    const fromDocumentOnly = failed.filter((id) => !byHand.includes(id));
    expect(fromDocumentOnly.filter((id) => !planDependent(id)), `only the plan-dependent checks differ:\n${listing.join('\n')}`).toEqual([]);
    expect(fromDocumentOnly, listing.join('\n')).toEqual(expect.arrayContaining(ALWAYS_FROM_DOCUMENT));
    expect(byHand.filter((id) => !failed.includes(id)), `every declared failure is reported from the document too:\n${listing.join('\n')}`).toEqual([]);
  });
});
