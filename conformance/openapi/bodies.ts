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

/** A valid body for the media type, with `{{unique}}` in the fields that must differ per request. */
export function validBody(media: MediaType): Record<string, unknown> | undefined {
  const example = documentedExample(media);
  let body = example !== undefined ? example : media.schema !== undefined ? sampled(media.schema, true) : undefined;
  // A schema that requires nothing samples as {}: its writable members are sampled instead (a create body of {} tests nothing).
  if (example === undefined && isObject(body) && Object.keys(body).length === 0 && media.schema !== undefined) body = sampled(media.schema, false);
  if (!isObject(body)) return undefined;
  const { properties } = propertiesOf(media.schema);
  const result: Record<string, unknown> = { ...body };
  // A server-assigned member (readOnly) is never sent, even when the document's example shows it.
  for (const name of Object.keys(result)) if (properties[name]?.readOnly === true) delete result[name];
  for (const [name, value] of Object.entries(result)) {
    const schema = properties[name];
    if (schema && typeof value === 'string' && needsUnique(schema)) result[name] = uniqueVariant(value, schema);
  }
  return result;
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
