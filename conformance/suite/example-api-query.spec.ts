/**
 * Filtering, sorting and paging of the example API's collections (document section 2 naming rules,
 * D-QUERY): parameters, the page shape and its next/prev links, and 400 invalid-query.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import type { HttpResponse } from '../transport/message.ts';
import { errorFields, exchangeText, problemIssues } from '../support/problem.ts';
import { linkOf } from '../support/links.ts';
import { uniqueValue } from '../support/template.ts';
import { succeeded } from '../support/collection.ts';
import { NO_EXAMPLE_API } from '../support/example-api.ts';
import { skipCheck } from '../support/skip.ts';

// The whole file needs the feature: skipped before any check's own fixtures (Playwright runs beforeAll first).
test.beforeAll(({ profile }) => {
  if (!profile.features?.exampleApi) skipCheck(NO_EXAMPLE_API);
});

interface Page {
  items: { id: number; name?: string; email?: string }[];
  page: { limit: number; offset: number; total: number };
  _links: Record<string, { href: string }>;
}

function page(response: HttpResponse): Page {
  return response.json as Page;
}

test('limit and offset page a collection', req('QUERY-PAGING', '@example-api'), async ({ target }) => {
  const all = page(await target.client.get('/users?limit=100'));
  expect(all.page.limit).toBe(100);
  const second = await target.client.get('/users?limit=2&offset=1');
  expect(second.status, exchangeText(second)).toBe(200);
  expect(page(second).page).toEqual({ limit: 2, offset: 1, total: expect.any(Number) });
  expect(page(second).items.map((u) => u.id)).toEqual(all.items.slice(1, 3).map((u) => u.id));
  const defaults = page(await target.client.get('/users'));
  expect(defaults.page.limit).toBe(20);
  expect(defaults.page.offset).toBe(0);
});

test('sort orders a collection by a field, ascending or descending', req('QUERY-SORTING', '@example-api'), async ({ target }) => {
  const ascending = page(await target.client.get('/users?sort=id&limit=100')).items.map((u) => u.id);
  const descending = page(await target.client.get('/users?sort=-id&limit=100')).items.map((u) => u.id);
  expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
  expect(descending.slice(0, 5)).toEqual([...descending].sort((a, b) => b - a).slice(0, 5));
  const byName = page(await target.client.get('/users?sort=name&limit=100')).items.map((u) => u.name ?? '');
  expect(byName).toEqual([...byName].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
});

test('a field-named parameter filters a collection by exact match', req('QUERY-FILTERING', '@example-api'), async ({ target }) => {
  const email = `filter-${uniqueValue()}@example.com`;
  const made = await target.client.post('/users', { name: 'filtered', email });
  expect(succeeded(made), exchangeText(made)).toBe(true);
  const filtered = page(await target.client.get(`/users?email=${encodeURIComponent(email)}`));
  expect(filtered.items.map((u) => u.email)).toEqual([email]);
  expect(filtered.page.total).toBe(1);
  const pending = await target.client.get('/orders?status=pending');
  expect((pending.json as { items: { status: string }[] }).items.every((o) => o.status === 'pending')).toBe(true);
});

test('an unknown parameter or an out-of-range value is a 400 naming each', req('QUERY-INVALID-400', '@example-api'), async ({ target }) => {
  const response = await target.client.get('/users?limit=0&offset=-1&colour=red&sort=password');
  expect(response.status, exchangeText(response)).toBe(400);
  expect(problemIssues(response)).toEqual([]);
  expect(String((response.json as { type?: string }).type)).toMatch(/\/invalid-query$/);
  expect(errorFields(response.json).sort()).toEqual(['colour', 'limit', 'offset', 'sort']);
});

test('a collection response is items, page and _links', req('COLLECTION-PAGE-SHAPE', '@example-api'), async ({ target }) => {
  for (const path of ['/users', '/orders', '/payments', '/transfers', '/authors', '/posts']) {
    const response = await target.client.get(path);
    expect(response.json, path).toEqual(expect.objectContaining({
      items: expect.any(Array),
      page: { limit: expect.any(Number), offset: expect.any(Number), total: expect.any(Number) },
      _links: expect.objectContaining({ self: expect.objectContaining({ href: expect.any(String) }) }),
    }));
  }
});

test('next and prev links exist only when such a page does, and keep filter and sort', req('COLLECTION-PAGE-LINKS', '@example-api'), async ({ target }) => {
  // Only the test's own users (a unique name filter): other tests create users while this one pages.
  const name = `paged-${uniqueValue()}`;
  for (let i = 0; i < 3; i += 1) {
    const made = await target.client.post('/users', { name, email: `p${i}-${uniqueValue()}@example.com` });
    expect(succeeded(made), exchangeText(made)).toBe(true);
  }
  const filter = `name=${name}`;
  const first = await target.client.get(`/users?${filter}&limit=1&sort=-id`);
  expect(page(first).page.total, exchangeText(first)).toBe(3);
  expect(linkOf(first.json, 'prev'), 'no page before the first').toBeUndefined();
  const next = linkOf(first.json, 'next');
  expect(next, exchangeText(first)).toBeDefined();
  expect(next?.href).toContain('sort=-id');
  expect(next?.href).toContain(filter);
  const second = await target.client.get(target.pathOf(next?.href ?? ''));
  expect(page(second).page.offset).toBe(1);
  expect(linkOf(second.json, 'prev')).toBeDefined();
  const last = await target.client.get(`/users?${filter}&limit=1&offset=2`);
  expect(page(last).items, exchangeText(last)).toHaveLength(1);
  expect(linkOf(last.json, 'next'), 'no page after the last').toBeUndefined();
});
