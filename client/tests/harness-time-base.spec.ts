import { test, expect } from '@playwright/test';
import { certifyFixture, failureReport, fixtureCommand, idsWith } from './support/certify.ts';

test.describe.configure({ timeout: 180_000 });

test('a client that ignores Retry-After fails CLIENT-RETRY-AFTER whatever its own backoff, at any --time-scale', async () => {
  // Its own backoff runs on HAC_FIXTURE_BACKOFF_SCALE: the requested scale (unset), real time (1:
  // 1-2 s, 2-3 s, 4-5 s, as longer than a scaled Retry-After), or three times slower (3).
  const cases: [string, number][] = [];
  for (const own of ['', '1', '3']) for (const scale of [0.25, 1]) cases.push([own, scale]);
  const runs = await Promise.all(
    cases.map(async ([own, scale]) => {
      const command = `${own ? `HAC_FIXTURE_BACKOFF_SCALE=${own} ` : ''}${fixtureCommand('broken-ignores-retry-after.ts')}`;
      const { results } = await certifyFixture('broken-ignores-retry-after.ts', {
        command,
        timeScale: scale,
        scenarios: ['retry-after-delta', 'retry-after-date'],
      });
      return { own: own || 'requested', scale, results };
    }),
  );
  for (const { own, scale, results } of runs) {
    expect(idsWith(results, 'failed'), `own backoff scale ${own}, --time-scale ${scale}:\n${failureReport(results)}`).toContain('CLIENT-RETRY-AFTER');
    expect(results.complete).toBe(true);
  }
});

// The control of the test above, a test of its own so that it runs beside it on another worker.
test('the reference client, which honours Retry-After, passes the same scenarios at both --time-scale values', async () => {
  for (const scale of [0.25, 1]) {
    const { results } = await certifyFixture('reference-client.ts', { timeScale: scale, scenarios: ['retry-after-delta', 'retry-after-date'] });
    expect(idsWith(results, 'failed'), failureReport(results)).toEqual([]);
    expect(idsWith(results, 'passed')).toContain('CLIENT-RETRY-AFTER');
  }
});

test('a 5 s timeout on undici\'s own coarse timer passes CLIENT-TIMEOUT and its reference value; a client with no timeout fails CLIENT-TIMEOUT', async () => {
  const [undici, none] = await Promise.all([
    certifyFixture('undici-timeout.mjs', { timeScale: 1, scenarios: ['slow-response'] }),
    certifyFixture('broken-no-timeout.ts', { timeScale: 1, scenarios: ['slow-response'] }),
  ]);
  expect(undici.results.target).toMatchObject({ timeScale: 1 });
  expect(idsWith(undici.results, 'passed'), failureReport(undici.results)).toEqual(expect.arrayContaining(['CLIENT-TIMEOUT', 'CLIENT-TIMEOUT-REFERENCE']));
  expect(idsWith(none.results, 'failed'), failureReport(none.results)).toEqual(['CLIENT-TIMEOUT']);
  expect(none.results.requirements.find((r) => r.id === 'CLIENT-TIMEOUT-REFERENCE')?.reason).toMatch(/no timeout fired/);
});
