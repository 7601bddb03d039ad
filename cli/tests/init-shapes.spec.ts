/**
 * `init` reads each collection's shapes from the document (D-SHAPES, cli/init/shapes.ts): the id's
 * schema from the item path parameter, the representation and its id inside item answers, the items
 * of a listing, the request envelope. Judged on public documents of the corpus nobody here wrote.
 */
import { test, expect } from '@playwright/test';
import { draftProfile } from '../init/draft.ts';
import { loadOpenApi } from '../../conformance/openapi/document.ts';
import { CORPUS_ABSENT, corpusPath } from '../../conformance/tests/support/openapi-corpus.ts';
import { profileProblems } from '../../conformance/target/profile.ts';
import type { ProfileCollection } from '../../conformance/target/profile.ts';

async function collections(file: string): Promise<ProfileCollection[]> {
  const draft = draftProfile(await loadOpenApi(corpusPath(file)), corpusPath(file));
  return draft.collections;
}

function byPath(list: ProfileCollection[], path: string): ProfileCollection {
  const found = list.find((c) => c.path === path);
  if (!found) throw new Error(`no collection ${path} in ${list.map((c) => c.path).join(', ')}`);
  return found;
}

test.describe('init derives collections[].shape, parameters and credentials from the document', () => {
  test.skip(CORPUS_ABSENT !== undefined, CORPUS_ABSENT ?? '');

  test('twilio-messaging-v1: prefixed string ids with a pattern, listings under their own member', async () => {
    const services = byPath(await collections('twilio-messaging-v1.yaml'), '/v1/Services');
    expect(services.shape?.idSchema).toEqual({ type: 'string', pattern: '^MG[0-9a-fA-F]{32}$', minLength: 34, maxLength: 34 });
    expect(services.shape?.items).toBe('/services');
  });

  test('paddle-billing: {data, meta} envelopes around items and listings', async () => {
    const products = byPath(await collections('paddle-billing.yaml'), '/products');
    expect(products.shape).toEqual(expect.objectContaining({ item: '/data', items: '/data', idSchema: { type: 'string' } }));
  });

  test('museum: uuid ids named by their own member', async () => {
    const events = byPath(await collections('museum.yaml'), '/special-events');
    expect(events.shape).toEqual({ idSchema: { type: 'string', format: 'uuid' }, id: '/eventId' });
  });

  test('fusionauth: the envelope named after the item among several objects, the listing named after the collection', async () => {
    const list = await collections('fusionauth.yaml');
    // ApplicationResponse is {application, applications, role}: the item is /application, the listing /applications.
    expect(byPath(list, '/api/application').shape).toEqual(expect.objectContaining({ item: '/application', items: '/applications', envelope: 'application' }));
    // GET /api/user answers one user ({user, verificationIds}), not a listing.
    expect(byPath(list, '/api/user').shape).toEqual(expect.objectContaining({ item: '/user', envelope: 'user' }));
    expect(byPath(list, '/api/user').shape?.items).toBeUndefined();
  });

  test('paddle-billing /simulations: an envelope whose member is a oneOf of objects', async () => {
    expect(byPath(await collections('paddle-billing.yaml'), '/simulations').shape).toEqual(expect.objectContaining({ item: '/data' }));
  });

  test('algolia-search (multi-file): the id read from the create answer, which differs from the item read', async () => {
    const list = await collections('algolia-search/specs/search/spec.yml');
    expect(byPath(list, '/1/keys').shape).toEqual(expect.objectContaining({ id: '/key', items: '/keys' }));
    expect(byPath(list, '/1/clusters/mapping').shape).toEqual(expect.objectContaining({ id: '/userID' }));
  });

  test('oai-petstore-expanded: the project\'s own shapes write no shape', async () => {
    expect(byPath(await collections('oai-petstore-expanded.json'), '/pets').shape).toBeUndefined();
  });

  test('every derived shape is valid against the profile schema', async () => {
    for (const file of ['twilio-messaging-v1.yaml', 'paddle-billing.yaml', 'museum.yaml', 'fusionauth.yaml', 'apideck-accounting.yml']) {
      const shapes = (await collections(file)).map((c) => c.shape).filter((s) => s !== undefined);
      expect(shapes.length, file).toBeGreaterThan(0);
      const probe = { name: 'p', baseUrls: ['http://127.0.0.1:1'], tokens: { valid: 't' }, protected: { method: 'GET', path: '/x' } };
      const problems = profileProblems({ ...probe, collections: shapes.map((shape, i) => ({ name: `c${i}`, path: `/c${i}`, methods: ['GET'], shape })) });
      expect(problems, file).toEqual([]);
    }
  });

  test('apideck-accounting: required vendor headers with the document\'s values; its key in Authorization is a bearer token', async () => {
    const doc = await loadOpenApi(corpusPath('apideck-accounting.yml'));
    const draft = draftProfile(doc, 'apideck');
    expect(draft.credentials).toBeUndefined();
    const bills = byPath(draft.collections, '/accounting/bills');
    expect(Object.keys(bills.parameters?.headers ?? {}).sort()).toEqual(['x-apideck-app-id', 'x-apideck-consumer-id']);
    expect(bills.parameters?.headers?.['x-apideck-consumer-id']).toBe('test-consumer');
    // The protected request is outside every collection: what its path requires is sent on every request.
    expect(draft.protected?.path).toBe('/accounting/company-info');
    expect(draft.parameters?.headers).toEqual(expect.objectContaining({ 'x-apideck-consumer-id': 'test-consumer' }));
  });

  test('twilio-messaging-v1 and museum: HTTP Basic credentials', async () => {
    for (const file of ['twilio-messaging-v1.yaml', 'museum.yaml']) {
      const draft = draftProfile(await loadOpenApi(corpusPath(file)), file);
      expect(draft.credentials, file).toEqual({ scheme: 'basic' });
    }
  });
});
