/**
 * Request bodies from an OpenAPI media type, for `init`'s profile and the schema-driven checks: a valid body (the document's
 * own example, else a sample of the schema by openapi-sampler), `{{unique}}` in the fields that must
 * differ per request, and an invalid body with the fields a 422 must name (D-ERRORS: every invalid
 * field is reported in one response), derived from the schema's constraints.
 */
import { sample } from 'openapi-sampler';
import type { JsonSchema, MediaType } from './document.ts';

type SchemaObject = { [keyword: string]: unknown };

const UNIQUE = '{{unique}}';

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema's own type, or the first non-null type of a type list (OpenAPI 3.1 `["string", "null"]`). */
function typeOf(schema: SchemaObject): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === 'string' && t !== 'null');
  if (isObject(schema.properties)) return 'object';
  return undefined;
}

/** The properties of an object schema, `allOf` members merged. */
export function propertiesOf(schema: JsonSchema | undefined): { properties: Record<string, SchemaObject>; required: string[]; closed: boolean } {
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  let closed = false;
  const visit = (s: unknown): void => {
    if (!isObject(s)) return;
    if (isObject(s.properties)) for (const [name, p] of Object.entries(s.properties)) if (isObject(p)) properties[name] = p;
    if (Array.isArray(s.required)) required.push(...s.required.filter((r): r is string => typeof r === 'string'));
    if (s.additionalProperties === false || s.unevaluatedProperties === false) closed = true;
    if (Array.isArray(s.allOf)) s.allOf.forEach(visit);
  };
  visit(schema);
  return { properties, required: [...new Set(required)], closed };
}

/** The document's own example of a media type: `example`, the first of `examples`, or the schema's example. */
function documentedExample(media: MediaType): unknown {
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {}).find((e) => isObject(e) && e.value !== undefined);
  if (first) return first.value;
  const schema = media.schema;
  if (isObject(schema)) {
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  }
  return undefined;
}

/** Whether a property's values must differ per request: `x-unique: true`, or an email or URI format. */
function needsUnique(schema: SchemaObject): boolean {
  return schema['x-unique'] === true || ['email', 'idn-email', 'uri', 'url', 'iri'].includes(String(schema.format));
}

/** `value` with `{{unique}}` placed where the format still holds: in an email's local part, a URI's path, else appended. */
function uniqueVariant(value: string, schema: SchemaObject): string {
  if (value.includes(UNIQUE)) return value;
  const format = String(schema.format);
  if (format === 'email' || format === 'idn-email') {
    const at = value.lastIndexOf('@');
    return at > 0 ? `${value.slice(0, at)}-${UNIQUE}${value.slice(at)}` : `user-${UNIQUE}@example.com`;
  }
  if (format === 'uri' || format === 'url' || format === 'iri') return `${value.replace(/\/+$/, '')}/${UNIQUE}`;
  return `${value} ${UNIQUE}`;
}

function sampled(schema: JsonSchema, requiredOnly: boolean): unknown {
  return sample(schema as object, { skipReadOnly: true, skipNonRequired: requiredOnly, quiet: true });
}

/** `body` as sent: readOnly members dropped (even when the document's example shows them), `{{unique}}` where values must differ. */
function prepared(body: SchemaObject, media: MediaType): Record<string, unknown> {
  const { properties } = propertiesOf(media.schema);
  const result: Record<string, unknown> = { ...body };
  for (const name of Object.keys(result)) if (properties[name]?.readOnly === true) delete result[name];
  for (const [name, value] of Object.entries(result)) {
    const schema = properties[name];
    if (schema && typeof value === 'string' && needsUnique(schema)) result[name] = uniqueVariant(value, schema);
  }
  return result;
}

/** Keywords whose values are schemas keyed by name, not schemas themselves. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** A copy of `schema` without any `example` or `examples` (data keywords kept as they are; shared sub-schemas stay shared). */
function withoutExamples(schema: unknown, copies: WeakMap<object, unknown> = new WeakMap()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withoutExamples(s, copies));
  if (!isObject(schema)) return schema;
  const known = copies.get(schema);
  if (known !== undefined) return known;
  const copy: SchemaObject = {};
  copies.set(schema, copy);
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'example' || keyword === 'examples') continue;
    if (keyword === 'enum' || keyword === 'const' || keyword === 'default') copy[keyword] = value;
    else if (SCHEMA_MAPS.has(keyword) && isObject(value))
      copy[keyword] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, withoutExamples(s, copies)]));
    else copy[keyword] = withoutExamples(value, copies);
  }
  return copy;
}

/** The bodies a media type offers, best first: the document's own example, then samples of its schema (required members, then every writable one). */
function candidates(media: MediaType): { from: 'example' | 'sample'; body: Record<string, unknown> }[] {
  const example = documentedExample(media);
  const raw: { from: 'example' | 'sample'; value: unknown }[] = [];
  if (example !== undefined) raw.push({ from: 'example', value: example });
  if (media.schema !== undefined) {
    raw.push({ from: 'sample', value: sampled(media.schema, true) }, { from: 'sample', value: sampled(media.schema, false) });
    // The sampler takes a member's own `example` first: where those break their schema, a sample from the types alone.
    const plain = withoutExamples(media.schema) as JsonSchema;
    raw.push({ from: 'sample', value: sampled(plain, true) }, { from: 'sample', value: sampled(plain, false) });
  }
  const seen = new Set<string>();
  return raw.flatMap(({ from, value }) => {
    if (!isObject(value)) return [];
    const body = prepared(value, media);
    const key = JSON.stringify(body);
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ from, body }];
  });
}

/** A valid body for the media type, with `{{unique}}` in the fields that must differ per request. */
export function validBody(media: MediaType): Record<string, unknown> | undefined {
  return firstOf(candidates(media))?.body;
}

/** The candidate written without a check: the first, unless it is a sample of {} (a schema that requires nothing: a create body of {} tests nothing). */
function firstOf(all: ReturnType<typeof candidates>): ReturnType<typeof candidates>[number] | undefined {
  const [first, second] = all;
  return first?.from === 'sample' && Object.keys(first.body).length === 0 && second ? second : first;
}

/** A body `init` writes, checked against the document's schema, and what it says about the choice. */
export interface CheckedBody {
  /** Undefined when no candidate passes the schema: a body the API refuses would stop the run. */
  body?: Record<string, unknown>;
  /** Set when the document's example was not written (it breaks its own schema), or when no candidate passes. */
  note?: string;
}

/**
 * The valid body of `validBody`, checked against the document's own schema (`invalidFields`, with
 * `{{unique}}` filled in as the suite fills it): the document's example when the schema accepts it,
 * else the first sample the schema accepts, with a note naming the members the example breaks; when
 * no candidate passes, no body, with a note naming the invalid members (`run` refuses a profile whose
 * create body the API refuses, so a body that breaks the schema would stop the first run).
 */
export function checkedBody(media: MediaType, invalidFields: (body: unknown) => string[]): CheckedBody | undefined {
  const all = candidates(media);
  const chosen = firstOf(all);
  if (chosen === undefined) return undefined;
  const first = chosen.body;
  const ordered = [first, ...all.map((c) => c.body).filter((b) => b !== first && Object.keys(b).length > 0)];
  // A required member that is readOnly is the server's to send (OpenAPI: `required` applies to responses only for it).
  const { properties } = propertiesOf(media.schema);
  const serverOwned = (field: string, body: Record<string, unknown>): boolean => properties[field]?.readOnly === true && !(field in body);
  const broken = (body: Record<string, unknown>): string[] =>
    invalidFields(JSON.parse(JSON.stringify(body).split(UNIQUE).join('1700000000000-1'))).filter((field) => !serverOwned(field, body));
  const firstBroken = broken(first);
  if (firstBroken.length === 0) return { body: first };
  const what = chosen.from === 'example' ? "the document's example breaks its schema" : "the examples of the schema's members break it";
  const passing = ordered.slice(1).find((body) => broken(body).length === 0);
  if (passing) return { body: passing, note: `${what} (${firstBroken.join(', ')}): a sample of the schema is written instead` };
  return { note: `${what} (${firstBroken.join(', ')}) and no sample passes it: no body written; write one the schema accepts` };
}

/** A value that breaks one of the property's own constraints, or undefined when the schema states none. */
function invalidValue(schema: SchemaObject): unknown {
  const type = typeOf(schema);
  switch (type) {
    case 'string':
      if (typeof schema.minLength === 'number' && schema.minLength >= 1) return '';
      if (['email', 'idn-email'].includes(String(schema.format))) return 'not-an-email';
      if (['uri', 'url'].includes(String(schema.format))) return 'not a uri';
      if (['date-time', 'date'].includes(String(schema.format))) return 'not-a-date';
      return 12345; // a number where the schema says string
    case 'integer':
      if (typeof schema.minimum === 'number') return Math.floor(schema.minimum) - 1;
      return 1.5;
    case 'number':
      if (typeof schema.minimum === 'number') return schema.minimum - 1;
      if (typeof schema.exclusiveMinimum === 'number') return schema.exclusiveMinimum - 1;
      return 'not-a-number';
    case 'boolean':
      return 'not-a-boolean';
    case 'array':
      return 'not-an-array';
    case 'object':
      return 'not-an-object';
    default:
      if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'not-a-listed-value';
      return undefined;
  }
}

/** Name of the unknown member the invalid body adds when the schema forbids unknown members (D-FIELDS). */
export const UNKNOWN_MEMBER = 'unexpectedMember';

/**
 * An invalid body for the schema and every field a 422 must name: each required property (every
 * property when none is required) gets a value that breaks its own constraint, and a closed schema
 * gets an unknown member. Undefined when the schema states nothing that can be broken.
 */
export function invalidBody(schema: JsonSchema | undefined): { body: Record<string, unknown>; fields: string[] } | undefined {
  const { properties, required, closed } = propertiesOf(schema);
  // readOnly members are the server's (an `id`): a client does not send them, so a 422 need not name them.
  const writable = (name: string): boolean => properties[name]?.readOnly !== true;
  const names = (required.length > 0 ? required : Object.keys(properties)).filter(writable);
  const body: Record<string, unknown> = {};
  for (const name of names) {
    const property = properties[name];
    const value = property ? invalidValue(property) : undefined;
    if (value !== undefined) body[name] = value;
  }
  if (closed) body[UNKNOWN_MEMBER] = 1;
  const fields = Object.keys(body);
  return fields.length > 0 ? { body, fields } : undefined;
}

/** A second valid body that differs from `body` in every string and number field (an idempotency key reused with another payload). */
export function otherBody(body: Record<string, unknown>, schema: JsonSchema | undefined): Record<string, unknown> {
  const { properties } = propertiesOf(schema);
  const other: Record<string, unknown> = {};
  let changed = false;
  for (const [name, value] of Object.entries(body)) {
    const property = properties[name] ?? {};
    if (!changed && typeof value === 'number' && !Array.isArray(property.enum)) {
      const max = typeof property.maximum === 'number' ? property.maximum : Infinity;
      const step = typeOf(property) === 'integer' ? 1 : typeof property.multipleOf === 'number' ? property.multipleOf : 1;
      other[name] = value + step <= max ? value + step : value - step;
      changed = true;
    } else if (!changed && typeof value === 'string' && !Array.isArray(property.enum) && property.pattern === undefined && property.format === undefined) {
      other[name] = value.includes(UNIQUE) ? value.replace(UNIQUE, `other-${UNIQUE}`) : `${value} other`;
      changed = true;
    } else {
      other[name] = value;
    }
  }
  return other;
}
