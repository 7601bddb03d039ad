/**
 * Hypermedia controls (document section 2 "_links", maturity level 3), generic part: the shape of
 * `_links` on every representation the profile lets the suite reach, `self` without a method, and
 * every link resolving. Order actions are in example-api-orders.spec.ts.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import type { HttpResponse } from '../transport/message.ts';
import { exchangeText } from '../support/problem.ts';
import { linkOf, linkShapeIssues, linksOf } from '../support/links.ts';
import type { Target } from '../support/target.ts';
import { itemPathFor } from '../support/template.ts';
import { skipCheck } from '../support/skip.ts';

// The whole file needs the feature: skipped before any check's own fixtures (Playwright runs beforeAll first).
test.beforeAll(({ profile }) => {
  if (!profile.features?.hypermedia) skipCheck('the profile does not declare features.hypermedia');
});

/**
 * An item of every collection and every collection page, by path. Items named in `existingIds` come
 * first: they are the valid caller's own (a user created by the caller is another user, whose
 * owner-only relations D-AUTH hides from the caller).
 */
async function representations(target: Target): Promise<{ path: string; response: HttpResponse; item: boolean; ownedByCaller: boolean }[]> {
  const out: { path: string; response: HttpResponse; item: boolean; ownedByCaller: boolean }[] = [];
  for (const collection of target.profile.collections.filter((c) => c.methods.includes('GET'))) {
    out.push({ path: collection.path, response: await target.client.get(collection.path), item: false, ownedByCaller: true });
  }
  for (const collection of target.collectionsWithItems().filter((c) => c.itemMethods.includes('GET'))) {
    const known = collection.existingIds?.[0];
    const path = known === undefined ? await target.existingItem(collection) : itemPathFor(collection.itemPath, known);
    if (path) out.push({ path, response: await target.client.get(path), item: true, ownedByCaller: known !== undefined });
  }
  return out.filter((r) => r.response.status === 200);
}

test('_links maps relation names to objects with href and an optional method', req('LINKS-SHAPE', '@generic'), async ({ target }) => {
  const reps = await representations(target);
  expect(reps.length).toBeGreaterThan(0);
  for (const { path, response } of reps) {
    const links = linksOf(response.json);
    if (links) expect(linkShapeIssues(links), `${path}: ${exchangeText(response)}`).toEqual([]);
    const items = (response.json as { items?: unknown[] }).items;
    for (const item of Array.isArray(items) ? items.slice(0, 5) : []) {
      const itemLinks = linksOf(item);
      if (itemLinks) expect(linkShapeIssues(itemLinks), `an item of ${path}`).toEqual([]);
    }
  }
  expect(reps.filter((r) => r.item).every((r) => linksOf(r.response.json) !== undefined), 'every item carries _links').toBe(true);
});

test('the self link carries no method', req('LINKS-SELF-NO-METHOD', '@generic'), async ({ target }) => {
  let seen = 0;
  for (const { path, response } of await representations(target)) {
    const self = linksOf(response.json)?.self as Record<string, unknown> | undefined;
    if (self === undefined) continue;
    seen += 1;
    expect(self, `${path}: ${exchangeText(response)}`).not.toHaveProperty('method');
  }
  expect(seen, 'representations with a self link').toBeGreaterThan(0);
});

test('every item carries a self link to its own path', req('LINKS-SELF-EVERY-RESOURCE', '@generic'), async ({ target }) => {
  for (const { path, response } of (await representations(target)).filter((r) => r.item)) {
    const self = linkOf(response.json, 'self');
    expect(self, `${path}: ${exchangeText(response)}`).toBeDefined();
    expect(target.pathOf(self?.href ?? '')).toBe(path);
  }
});

test(
  'every link resolves: GET links answer 200, self returns the same resource, actions accept their method',
  req('LINKS-HREF-RESOLVES', '@generic'),
  async ({ target }) => {
    let followed = 0;
    for (const { path, response, ownedByCaller } of await representations(target)) {
      const links = linksOf(response.json) ?? {};
      for (const rel of Object.keys(links)) {
        followed += 1;
        const link = linkOf(response.json, rel);
        if (!link) continue;
        const href = target.pathOf(link.href);
        if (link.method === undefined || link.method === 'GET') {
          const got = await target.client.get(href);
          // A relation of an item the caller created but does not own (a user it made) may be owner-only
          // (D-AUTH): 404 or 403 there is the server hiding it, not a broken link. Self links always resolve.
          if (!ownedByCaller && rel !== 'self' && (got.status === 404 || got.status === 403)) continue;
          expect(got.status, `${path} ${rel} → ${exchangeText(got)}`).toBe(200);
          if (rel === 'self' && !href.includes('?')) expect(got.json).toEqual(response.json);
        } else {
          // The allowed methods from OPTIONS (METHOD-OPTIONS-ALLOW, a SHOULD), else from the Allow of the 405
          // a GET gets (METHOD-ALLOW-HEADER, a MUST): never by performing the action (D-SUITE-TRUST).
          let answer = await target.client.request('OPTIONS', href);
          if (answer.status < 200 || answer.status >= 300) answer = await target.client.get(href);
          expect(answer.headers.allow ?? '', `${path} ${rel}: ${exchangeText(answer)}`).toContain(link.method);
        }
      }
    }
    expect(followed, 'links found in the representations').toBeGreaterThan(0);
  },
);
