/**
 * The API's own shapes (D-SHAPES), declared once per collection in the profile (`collections[].shape`,
 * which `init` derives from the OpenAPI document) and read by every check: where an item answer holds
 * the representation, where the representation holds the id, where a listing holds its items, which
 * member wraps a request body, and what an id looks like. Absent members mean the project's own
 * example: a flat representation with an integer `id`, a page object with `items` (or a bare array).
 */
import fc from 'fast-check';
import { DEFAULT_ID_SCHEMA, unknownId } from '../arbitraries/unknown-id.ts';
import type { CollectionShape, IdSchema } from '../target/profile.ts';

/** What a check needs of a collection to read its shapes. */
export interface Shaped {
  shape?: CollectionShape;
}

/** The reference tokens of an RFC 6901 JSON pointer ("" is the whole document). */
function tokensOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value `pointer` (RFC 6901) names in `value`, or undefined when there is none. */
export function pointerGet(value: unknown, pointer: string): unknown {
  let at: unknown = value;
  for (const token of tokensOf(pointer)) {
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(token)) at = at[Number(token)];
    else if (typeof at === 'object' && at !== null && !Array.isArray(at) && Object.hasOwn(at, token)) at = (at as Record<string, unknown>)[token];
    else return undefined;
  }
  return at;
}

/** The representation inside an item answer's body (the body itself unless `shape.item` points inside). */
export function representationOf(body: unknown, of: Shaped = {}): unknown {
  return pointerGet(body, of.shape?.item ?? '');
}

/** The id of a representation inside an item answer's body: a number or a non-empty string, else undefined. */
export function idOf(body: unknown, of: Shaped = {}): number | string | undefined {
  return listedIdOf(representationOf(body, of), of);
}

/** The items of a listing's body: at `shape.items`, else the body when it is an array, else its `items`. */
export function listedItems(body: unknown, of: Shaped = {}): Record<string, unknown>[] | undefined {
  const pointer = of.shape?.items;
  const items = pointer !== undefined ? pointerGet(body, pointer) : Array.isArray(body) ? body : pointerGet(body, '/items');
  return Array.isArray(items) ? (items as Record<string, unknown>[]) : undefined;
}

/** The id of a representation, or of a listed item (the same id pointer): a number or a non-empty string, else undefined. */
export function listedIdOf(item: unknown, of: Shaped = {}): number | string | undefined {
  const id = pointerGet(item, of.shape?.id ?? '/id');
  return typeof id === 'number' || (typeof id === 'string' && id !== '') ? id : undefined;
}

/** The members a request body sends for the item: inside `shape.envelope` when the collection wraps its bodies; {} for a body that is no object. */
export function unwrapped(body: unknown, of: Shaped = {}): Record<string, unknown> {
  const envelope = of.shape?.envelope;
  const members = envelope === undefined ? body : pointerGet(body, `/${envelope.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  return typeof members === 'object' && members !== null && !Array.isArray(members) ? (members as Record<string, unknown>) : {};
}

/** A request body with `members` added inside its envelope (or at its top when it has none). */
export function withMembers(body: Record<string, unknown>, members: Record<string, unknown>, of: Shaped = {}): Record<string, unknown> {
  const envelope = of.shape?.envelope;
  if (envelope === undefined) return { ...body, ...members };
  const inner = body[envelope];
  return { ...body, [envelope]: { ...(typeof inner === 'object' && inner !== null ? inner : {}), ...members } };
}

/** The id schema of a collection: its declared one, else the project's positive integer. */
export function idSchemaOf(of: Shaped = {}): IdSchema {
  return of.shape?.idSchema ?? DEFAULT_ID_SCHEMA;
}

/** One id valid for the collection's id schema that no target has handed out (arbitraries/unknown-id.ts, D-SHAPES). */
export function unknownIdFor(of: Shaped = {}): number | string {
  const [id] = fc.sample(unknownId(idSchemaOf(of)), { numRuns: 1 });
  if (id === undefined) throw new Error('no unknown id could be drawn for the id schema');
  return id;
}

/**
 * A path segment that is no valid id of the collection (D-SHAPES), or undefined where the schema admits
 * every segment: a word for integer ids, a short word for uuids and strings with a minimum length or a
 * pattern it breaks.
 */
export function invalidIdSegment(of: Shaped = {}): string | undefined {
  const schema = idSchemaOf(of);
  if (schema.type === 'integer' || schema.type === 'number' || schema.format === 'uuid') return 'filter';
  const candidates = ['filter', 'x', 'not-an-id'];
  return candidates.find((c) => {
    if (schema.minLength !== undefined && c.length < schema.minLength) return true;
    if (schema.maxLength !== undefined && c.length > schema.maxLength) return true;
    return schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(c);
  });
}
