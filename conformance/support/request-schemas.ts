/**
 * The request schemas of the target's own OpenAPI document (D-SCHEMA-INPUTS): the document the profile
 * names (`openapi`), read once per worker and dereferenced with @readme/openapi-parser, and for each
 * profile collection that allows POST the `application/json` (or `+json`) schema of that operation's
 * request body, with an Ajv validator that names the invalid fields as the 422 must (D-ERRORS: member
 * names, dotted paths for nested members, missing and unknown members named).
 */
import { jsonRequestMedia, loadOpenApi, OpenApiError } from '../openapi/document.ts';
import type { OpenApiDocument, Operation } from '../openapi/document.ts';
import { schemaValidator, withoutIds } from '../openapi/schema-validator.ts';
import type { ProfileCollection, TargetProfile } from '../target/profile.ts';

/** A JSON Schema object, dereferenced. */
export type SchemaObject = { [keyword: string]: unknown };

/** One collection's create body schema and its validator. */
export interface RequestSchema {
  collection: ProfileCollection;
  /** The schema of the POST body, dereferenced, without `$id`/`$schema` (each validator compiles it alone). */
  schema: SchemaObject;
  /** The fields a 422 must name for `body`, sorted; empty when the body is valid. */
  invalidFields(body: unknown): string[];
}

/** The request schemas of the profile's collections, or why there are none; `skipped` says why a collection has none. */
export type RequestSchemas = { schemas: RequestSchema[]; skipped: string[] } | { reason: string };

/** The OpenAPI path template as a shape that ignores parameter names (`/posts/{}/comments`). */
const shape = (path: string): string => path.replace(/\{[^}]+\}/g, '{}');

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The POST operation of `collection.path` in the document, matched exactly or by shape. */
function createOperation(doc: OpenApiDocument, collection: ProfileCollection): Operation | undefined {
  const exact = doc.paths[collection.path];
  if (exact?.post) return exact.post;
  const wanted = shape(collection.path);
  const found = Object.entries(doc.paths).find(([path, item]) => shape(path) === wanted && item.post !== undefined);
  return found?.[1].post;
}

/** The JSON request body schema of an operation, or why there is none. */
function jsonBodySchema(operation: Operation | undefined, collection: ProfileCollection): SchemaObject | string {
  if (operation === undefined) return `${collection.path}: the document has no POST operation for this path`;
  const media = jsonRequestMedia(operation);
  if (media === undefined) return `${collection.path}: the POST operation has no application/json request body`;
  const schema = media.schema;
  if (!isObject(schema)) return `${collection.path}: the POST request body has no schema`;
  const objectLike = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || isObject(schema.properties);
  if (!objectLike) return `${collection.path}: the POST request body schema is not an object schema with properties`;
  return schema;
}

const loaded = new Map<string, Promise<OpenApiDocument | string>>();

/** The dereferenced document at `location`, read once per process; a string says why it cannot be read. */
function documentAt(location: string): Promise<OpenApiDocument | string> {
  let doc = loaded.get(location);
  if (doc === undefined) {
    doc = loadOpenApi(location, process.cwd(), { validate: false }).catch((error: unknown) => {
      if (error instanceof OpenApiError) return error.message;
      throw error;
    });
    loaded.set(location, doc);
  }
  return doc;
}

/** The request schemas of every profile collection that allows POST, from the profile's `openapi` document (D-SCHEMA-INPUTS). */
export async function requestSchemas(profile: TargetProfile): Promise<RequestSchemas> {
  if (profile.openapi === undefined) return { reason: 'the profile names no OpenAPI document (openapi)' };
  const doc = await documentAt(profile.openapi);
  if (typeof doc === 'string') return { reason: doc };
  const compile = schemaValidator(doc);
  const schemas: RequestSchema[] = [];
  const skipped: string[] = [];
  for (const collection of profile.collections.filter((c) => c.methods.includes('POST'))) {
    const schema = jsonBodySchema(createOperation(doc, collection), collection);
    if (typeof schema === 'string') {
      skipped.push(schema);
      continue;
    }
    const invalidFields = compile(schema);
    if (typeof invalidFields === 'string') {
      skipped.push(`${collection.path}: the request body schema does not compile: ${invalidFields}`);
      continue;
    }
    schemas.push({ collection, schema: withoutIds(schema) as SchemaObject, invalidFields });
  }
  if (schemas.length === 0) {
    const why = skipped.length > 0 ? `: ${skipped.join('; ')}` : '';
    return { reason: `no collection of the profile has a JSON request schema for POST in ${profile.openapi}${why}` };
  }
  return { schemas, skipped };
}
