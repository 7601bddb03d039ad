/**
 * Status codes of errors and successes (document section 7 "Status codes", D-SUCCESS-STATUS,
 * D-BODY, D-ERRORS), driven by the profile's collections.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import { errorFields, exchangeText, problemIssues } from '../support/problem.ts';
import { fillTemplate, itemPathFor, uniqueValue } from '../support/template.ts';
import { unknownItemPath } from '../support/target.ts';
import type { Target } from '../support/target.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { ProfileCollection } from '../target/profile.ts';
import { skipCheck } from '../support/skip.ts';
import { idOf, invalidIdSegment, representationOf, unwrapped, withMembers } from '../support/shape.ts';

test('an unknown route is a 404 problem for every method', req('STATUS-404-UNKNOWN-ROUTE', '@generic', '@smoke'), async ({ target }) => {
  const path = `/hac-no-such-route-${uniqueValue()}/deeper`;
  for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
    const response = await target.client.request(method, path, method === 'POST' || method === 'PUT' ? { json: {} } : {});
    expect(response.status, exchangeText(response)).toBe(404);
    expect(problemIssues(response), method).toEqual([]);
  }
  const head = await target.client.request('HEAD', path);
  expect(head.status, exchangeText(head)).toBe(404);
});

test('an unknown id is a 404 problem in every collection', req('STATUS-404-UNKNOWN-RESOURCE', '@generic', '@smoke'), async ({ target }) => {
  // Each with a method its item path allows (D-SUITE-TRUST): GET, else DELETE, else PUT.
  const requests = target.collectionsWithItems().flatMap((c) => target.unknownItemRequest(c) ?? []);
  if (requests.length === 0) skipCheck('the profile declares no item path that allows GET, DELETE or PUT (collections[].itemPath, .itemMethods)');
  for (const request of requests) {
    const response = await request.send();
    expect(response.status, exchangeText(response)).toBe(404);
    expect(problemIssues(response)).toEqual([]);
  }
});

test('a segment that is no valid id names no resource: 404', req('URL-NON-CANONICAL-ID-404', '@generic'), async ({ target }) => {
  // The MUST (URL-QUERY-NOT-PATH) accepts 400, 404 or 422 with a problem document for such a segment; the
  // project's choice, D-IDS, is the 404 of an unknown id (D-SHAPES). The segment breaks the collection's id schema.
  const probes = target.collectionsWithItems().filter((c) => c.itemMethods.includes('GET')).flatMap((c) => {
    const segment = invalidIdSegment(c);
    return segment === undefined ? [] : [itemPathFor(c.itemPath, segment)];
  });
  if (probes.length === 0) skipCheck('no readable item path whose id schema refuses some segment (collections[].shape.idSchema)');
  for (const path of probes) {
    const response = await target.client.get(path);
    expect(response.status, exchangeText(response)).toBe(404);
    expect(problemIssues(response)).toEqual([]);
  }
});

test('malformed JSON is a 400 problem', req('STATUS-400-MALFORMED-JSON', '@generic', '@smoke'), async ({ target }) => {
  const collections = target.profile.collections.filter((c) => c.methods.includes('POST'));
  if (collections.length === 0) skipCheck('no collection of the profile allows POST (collections[].methods)');
  for (const collection of collections) {
    for (const body of ['{"name": ', '{name: 1}', "{'a': 1}", '{"a": 1,}', 'nul']) {
      const response = await target.client.request('POST', collection.path, { body, headers: { 'content-type': 'application/json' } });
      expect(response.status, exchangeText(response)).toBe(400);
      expect(problemIssues(response)).toEqual([]);
    }
  }
});

/** The answers to a valid create body sent as text/plain, form-urlencoded and without Content-Type. */
async function mediaTypeAnswers(target: Target, collection: ProfileCollection): Promise<HttpResponse[]> {
  const body = JSON.stringify(fillTemplate(collection.create));
  const variants: Record<string, string>[] = [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}];
  const responses = [];
  for (const headers of variants) responses.push(await target.client.request('POST', collection.path, { body, headers }));
  return responses;
}

test(
  'a body without a JSON media type is refused with a 4xx problem',
  req('STATUS-415-MEDIA-TYPE', '@generic'),
  async ({ target, creatableCollection: collection }) => {
    // The document's status table has no 415: 400, 415 and 422 are all allowed, a 2xx or 5xx is not
    // (D-SUITE-TRUST); MEDIA-TYPE-415 asks for the project's 415.
    for (const response of await mediaTypeAnswers(target, collection)) {
      expect(response.status >= 400 && response.status < 500, `a 4xx: ${exchangeText(response)}`).toBe(true);
      expect(problemIssues(response)).toEqual([]);
    }
    const accepted = await target.client.request('POST', collection.path, {
      body: JSON.stringify(fillTemplate(collection.create)),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(accepted.status, `a JSON media type with parameters is accepted: ${exchangeText(accepted)}`).toBeLessThan(300);
  },
);

test('a body without a JSON media type is a 415', req('MEDIA-TYPE-415', '@generic'), async ({ target, creatableCollection: collection }) => {
  for (const response of await mediaTypeAnswers(target, collection)) expect(response.status, exchangeText(response)).toBe(415);
});

/** The answer to a 2 MiB JSON body, far over any body limit (D-BODY: 64 KiB by default). */
async function oversizedBodyAnswer(target: Target): Promise<HttpResponse> {
  const collection = target.profile.collections.find((c) => c.methods.includes('POST'));
  if (collection === undefined) skipCheck('no collection of the profile allows POST (collections[].methods)');
  const body = JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) });
  return target.client.request('POST', collection.path, { body, headers: { 'content-type': 'application/json' } });
}

test('a body over the size limit is refused with a 4xx problem', req('STATUS-413-BODY-TOO-LARGE', '@generic'), async ({ target }) => {
  const response = await oversizedBodyAnswer(target);
  // The document shows no body limit: any 4xx refusal is allowed, the project's 413 is BODY-TOO-LARGE-413 (D-SUITE-TRUST).
  expect(response.status >= 400 && response.status < 500, `a 4xx: ${exchangeText(response)}`).toBe(true);
  expect(problemIssues(response)).toEqual([]);
});

test('a body over the size limit is a 413', req('BODY-TOO-LARGE-413', '@generic'), async ({ target }) => {
  const response = await oversizedBodyAnswer(target);
  expect(response.status, exchangeText(response)).toBe(413);
});

/** The answer to each invalid body of the profile (`collections[].invalid`); skips the check when it gives none. */
async function invalidBodyAnswers(target: Target): Promise<{ collection: ProfileCollection; response: HttpResponse }[]> {
  const collections = target.profile.collections.filter((c) => c.invalid && c.methods.includes('POST'));
  if (collections.length === 0) skipCheck('the profile gives no invalid body (collections[].invalid)');
  const answers = [];
  for (const collection of collections) answers.push({ collection, response: await target.client.post(collection.path, collection.invalid?.body) });
  return answers;
}

test('an invalid body is a 422 problem', req('STATUS-422-INVALID-VALUES', '@generic', '@smoke'), async ({ target }) => {
  for (const { response } of await invalidBodyAnswers(target)) {
    expect(response.status, exchangeText(response)).toBe(422);
    expect(problemIssues(response)).toEqual([]);
  }
});

test('a 422 carries a non-empty errors array', req('VALIDATION-422-ERRORS-ARRAY', '@generic'), async ({ target }) => {
  for (const { response } of await invalidBodyAnswers(target)) {
    const errors = (response.json as { errors?: unknown } | undefined)?.errors;
    expect(Array.isArray(errors) && errors.length > 0, `errors is a non-empty array: ${exchangeText(response)}`).toBe(true);
  }
});

test('each 422 errors element has a string field and a string message', req('VALIDATION-ERROR-ITEM-SHAPE', '@generic'), async ({ target }) => {
  for (const { response } of await invalidBodyAnswers(target)) {
    const errors = (response.json as { errors?: unknown } | undefined)?.errors;
    expect(Array.isArray(errors), exchangeText(response)).toBe(true);
    for (const item of errors as unknown[]) {
      // Members beside field and message are allowed (document section 7: "Additional members may be added"; D-SUITE-TRUST).
      expect(item, exchangeText(response)).toEqual(expect.objectContaining({ field: expect.any(String), message: expect.any(String) }));
    }
  }
});

test('a 422 names every invalid field in one response', req('VALIDATION-ALL-FIELDS', '@generic', '@smoke'), async ({ target }) => {
  for (const { collection, response } of await invalidBodyAnswers(target)) {
    expect(response.status, exchangeText(response)).toBe(422);
    const named = errorFields(response.json);
    for (const field of collection.invalid?.fields ?? []) {
      expect(named, `${collection.path}: the 422 names "${field}": ${exchangeText(response)}`).toContain(field);
    }
  }
});

test(
  'an unknown member in a request body is named in a 422',
  req('VALIDATION-UNKNOWN-MEMBERS', '@generic'),
  async ({ target, creatableCollection: collection }) => {
    // Inside the collection's request envelope, if it has one (D-SHAPES).
    const response = await target.client.post(collection.path, withMembers(fillTemplate(collection.create), { hacUnknownMember: 1 }, collection));
    expect(response.status, exchangeText(response)).toBe(422);
    const envelope = collection.shape?.envelope;
    expect(errorFields(response.json), exchangeText(response)).toContain(envelope === undefined ? 'hacUnknownMember' : `${envelope}.hacUnknownMember`);
  },
);

test(
  'a JSON body that is not an object is a 422 naming (body)',
  req('VALIDATION-BODY-NOT-OBJECT', '@generic'),
  async ({ target, creatableCollection: collection }) => {
    for (const body of [[], 42, 'text', null]) {
      const response = await target.client.post(collection.path, body);
      expect(response.status, exchangeText(response)).toBe(422);
      expect(errorFields(response.json)).toEqual(['(body)']);
    }
  },
);

test('a create is a 201 with the resource and a Location naming it', req('STATUS-201-CREATED-LOCATION', '@generic', '@smoke'), async ({ target }) => {
  const collections = target.profile.collections.filter((c) => c.create && c.methods.includes('POST'));
  if (collections.length === 0) skipCheck('no collection of the profile has a create body (collections[].create)');
  for (const collection of collections) {
    const created = await target.create(collection);
    expect(created.response.status, exchangeText(created.response)).toBe(201);
    expect(created.response.headers.location, exchangeText(created.response)).toBeTruthy();
    expect(typeof created.response.json, `the created resource is returned: ${exchangeText(created.response)}`).toBe('object');
    const read = await target.client.get(target.pathOf(created.response.headers.location ?? ''));
    expect(read.status, exchangeText(read)).toBe(200);
    expect(idOf(read.json, collection), `the same item: ${exchangeText(read)}`).toEqual(idOf(created.response.json, collection));
  }
});

test('a read of a collection and of an item is a 200 with the representation', req('STATUS-200-READ', '@generic', '@smoke'), async ({ target }) => {
  for (const collection of target.profile.collections.filter((c) => c.methods.includes('GET'))) {
    const list = await target.client.get(collection.path);
    expect(list.status, exchangeText(list)).toBe(200);
    expect(list.json, exchangeText(list)).toBeDefined();
  }
  for (const collection of target.collectionsWithItems().filter((c) => c.itemMethods.includes('GET'))) {
    const path = await target.existingItem(collection);
    if (!path) continue;
    const item = await target.client.get(path);
    expect(item.status, exchangeText(item)).toBe(200);
    expect(typeof item.json, exchangeText(item)).toBe('object');
  }
});

test('a PUT answers 200 with the updated resource', req('STATUS-200-UPDATE', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.replace && c.itemMethods.includes('PUT') && c.create);
  if (collection === undefined) skipCheck('no collection of the profile has a replace body and a create body (collections[].replace, .create)');
  const path = await target.existingItem(collection);
  expect(path).toBeTruthy();
  const replacement = fillTemplate(collection.replace ?? {});
  const response = await target.client.put(path ?? '', replacement);
  expect(response.status, exchangeText(response)).toBe(200);
  expect(representationOf(response.json, collection)).toEqual(expect.objectContaining(unwrapped(replacement, collection)));
});

test('a PUT on an unknown item is a 404 and creates nothing', req('STATUS-PUT-NO-CREATE', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.replace && c.itemMethods.includes('PUT'));
  if (collection === undefined) skipCheck('no collection of the profile has a replace body (collections[].replace)');
  const path = unknownItemPath(collection);
  const response = await target.client.put(path, fillTemplate(collection.replace ?? {}));
  expect(response.status, exchangeText(response)).toBe(404);
  expect((await target.client.get(path)).status).toBe(404);
});

test('a DELETE is a 204 without a body', req('STATUS-204-DELETE', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.create && c.itemMethods.includes('DELETE') && c.methods.includes('POST'));
  if (collection === undefined) skipCheck('no collection of the profile can create and delete items (collections[].create, .itemMethods)');
  const created = await target.create(collection);
  const response = await target.client.delete(target.itemOf(created));
  expect(response.status, exchangeText(response)).toBe(204);
  expect(response.text).toBe('');
});

test('a DELETE of an absent item is a 404', req('STATUS-DELETE-ABSENT-404', '@generic'), async ({ target }) => {
  const collection = target.collectionsWithItems().find((c) => c.itemMethods.includes('DELETE'));
  if (collection === undefined) skipCheck('no item path of the profile allows DELETE (collections[].itemMethods)');
  const response = await target.client.delete(unknownItemPath(collection));
  expect(response.status, exchangeText(response)).toBe(404);
  expect(problemIssues(response)).toEqual([]);
});
