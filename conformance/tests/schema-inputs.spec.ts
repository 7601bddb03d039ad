/**
 * The inputs of the schema-driven checks (D-SCHEMA-INPUTS), judged without a server: the request
 * schemas found for a profile's collections (spec/openapi.yaml and a small OpenAPI 3.1 document with a
 * nested object, a read-only member and a `format`), and the fast-check bodies built from them: each
 * fault invalid in exactly the field it names, every valid body valid, the essential cases present.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { stringify as stringifyYaml } from 'yaml';
import { baseBody, boundaryBodies, essentialFaults, invalidFieldsOf, singleFaults, validBodies, variedBody } from '../arbitraries/schema-bodies.ts';
import { requestSchemas } from '../support/request-schemas.ts';
import type { RequestSchema } from '../support/request-schemas.ts';
import { loadProfile, REFERENCE_PROFILE } from '../target/profile.ts';
import type { TargetProfile } from '../target/profile.ts';
import { tempOut } from './support/subprocess.ts';

async function schemasOf(profile: TargetProfile): Promise<RequestSchema[]> {
  const found = await requestSchemas(profile);
  if ('reason' in found) throw new Error(found.reason);
  return found.schemas;
}

/** A profile with one collection `/things` over `doc`, written to a temp folder. */
function thingsProfile(doc: unknown, create: Record<string, unknown>): TargetProfile {
  const dir = tempOut('schema-inputs');
  writeFileSync(join(dir, 'openapi.yaml'), stringifyYaml(doc));
  return {
    name: 'things',
    baseUrls: ['http://127.0.0.1:1'],
    openapi: join(dir, 'openapi.yaml'),
    tokens: { valid: 't' },
    collections: [{ name: 'things', path: '/things', methods: ['GET', 'POST'], create }],
    protected: { method: 'GET', path: '/things' },
  };
}

const THINGS = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  paths: {
    '/things': {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: { '201': { description: 'created' } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'address'],
        properties: {
          id: { type: 'integer', readOnly: true },
          name: { type: 'string', minLength: 1, maxLength: 20 },
          site: { type: 'string', format: 'uri' },
          address: {
            type: 'object',
            additionalProperties: false,
            required: ['city'],
            properties: { city: { type: 'string', minLength: 1 }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
          },
        },
      },
    },
  },
};

test('the reference profile names spec/openapi.yaml, and every collection with a POST gets its request schema', async () => {
  const profile = loadProfile(REFERENCE_PROFILE);
  const schemas = await schemasOf(profile);
  expect(schemas.map((s) => s.collection.path)).toEqual(['/users', '/orders', '/payments', '/authors']);
  const users = schemas[0] as RequestSchema;
  expect(users.invalidFields({ name: false, email: 'a@example.com' })).toEqual(['name']);
  expect(users.invalidFields({ name: 'x', email: 'a@example.com', extra: 1 })).toEqual(['extra']);
  expect(users.invalidFields({ name: 'x' })).toEqual(['email']);
});

test('every fault is invalid in exactly its field, every valid body is valid, and false in each string member comes first', async () => {
  for (const schema of await schemasOf(loadProfile(REFERENCE_PROFILE))) {
    const base = baseBody(schema) ?? {};
    expect(invalidFieldsOf(schema, base), schema.collection.path).toEqual([]);
    const varied = variedBody(schema, base);
    expect(invalidFieldsOf(schema, varied)).toEqual([]);
    const faults = singleFaults(schema, varied);
    expect(faults, schema.collection.path).toBeDefined();
    for (const fault of fc.sample(faults as fc.Arbitrary<{ field: string; body: Record<string, unknown> }>, { numRuns: 200, seed: 7 })) {
      expect(invalidFieldsOf(schema, fault.body), JSON.stringify(fault)).toEqual([fault.field]);
    }
    for (const body of fc.sample(validBodies(schema, base), { numRuns: 200, seed: 7 })) expect(invalidFieldsOf(schema, body), JSON.stringify(body)).toEqual([]);
    const essential = essentialFaults(schema, varied).map((f) => `${f.kind} ${f.field}`);
    expect(essential).toContain('unknown-member hacUnknownMember');
    expect(essential.some((f) => f.startsWith('wrong-type'))).toBe(true);
  }
});

test('a nested member is named by its dotted path, a read-only member is never sent, a format alone is no bound', async () => {
  const [schema] = await schemasOf(thingsProfile(THINGS, { id: 9, name: 'thing {{unique}}', address: { city: 'Graz', zip: '80100' } }));
  const things = schema as RequestSchema;
  const base = baseBody(things) ?? {};
  expect(base).toEqual({ name: 'thing {{unique}}', address: { city: 'Graz', zip: '80100' } });
  const faults = fc.sample(singleFaults(things, base) as fc.Arbitrary<{ kind: string; field: string }>, { numRuns: 400, seed: 11 });
  const fields = new Set(faults.map((f) => f.field));
  expect(fields).toContain('address.city');
  expect(fields).toContain('address.zip');
  expect([...fields].some((f) => f.startsWith('address.hac')), 'an unknown member of the nested closed object').toBe(true);
  expect(fields).not.toContain('id');
  expect(faults.filter((f) => f.field === 'site' && f.kind === 'out-of-bounds')).toEqual([]);
  const essential = essentialFaults(things, base).map((f) => `${f.kind} ${f.field}`);
  expect(essential).toEqual(expect.arrayContaining(['wrong-type name', 'wrong-type address.city', 'missing-required address.city', 'missing-required name']));
  // D-SCHEMA-INPUTS: each member's own value in a one-element array is always sent (express-validator's isIn passes ["blue"]).
  const wrapped = essentialFaults(things, base).filter((f) => f.kind === 'wrong-type').map((f) => f.body);
  expect(wrapped).toContainEqual({ ...base, name: ['thing {{unique}}'] });
  expect(wrapped).toContainEqual({ ...base, address: { city: ['Graz'], zip: '80100' } });
  // And null where the schema does not allow it.
  expect(wrapped).toContainEqual({ ...base, name: null });
  expect(wrapped).toContainEqual({ ...base, address: { city: null, zip: '80100' } });
});

test('every declared bound is sent on both sides on every run: exactly at it (accepted) and one past it (a fault of that member)', async () => {
  const gauges = structuredClone(THINGS);
  gauges.components.schemas.Thing = {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 20 },
      code: { type: 'string', maxLength: 3, pattern: '^[A-Z]+$' },
      weight: { type: 'integer', exclusiveMinimum: 0, maximum: 500 },
      ratio: { type: 'number', minimum: 0.5, exclusiveMaximum: 10 },
      label: { type: 'string', maxLength: 50, default: 'x' },
    },
  } as unknown as typeof gauges.components.schemas.Thing;
  const [schema] = await schemasOf(thingsProfile(gauges, { name: 'gauge {{unique}}', weight: 7, ratio: 1, label: 'plain' }));
  const gaugesSchema = schema as RequestSchema;
  const base = baseBody(gaugesSchema) ?? {};
  // D-SCHEMA-INPUTS: the valid side, each plain member at each of its bounds (name keeps its {{unique}}; code has a pattern).
  const inside = boundaryBodies(gaugesSchema, base).map((b) => [b.weight, b.ratio, b.label]);
  expect(inside).toEqual([[500, 1, 'plain'], [1, 1, 'plain'], [7, 0.5, 'plain'], [7, 9, 'plain'], [7, 1, 'x'.repeat(50)]]);
  for (const body of boundaryBodies(gaugesSchema, base)) expect(invalidFieldsOf(gaugesSchema, body)).toEqual([]);
  // The invalid side, one past each bound, a fault of that member alone.
  const outside = essentialFaults(gaugesSchema, base).filter((f) => f.kind === 'out-of-bounds').map((f) => [f.field, f.body[f.field]]);
  expect(outside).toEqual([
    ['name', 'x'],
    ['name', 'x'.repeat(21)],
    ['weight', 501],
    ['weight', 0],
    ['ratio', -0.5],
    ['ratio', 10],
    ['label', 'x'.repeat(51)],
  ]);
});

test('without openapi, or without a JSON request schema, the checks are skipped with the reason', async () => {
  const { openapi: _none, ...bare } = thingsProfile(THINGS, { name: 'x', address: { city: 'y' } });
  expect(await requestSchemas(bare)).toEqual({ reason: 'the profile names no OpenAPI document (openapi)' });
  const formOnly = structuredClone(THINGS) as { paths: Record<string, { post: { requestBody: { content: Record<string, unknown> } } }> };
  const post = formOnly.paths['/things']?.post;
  if (post) post.requestBody.content = { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } };
  const found = await requestSchemas(thingsProfile(formOnly, { name: 'x' }));
  expect('reason' in found && found.reason).toContain('/things: the POST operation has no application/json request body');
});
