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

/** Whether a schema describes an object with members, itself or as every alternative of a `oneOf`/`anyOf` (Paddle's `{"data": {oneOf: …}}`). */
function isObjectSchema(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (Object.keys(propertiesOf(schema as JsonSchema).properties).length > 0) return true;
  const alternatives = [schema.oneOf, schema.anyOf].find(Array.isArray) as unknown[] | undefined;
  return alternatives !== undefined && alternatives.length > 0 && alternatives.every(isObjectSchema);
}

/**
 * The member that wraps the whole representation: in a body without an `id`, its only member that is an
 * object with members (`{"addon": {…}}`, `{"data": {…}, "status": 200}`), links and metadata aside; where
 * there are several, the one named after the item (`names`: FusionAuth's `{"application": {…}, "role": {…}}`).
 */
function wrapperOf(schema: Schema | undefined, names: string[] = []): string | undefined {
  if (schema === undefined) return undefined;
  const { properties } = propertiesOf(schema as JsonSchema);
  if ('id' in properties) return undefined;
  const objects = Object.keys(properties).filter((n) => !['_links', 'links', 'meta', '_meta'].includes(n) && isObjectSchema(properties[n]));
  if (objects.length === 1) return objects[0];
  return objects.find((n) => names.includes(n.toLowerCase()));
}

/**
 * What the document calls one item and the collection: the collection's last segment (`applications`),
 * made singular (`application`, `payment_methods` → `payment_method`), and the path parameter without
 * its id suffix (`applicationId` → `application`), lowercase. `item` holds the names an item's wrapper
 * may have, `collection` those a listing's array may have.
 */
function namesOf(collectionPath: string, parameter: string | undefined): { item: string[]; collection: string[] } {
  const segment = (collectionPath.split('/').filter(Boolean).at(-1) ?? '').toLowerCase();
  const singular = segment.replace(/ies$/, 'y').replace(/(?<=[sxz]|ch|sh)es$/, '').replace(/s$/, '');
  const stem = (parameter ?? '').replace(/[-_]?id$/i, '').toLowerCase();
  const unique = (names: string[]): string[] => [...new Set(names.filter((n) => n !== ''))];
  return { item: unique([segment, singular, stem]), collection: unique([segment, `${singular}s`]) };
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
export function shapeFromDocument(collection: PathItem, item: PathItem, itemPath: string, collectionPath = ''): CollectionShape | undefined {
  const shape: CollectionShape = {};
  const parameter = /\{([^}/]+)\}[^/]*$/.exec(itemPath)?.[1];
  const idSchema = parameter === undefined ? undefined : idSchemaOf(item, parameter);
  if (idSchema) shape.idSchema = idSchema;

  const names = namesOf(collectionPath, parameter);
  const itemAnswer = answerSchema(item.get, ['200']) ?? answerSchema(collection.post, ['201', '200']);
  const wrapper = wrapperOf(itemAnswer, names.item);
  if (wrapper !== undefined) shape.item = `/${token(wrapper)}`;
  // The id is read from the create answer (D-SHAPES), which may differ from the item read: Algolia's
  // POST /1/keys answers {key, createdAt}, its GET /1/keys/{key} {value, acl, …}.
  const representationIn = (answer: Schema | undefined): Schema | undefined => {
    const wrapped = wrapper !== undefined && answer ? propertiesOf(answer as JsonSchema).properties[wrapper] : undefined;
    return (isObject(wrapped) ? wrapped : answer) as Schema | undefined;
  };
  const createAnswer = answerSchema(collection.post, ['201', '200']);
  const membersOf = (schema: Schema | undefined): string[] => (schema ? Object.keys(propertiesOf(schema as JsonSchema).properties) : []);
  const candidates = ['id', parameter, 'uuid', 'code', 'key', 'slug', 'name'];
  const idIn = (members: string[]): string | undefined => candidates.find((n): n is string => n !== undefined && members.includes(n));
  const named = idIn(membersOf(representationIn(createAnswer))) ?? idIn(membersOf(representationIn(itemAnswer)));
  if (named !== undefined && named !== 'id') shape.id = `/${token(named)}`;

  const listing = answerSchema(collection.get, ['200']);
  if (listing !== undefined && !isArraySchema(listing)) {
    const { properties } = propertiesOf(listing as JsonSchema);
    const arrays = Object.keys(properties).filter((n) => isArraySchema(properties[n]));
    // An array named after the collection is its items (FusionAuth's {application, applications, role});
    // without one, a GET whose answer holds the item itself answers one item (FusionAuth's GET /api/user
    // by login id: {user, verificationIds}), and is no listing.
    const namedArray = arrays.find((n) => names.collection.includes(n.toLowerCase()));
    const answersAnItem = Object.keys(properties).some((n) => names.item.includes(n.toLowerCase()) && isObjectSchema(properties[n]));
    const pageObject = isArraySchema(properties.items);
    if (!pageObject && namedArray !== undefined) shape.items = `/${token(namedArray)}`;
    else if (!pageObject && !answersAnItem && arrays.length === 1) shape.items = `/${token(arrays[0] as string)}`;
  }

  const request = collection.post?.requestBody?.content;
  const requestSchema = Object.entries(request ?? {}).find(([type]) => /json/i.test(type))?.[1]?.schema;
  const envelope = wrapperOf(isObject(requestSchema) ? (requestSchema as Schema) : undefined, names.item);
  if (envelope !== undefined) shape.envelope = envelope;
  return Object.keys(shape).length === 0 ? undefined : shape;
}
