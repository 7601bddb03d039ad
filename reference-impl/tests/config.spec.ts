/**
 * Configuration (reference-impl/config.ts): defaults, layering of file, environment and command-line
 * options, validation errors that name the field, and the production refusals of D-AUTH.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError, defaultConfig, loadConfig, resolveConfig } from '../config.ts';

test('the defaults are the D-AUTH tokens and plans with the memory store', () => {
  const config = resolveConfig();
  expect(config).toMatchObject({
    host: '127.0.0.1',
    port: 3000,
    store: { kind: 'memory' },
    bodyLimitBytes: 65536,
    anonymousPlan: 'anonymous',
    rateLimit: { algorithm: 'token-bucket' },
    idempotency: { ttlSeconds: 86400, lockSeconds: 30 },
    storeUnavailableRetryAfterSeconds: 2,
    seed: true,
    faultInjection: false,
  });
  expect(config.tokens.map((token) => [token.token, token.userId, token.plan])).toEqual([
    ['dev-token-alice', 1, 'standard'],
    ['dev-token-bob', 2, 'standard'],
    ['dev-token-reader', 3, 'standard'],
    ['dev-token-limited', 4, 'small'],
    ['dev-token-limited-2', 4, 'small'],
    ['dev-token-limited-3', 4, 'small'],
    ['dev-token-limited-4', 4, 'small'],
    ['dev-token-limited-5', 4, 'small'],
    ['dev-token-limited-6', 4, 'small'],
    ['dev-token-limited-7', 4, 'small'],
    ['dev-token-limited-8', 4, 'small'],
    ['dev-token-slow', 4, 'slow'],
    ['dev-token-burst', 4, 'burst'],
  ]);
  expect(config.plans.small).toEqual({ capacity: 10, refillPerSecond: 2 });
  expect(config.plans.slow).toEqual({ capacity: 3, refillPerSecond: 0.02 });
  expect(config.plans.burst).toEqual({ capacity: 5, refillPerSecond: 1 });
});

test('an invalid value is refused with a message naming the field', () => {
  const cases: [unknown, string][] = [
    [{ port: 70000 }, 'port'],
    [{ store: { kind: 'sqlite' } }, 'store.kind'],
    [{ plans: { standard: { capacity: 0, refillPerSecond: 1 } } }, 'plans.standard.capacity'],
    [{ tokens: [{ token: 'x', userId: 1, permissions: ['root'], plan: 'standard' }] }, 'tokens.0.permissions.0'],
    [{ tokens: [{ token: 'x', userId: 1, permissions: [], plan: 'gold' }] }, 'tokens.0.plan'],
    [{ anonymousPlan: 'nope' }, 'anonymousPlan'],
    [{ colour: 'red' }, 'colour'],
    [{ store: { kind: 'redis', url: 'http://127.0.0.1' } }, 'store.url'],
  ];
  for (const [input, field] of cases) {
    expect(() => resolveConfig(input), field).toThrow(ConfigError);
    expect(() => resolveConfig(input), field).toThrow(field);
  }
});

test('the redis store defaults to the local Redis URL', () => {
  expect(resolveConfig({ store: { kind: 'redis' } }).store).toEqual({ kind: 'redis', url: 'redis://127.0.0.1:6379' });
});

test('production refuses dev tokens and fault injection', () => {
  expect(() => resolveConfig({}, 'production')).toThrow(/tokens\.0\.token.*production/);
  const own = { tokens: [{ token: 'prod-secret-1', userId: 1, permissions: [], plan: 'standard' }] };
  expect(resolveConfig(own, 'production').tokens).toHaveLength(1);
  expect(() => resolveConfig({ ...own, faultInjection: true }, 'production')).toThrow(/faultInjection/);
});

test('file, environment and overrides are layered in that order over the defaults', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hac-config-'));
  try {
    const file = join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ port: 4000, host: '0.0.0.0', bodyLimitBytes: 1000, plans: { gold: { capacity: 5, refillPerSecond: 1 } } }));
    const config = await loadConfig(
      { configFile: file, port: 5000, store: 'redis', redisUrl: 'redis://127.0.0.1:6379' },
      { HAC_HOST: '127.0.0.2', HAC_PORT: '4500', HAC_REDIS_KEY_PREFIX: 'x:', HAC_FAULT_INJECTION: 'true' },
    );
    expect(config.port).toBe(5000);
    expect(config.host).toBe('127.0.0.2');
    expect(config.bodyLimitBytes).toBe(1000);
    expect(config.store).toEqual({ kind: 'redis', url: 'redis://127.0.0.1:6379', keyPrefix: 'x:' });
    expect(config.faultInjection).toBe(true);
    expect(Object.keys(config.plans).sort()).toEqual(['anonymous', 'burst', 'gold', 'slow', 'small', 'standard']);
    expect(defaultConfig().port).toBe(3000);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an unreadable or invalid configuration file and bad environment values are named', async () => {
  await expect(loadConfig({ configFile: '/nonexistent/config.json' }, {})).rejects.toThrow('/nonexistent/config.json');
  await expect(loadConfig({}, { HAC_PORT: 'eighty' })).rejects.toThrow('HAC_PORT');
  await expect(loadConfig({}, { HAC_SEED: 'yes' })).rejects.toThrow('HAC_SEED');
  const dir = await mkdtemp(join(tmpdir(), 'hac-config-'));
  try {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{ "port": ');
    await expect(loadConfig({ configFile: file }, {})).rejects.toThrow(/not valid JSON/);
    await writeFile(file, '{ "__proto__": { "port": 1 } }');
    await expect(loadConfig({ configFile: file }, {})).rejects.toThrow(/__proto__/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
