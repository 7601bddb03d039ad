import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { takeToken } from '../rate-limit/token-bucket.ts';
import type { TokenBucketState } from '../rate-limit/token-bucket.ts';
import { queueRequest } from '../rate-limit/leaky-bucket.ts';
import type { LeakyBucketState } from '../rate-limit/leaky-bucket.ts';
import { LEAKY_BUCKET, TOKEN_BUCKET } from '../stores/redis/rate-limit-scripts.ts';
import type { RateLimitPolicy } from '../stores/types.ts';
import { deleteKeysWithPrefix, sharedRedisUrl, uniqueKeyPrefix } from '../tools/redis-admin.ts';

const REDIS_URL = sharedRedisUrl();

const CLOCK = "local time = redis.call('TIME')\nlocal now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000";

const EXPIRY_MARGIN = ') + 1000)';

/**
 * The production script with its clock replaced by ARGV[3], so a test can replay chosen times, and
 * with an hour of expiry margin, so a key cannot expire in real time while the test replays.
 */
function onChosenClock(source: string): string {
  if (!source.includes(CLOCK) || source.split(EXPIRY_MARGIN).length !== 2) throw new Error('the script changed shape');
  return source.replace(CLOCK, 'local now = tonumber(ARGV[3])').replace(EXPIRY_MARGIN, ') + 3600000)');
}

test.describe('Lua scripts compute what the TypeScript bucket functions compute', () => {
  const prefix = uniqueKeyPrefix('test');
  let redis: Redis;
  test.beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  test.afterAll(async () => {
    redis.disconnect();
    await deleteKeysWithPrefix(prefix, REDIS_URL);
  });

  for (const algorithm of ['token-bucket', 'leaky-bucket'] as const) {
    test(`${algorithm}: identical decisions for any policy and request times (property)`, async () => {
      const script = onChosenClock(algorithm === 'token-bucket' ? TOKEN_BUCKET.source : LEAKY_BUCKET.source);
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 100 }),
          fc.double({ min: 0.01, max: 1000, noNaN: true, noDefaultInfinity: true }),
          fc.array(fc.double({ min: 0, max: 4_000, noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 60 }),
          async (capacity, refillPerSecond, gaps) => {
            const policy: RateLimitPolicy = { algorithm, capacity, refillPerSecond };
            const key = `${prefix}${algorithm}:${(run += 1)}`;
            let token: TokenBucketState | undefined;
            let leaky: LeakyBucketState | undefined;
            let now = 1_763_700_000_000.123;
            for (const gap of gaps) {
              now += gap;
              let expected;
              if (algorithm === 'token-bucket') ({ state: token, decision: expected } = takeToken(token, policy, now));
              else ({ state: leaky, decision: expected } = queueRequest(leaky, policy, now));
              const reply = (await redis.eval(script, 1, key, capacity, refillPerSecond, now)) as number[];
              const actual = {
                allowed: reply[0] === 1,
                remaining: reply[1],
                resetSeconds: reply[2],
                retryAfterSeconds: reply[3],
                ...(algorithm === 'leaky-bucket' && reply[0] === 1 ? { delayMs: reply[4] } : {}),
              };
              const { limit: _limit, ...rest } = expected;
              if (JSON.stringify(actual) !== JSON.stringify(rest)) {
                throw new Error(`at ${now}: Lua ${JSON.stringify(actual)} vs TypeScript ${JSON.stringify(rest)}`);
              }
            }
          },
        ),
        { numRuns: 60 },
      );
      expect(run).toBeGreaterThanOrEqual(60);
    });
  }
});
