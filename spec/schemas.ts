import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { packagePath } from './package-files.ts';
import { join } from 'node:path';
import type Ajv2020Module from 'ajv/dist/2020.js';
import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { KeywordDefinition, SchemaValidateFunction } from 'ajv/dist/types/index.js';
import type addFormatsModule from 'ajv-formats';

type Ajv2020 = InstanceType<typeof Ajv2020Module.default>;

/**
 * ajv and ajv-formats, loaded when the first validator is built, not when this module is: most
 * processes that import it never validate (a suite worker that runs only rate-limit checks, the
 * suite's runner listing the checks), and loading the two packages costs about 35 ms of CPU, in the
 * start-up of every such process. They are CommonJS, so `require` loads them synchronously.
 */
function loadAjv(): { Ajv2020: typeof Ajv2020Module.default; addFormats: typeof addFormatsModule.default } {
  const require = createRequire(import.meta.url);
  const ajv = require('ajv/dist/2020.js') as typeof Ajv2020Module;
  const formats = require('ajv-formats') as typeof addFormatsModule;
  return { Ajv2020: ajv.default, addFormats: formats.default };
}

/** Base of every schema `$id`: `<base><name>.schema.json`. */
export const SCHEMA_ID_BASE = 'https://http-api-conformance.dev/schemas/';

/** Directory that holds the `*.schema.json` files. */
export const schemasDir = `${packagePath('spec', 'schemas')}/`;

/** One entry of a 422 `errors` array (D-ERRORS). */
export interface FieldError {
  field: string;
  message: string;
}

/** Field name used when the body itself is not a JSON object (D-BODY). */
export const BODY_FIELD = '(body)';

function loadSchemas(): Map<string, AnySchemaObject> {
  const schemas = new Map<string, AnySchemaObject>();
  for (const file of readdirSync(schemasDir).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    const name = file.slice(0, -'.schema.json'.length);
    const schema = JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as AnySchemaObject;
    schemas.set(name, schema);
  }
  return schemas;
}

/** The shortest decimal text that reads back as `value` (ECMAScript Number::toString), as decimal places. */
function decimalPlacesOf(value: number): number {
  const text = String(value);
  const e = text.indexOf('e');
  const mantissa = e < 0 ? text : text.slice(0, e);
  const exponent = e < 0 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  return Math.max(0, (dot < 0 ? 0 : mantissa.length - dot - 1) - exponent);
}

/**
 * D-FIELDS `x-maxDecimalPlaces`: true when the JSON number `value` was written with at most `places`
 * decimals, that is when the shortest decimal that reads back as the same double has at most
 * `places` decimals. Exact, unlike `multipleOf: 0.01` on doubles (111848.18 / 0.01 is not an
 * integer in binary floating point). The first test is the fast path: `value` is the double nearest
 * to an integer number of hundredths (for places = 2) exactly when rounding its scaled value and
 * scaling back gives it again.
 */
export function hasAtMostDecimalPlaces(value: number, places: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (Number.isInteger(value)) return true;
  const scale = 10 ** places;
  return Math.round(value * scale) / scale === value || decimalPlacesOf(value) <= places;
}

/**
 * The `x-maxDecimalPlaces` keyword (an OpenAPI extension keyword, so OpenAPI linters accept it): the
 * D-FIELDS decimal rule for the server and every schema user.
 */
const maxDecimalPlaces: SchemaValidateFunction = (places: number, data: number): boolean => {
  if (hasAtMostDecimalPlaces(data, places)) return true;
  maxDecimalPlaces.errors = [{ keyword: 'x-maxDecimalPlaces', message: `must have at most ${places} decimal places`, params: { limit: places } }];
  return false;
};

/**
 * The `x-turnsOn` annotation of a target profile member (spec/profile-fields.ts): what the suite does
 * with it and without it, the row of README.md's table "What each field turns on". It validates
 * nothing; its meta-schema is checked where schemas are (spec/tests/schemas.spec.ts).
 */
const turnsOn: KeywordDefinition = {
  keyword: 'x-turnsOn',
  schemaType: 'object',
  metaSchema: {
    type: 'object',
    required: ['with'],
    additionalProperties: false,
    properties: {
      with: { type: 'string', minLength: 1 },
      without: { type: 'string', minLength: 1 },
      sharedWith: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    },
  },
};

/**
 * Adds the project's own keywords (`x-maxDecimalPlaces`, the `x-turnsOn` annotation) to an Ajv instance:
 * every Ajv that reads spec/schemas/ needs them.
 */
export function addSchemaKeywords(ajv: { addKeyword(definition: KeywordDefinition): unknown }): void {
  ajv.addKeyword({ keyword: 'x-maxDecimalPlaces', type: 'number', schemaType: 'number', errors: true, validate: maxDecimalPlaces });
  ajv.addKeyword(turnsOn);
}

/**
 * The schemas of `spec/schemas/` and one Ajv (JSON Schema 2020-12, strict mode, all errors,
 * ajv-formats) over them. The files are read and their `$id`s checked at once (milliseconds); the Ajv
 * is built on the first validation, and a schema is compiled the first time it is used and kept:
 * many processes that import this module (the Playwright runner, every conformance worker, the CLI)
 * never validate, or only a few schemas. `compileAll()` compiles every schema up front; the reference server compiles the
 * request schemas it validates with at start-up (`compileSchemas`), so no request pays for a compilation. Decimal amounts use the `x-maxDecimalPlaces`
 * keyword, never `multipleOf` (D-FIELDS).
 */
export function createSchemaValidator() {
  const sources = loadSchemas();
  const ids: Record<string, string> = {};
  for (const [name, schema] of sources) {
    const expected = `${SCHEMA_ID_BASE}${name}.schema.json`;
    if (schema.$id !== expected) {
      throw new Error(`schema ${name}: $id must be ${expected}, found ${String(schema.$id)}`);
    }
    ids[name] = expected;
  }
  let built: Ajv2020 | undefined;
  function ajv(): Ajv2020 {
    if (built === undefined) {
      const { Ajv2020, addFormats } = loadAjv();
      // The schemas are not checked against the 2020-12 meta-schema here: that check compiles the
      // meta-schema (about 50 ms of CPU in every process that validates: each suite worker, the server)
      // and the files do not change at run time. spec/tests/schemas.spec.ts checks every file against it.
      built = new Ajv2020({ strict: true, allErrors: true, validateSchema: false });
      addFormats(built);
      addSchemaKeywords(built);
      for (const schema of sources.values()) built.addSchema(schema);
    }
    return built;
  }
  const validators = new Map<string, ValidateFunction>();
  function validator(name: string): ValidateFunction {
    const known = validators.get(name);
    if (known) return known;
    const id = ids[name];
    if (id === undefined) throw new Error(`unknown schema: ${name}`);
    const validate = ajv().getSchema(id);
    if (!validate) throw new Error(`schema ${name} did not compile`);
    validators.set(name, validate);
    return validate;
  }
  function compileAll(): void {
    for (const name of Object.keys(ids)) validator(name);
  }
  return { ids, sources, validator, compileAll };
}

const registry = createSchemaValidator();

/** Schema name (file name without `.schema.json`) → `$id`. */
export const schemaIds: Readonly<Record<string, string>> = Object.freeze({ ...registry.ids });

/** The names of every loaded schema, sorted. */
export const schemaNames: readonly string[] = Object.keys(schemaIds).sort();

/** The parsed source of one schema file. */
export function getSchema(name: string): AnySchemaObject {
  const schema = registry.sources.get(name);
  if (!schema) throw new Error(`unknown schema: ${name}`);
  return schema;
}

/** The compiled validator of one schema (compiled on first use, once). */
export function getValidator(name: string): ValidateFunction {
  return registry.validator(name);
}

/** Compiles every schema now (a schema that does not compile throws here). */
export function compileAllSchemas(): void {
  registry.compileAll();
}

/** Compiles the named schemas now (a server compiles those it validates with at start-up, so no request pays for it). */
export function compileSchemas(names: readonly string[]): void {
  for (const name of names) registry.validator(name);
}

function pointerToPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const article: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  object: 'an object',
  array: 'an array',
  boolean: 'a boolean',
  null: 'null',
};

function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => article[String(t)] ?? String(t)).join(' or ');
}

function messageOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
    case 'false schema':
      return 'is not allowed';
    case 'type':
      return `must be ${describeType(p.type)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must have at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must have at most ${String(p.limit)} characters`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`;
    case 'x-maxDecimalPlaces':
      return `must have at most ${String(p.limit)} decimal places`;
    case 'format':
      return `must be a valid ${String(p.format)}`;
    case 'enum':
      return error.schemaPath.startsWith('currency.schema.json')
        ? 'must be a lowercase ISO 4217 currency code'
        : 'must be one of the allowed values';
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    default:
      return error.message ?? 'is invalid';
  }
}

function fieldOf(error: ErrorObject): string {
  const path = pointerToPath(error.instancePath);
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof p.missingProperty === 'string') {
    path.push(p.missingProperty);
  } else if (
    (error.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') ||
    (error.keyword === 'unevaluatedProperties' && typeof p.unevaluatedProperty === 'string')
  ) {
    path.push(String(p.additionalProperty ?? p.unevaluatedProperty));
  }
  // A member with an empty name (`{"": 1}`) is named `""`: a field is never the empty string (validation-error-item.schema.json).
  return path.length === 0 ? BODY_FIELD : path.map((segment) => (segment === '' ? '""' : segment)).join('.');
}

/** Turns Ajv errors into the `errors` list of a 422 problem: one entry per field (D-ERRORS). */
export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined): FieldError[] {
  if (!errors || errors.length === 0) return [];
  if (errors.some((e) => e.instancePath === '' && e.keyword === 'type')) {
    return [{ field: BODY_FIELD, message: 'must be a JSON object' }];
  }
  // A `pattern` that spells out a `format` (the email rule of D-FIELDS) adds no second message.
  const formatted = new Set(errors.filter((e) => e.keyword === 'format').map((e) => e.instancePath));
  const byField = new Map<string, string[]>();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    if (error.keyword === 'pattern' && formatted.has(error.instancePath)) continue;
    const field = fieldOf(error);
    const message = messageOf(error);
    const messages = byField.get(field);
    if (!messages) byField.set(field, [message]);
    else if (!messages.includes(message)) messages.push(message);
  }
  return [...byField].map(([field, messages]) => ({ field, message: messages.join('; ') }));
}

/**
 * Validates `data` against the named schema and returns every invalid field as `{ field, message }`
 * (D-ERRORS, D-BODY): top-level member names, dotted paths for nested members, missing required and
 * unknown members named, `(body)` when the body is not an object. Empty when valid.
 */
export function validationErrors(name: string, data: unknown): FieldError[] {
  const validate = getValidator(name);
  if (validate(data)) return [];
  return toFieldErrors(validate.errors);
}
