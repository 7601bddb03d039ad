/**
 * Resources, URLs and self-descriptive JSON messages (document sections 1 and 2, D-PATHS, D-BODY),
 * from the profile's collections.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import type { HttpResponse } from '../transport/message.ts';
import { exchangeText, mediaType } from '../support/problem.ts';
import { provokeAll } from '../support/provocations.ts';
import { linkOf } from '../support/links.ts';
import { fillTemplate } from '../support/template.ts';
import { succeeded } from '../support/collection.ts';
import { skipCheck } from '../support/skip.ts';
import { idOf, representationOf, unwrapped } from '../support/shape.ts';
import { itemPathFor } from '../support/template.ts';
import { required } from '../support/required.ts';

test('collections are addressed by plural nouns', req('URL-COLLECTION-PLURAL', '@generic'), async ({ target }) => {
  for (const collection of target.profile.collections) {
    const last = collection.path.split('/').filter(Boolean).pop() ?? '';
    // kebab-case, snake_case and PascalCase alike (`/payment-methods`, `/payment_methods`, Twilio's `/BrandRegistrations`):
    // the document fixes the plural, not the spelling (D-SHAPES).
    expect(last, `${collection.path} ends in a plural noun`).toMatch(/^[A-Za-z][A-Za-z_-]*s$/);
    const response = await target.client.get(collection.path);
    expect(response.status, exchangeText(response)).toBe(200);
  }
});

test('an item lives under its identifier, and that is its Location', req('URL-ITEM-BY-ID', '@generic'), async ({ target }) => {
  const collections = target.collectionsWithItems().filter((c) => c.create && c.methods.includes('POST'));
  if (collections.length === 0) skipCheck('no collection of the profile has a create body and an item path (collections[].create, .itemPath)');
  for (const collection of collections) {
    const created = await target.create(collection);
    expect(succeeded(created.response), exchangeText(created.response)).toBe(true);
    // The id where the collection's shape puts it (D-SHAPES); the item path is the profile's, nested under
    // the collection or not: the document fixes "under its identifier", not under which parent.
    const where = `member holding the id at ${collection.shape?.id ?? '/id'} (collections[].shape)`;
    const id = required(idOf(created.response.json, collection), where, created.response, 'URL-ITEM-BY-ID');
    expect(created.path, exchangeText(created.response)).toBe(itemPathFor(collection.itemPath, id));
    const self = linkOf(created.response.json, 'self');
    if (self) expect(target.pathOf(self.href)).toBe(created.path);
  }
});

test('an item\'s URL returns that item', req('URL-RESOURCE-IDENTIFIED', '@generic'), async ({ target }) => {
  const collections = target.collectionsWithItems().filter((c) => c.create && c.methods.includes('POST') && c.itemMethods.includes('GET'));
  if (collections.length === 0) skipCheck('no collection of the profile has a create body and a readable item path (collections[].create, .itemMethods)');
  for (const collection of collections) {
    const created = await target.create(collection);
    expect(succeeded(created.response), exchangeText(created.response)).toBe(true);
    const read = await target.client.get(target.itemOf(created));
    expect(read.status, exchangeText(read)).toBe(200);
    expect(representationOf(read.json, collection), exchangeText(read)).toEqual(representationOf(created.response.json, collection));
  }
});

test('representations sent to URLs are read back in the same shape', req('URL-UNIFORM-INTERFACE', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.create && c.methods.includes('POST'));
  if (collection === undefined) skipCheck('no collection of the profile has a create body and an item path (collections[].create, .itemPath)');
  const body = fillTemplate(collection.create ?? {});
  const created = await target.client.post(collection.path, body);
  expect(succeeded(created), exchangeText(created)).toBe(true);
  // The members sent and the representation, inside their envelopes if the collection has them (D-SHAPES).
  const representation = (response: HttpResponse): object => (representationOf(response.json, collection) ?? {}) as object;
  expect(representation(created), exchangeText(created)).toEqual(expect.objectContaining(unwrapped(body, collection)));
  const path = target.itemOf({ response: created, ...target.createdPath(created, collection) });
  const read = await target.client.get(path);
  expect(Object.keys(representation(read)).sort(), exchangeText(read)).toEqual(Object.keys(representation(created)).sort());
  if (collection.replace && collection.itemMethods.includes('PUT')) {
    const replacement = fillTemplate(collection.replace);
    const replaced = await target.client.put(path, replacement);
    expect(succeeded(replaced), exchangeText(replaced)).toBe(true);
    const reread = await target.client.get(path);
    expect(representation(reread), exchangeText(reread)).toEqual(expect.objectContaining(unwrapped(replacement, collection)));
  }
});

test('collection filters, sorting and paging are query parameters, not path segments', req('URL-QUERY-NOT-PATH', '@generic'), async ({ target }) => {
  const collection = target.profile.collections.find((c) => c.methods.includes('GET'));
  if (collection === undefined) skipCheck('the profile lists no collection that answers GET: add one to `collections`');
  // Not a listing: 404, or, where the segment is no valid id of the collection, a 400 or 422 (D-SHAPES;
  // URL-NON-CANONICAL-ID-404 asks for the 404). Whether that answer is a problem document is the problem
  // rules' to judge, on this exchange as on every other (D-FINDINGS: one defect, one finding).
  for (const suffix of ['/page/2', '/sort/id', '/limit/1', '/filter']) {
    const response = await target.client.get(`${collection.path}${suffix}`);
    if (response.status === 400 || response.status === 422) continue;
    expect(response.status, `${suffix} is not a listing: ${exchangeText(response)}`).toBe(404);
  }
  // The server's own paging links (never assumed parameter names, D-SUITE-TRUST): a next page is the
  // same collection path with a query string.
  const first = await target.client.get(collection.path);
  const next = linkOf(first.json, 'next');
  if (next) {
    const url = new URL(next.href, `${target.baseUrl}/`);
    expect(target.pathOf(next.href).split('?')[0], `the next page of ${collection.path} is the same path: ${next.href}`).toBe(collection.path);
    expect(url.search, `the next page is selected by the query string: ${next.href}`).not.toBe('');
    const paged = await target.client.get(target.pathOf(next.href));
    expect(paged.status, exchangeText(paged)).toBe(200);
  }
});

async function sample(target: Parameters<typeof provokeAll>[0]): Promise<HttpResponse[]> {
  const responses = (await provokeAll(target)).map((r) => r.response);
  for (const c of target.profile.collections.filter((x) => x.methods.includes('GET'))) responses.push(await target.client.get(c.path));
  const creatable = target.creatable();
  if (creatable) responses.push((await target.create(creatable)).response);
  return responses;
}

test('every response with a body names a JSON media type', req('JSON-REPRESENTATIONS', '@generic', '@smoke'), async ({ target }) => {
  for (const response of (await sample(target)).filter((r) => r.text !== '')) {
    expect(mediaType(response), exchangeText(response)).toMatch(/^application\/([\w.-]+\+)?json$/);
    expect(response.json, `the body parses as JSON: ${exchangeText(response)}`).toBeDefined();
  }
});

test('every response names its media type and its status tells success from failure', req('MESSAGE-SELF-DESCRIPTIVE', '@generic'), async ({ target }) => {
  const results = await provokeAll(target);
  for (const { provocation, response } of results) {
    expect(response.status >= 400, `${provocation.name} fails by status: ${exchangeText(response)}`).toBe(true);
    if (response.text !== '') expect(response.headers['content-type'], exchangeText(response)).toBeTruthy();
  }
  for (const c of target.profile.collections.filter((x) => x.methods.includes('GET'))) {
    const ok = await target.client.get(c.path);
    expect(ok.status, exchangeText(ok)).toBeLessThan(300);
    expect(ok.headers['content-type'], exchangeText(ok)).toBeTruthy();
  }
});

test('responses are JSON whatever Accept asks for', req('JSON-NO-406', '@generic'), async ({ target }) => {
  const collection = target.profile.collections.find((c) => c.methods.includes('GET'));
  if (collection === undefined) skipCheck('the profile lists no collection that answers GET: add one to `collections`');
  const response = await target.client.get(collection.path, { headers: { accept: 'text/html' } });
  if (response.status === 406) skipCheck('feature not implemented (MAY): the target answers 406 to a non-JSON Accept');
  expect(response.status, exchangeText(response)).toBe(200);
  expect(mediaType(response)).toMatch(/json$/);
});
