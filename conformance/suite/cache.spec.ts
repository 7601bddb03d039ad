/**
 * Cacheability (document section 1 "Cacheable", D-CACHE, RFC 9111 §3.5): every response declares
 * Cache-Control; responses to requests with Authorization are never public.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { exchangeText, headerOf } from '../support/problem.ts';
import { provokeAll } from '../support/provocations.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Target } from '../support/target.ts';
import { skipCheck } from '../support/skip.ts';

interface SampleResponses {
  authorized: HttpResponse[];
  anonymous: HttpResponse[];
  errors: HttpResponse[];
  writes: HttpResponse[];
}

/** Successes (reads with and without a token, a create) and every provokable error. */
async function sampleResponses(target: Target): Promise<SampleResponses> {
  // Independent requests go out together: over TLS on a loaded machine one after another took 30 s.
  const reads = async (path: string, isPublic: boolean): Promise<[HttpResponse, HttpResponse | undefined]> =>
    Promise.all([target.client.get(path), isPublic ? target.anonymous.get(path) : Promise.resolve(undefined)]);
  const collections = target.profile.collections.filter((c) => c.methods.includes('GET')).map((c) => reads(c.path, c.auth?.read === false));
  const items = target.collectionsWithItems().filter((c) => c.itemMethods.includes('GET')).map(async (c) => {
    const path = await target.existingItem(c);
    return path ? reads(path, c.auth?.read === false) : undefined;
  });
  const prot = target.profile.protected;
  const creatable = target.creatable();
  const [pairs, itemPairs, protectedRead, created, provoked] = await Promise.all([
    Promise.all(collections),
    Promise.all(items),
    target.client.request(prot.method, prot.path),
    creatable ? target.create(creatable) : Promise.resolve(undefined),
    provokeAll(target),
  ]);
  const all = [...pairs, ...itemPairs.filter((p): p is [HttpResponse, HttpResponse | undefined] => p !== undefined)];
  return {
    authorized: [...all.map(([auth]) => auth), protectedRead],
    anonymous: all.map(([, anon]) => anon).filter((r): r is HttpResponse => r !== undefined),
    errors: provoked.map((r) => r.response),
    writes: created ? [created.response] : [],
  };
}

test('every response declares Cache-Control', req('CACHE-CONTROL-DECLARED', '@generic', '@smoke'), async ({ target }) => {
  const sample = await sampleResponses(target);
  const all = [...sample.authorized, ...sample.anonymous, ...sample.errors, ...sample.writes];
  expect(all.length).toBeGreaterThan(5);
  for (const response of all) expect(...headerOf(response, 'Cache-Control')).toMatch(/\S/);
});

test('a response to a request with Authorization is never public', req('CACHE-PRIVATE-NOT-PUBLIC', '@generic'), async ({ target }) => {
  const sample = await sampleResponses(target);
  const withAuthorization = [...sample.authorized, ...sample.writes, ...sample.errors.filter((r) => r.request.headers.authorization !== undefined)];
  for (const response of withAuthorization) {
    expect(response.headers['cache-control'] ?? '', exchangeText(response)).not.toMatch(/\bpublic\b/i);
  }
  const prot = target.profile.protected;
  const anonymousProtected = await target.anonymous.request(prot.method, prot.path);
  expect(anonymousProtected.headers['cache-control'] ?? '', exchangeText(anonymousProtected)).not.toMatch(/\bpublic\b/i);
});

test('caller-dependent reads, writes and errors are no-store', req('CACHE-NO-STORE-DYNAMIC', '@generic'), async ({ target }) => {
  const sample = await sampleResponses(target);
  for (const response of [...sample.authorized, ...sample.writes, ...sample.errors]) {
    expect(response.headers['cache-control'] ?? '', exchangeText(response)).toMatch(/\bno-store\b/i);
  }
});

test('public reads without a token may be cached publicly for a while', req('CACHE-PUBLIC-READS', '@generic'), async ({ target }) => {
  const sample = await sampleResponses(target);
  if (sample.anonymous.length === 0) skipCheck('the profile declares no public collection (collections[].auth.read false)');
  const cacheable = sample.anonymous.filter((r) => /\bpublic\b/i.test(r.headers['cache-control'] ?? ''));
  if (cacheable.length === 0) skipCheck('feature not implemented (MAY): public reads are not marked cacheable');
  for (const response of cacheable) expect(...headerOf(response, 'Cache-Control')).toMatch(/max-age=\d+/);
});
