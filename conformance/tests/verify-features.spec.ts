/**
 * Declared features are verified before the suite (conformance/target/verify-features.ts): a profile
 * that declares fault injection, a slow window or rate-limit tokens the target ignores gets one
 * message naming the profile field and the fix, and `run` exits 2 before any test runs. A target
 * that admits a made-up token is never reported as a profile mistake: the suite runs and fails it.
 */
import { test, expect } from '@playwright/test';
import { resolveConfig } from '../../reference-impl/config.ts';
import { startServer } from '../../reference-impl/server.ts';
import { formatFeatureProblems, verifyFeatures } from '../target/verify-features.ts';
import { referenceProfile } from '../target/embedded.ts';
import type { TargetProfile } from '../target/profile.ts';
import { runCli, tempOut } from './support/subprocess.ts';
import { writeFileSync } from 'node:fs';
import { readResults } from '../../spec/results.ts';
import { join } from 'node:path';
import anyTokenAccepted from '../../fixtures/broken/auth-any-token-accepted.ts';
import limitHeaderOtherPlan from '../../fixtures/broken/rate-limit-limit-header-other-plan.ts';
import stricterThanSchema from '../../fixtures/broken/validation-stricter-than-schema.ts';
import { startVariant } from '../../fixtures/broken/start.ts';
import { send } from '../transport/http.ts';

async function withReference<T>(faultInjection: boolean, body: (profile: TargetProfile) => Promise<T>): Promise<T> {
  const server = await startServer({ config: resolveConfig({ host: '127.0.0.1', port: 0, faultInjection }), logError: () => undefined });
  try {
    return await body({ ...referenceProfile(), baseUrls: [server.url] });
  } finally {
    await server.close();
  }
}

test('the reference server with fault injection on provides every feature its profile declares', async () => {
  await withReference(true, async (profile) => {
    expect(await verifyFeatures(profile)).toEqual([]);
  });
});

test('fault injection off: one problem naming features.faultInjection and the fix (the slow window is not reported twice)', async () => {
  await withReference(false, async (profile) => {
    const problems = await verifyFeatures(profile);
    expect(problems.map((p) => p.field)).toEqual(['features.faultInjection']);
    expect(problems[0]?.problem).toContain('ignores X-Fault-Inject: 500');
    expect(problems[0]?.fix).toContain('--fault-injection');
  });
});

test('a slow value the target does not honour, an unknown rate-limit token and a wrong capacity are named by field', async () => {
  await withReference(true, async (reference) => {
    const profile: TargetProfile = {
      ...reference,
      tokens: { ...reference.tokens, rateLimitPool: ['dev-token-limited-2', 'no-such-token'] },
      rateLimit: { ...reference.rateLimit, capacity: 25, refillPerSecond: 2 },
      features: { ...reference.features, faultInjection: { header: 'X-Fault-Inject', slowValue: 'delay-0' } },
    };
    const problems = await verifyFeatures(profile);
    const byField = Object.fromEntries(problems.map((p) => [p.field, p.problem]));
    expect(Object.keys(byField).sort()).toEqual([
      'features.faultInjection.slowValue', 'tokens.rateLimit', 'tokens.rateLimitPool[0]', 'tokens.rateLimitPool[1]',
    ]);
    expect(byField['features.faultInjection.slowValue']).toContain('not at least 300 ms');
    expect(byField['tokens.rateLimit']).toContain('RateLimit-Limit 10, the profile says rateLimit.capacity 25');
    expect(byField['tokens.rateLimitPool[1]']).toContain('does not know this token');
    expect(formatFeatureProblems(problems).split('\n')[0]).toBe('the profile declares what the target does not provide:');
  });
});

test('a create body the target refuses is the profile\'s to fix: one problem naming the field and the refusal, and run exits 2 before the suite', async () => {
  await withReference(true, async (reference) => {
    // The users' email must be an email (reference-impl's schema): the profile's own body breaks it.
    const collections = reference.collections.map((c) => (c.name === 'users' ? { ...c, create: { name: 'user {{unique}}', email: 'not-an-email' } } : c));
    const index = collections.findIndex((c) => c.name === 'users');
    const profile = { ...reference, collections };
    const problems = await verifyFeatures(profile);
    expect(problems.map((p) => p.field)).toEqual([`collections[${index}].create`]);
    expect(problems[0]?.problem).toMatch(/^the target refuses the body the checks create with \(POST \/users answered 422: email: /);
    const dir = tempOut('verify-bodies');
    const file = join(dir, 'profile.json');
    writeFileSync(file, JSON.stringify(profile));
    const run = await runCli(['--profile', file, '--out', join(dir, 'out')], {}, 60_000);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain(`collections[${index}].create: the target refuses the body`);
    expect(run.stdout + run.stderr, 'the suite never started').not.toContain('Running ');
  });
});

test('a create body the API\'s own document accepts but the target refuses is the server\'s defect: no profile problem, the suite judges it', async () => {
  // The variant refuses orders over 10,000, which spec/openapi.yaml (the profile's openapi) allows up to 1,000,000.
  const target = await startVariant(stricterThanSchema);
  try {
    const collections = target.profile.collections.map((c) => (c.name === 'orders' ? { ...c, create: { total: 50_000, currency: 'eur' } } : c));
    const refused = await send(target.profile.baseUrls[0] ?? '', 'POST', '/orders', {
      headers: { authorization: `Bearer ${target.profile.tokens.valid}` },
      json: { total: 50_000, currency: 'eur' },
    });
    expect(refused.status, 'the premise: the target refuses the documented body').toBe(422);
    expect(await verifyFeatures({ ...target.profile, collections })).toEqual([]);
    const { openapi: _document, ...undocumented } = target.profile;
    const problems = await verifyFeatures({ ...undocumented, collections });
    expect(problems.map((p) => p.field), 'without the document nothing says the body is valid: the profile is blamed').toEqual([
      `collections[${collections.findIndex((c) => c.name === 'orders')}].create`,
    ]);
  } finally {
    await target.close();
  }
});

test('run stops with exit 2 before the suite when the profile declares fault injection the target ignores', async () => {
  await withReference(false, async (profile) => {
    const dir = tempOut('verify-features');
    const file = join(dir, 'profile.json');
    writeFileSync(file, JSON.stringify(profile));
    const run = await runCli(['--profile', file, '--out', join(dir, 'out')], {}, 60_000);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(readResults(join(dir, 'out', 'results.json')).exitCode).toBe(2);
    expect(run.stderr).toContain('features.faultInjection: the target ignores X-Fault-Inject: 500');
    expect(run.stdout + run.stderr, 'the suite never started').not.toContain('Running ');
    expect(run.elapsedMs, 'within seconds, not after the suite').toBeLessThan(30_000);
  });
});

test('a target that accepts any token is not reported as a misconfigured profile: the suite runs and the auth MUST fails (exit 1)', async () => {
  const target = await startVariant(anyTokenAccepted);
  try {
    // Every token is the default caller there, so the rate-limit tokens show that caller's RateLimit-Limit
    // (1000, not the profile's 10): a server defect, not a profile mistake.
    const probe = await send(target.profile.baseUrls[0] ?? '', 'GET', '/account', { headers: { authorization: 'Bearer dev-token-limited' } });
    const limit = probe.headers['ratelimit-limit'];
    expect(limit, 'the premise: the rate-limit token is on another plan than the profile says').not.toBe(String(target.profile.rateLimit?.capacity));
    expect(await verifyFeatures(target.profile)).toEqual([]);
    const dir = tempOut('verify-any-token');
    const file = join(dir, 'profile.json');
    writeFileSync(file, JSON.stringify(target.profile));
    const run = await runCli(['--profile', file, '--out', join(dir, 'out'), '--grep', '@AUTH-401-INVALID(?![A-Za-z0-9-])'], {}, 120_000);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const results = readResults(join(dir, 'out', 'results.json'));
    expect(results.exitCode).toBe(1);
    expect(results.requirements.find((r) => r.id === 'AUTH-401-INVALID')?.outcome).toBe('failed');
    expect(run.stderr).not.toContain('the profile declares what the target does not provide');
  } finally {
    await target.close();
  }
});

test('a RateLimit-Limit that disagrees with the profile is measured with a burst before anyone is blamed', async () => {
  // The target enforces the profile's 10 and announces 20: its header is the defect, the suite runs (exit 1).
  const wrongHeader = await startVariant(limitHeaderOtherPlan);
  try {
    const probe = await send(wrongHeader.profile.baseUrls[0] ?? '', 'GET', '/account', { headers: { authorization: 'Bearer dev-token-limited' } });
    expect(probe.headers['ratelimit-limit'], 'the premise: the header announces another plan').toBe('20');
    expect(await verifyFeatures(wrongHeader.profile)).toEqual([]);
  } finally {
    await wrongHeader.close();
  }
  // The target enforces what it announces (10) and the profile says 25: the profile is wrong, and the message says what was measured.
  await withReference(true, async (reference) => {
    const tokens = { valid: reference.tokens.valid, rateLimit: 'dev-token-limited-4' };
    const problems = await verifyFeatures({ ...reference, tokens, rateLimit: { capacity: 25, refillPerSecond: 2 } });
    expect(problems.map((p) => p.field)).toEqual(['tokens.rateLimit']);
    expect(problems[0]?.problem).toMatch(/RateLimit-Limit 10, the profile says rateLimit.capacity 25; a burst from a full bucket admitted 1[0-9] requests in [\d.]+ s/);
  });
});
