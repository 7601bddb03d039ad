/**
 * Constant-time token comparison (spec/decisions.md D-AUTH `AUTH-CONSTANT-TIME`).
 * Behavioural check on `createTokenRegistry`: with 2 000 configured tokens, an implementation that
 * stops at the first match is ~1000× faster for the first token than for the last one or an
 * unknown one; a lookup that compares against every token takes the same time whichever matches.
 * The bound (a factor of 3 between medians) is generous for a shared machine yet far below what an
 * early exit produces. Each sample is the CPU time the process spent (process.cpuUsage), not wall time:
 * on a busy machine a 4 ms sample is often preempted, and the time it waited is not work the lookup did.
 * Prefix-sharing tokens are timed too: comparing SHA-256 digests hides how many leading characters match.
 */
import { expect, test } from '@playwright/test';
import type { TokenConfig } from '../../config.ts';
import { createTokenRegistry } from '../../tokens.ts';

const COUNT = 2_000;
const SAMPLES = 41;
const CALLS_PER_SAMPLE = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

test('token lookup time does not depend on which configured token matches, or whether one does', () => {
  const secret = (i: number): string => `tok-${String(i).padStart(6, '0')}-${'s'.repeat(40)}`;
  const tokens: TokenConfig[] = Array.from({ length: COUNT }, (_, i) => ({ token: secret(i), userId: i + 1, permissions: [], plan: 'standard' }));
  const registry = createTokenRegistry(tokens);
  const cases: Record<string, string> = {
    first: `Bearer ${secret(0)}`,
    last: `Bearer ${secret(COUNT - 1)}`,
    unknown: `Bearer unknown-${'u'.repeat(50)}`,
    'shared prefix': `Bearer ${secret(0).slice(0, -1)}x`,
  };
  expect(registry.identify(cases.first)).toMatchObject({ kind: 'token', principal: { userId: 1 } });
  expect(registry.identify(cases.last)).toMatchObject({ kind: 'token', principal: { userId: COUNT } });
  expect(registry.identify(cases.unknown)).toEqual({ kind: 'invalid' });
  expect(registry.identify(cases['shared prefix'])).toEqual({ kind: 'invalid' });

  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (let round = 0; round < SAMPLES; round += 1) {
    for (const [name, header] of Object.entries(cases)) {
      const started = process.cpuUsage();
      for (let i = 0; i < CALLS_PER_SAMPLE; i += 1) registry.identify(header);
      const used = process.cpuUsage(started);
      samples[name]?.push((used.user + used.system) / 1000);
    }
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
  console.log(`[constant-time] median CPU ms per ${CALLS_PER_SAMPLE} lookups over ${COUNT} tokens: ${JSON.stringify(medians)}`);
  const values = Object.values(medians);
  const ratio = Math.max(...values) / Math.min(...values);
  expect(ratio, JSON.stringify(medians)).toBeLessThan(3);
});

test('a token that differs only in case, padding or whitespace inside is not accepted', () => {
  const registry = createTokenRegistry([{ token: 'Abc-123_secret', userId: 1, permissions: [], plan: 'standard' }]);
  expect(registry.identify('Bearer Abc-123_secret')).toMatchObject({ kind: 'token' });
  for (const header of [
    'Bearer abc-123_secret', 'Bearer Abc-123_secret=', 'Bearer Abc-123_secre', 'Bearer Abc-123_secrett', 'Bearer Abc -123_secret',
    'Basic Abc-123_secret', 'Bearer', 'Abc-123_secret',
  ]) {
    expect(registry.identify(header), header).toEqual({ kind: 'invalid' });
  }
});
