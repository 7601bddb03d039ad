/**
 * Request bodies generated from a collection's request schema (D-SCHEMA-INPUTS), with fast-check:
 * valid bodies (the profile's create body with schema-valid variations of its plain members), and
 * single-fault bodies (a valid body with exactly one member broken: a wrong JSON type, out of its
 * bounds, a required member missing, an unknown member where the object is closed). The schema's own
 * validator (support/request-schemas.ts) is the judge: a generated fault is kept only when it makes
 * the body invalid in exactly the field it names, a variation only when the body stays valid. Bodies
 * keep the profile's `{{unique}}` markers; the check fills them per request.
 */
import fc from 'fast-check';
import { propertiesOf, validBody } from '../openapi/bodies.ts';
import type { RequestSchema, SchemaObject } from '../support/request-schemas.ts';
import { fillTemplate } from '../support/template.ts';

export type Body = Record<string, unknown>;

export type FaultKind = 'wrong-type' | 'out-of-bounds' | 'missing-required' | 'unknown-member';

/** A body broken in one field: what was broken and the field (dotted path, D-ERRORS) a 422 must name. */
export interface Fault {
  kind: FaultKind;
  field: string;
  body: Body;
}

/** One member of the body: its path from the root, its schema, whether its object requires it, whether that object is closed. */
interface Member {
  path: string[];
  schema: SchemaObject;
  required: boolean;
}

/** The value a template is filled with while judging a body (the check fills a fresh one per request). */
const SAMPLE_UNIQUE = 'hacsample0';

/** How many samples decide whether an arbitrary can produce a fault at all (a fixed seed: the same answer on every run). */
const PROBE = { numRuns: 40, seed: 20_260_101 };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON types a schema allows (`type`, else inferred from `enum`/`const`); empty when it says none. */
function typesOf(schema: SchemaObject): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [];
  return [...new Set(values.map(jsonType))];
}

/** The JSON type of a value (`integer` for whole numbers). */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether `value` is of one of `types` (an integer is a number too). */
function ofType(value: unknown, types: string[]): boolean {
  const type = jsonType(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

function getAt(body: Body, path: string[]): unknown {
  let node: unknown = body;
  for (const segment of path) node = isObject(node) ? node[segment] : undefined;
  return node;
}

/** A copy of `body` with the member at `path` set to `value`, or removed when `value` is `undefined`. */
function setAt(body: Body, path: string[], value: unknown): Body {
  const [head, ...rest] = path;
  if (head === undefined) return body;
  const copy: Body = { ...body };
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else copy[head] = value;
    return copy;
  }
  copy[head] = setAt(isObject(body[head]) ? body[head] : {}, rest, value);
  return copy;
}

/** Whether a member is the server's to set (`readOnly`): never sent (D-SCHEMA-INPUTS). */
const readOnly = (schema: SchemaObject): boolean => schema.readOnly === true;

/** The body without its read-only members, at any depth. */
function withoutReadOnly(body: Body, schema: SchemaObject): Body {
  const { properties } = propertiesOf(schema);
  const copy: Body = {};
  for (const [name, value] of Object.entries(body)) {
    const member = properties[name];
    if (member !== undefined && readOnly(member)) continue;
    copy[name] = member !== undefined && isObject(value) ? withoutReadOnly(value, member) : value;
  }
  return copy;
}

/** Every writable member of the schema at any depth of `base` (a nested object's members when `base` has that object). */
function membersOf(schema: SchemaObject, base: Body, prefix: string[] = []): Member[] {
  const { properties, required } = propertiesOf(schema);
  const members: Member[] = [];
  for (const [name, member] of Object.entries(properties)) {
    if (readOnly(member)) continue;
    const path = [...prefix, name];
    members.push({ path, schema: member, required: required.includes(name) });
    const value = getAt(base, path);
    if (isObject(value) && isObject(member.properties)) members.push(...membersOf(member, base, path));
  }
  return members;
}

/** The objects of the body (the root and its nested objects) that allow no other member. */
function closedObjects(schema: SchemaObject, base: Body, prefix: string[] = []): string[][] {
  const { properties, closed } = propertiesOf(schema);
  const found = closed ? [prefix] : [];
  for (const [name, member] of Object.entries(properties)) {
    const path = [...prefix, name];
    if (!readOnly(member) && isObject(getAt(base, path)) && isObject(member.properties)) found.push(...closedObjects(member, base, path));
  }
  return found;
}

/** Any JSON value of small size. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.boolean(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -1000, max: 1000, noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 6 }),
  fc.constant(null),
  fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 9 }), { maxKeys: 2 }),
);

/** Values of another JSON type than the member's: `false` and `true` first for a string (the coercion every lax validator does). */
function wrongTypes(schema: SchemaObject): fc.Arbitrary<unknown> | undefined {
  const types = typesOf(schema);
  if (types.length === 0) return undefined;
  return fc.oneof({ weight: 2, arbitrary: fc.boolean() }, { weight: 3, arbitrary: anyJson }).filter((value) => !ofType(value, types));
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Values beyond the member's declared bounds (length, range, pattern, enum, decimals); undefined when it declares none. */
function outOfBounds(schema: SchemaObject): fc.Arbitrary<unknown> | undefined {
  const types = typesOf(schema);
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (Array.isArray(schema.enum) || 'const' in schema) {
    const known = (Array.isArray(schema.enum) ? schema.enum : [schema.const]).filter((v): v is string => typeof v === 'string');
    if (known.length > 0) candidates.push(fc.constantFrom(...known).map((v) => (v === v.toUpperCase() ? v.toLowerCase() : v.toUpperCase())));
    if (types.includes('string')) candidates.push(fc.string({ minLength: 1, maxLength: 8 }));
    if (types.includes('integer') || types.includes('number')) candidates.push(fc.integer({ min: -1000, max: 100_000 }));
  }
  if (types.includes('string')) {
    const min = num(schema.minLength);
    const max = num(schema.maxLength);
    if (min !== undefined && min > 0) candidates.push(fc.string({ maxLength: min - 1 }));
    if (max !== undefined) candidates.push(fc.string({ minLength: max + 1, maxLength: max + 8 }));
    // A `format` alone is no bound: JSON Schema 2020-12 (OpenAPI 3.1) makes it an annotation unless the server opts in.
    if (typeof schema.pattern === 'string') {
      candidates.push(fc.string({ minLength: Math.max(min ?? 0, 1), maxLength: Math.max(min ?? 0, 1) + 8 }));
    }
  }
  if (types.includes('integer') || types.includes('number')) {
    const low = num(schema.minimum) ?? num(schema.exclusiveMinimum);
    const high = num(schema.maximum) ?? num(schema.exclusiveMaximum);
    if (low !== undefined) candidates.push(fc.integer({ min: 0, max: 1000 }).map((k) => Math.ceil(low) - k));
    if (high !== undefined) candidates.push(fc.integer({ min: 0, max: 1000 }).map((k) => Math.floor(high) + k));
    if (types.includes('number') && (schema.multipleOf !== undefined || schema['x-maxDecimalPlaces'] !== undefined)) {
      candidates.push(fc.integer({ min: 1, max: 99_999 }).map((n) => n / 1000 + 0.0001));
    }
  }
  return candidates.length === 0 ? undefined : fc.oneof(...candidates);
}

/** The longest string a boundary value is made of: a 10 KB member fits the usual body limits (100 KB in express.json, 1 MiB in Fastify). */
const MAX_BOUNDARY_LENGTH = 10_000;

/**
 * The member's declared bounds as values just inside and just outside them (D-SCHEMA-INPUTS): a string
 * of exactly `minLength`/`maxLength` characters and one character fewer/more; a number at `minimum`/
 * `maximum` and one past it; an `exclusiveMinimum`/`exclusiveMaximum` itself (outside) and the nearest
 * integer inside it. The boundary is where a validator is off by one, so every run sends these rather
 * than leave them to a seed. Strings with a `pattern` or `format` get none: `x…x` would break those too.
 * The caller keeps a value only when the schema's own validator agrees.
 */
function boundaryValues(schema: SchemaObject): { inside: unknown[]; outside: unknown[] } {
  const types = typesOf(schema);
  const inside: unknown[] = [];
  const outside: unknown[] = [];
  /** One bound: the value just inside it and the value just outside it, when the bound is declared. */
  const bound = (declared: unknown, inValue: (b: number) => unknown, outValue: (b: number) => unknown): void => {
    const b = num(declared);
    if (b === undefined) return;
    const [kept, broken] = [inValue(b), outValue(b)];
    if (kept !== undefined) inside.push(kept);
    if (broken !== undefined) outside.push(broken);
  };
  const text = (length: number): string | undefined => (length >= 0 && length <= MAX_BOUNDARY_LENGTH ? 'x'.repeat(length) : undefined);
  if (types.includes('string') && typeof schema.pattern !== 'string' && typeof schema.format !== 'string') {
    if ((num(schema.minLength) ?? 0) > 0) bound(schema.minLength, text, (b) => text(b - 1));
    bound(schema.maxLength, text, (b) => text(b + 1));
  }
  if (types.includes('integer') || types.includes('number')) {
    // An integer member's values stay integers: a fractional bound is met by the nearest integer inside it.
    const whole = !types.includes('number');
    const exactly = (b: number): number | undefined => (whole && !Number.isInteger(b) ? undefined : b);
    bound(schema.minimum, (b) => (whole ? Math.ceil(b) : b), (b) => (whole ? Math.ceil(b) : b) - 1);
    bound(schema.maximum, (b) => (whole ? Math.floor(b) : b), (b) => (whole ? Math.floor(b) : b) + 1);
    bound(schema.exclusiveMinimum, (b) => Math.floor(b) + 1, exactly);
    bound(schema.exclusiveMaximum, (b) => Math.ceil(b) - 1, exactly);
  }
  return { inside, outside };
}

/** A valid value of a plain member (no format, pattern or reference), from its bounds; undefined for any other member. */
function validValues(schema: SchemaObject): fc.Arbitrary<unknown> | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  if (typeof schema.format === 'string' || typeof schema.pattern === 'string') return undefined;
  const [type] = typesOf(schema).filter((t) => t !== 'null');
  const low = num(schema.minimum) ?? num(schema.exclusiveMinimum);
  const high = num(schema.maximum) ?? num(schema.exclusiveMaximum);
  switch (type) {
    case 'string': {
      const min = num(schema.minLength) ?? 0;
      return fc.string({ minLength: min, maxLength: Math.min(num(schema.maxLength) ?? min + 16, min + 16) });
    }
    case 'integer':
      return fc.integer({ min: Math.ceil(low ?? -1000), max: Math.floor(high ?? Math.max(1000, (low ?? 0) + 1000)) });
    case 'number':
      // Two decimals at most: amounts, the common case of a `number` member (x-maxDecimalPlaces, multipleOf: 0.01).
      return fc.integer({ min: Math.ceil((low ?? -1000) * 100), max: Math.floor((high ?? Math.max(1000, (low ?? 0) + 1000)) * 100) }).map((n) => n / 100);
    case 'boolean':
      return fc.boolean();
    default:
      return undefined;
  }
}

/**
 * Whether the member keeps the base body's value in every valid body: a value that must differ per
 * request (`{{unique}}`), one that names another resource (`…Id`: it must exist), one with a format or
 * pattern, an object or an array.
 */
function keepsBase(member: Member, base: Body): boolean {
  const value = getAt(base, member.path);
  const name = member.path[member.path.length - 1] ?? '';
  return (typeof value === 'string' && value.includes('{{unique}}')) || /(?:Id|_id|ID)$/.test(name) || validValues(member.schema) === undefined;
}

/** The profile's create body (a sample of the schema by openapi-sampler when it gives none), without read-only members. */
export function baseBody(schema: RequestSchema): Body | undefined {
  const create = schema.collection.create ?? validBody({ schema: schema.schema });
  return isObject(create) ? withoutReadOnly(create, schema.schema) : undefined;
}

/** The fields a 422 must name for a body template (its `{{unique}}` filled with a sample value). */
export function invalidFieldsOf(schema: RequestSchema, body: Body): string[] {
  return schema.invalidFields(fillTemplate(body, SAMPLE_UNIQUE));
}

/** Valid bodies: the base with each plain top-level member varied within its bounds, optional ones sometimes left out. */
export function validBodies(schema: RequestSchema, base: Body): fc.Arbitrary<Body> {
  const variations: Record<string, fc.Arbitrary<unknown>> = {};
  for (const member of membersOf(schema.schema, base).filter((m) => m.path.length === 1)) {
    const name = member.path[0] as string;
    const present = name in base;
    const values = keepsBase(member, base) ? undefined : validValues(member.schema);
    if (!present && values === undefined) continue;
    const options: fc.Arbitrary<unknown>[] = [present ? fc.constant(base[name]) : fc.constant(undefined)];
    if (values !== undefined) options.push(values);
    if (present && !member.required) options.push(fc.constant(undefined));
    variations[name] = fc.oneof(...options);
  }
  return fc.record(variations).map((members) => {
    let body: Body = { ...base };
    for (const [name, value] of Object.entries(members)) body = setAt(body, [name], value);
    // A combination the schema refuses (dependencies between members) falls back to the base.
    return invalidFieldsOf(schema, body).length === 0 ? body : base;
  });
}

/**
 * Valid bodies every run sends first (fast-check `examples`): the base with one plain top-level member
 * at one of its declared bounds (`boundaryValues`: a string of exactly `maxLength` characters, a number
 * at `minimum`, …), each kept only when the schema's validator accepts the body.
 */
export function boundaryBodies(schema: RequestSchema, base: Body): Body[] {
  const bodies: Body[] = [];
  for (const member of membersOf(schema.schema, base).filter((m) => m.path.length === 1 && !keepsBase(m, base))) {
    for (const value of boundaryValues(member.schema).inside) {
      const body = setAt(base, member.path, value);
      if (invalidFieldsOf(schema, body).length === 0) bodies.push(body);
    }
  }
  return bodies;
}

/**
 * A valid body other than `base` when the schema allows one (a fixed sample of `validBodies`): the
 * faults start from it, so that the members a refused body keeps hold values the profile's own body
 * does not, and an item created from it is told from the items other checks create (D-SCHEMA-INPUTS).
 */
export function variedBody(schema: RequestSchema, base: Body): Body {
  const same = JSON.stringify(base);
  return fc.sample(validBodies(schema, base), PROBE).find((body) => JSON.stringify(body) !== same) ?? base;
}

/** The single-fault arbitraries of one member, each kept only if it can produce a fault of that field alone. */
function memberFaults(schema: RequestSchema, base: Body, member: Member): fc.Arbitrary<Fault | undefined>[] {
  const field = member.path.join('.');
  const faultOf = (kind: FaultKind, values: fc.Arbitrary<unknown>): fc.Arbitrary<Fault | undefined> =>
    values.map((value) => {
      const body = setAt(base, member.path, value);
      const fields = invalidFieldsOf(schema, body);
      return fields.length === 1 && fields[0] === field ? { kind, field, body } : undefined;
    });
  const arbitraries: fc.Arbitrary<Fault | undefined>[] = [];
  const wrong = wrongTypes(member.schema);
  if (wrong !== undefined) arbitraries.push(faultOf('wrong-type', wrong));
  const beyond = outOfBounds(member.schema);
  if (beyond !== undefined) arbitraries.push(faultOf('out-of-bounds', beyond));
  if (member.required && getAt(base, member.path) !== undefined) arbitraries.push(faultOf('missing-required', fc.constant(undefined)));
  return arbitraries;
}

/** Unknown members added to each closed object of the body (names no schema defines, prefixed `hac`). */
function unknownMembers(schema: RequestSchema, base: Body): fc.Arbitrary<Fault | undefined>[] {
  return closedObjects(schema.schema, base).map((prefix) =>
    fc.tuple(fc.stringMatching(/^[A-Z][a-zA-Z]{1,8}$/), anyJson).map(([suffix, value]) => {
      const path = [...prefix, `hac${suffix}`];
      const field = path.join('.');
      const body = setAt(base, path, value);
      const fields = invalidFieldsOf(schema, body);
      return fields.length === 1 && fields[0] === field ? { kind: 'unknown-member' as const, field, body } : undefined;
    }),
  );
}

/** The faults of a generated arbitrary that shows at least one in its probe (an arbitrary that never does is left out). */
function productive(arbitrary: fc.Arbitrary<Fault | undefined>): boolean {
  return fc.sample(arbitrary, PROBE).some((fault) => fault !== undefined);
}

/** Single-fault bodies of the collection: one member broken in one way, judged by the schema; undefined when none can be made. */
export function singleFaults(schema: RequestSchema, base: Body): fc.Arbitrary<Fault> | undefined {
  const arbitraries = [...membersOf(schema.schema, base).flatMap((m) => memberFaults(schema, base, m)), ...unknownMembers(schema, base)].filter(productive);
  if (arbitraries.length === 0) return undefined;
  return fc.oneof(...arbitraries).filter((fault): fault is Fault => fault !== undefined);
}

/**
 * The faults every run sends first (fast-check `examples`): `false` in each string member (the
 * coercion of Ajv's `coerceTypes`, Fastify's default), the member's own value wrapped in a one-element
 * array (express-validator runs its validator.js checks on each element of an array, so `["blue"]`
 * passes `isIn`; Ajv's `coerceTypes: 'array'` unwraps it), `null` in each member whose schema does not
 * allow it (a validator that treats null as absent, or Ajv's coercion of null to "" and 0), each declared
 * bound crossed by one (`boundaryValues`), each required member missing, one unknown member — so the
 * cases lax validators get wrong are never left to chance.
 */
export function essentialFaults(schema: RequestSchema, base: Body): Fault[] {
  const faults: Fault[] = [];
  const keep = (kind: FaultKind, path: string[], body: Body): void => {
    const field = path.join('.');
    const fields = invalidFieldsOf(schema, body);
    if (fields.length === 1 && fields[0] === field) faults.push({ kind, field, body });
  };
  for (const member of membersOf(schema.schema, base)) {
    const types = typesOf(member.schema);
    const value = getAt(base, member.path);
    if (types.includes('string')) keep('wrong-type', member.path, setAt(base, member.path, false));
    if (value !== undefined && types.length > 0 && !types.includes('array')) keep('wrong-type', member.path, setAt(base, member.path, [value]));
    if (types.length > 0 && !types.includes('null')) keep('wrong-type', member.path, setAt(base, member.path, null));
    for (const beyond of boundaryValues(member.schema).outside) keep('out-of-bounds', member.path, setAt(base, member.path, beyond));
    if (member.required && value !== undefined) keep('missing-required', member.path, setAt(base, member.path, undefined));
  }
  for (const prefix of closedObjects(schema.schema, base)) {
    const path = [...prefix, 'hacUnknownMember'];
    keep('unknown-member', path, setAt(base, path, 1));
  }
  return faults;
}
