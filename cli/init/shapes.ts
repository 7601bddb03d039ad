/**
 * A collection's shapes read from its OpenAPI document (D-SHAPES), for `collections[].shape`: the item
 * path parameter's schema, where an item answer holds the representation (`{"addon": {…}}`), where the
 * representation holds the id, where a listing holds its items, and whether the create body is wrapped.
 * Only what differs from the project's example is written: a flat representation with an `id` member,
 * a page object with `items` or a bare array, a positive integer id, an unwrapped body.
 */
import { propertiesOf } from '../../conformance/openapi/bodies.ts';
import type { JsonSchema, Operation, PathItem } from '../../conformance/openapi/document.ts';
import type { CollectionShape, IdSchema } from '../../conformance/target/profile.ts';

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON schema of `op`'s first 2xx answer (200, else 201, else any 2xx) in a JSON media type. */
function answerSchema(op: Operation | undefined, prefer: string[]): Schema | undefined {
  const responses = op?.responses ?? {};
  const codes = [...prefer, ...Object.keys(responses).filter((c) => /^2\d\d$/.test(c) && !prefer.includes(c))];
  for (const code of codes) {
    const content = responses[code]?.content ?? {};
    const media = Object.entries(content).find(([type]) => /^application\/([\w.-]+\+)?json\b/i.test(type))?.[1];
    if (isObject(media?.schema)) return media.schema as Schema;
  }
  return undefined;
}

/** Whether a schema describes an array. */
function isArraySchema(schema: unknown): boolean {
  return isObject(schema) && (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')) || isObject(schema.items));
}

/** Whether a schema describes an object with members. */
function isObjectSchema(schema: unknown): boolean {
  return isObject(schema) && Object.keys(propertiesOf(schema as JsonSchema).properties).length > 0;
}

/**
 * The member that wraps the whole representation: in a body without an `id`, its only member that is an
 * object with members (`{"addon": {…}}`, `{"data": {…}, "status": 200}`), links and metadata aside.
 */
function wrapperOf(schema: Schema | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const { properties } = propertiesOf(schema as JsonSchema);
  if ('id' in properties) return undefined;
  const objects = Object.keys(properties).filter((n) => !['_links', 'links', 'meta', '_meta'].includes(n) && isObjectSchema(properties[n]));
  return objects.length === 1 ? objects[0] : undefined;
}

/** RFC 6901 escaping of one reference token. */
function token(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The id's schema from the path parameter, when it is not the project's positive integer. */
function idSchemaOf(item: PathItem, parameter: string): IdSchema | undefined {
  const declared = [...(item.parameters ?? []), ...(item.get?.parameters ?? []), ...(item.delete?.parameters ?? []), ...(item.put?.parameters ?? [])]
    .find((p) => p.in === 'path' && p.name === parameter)?.schema;
  if (!isObject(declared)) return undefined;
  const type = declared.type === 'integer' || declared.type === 'number' || declared.type === 'string' ? declared.type : undefined;
  const schema: IdSchema = {
    ...(type ? { type } : {}),
    ...(typeof declared.format === 'string' ? { format: declared.format } : {}),
    ...(typeof declared.pattern === 'string' ? { pattern: declared.pattern } : {}),
    ...(typeof declared.minLength === 'number' ? { minLength: declared.minLength } : {}),
    ...(typeof declared.maxLength === 'number' ? { maxLength: declared.maxLength } : {}),
    ...(typeof declared.minimum === 'number' ? { minimum: declared.minimum } : {}),
    ...(typeof declared.maximum === 'number' ? { maximum: declared.maximum } : {}),
  };
  if (schema.type === undefined) return undefined;
  const projectDefault = schema.type === 'integer' && Object.keys(schema).length <= 2 && (schema.minimum ?? 1) >= 1;
  return projectDefault ? undefined : schema;
}

/**
 * The shapes of the collection at `path` (operations `collection`) whose item path is `itemPath`
 * (operations `item`), as far as the document states them; undefined when all are the project's own.
 */
export function shapeFromDocument(collection: PathItem, item: PathItem, itemPath: string): CollectionShape | undefined {
  const shape: CollectionShape = {};
  const parameter = /\{([^}/]+)\}[^/]*$/.exec(itemPath)?.[1];
  const idSchema = parameter === undefined ? undefined : idSchemaOf(item, parameter);
  if (idSchema) shape.idSchema = idSchema;

  const itemAnswer = answerSchema(item.get, ['200']) ?? answerSchema(collection.post, ['201', '200']);
  const wrapper = wrapperOf(itemAnswer);
  if (wrapper !== undefined) shape.item = `/${token(wrapper)}`;
  const representation = wrapper !== undefined && itemAnswer ? propertiesOf(itemAnswer as JsonSchema).properties[wrapper] : itemAnswer;
  const members = representation ? Object.keys(propertiesOf(representation as JsonSchema).properties) : [];
  if (!members.includes('id') && members.length > 0) {
    const named = [parameter, 'uuid', 'code', 'key', 'slug', 'name'].find((n): n is string => n !== undefined && members.includes(n));
    if (named !== undefined) shape.id = `/${token(named)}`;
  }

  const listing = answerSchema(collection.get, ['200']);
  if (listing !== undefined && !isArraySchema(listing)) {
    const { properties } = propertiesOf(listing as JsonSchema);
    if (!isArraySchema(properties.items)) {
      const arrays = Object.keys(properties).filter((n) => isArraySchema(properties[n]));
      const [only] = arrays;
      if (only !== undefined && arrays.length === 1) shape.items = `/${token(only)}`;
    }
  }

  const request = collection.post?.requestBody?.content;
  const requestSchema = Object.entries(request ?? {}).find(([type]) => /json/i.test(type))?.[1]?.schema;
  const envelope = wrapperOf(isObject(requestSchema) ? (requestSchema as Schema) : undefined);
  if (envelope !== undefined) shape.envelope = envelope;
  return Object.keys(shape).length === 0 ? undefined : shape;
}
