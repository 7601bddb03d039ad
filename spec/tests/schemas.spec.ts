import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  SCHEMA_ID_BASE,
  addSchemaKeywords,
  compileAllSchemas,
  getSchema,
  getValidator,
  schemaIds,
  schemaNames,
  schemasDir,
  validationErrors,
} from '../schemas.ts';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

interface ExampleCase {
  description: string;
  data: unknown;
  valid: boolean;
}
interface ExampleFile {
  schema: string;
  tests: ExampleCase[];
}

const examplesDir = fileURLToPath(new URL('../../fixtures/examples/', import.meta.url));
const exampleFiles = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const schemaFiles = readdirSync(schemasDir)
  .filter((f) => f.endsWith('.schema.json'))
  .sort();

function readExample(file: string): ExampleFile {
  return JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as ExampleFile;
}

test.describe('schemas', () => {
  test('every schema is valid against the 2020-12 meta-schema and compiles under ajv strict mode without warnings', () => {
    // This Ajv checks each schema against the meta-schema as it is added (validateSchema, on by default);
    // the shared registry (spec/schemas.ts) skips that check at run time and relies on this test.
    const warnings: unknown[] = [];
    const logger = { log: () => undefined, warn: (...m: unknown[]) => warnings.push(m), error: (...m: unknown[]) => warnings.push(m) };
    const ajv = new Ajv2020({ strict: true, allErrors: true, logger });
    addFormats(ajv);
    addSchemaKeywords(ajv);
    for (const file of schemaFiles) {
      ajv.addSchema(JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as object);
    }
    for (const file of schemaFiles) {
      const id = `${SCHEMA_ID_BASE}${file}`;
      expect(() => ajv.getSchema(id), file).not.toThrow();
      expect(ajv.getSchema(id), file).toBeDefined();
    }
    expect(warnings).toEqual([]);
  });

  test('the shared registry compiles every schema on demand and all at once', () => {
    expect(() => compileAllSchemas()).not.toThrow();
    for (const name of schemaNames) expect(typeof getValidator(name), name).toBe('function');
    expect(() => getValidator('no-such-schema')).toThrow(/unknown schema: no-such-schema/);
  });

  test('every schema declares JSON Schema 2020-12 and the $id of its file name', () => {
    expect(schemaNames.length).toBe(schemaFiles.length);
    for (const name of schemaNames) {
      const schema = getSchema(name);
      expect(schema.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id, name).toBe(`${SCHEMA_ID_BASE}${name}.schema.json`);
      expect(schemaIds[name]).toBe(schema.$id);
    }
  });

  test('every schema has an example file with at least 3 valid and 4 invalid cases', () => {
    const covered = new Set(exampleFiles.map((f) => f.replace(/\.json$/, '')));
    const missing = schemaNames.filter((name) => !covered.has(name));
    expect(missing, 'schemas without fixtures/examples/<name>.json').toEqual([]);
    for (const file of exampleFiles) {
      const { tests } = readExample(file);
      expect(tests.filter((t) => t.valid).length, `${file} valid cases`).toBeGreaterThanOrEqual(3);
      expect(tests.filter((t) => !t.valid).length, `${file} invalid cases`).toBeGreaterThanOrEqual(4);
    }
  });

  test('request schemas forbid unknown members and resource schemas allow them', () => {
    for (const name of schemaNames.filter((n) => n.endsWith('-request'))) {
      expect(getSchema(name).additionalProperties, name).toBe(false);
    }
    for (const name of ['user', 'order', 'payment', 'transfer', 'account', 'author', 'post', 'comment']) {
      expect(getSchema(name).additionalProperties, name).toBeUndefined();
    }
  });
});

test.describe('examples', () => {
  for (const file of exampleFiles) {
    test(`every case of ${file} agrees with its schema`, () => {
      const example = readExample(file);
      expect(example.schema, 'the file is named after its schema').toBe(file.replace(/\.json$/, ''));
      expect(schemaNames, `schema ${example.schema} exists`).toContain(example.schema);
      const validate = getValidator(example.schema);
      const descriptions = new Set<string>();
      for (const c of example.tests) {
        expect(descriptions.has(c.description), `duplicate description "${c.description}"`).toBe(false);
        descriptions.add(c.description);
        expect(c.description, 'descriptions state what is true').not.toMatch(/\bshould\b/i);
        const valid = validate(c.data) === true;
        expect.soft(valid, `${example.schema}: "${c.description}" ${JSON.stringify(validate.errors ?? [])}`).toBe(c.valid);
      }
    });
  }
});

test.describe('validationErrors', () => {
  test('a valid body has no errors', () => {
    expect(validationErrors('payment-request', { amount: 100, currency: 'eur' })).toEqual([]);
  });

  test('every invalid field is named once', () => {
    const errors = validationErrors('payment-request', { amount: 1.5, currency: 'EUR', description: 'x'.repeat(201) });
    expect(errors.map((e) => e.field).sort()).toEqual(['amount', 'currency', 'description']);
    for (const e of errors) expect(e.message.length).toBeGreaterThan(0);
    expect(errors.find((e) => e.field === 'currency')?.message).toMatch(/ISO 4217/);
  });

  test('missing required members are named', () => {
    expect(validationErrors('post-request', {})).toEqual([
      { field: 'authorId', message: 'is required' },
      { field: 'title', message: 'is required' },
      { field: 'body', message: 'is required' },
    ]);
  });

  test('unknown members are named next to the invalid ones', () => {
    const errors = validationErrors('user-request', { name: '', email: 'a@example.com', role: 'admin', admin: true });
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'role', message: 'is not allowed' },
        { field: 'admin', message: 'is not allowed' },
        { field: 'name', message: 'must not be empty' },
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  test('a body that is not an object is one (body) error', () => {
    for (const body of [[], 'text', 42, null, true]) {
      expect(validationErrors('order-request', body), JSON.stringify(body)).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
    }
  });

  test('nested members are named by a dotted path', () => {
    const errors = validationErrors('collection-page', { items: [], page: { limit: 0, offset: 0 }, _links: { self: { href: '/u', method: 'GET' } } });
    expect(errors.map((e) => e.field).sort()).toEqual(['_links.self.method', 'page.limit', 'page.total']);
  });

  test('two messages for one field are joined into one entry', () => {
    const errors = validationErrors('order-request', { total: 1000000.005, currency: 'eur' });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe('total');
    expect(errors[0]?.message).toContain('at most 1000000');
    expect(errors[0]?.message).toContain('at most 2 decimal places');
  });

  test('every invalid request example names at least one field of the request or (body)', () => {
    for (const file of exampleFiles.filter((f) => f.endsWith('-request.json'))) {
      const example = readExample(file);
      const known = Object.keys((getSchema(example.schema).properties ?? {}) as object);
      for (const c of example.tests) {
        const errors = validationErrors(example.schema, c.data);
        if (c.valid) {
          expect(errors, `${file}: ${c.description}`).toEqual([]);
          continue;
        }
        expect(errors.length, `${file}: ${c.description}`).toBeGreaterThan(0);
        const fields = new Set(errors.map((e) => e.field));
        expect(fields.size, `${file}: ${c.description} has one entry per field`).toBe(errors.length);
        const sent = c.data !== null && typeof c.data === 'object' && !Array.isArray(c.data) ? Object.keys(c.data) : [];
        for (const field of fields) {
          expect([...known, ...sent, '(body)'], `${file}: ${c.description}`).toContain(field);
        }
      }
    }
  });

  test('an unknown schema name throws', () => {
    expect(() => validationErrors('no-such-schema', {})).toThrow(/unknown schema/);
  });
});

test('a member with an empty name is named "" in errors[].field, never the empty string the item schema forbids', () => {
  const errors = validationErrors('user-request', { '': 1, name: 'Ann', email: 'ann@example.com' });
  expect(errors.map((e) => e.field)).toEqual(['""']);
  const item = getValidator('validation-error-item');
  for (const error of errors) expect(item(error), JSON.stringify(item.errors)).toBe(true);
});
