/** LINKS-SHAPE as the document states it (conformance/support/links.ts): `href`, an optional `method`, and nothing forbidden beside them. */
import { test, expect } from '@playwright/test';
import { linkShapeIssues } from '../support/links.ts';

test('a link is an object with a string href and an optional HTTP method; other members (HAL) are allowed', () => {
  expect(linkShapeIssues({ self: { href: '/orders/1' }, cancel: { href: '/orders/1/cancel', method: 'POST' } })).toEqual([]);
  // PingOne's HAL links: the document forbids none of these members.
  expect(linkShapeIssues({ next: { href: '/environments?cursor=x', name: 'next', title: 'Next page', type: 'application/json', profile: 'p' } })).toEqual([]);
  expect(linkShapeIssues({ self: { title: 'no href' }, pay: { href: '/p', method: 'post' }, items: [{ href: '/a' }] })).toEqual([
    'self: href is not a non-empty string',
    'pay: method is not an HTTP method',
    'items: not an object',
  ]);
  expect(linkShapeIssues([])).toEqual(['_links is not an object: []']);
});
