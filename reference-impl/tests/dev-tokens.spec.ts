/**
 * The development tokens of the default configuration (spec/decisions.md D-AUTH) are the ones
 * spec/openapi.yaml documents, and the low-limit one lets a contract tester meet 429.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { defaultConfig } from '../config.ts';
import { type TestServer, client, startTestServer } from './support/harness.ts';

const openapi = readFileSync(new URL('../../spec/openapi.yaml', import.meta.url), 'utf8');

test('every development token of the default configuration is named in spec/openapi.yaml', () => {
  const tokens = defaultConfig().tokens.map((t) => t.token);
  expect(tokens).toContain('dev-token-burst');
  // The suite's rate-limit pool (`dev-token-limited-2` … `-8`) is documented as a range; the slow plan's token is the suite's own.
  const pool = /^dev-token-limited-\d+$/;
  for (const token of tokens.filter((t) => !pool.test(t) && t !== 'dev-token-slow')) expect(openapi, token).toContain(`\`${token}\``);
  expect(openapi).toContain('with `-2` to `-8`');
  expect(tokens.filter((t) => pool.test(t))).toEqual([2, 3, 4, 5, 6, 7, 8].map((n) => `dev-token-limited-${n}`));
});

test.describe('dev-token-burst', () => {
  let server: TestServer;
  test.beforeAll(async () => {
    server = await startTestServer();
  });
  test.afterAll(async () => {
    await server.close();
  });

  test('allows a burst of 5, then answers 429 with Retry-After and RateLimit-Limit 5', async () => {
    const api = client(server.url);
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 8 && limited === undefined; i += 1) {
      const reply = await api.get('/account', { token: 'dev-token-burst' });
      statuses.push(reply.status);
      if (reply.status === 429) limited = reply;
    }
    // 1 token/s refill: a slow machine may earn a token during the burst, so the 429 comes at request 6 or 7.
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(limited?.headers.get('ratelimit-limit')).toBe('5');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
