/**
 * `features.multiTarget` is read (conformance/support/multi-target.ts, D-PROFILE): it decides, with
 * `baseUrls`, whether the statelessness checks run across the base URLs, and every skip says why.
 */
import { test, expect } from '@playwright/test';
import { multiTargetSkip } from '../support/multi-target.ts';

const one = ['http://127.0.0.1:3000'];
const two = ['http://127.0.0.1:3000', 'http://127.0.0.1:3001'];

test('two or more base URLs run the statelessness checks unless features.multiTarget is false', () => {
  expect(multiTargetSkip({ baseUrls: two })).toBeUndefined();
  expect(multiTargetSkip({ baseUrls: two, features: { multiTarget: true } })).toBeUndefined();
  expect(multiTargetSkip({ baseUrls: two, features: { multiTarget: false } })).toContain('features.multiTarget: false');
});

test('one base URL skips them, naming features.multiTarget when it claims several instances', () => {
  expect(multiTargetSkip({ baseUrls: one })).toContain('the profile lists one base URL (baseUrls)');
  expect(multiTargetSkip({ baseUrls: one, features: { multiTarget: false } })).toContain('the profile lists one base URL (baseUrls)');
  expect(multiTargetSkip({ baseUrls: one, features: { multiTarget: true } })).toContain('features.multiTarget: true but lists one base URL');
});
