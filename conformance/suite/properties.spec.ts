/**
 * Properties over large input spaces, with fast-check: invalid payment bodies,
 * malformed JSON, unknown ids, and every method on every route. Run counts come from HAC_RUNS or
 * the profile's `runs.properties`.
 */
import { explicitAllow, implicitMethod } from '../support/implicit-methods.ts';
import { test, expect, propertyRuns } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import fc from 'fast-check';
import { validationErrors } from '../../spec/schemas.ts';
import { invalidPaymentBody } from '../arbitraries/invalid-payment-body.ts';
import { malformedJson } from '../arbitraries/malformed-json.ts';
import { unknownId } from '../arbitraries/unknown-id.ts';
import { idSchemaOf } from '../support/shape.ts';
import { exampleExtensionMethods, httpMethod, standardMethods } from '../arbitraries/http-method.ts';
import { assertProperty } from '../support/property.ts';
import { errorFields, problemIssues } from '../support/problem.ts';
import { fillTemplate, itemPathFor } from '../support/template.ts';
import type { ProfileCollection } from '../target/profile.ts';
import { skipCheck } from '../support/skip.ts';
import { noteBreaks } from '../transport/exchange-log.ts';

test(
  'any invalid payment body is a 422 naming exactly its invalid fields',
  req('VALIDATION-ALL-FIELDS', '@property', '@example-api'),
  async ({ target, profile }) => {
    if (!profile.features?.exampleApi) skipCheck('the profile does not declare features.exampleApi (the property uses POST /payments)');
    await assertProperty(
      'invalid payment bodies get 422 naming exactly the invalid fields',
      invalidPaymentBody(),
      async (body, record) => {
        const response = await target.client.post('/payments', body);
        record(response);
        expect(response.status).toBe(422);
        expect(problemIssues(response)).toEqual([]);
        const expected = validationErrors('payment-request', body).map((e) => e.field).sort();
        expect(errorFields(response.json).sort()).toEqual(expected);
      },
      { runs: propertyRuns(profile) },
    );
  },
);

test('any malformed JSON body is a 400 problem', req('STATUS-400-MALFORMED-JSON', '@property', '@generic'), async ({ target, profile }) => {
  const paths = profile.collections.filter((c) => c.methods.includes('POST')).map((c) => c.path);
  if (paths.length === 0) skipCheck('no collection of the profile allows POST (collections[].methods)');
  await assertProperty(
    'malformed JSON gets 400',
    fc.tuple(fc.constantFrom(...paths), malformedJson()),
    async ([path, body], record) => {
      const response = await target.client.request('POST', path, { body, headers: { 'content-type': 'application/json' } });
      record(response);
      expect(response.status).toBe(400);
      expect(problemIssues(response)).toEqual([]);
    },
    { runs: propertyRuns(profile) },
  );
});

test('any unknown id is a 404 problem', req('STATUS-404-UNKNOWN-RESOURCE', '@property', '@generic'), async ({ target, profile }) => {
  const collections = target.collectionsWithItems().filter((c) => c.itemMethods.includes('GET'));
  if (collections.length === 0) skipCheck('the profile declares no item path that allows GET');
  await assertProperty(
    'unknown ids get a 404 problem',
    // Ids valid for each collection's id schema (D-SHAPES): an unknown resource, not a malformed segment.
    fc.constantFrom(...collections).chain((c) => fc.tuple(fc.constant(c.itemPath), unknownId(idSchemaOf(c)))),
    async ([itemPath, id], record) => {
      const response = await target.client.get(itemPathFor(itemPath, id));
      record(response);
      expect(response.status).toBe(404);
      expect(problemIssues(response)).toEqual([]);
    },
    { runs: propertyRuns(profile) },
  );
});

interface Route {
  collection: ProfileCollection;
  item: boolean;
}

test(
  'every method on every route succeeds or is a 405 whose Allow matches the route',
  req(['METHOD-NOT-ALLOWED-405', 'METHOD-ALLOW-HEADER'], '@property', '@generic'),
  async ({ target, profile }) => {
    const routes: Route[] = profile.collections.flatMap((collection) => [
      { collection, item: false },
      ...(collection.itemPath && collection.itemMethods ? [{ collection, item: true }] : []),
    ]);
    await assertProperty(
      'every method on every route gets success or 405 with a matching Allow',
      fc.tuple(fc.constantFrom(...routes), httpMethod()),
      async ([route, method], record) => {
        const { collection } = route;
        const allowed = (route.item ? collection.itemMethods : collection.methods) ?? [];
        let path = collection.path;
        if (route.item) {
          const item = await target.existingItem(collection as ProfileCollection & { itemPath: string });
          if (!item) return;
          path = item;
        }
        const body = method === 'POST' && !route.item ? collection.create : method === 'PUT' ? collection.replace : undefined;
        const response = await target.client.request(method, path, body === undefined ? {} : { json: fillTemplate(body) });
        record(response);
        if (allowed.includes(method)) {
          expect(response.status, `${method} is allowed on this route`).toBeLessThan(300);
          return;
        }
        // A method the server does not know at all may be refused before routing: 405, 501 (RFC 9110 §9.1) or
        // Node's parser's 400 are all allowed (D-SUITE-TRUST; METHOD-UNKNOWN-405 asks for 405). A standard
        // method not allowed on the URL is exactly 405 (document section 4).
        if (!standardMethods.includes(method) && [400, 501].includes(response.status)) return;
        if (implicitMethod(method, allowed) && response.status < 400) return; // D-METHODS-IMPLICIT
        expect(response.status).toBe(405);
        const allow = explicitAllow((response.headers.allow ?? '').split(',').map((m) => m.trim()).filter(Boolean), allowed).sort();
        // D-FINDINGS: a 405 with the wrong Allow is METHOD-ALLOW-HEADER's defect; under METHOD-NOT-ALLOWED-405 a consequence.
        const expected = [...allowed].sort();
        if (allow.join() !== expected.join()) noteBreaks(response, 'METHOD-ALLOW-HEADER', `a 405 with Allow: ${expected.join(', ')}`);
        expect(allow).toEqual(expected);
      },
      // The extension methods first, on every route (a router may 404 them on item routes only): a 404 for PROPFIND is
      // found on every run, not on some seeds only.
      { runs: propertyRuns(profile) * 2, examples: routes.flatMap((route) => exampleExtensionMethods.map((m): [Route, string] => [route, m])) },
    );
  },
);
