/**
 * The target profile documents itself: every member of spec/schemas/target-profile.schema.json, at
 * any depth, has a description and at least one example, and every example is valid against the
 * member's own schema (so an example copied into a profile is accepted).
 */
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { packagePath } from '../package-files.ts';
import { addSchemaKeywords } from '../schemas.ts';

// ajv-formats is CommonJS; its default export sits on `.default` under NodeNext.
const addFormats = addFormatsModule.default;

interface Node {
  description?: unknown;
  examples?: unknown;
  properties?: Record<string, Node>;
  $defs?: Record<string, Node>;
  items?: Node;
}

const schema = JSON.parse(readFileSync(packagePath('spec', 'schemas', 'target-profile.schema.json'), 'utf8')) as Node & { $id: string };

/** JSON pointer of every member (`properties` entry) and every `$defs` entry, with its schema. */
function members(node: Node, pointer: string): { pointer: string; node: Node }[] {
  const found: { pointer: string; node: Node }[] = [];
  for (const [kind, children] of [['properties', node.properties], ['$defs', node.$defs]] as const) {
    for (const [name, child] of Object.entries(children ?? {})) {
      const at = `${pointer}/${kind}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      found.push({ pointer: at, node: child }, ...members(child, at));
    }
  }
  if (node.items) found.push(...members(node.items, `${pointer}/items`));
  return found;
}

const all = members(schema, '#');

test('the schema has members at every depth (the walk finds the nested ones)', () => {
  expect(all.map((m) => m.pointer)).toEqual(
    expect.arrayContaining(['#/properties/tokens/properties/limited/properties/request', '#/$defs/collection/properties/invalid/properties/fields']),
  );
});

test('every member has a description and at least one example', () => {
  const undocumented = all.filter(({ node }) => typeof node.description !== 'string' || node.description.trim().length < 10).map((m) => m.pointer);
  const withoutExamples = all.filter(({ node }) => !Array.isArray(node.examples) || node.examples.length === 0).map((m) => m.pointer);
  expect(undocumented, 'members without a description').toEqual([]);
  expect(withoutExamples, 'members without examples').toEqual([]);
});

test('every example is valid against its member\'s schema', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  addSchemaKeywords(ajv);
  ajv.addSchema(schema);
  const invalid: string[] = [];
  for (const { pointer, node } of all) {
    const validate = ajv.getSchema(`${schema.$id}${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    for (const example of (node.examples as unknown[] | undefined) ?? []) {
      if (!validate(example)) invalid.push(`${pointer}: ${JSON.stringify(example)}: ${ajv.errorsText(validate.errors)}`);
    }
  }
  expect(invalid).toEqual([]);
});
