/**
 * The members of a target profile as spec/schemas/target-profile.schema.json declares them (D-PROFILE):
 * each with its description, default and constraints, and, where a member turns checks on, its
 * `x-turnsOn` annotation: what the suite does with it and what happens without it. The one declaration
 * that README.md's table "What each field turns on" (spec/profile-field-table.ts, `npm run tables`) and
 * `init`'s draft (cli/init/draft.ts) read, so neither keeps its own wording.
 */
import { getSchema } from './schemas.ts';

/** The `x-turnsOn` annotation (its meta-schema: spec/schemas.ts). */
export interface TurnsOn {
  /** What the suite does with the member. */
  with: string;
  /** What happens without it, besides what `required` and `default` say. */
  without?: string;
  /** Sibling members the same words describe (`rateLimitPool` with `tokens.rateLimit`). */
  sharedWith?: string[];
}

/** The schema of one member, as far as its readers look into it. */
export interface MemberSchema {
  description?: string;
  default?: unknown;
  maxLength?: number;
  required?: string[];
  properties?: Record<string, MemberSchema>;
  items?: MemberSchema;
  $ref?: string;
  'x-turnsOn'?: TurnsOn;
}

/** One member of the profile, at any depth. */
export interface ProfileField {
  /** Dotted path; `[]` stands for the items of an array: `tokens.valid`, `collections[]`, `collections[].create`. */
  path: string;
  /** Its schema, a local `$ref` followed (the member's own keywords win over the referenced ones). */
  schema: MemberSchema;
  /** Whether a profile must have it (its parent's `required` names it). */
  required: boolean;
}

const SCHEMA = 'target-profile';

/** `node` with its local `$ref` (`#/$defs/…`) merged under its own keywords. */
function resolved(node: MemberSchema, defs: Record<string, MemberSchema>): MemberSchema {
  if (node.$ref === undefined) return node;
  const name = /^#\/\$defs\/([^/]+)$/.exec(node.$ref)?.[1];
  const target = name === undefined ? undefined : defs[name];
  if (target === undefined) throw new Error(`${SCHEMA}.schema.json: cannot follow $ref ${node.$ref}`);
  const { $ref: _ref, ...own } = node;
  return { ...resolved(target, defs), ...own };
}

/** Every member below `node`, in the schema's order, each before its own members. */
function walk(node: MemberSchema, prefix: string, defs: Record<string, MemberSchema>): ProfileField[] {
  const fields: ProfileField[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const field = { path: prefix === '' ? name : `${prefix}.${name}`, schema: resolved(child, defs), required: (node.required ?? []).includes(name) };
    fields.push(field, ...walk(field.schema, field.path, defs));
  }
  if (node.items !== undefined) {
    const items = { path: `${prefix}[]`, schema: resolved(node.items, defs), required: false };
    fields.push(items, ...walk(items.schema, items.path, defs));
  }
  return fields;
}

let fields: ProfileField[] | undefined;

/** Every member of the profile, in the schema's order (a member before its own members). */
export function profileFields(): readonly ProfileField[] {
  if (fields === undefined) {
    const schema = getSchema(SCHEMA) as MemberSchema & { $defs?: Record<string, MemberSchema> };
    fields = walk(schema, '', schema.$defs ?? {});
  }
  return fields;
}

/** The member at `path` (`features.exampleApi`, `collections[]`); throws when the schema has none. */
export function profileField(path: string): ProfileField {
  const field = profileFields().find((f) => f.path === path);
  if (field === undefined) throw new Error(`${SCHEMA}.schema.json declares no member ${path}`);
  return field;
}

/**
 * What happens without the member, as the schema declares it: `required` when a profile must have it,
 * then the annotation's `without`, else its `default`. Throws when the schema says none of these.
 */
export function withoutIt(field: ProfileField): string {
  const fallback = field.schema['x-turnsOn']?.without ?? (field.schema.default === undefined ? undefined : defaultText(field.schema.default));
  const parts = [...(field.required ? ['required'] : []), ...(fallback === undefined ? [] : [fallback])];
  if (parts.length === 0)
    throw new Error(`${SCHEMA}.schema.json ${field.path}: neither required, nor x-turnsOn.without, nor a default says what happens without it`);
  return parts.join('; ');
}

function defaultText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
