/**
 * Method semantics (document section 4 "Method semantics", D-METHODS, RFC 9110 §9 and §15.5.6):
 * 405 with Allow for every method a path does not allow, OPTIONS and HEAD, and idempotency of
 * GET, PUT and DELETE against POST.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { exchangeText, problemIssues } from '../support/problem.ts';
import { fillTemplate } from '../support/template.ts';
import type { Target } from '../support/target.ts';
import type { HttpResponse } from '../transport/message.ts';
import { succeeded } from '../support/collection.ts';
import { explicitAllow, implicitMethod } from '../support/implicit-methods.ts';
import { skipCheck } from '../support/skip.ts';
import { representationOf, unwrapped } from '../support/shape.ts';

const standardMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The allowed set of a header value such as "GET, HEAD, OPTIONS". */
function allowSet(value: string | undefined): string[] {
  return (value ?? '').split(',').map((m) => m.trim().toUpperCase()).filter(Boolean).sort();
}

interface PathUnderTest {
  path: string;
  allowed: string[];
}

/** Every collection path, and an existing item of every collection with an item path. */
async function pathsUnderTest(target: Target): Promise<PathUnderTest[]> {
  const paths: PathUnderTest[] = target.profile.collections.map((c) => ({ path: c.path, allowed: c.methods }));
  for (const c of target.collectionsWithItems()) {
    const path = await target.existingItem(c);
    if (path) paths.push({ path, allowed: c.itemMethods });
  }
  return paths;
}

async function disallowedAnswers(target: Target): Promise<{ path: PathUnderTest; method: string; response: HttpResponse }[]> {
  const answers = [];
  for (const path of await pathsUnderTest(target)) {
    for (const method of standardMethods.filter((m) => !path.allowed.includes(m))) {
      const response = await target.client.request(method, path.path, method === 'POST' || method === 'PUT' || method === 'PATCH' ? { json: {} } : {});
      answers.push({ path, method, response });
    }
  }
  return answers;
}

test('every method a path does not allow is a 405 problem', req('METHOD-NOT-ALLOWED-405', '@generic', '@smoke'), async ({ target }) => {
  const answers = await disallowedAnswers(target);
  if (answers.length === 0) skipCheck('every path of the profile allows every standard method (collections[].methods, .itemMethods)');
  for (const { path, method, response } of answers) {
    if (implicitMethod(method, path.allowed) && response.status < 400) continue; // D-METHODS-IMPLICIT
    expect(response.status, exchangeText(response)).toBe(405);
    if (method !== 'HEAD') expect(problemIssues(response), exchangeText(response)).toEqual([]);
  }
});

test('every 405 lists exactly the allowed methods in Allow', req('METHOD-ALLOW-HEADER', '@generic', '@smoke'), async ({ target }) => {
  const answers = await disallowedAnswers(target);
  if (answers.length === 0) skipCheck('every path of the profile allows every standard method (collections[].methods, .itemMethods)');
  for (const { path, response } of answers.filter((a) => a.response.status === 405)) {
    const allow = explicitAllow(allowSet(response.headers.allow), path.allowed); // D-METHODS-IMPLICIT
    expect(allow, exchangeText(response)).toEqual([...path.allowed].sort());
  }
  expect(answers.some((a) => a.response.status === 405), 'at least one 405 was answered').toBe(true);
});

test('an unknown method on a known path is a 405 with Allow', req('METHOD-UNKNOWN-405', '@generic'), async ({ target }) => {
  const collection = target.profile.collections[0];
  if (collection === undefined) skipCheck('the profile lists no collection: add one to `collections`');
  const response = await target.client.request('BREW', collection.path);
  if (response.status === 501) skipCheck('the target answers 501 to unknown methods (RFC 9110 allows it; 405 is a MAY feature)');
  expect(response.status, exchangeText(response)).toBe(405);
  expect(allowSet(response.headers.allow)).toEqual([...collection.methods].sort());
});

test('OPTIONS on every path lists the allowed methods', req('METHOD-OPTIONS-ALLOW', '@generic'), async ({ target }) => {
  for (const path of await pathsUnderTest(target)) {
    const response = await target.client.request('OPTIONS', path.path);
    expect(response.status, exchangeText(response)).toBe(204);
    expect(allowSet(response.headers.allow), exchangeText(response)).toEqual([...path.allowed].sort());
  }
});

test('HEAD answers the status and headers of GET without a body', req('METHOD-HEAD-AS-GET', '@generic'), async ({ target }) => {
  for (const path of (await pathsUnderTest(target)).filter((p) => p.allowed.includes('GET'))) {
    const get = await target.client.get(path.path);
    const head = await target.client.request('HEAD', path.path);
    expect(head.status, exchangeText(head)).toBe(get.status);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
  }
});

test('repeating a GET returns the same representation', req('METHOD-GET-IDEMPOTENT', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.itemMethods.includes('GET'));
  if (collection === undefined) skipCheck('no item path of the profile allows GET (collections[].itemMethods)');
  const path = await target.existingItem(collection);
  if (path === undefined) skipCheck('the profile can neither create an item nor names an existing one (collections[].create, .existingIds)');
  const responses = [];
  for (let i = 0; i < 3; i += 1) responses.push(await target.client.get(path));
  for (const response of responses) {
    expect(response.status, exchangeText(response)).toBe(200);
    expect(response.json).toEqual(responses[0]?.json);
  }
});

/** Members a server maintains itself and may change on every write (D-CONCURRENCY `version`). */
const serverMaintained = ['version', 'updatedAt', 'etag', 'lastModified'];

function withoutServerMaintained(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !serverMaintained.includes(k)));
}

test('repeating the same PUT leaves the same state', req('METHOD-PUT-IDEMPOTENT', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.replace && c.itemMethods.includes('PUT'));
  if (collection === undefined) skipCheck('no collection of the profile has a replace body (collections[].replace)');
  const path = await target.existingItem(collection);
  if (path === undefined) skipCheck('the profile can neither create an item nor names an existing one (collections[].create, .existingIds)');
  const replacement = fillTemplate(collection.replace ?? {});
  const states = [];
  for (let i = 0; i < 3; i += 1) {
    const put = await target.client.put(path, replacement);
    expect(put.status, exchangeText(put)).toBeLessThan(300);
    const read = await target.client.get(path);
    // Inside the collection's envelopes, if it has them (D-SHAPES).
    const state = representationOf(read.json, collection);
    expect(state, exchangeText(read)).toEqual(expect.objectContaining(unwrapped(replacement, collection)));
    states.push(withoutServerMaintained(state));
  }
  expect(states[1]).toEqual(states[0]);
  expect(states[2]).toEqual(states[0]);
});

test('repeating a DELETE leaves the item gone', req('METHOD-DELETE-IDEMPOTENT', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.create && c.itemMethods.includes('DELETE') && c.methods.includes('POST'));
  if (collection === undefined) skipCheck('no collection of the profile can create and delete items (collections[].create, .itemMethods)');
  const created = await target.create(collection);
  expect(succeeded(created.response), exchangeText(created.response)).toBe(true);
  const path = target.itemOf(created);
  const first = await target.client.delete(path);
  expect(first.status, exchangeText(first)).toBeLessThan(300);
  expect((await target.client.get(path)).status).toBe(404);
  const second = await target.client.delete(path);
  expect([200, 202, 204, 404], exchangeText(second)).toContain(second.status);
  expect((await target.client.get(path)).status).toBe(404);
});

test('a POST without a key creates a new resource each time', req('METHOD-POST-NOT-IDEMPOTENT', '@generic', '@smoke'), async ({ target }) => {
  const idem = target.profile.idempotency;
  const collection = target.creatable();
  if (!idem && !collection) skipCheck('the profile gives no body to POST (idempotency, collections[].create)');
  const path = idem?.path ?? collection?.path ?? '';
  const sameBody = idem ? fillTemplate(idem.body) : undefined;
  const first = await target.client.post(path, sameBody ?? fillTemplate(collection?.create));
  const second = await target.client.post(path, sameBody ?? fillTemplate(collection?.create));
  expect(succeeded(first), exchangeText(first)).toBe(true);
  expect(succeeded(second), exchangeText(second)).toBe(true);
  const of = (idem ? target.profile.collections.find((c) => c.path === idem.path) : collection) ?? {};
  const a = target.createdPath(first, of);
  const b = target.createdPath(second, of);
  expect(a.path).toBeTruthy();
  expect(b.path, 'the second POST created another resource').not.toEqual(a.path);
});
