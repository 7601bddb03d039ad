/**
 * D-SCHEMA-INPUTS: how many generated cases each collection of a schema-driven property gets. A run
 * count the user gives holds for every collection; the default is shared among many collections.
 */
import { expect, test } from '@playwright/test';
import { collectionPropertyRuns } from '../fixtures.ts';
import type { TargetProfile } from '../target/profile.ts';

const profile = { name: 'p', baseUrls: ['http://127.0.0.1:1'], collections: [] } as unknown as TargetProfile;

test('by default 25 cases per collection up to four collections, then 100 shared, never fewer than 5', () => {
  test.skip(process.env.HAC_RUNS !== undefined, 'HAC_RUNS is set in this environment: it overrides the default under test');
  expect([1, 4, 5, 10, 20, 36].map((n) => collectionPropertyRuns(profile, n))).toEqual([25, 25, 20, 10, 5, 5]);
});

test('runs.properties, when the profile gives it, holds for every collection', () => {
  test.skip(process.env.HAC_RUNS !== undefined, 'HAC_RUNS is set in this environment: it overrides the profile under test');
  expect(collectionPropertyRuns({ ...profile, runs: { properties: 30 } }, 36)).toBe(30);
});
