/**
 * A 5-second version of the soak (the 30-second run is `npm run soak`): two
 * server processes on the shared Redis under autocannon load give zero 5xx, exact rate limits
 * (a zero-refill token admits exactly its capacity) and lose no idempotency result.
 */
import { expect, test } from '@playwright/test';
import { TINY_PLAN } from '../../../soak/cluster.ts';
import { formatSoak, runSoak } from '../../../soak/soak.ts';

test('two instances under 5 s of load: zero 5xx, exact rate limits, every idempotency key replays its result', async () => {
  test.setTimeout(150_000);
  const report = await runSoak({ durationSeconds: 5, connections: 4 });
  console.log(`[load-short]\n${formatSoak(report)}`);
  expect(report.load.fiveHundreds).toBe(0);
  expect(report.load.connectionErrors).toBe(0);
  expect(report.load.tiny.admitted).toBe(TINY_PLAN.capacity);
  expect(report.load.paced.admitted).toBeLessThanOrEqual(report.pacedBound.upper);
  expect(report.replays.keys).toBeGreaterThan(0);
  expect(report.replays.mismatched).toBe(0);
  expect(report.replays.failed).toBe(0);
  expect(report.replays.storedPayments).toBe(report.replays.keys);
  expect(report.problems).toEqual([]);
  expect(report.cleanup.exitCodes).toEqual([0, 0]);
});
