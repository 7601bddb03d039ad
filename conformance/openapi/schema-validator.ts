/**
 * Validators for the schemas of an OpenAPI document, in the document's own dialect, naming the invalid
 * fields as a 422 must (D-ERRORS: member names, dotted paths for nested members, missing and unknown
 * members named). Used by the schema-driven checks (support/request-schemas.ts, D-SCHEMA-INPUTS) and
 * by `init`, which checks every body it writes against the schema it is written for.
 */
import { createRequire } from 'node:module';
import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from './document.ts';
import { addSchemaKeywords, toFieldErrors } from '../../spec/schemas.ts';

type SchemaObject = { [keyword: string]: unknown };

/** Keywords whose values are data, not schemas: copied as they are. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'examples', 'example', 'default']);

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of the dereferenced `schema` without the keywords that name a schema resource (`$id`,
 * `$schema`, `$anchor`): a shared sub-schema (a currency code used by two members) appears twice after
 * dereferencing, and two `$id`s alike in one schema are refused by Ajv. Cycles left by the parser
 * (`circular: 'ignore'`) keep their `$ref` text; a schema reached again on its own path is cut off.
 */
export function withoutIds(schema: unknown, path: Set<unknown> = new Set()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withoutIds(s, path));
  if (!isObject(schema)) return schema;
  if (path.has(schema)) return {};
  path.add(schema);
  const copy: SchemaObject = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === '$id' || keyword === '$schema' || keyword === '$anchor' || keyword === '$dynamicAnchor') continue;
    copy[keyword] = DATA_KEYWORDS.has(keyword) ? value : withoutIds(value, path);
  }
  path.delete(schema);
  return copy;
}

type AjvLike = { compile(schema: AnySchemaObject): ValidateFunction; addKeyword(definition: never): unknown };

/**
 * An Ajv for the document's dialect: JSON Schema 2020-12 for OpenAPI 3.1, draft-07 (which reads 3.0's
 * `nullable`) for 3.0. Not strict: OpenAPI adds keywords (`example`, `discriminator`, `x-…`). The
 * project's own `x-maxDecimalPlaces` is known (spec/schemas.ts), as in every Ajv that reads spec/schemas/.
 */
function ajvFor(doc: OpenApiDocument): AjvLike {
  const require = createRequire(import.meta.url);
  const formats = (require('ajv-formats') as { default: (ajv: unknown) => unknown }).default;
  // No logger: a vendor's unknown format (FusionAuth's `format: URI`) constrains nothing, and Ajv's
  // warnings would land in the user's console among the run's own lines.
  const options = { strict: false, allErrors: true, validateSchema: false, logger: false };
  const Ajv = doc.openapi.startsWith('3.1')
    ? (require('ajv/dist/2020.js') as { default: new (o: object) => AjvLike }).default
    : (require('ajv') as { default: new (o: object) => AjvLike }).default;
  // Ajv 8 reads 3.0's `nullable` by default (the `nullable` option is gone and only warned about).
  const ajv = new Ajv(options);
  formats(ajv);
  addSchemaKeywords(ajv as never);
  return ajv;
}

/** The field names of Ajv's errors, as a 422 names them (spec/schemas.ts `toFieldErrors`), sorted. */
function fieldsOf(errors: readonly ErrorObject[] | null | undefined): string[] {
  return [...new Set(toFieldErrors(errors).map((e) => e.field))].sort();
}

/** The fields a 422 must name for a body, sorted; empty when the body is valid. */
export type InvalidFields = (body: unknown) => string[];

/**
 * A compiler of the document's schemas: each schema (dereferenced) gives the function naming the
 * invalid fields of a body, or, when Ajv cannot compile it, why.
 */
export function schemaValidator(doc: OpenApiDocument): (schema: unknown) => InvalidFields | string {
  const ajv = ajvFor(doc);
  return (schema) => {
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(withoutIds(schema) as AnySchemaObject);
    } catch (error) {
      return (error as Error).message;
    }
    return (body) => (validate(body) ? [] : fieldsOf(validate.errors));
  };
}
