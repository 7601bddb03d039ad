/**
 * The target profile (spec/decisions.md D-PROFILE), the one module for it: its type, reading a
 * profile file, replacing its base URLs by `--target`, and validating it against
 * spec/schemas/target-profile.schema.json (through spec/schemas.ts, the one Ajv instance), so the
 * CLI, `init` and the suite never disagree on what a usable profile is. Every problem names the
 * file and the offending field.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ErrorObject } from 'ajv';
import { packagePath } from '../../spec/package-files.ts';
import { getValidator } from '../../spec/schemas.ts';

export interface ProfileRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** The JSON Schema of an id path segment, as far as the shapes read it. */
export interface IdSchema {
  type?: 'integer' | 'string' | 'number';
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/**
 * `collections[].shape`: the API's own shapes where they differ from the project's example (D-SHAPES;
 * read through conformance/support/shape.ts).
 */
export interface CollectionShape {
  /** JSON pointer to the representation inside an item answer (create, read, replace); "" is the body itself. */
  item?: string;
  /** JSON pointer to the id inside the representation. */
  id?: string;
  /** JSON pointer to the items of a listing; absent: the body when it is an array, else its `items`. */
  items?: string;
  /** The member that wraps every request body of the collection (`{"payment_method": {…}}`). */
  envelope?: string;
  /** The schema of the `{id}` path segment. */
  idSchema?: IdSchema;
}

/**
 * How the API takes a token (D-SHAPES): the document's `Authorization: Bearer <token>` (the default),
 * an API key in a header or in the query, or HTTP Basic (each token is then `user:password`).
 */
export type Credentials = { scheme: 'bearer' } | { scheme: 'apiKey'; in: 'header' | 'query'; name: string } | { scheme: 'basic' };

/** Header and query parameters the API requires on every request (of the profile, or of one collection's paths). */
export interface RequiredParameters {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface ProfileCollection {
  name: string;
  path: string;
  itemPath?: string;
  methods: string[];
  itemMethods?: string[];
  auth?: { read?: boolean; write?: boolean };
  create?: Record<string, unknown>;
  replace?: Record<string, unknown>;
  invalid?: { body: unknown; fields: string[] };
  existingIds?: (number | string)[];
  /** D-STATE-MODEL: each caller sees only the items it created here (another caller's read is 403 or 404). */
  owned?: boolean;
  /** D-STATE-MODEL: how long a new item may take to appear in every instance's listing (default 0). */
  listedWithinMs?: number;
  /** D-STATE-MODEL: the query that lists the collection newest first ('' when its own order is). */
  newestFirst?: string;
  shape?: CollectionShape;
  /** Parameters the document requires on this collection's paths (the collection path and its items). */
  parameters?: RequiredParameters;
}

/** The rate-limit algorithms a profile can declare (D-SUITE-TRUST; default the document's reference, the token bucket). */
export type RateLimitAlgorithm = 'token-bucket' | 'leaky-bucket' | 'fixed-window' | 'sliding-window';

/**
 * The algorithm a profile's limiter runs (D-SUITE-TRUST): the one `rateLimit.algorithm` declares, else the
 * document's reference, the token bucket (section 8.3).
 */
export function rateLimitAlgorithm(plan: { algorithm?: RateLimitAlgorithm } | undefined): RateLimitAlgorithm {
  return plan?.algorithm ?? 'token-bucket';
}

/** Whether the algorithm counts requests per window (fixed or sliding) rather than tokens of a bucket. */
export function isWindow(algorithm: RateLimitAlgorithm): algorithm is 'fixed-window' | 'sliding-window' {
  return algorithm === 'fixed-window' || algorithm === 'sliding-window';
}

export interface TargetProfile {
  $schema?: string;
  name: string;
  description?: string;
  baseUrls: string[];
  /**
   * The target's OpenAPI document (D-SCHEMA-INPUTS): an http(s) URL, or a file path, relative to the
   * profile in the file and absolute once read (`readProfile`).
   */
  openapi?: string;
  tokens: {
    valid: string;
    other?: string;
    limited?: { token: string; request: ProfileRequest };
    rateLimit?: string;
    /** More tokens on the rateLimit token's policy, each its own bucket (D-PROFILE). */
    rateLimitPool?: string[];
    /** A token on a slow-refill plan, with that plan (D-SUITE-TRUST): exact over-admission checks. */
    rateLimitSlow?: { token: string; capacity: number; refillPerSecond: number };
  };
  collections: ProfileCollection[];
  /** How tokens are sent (default: Authorization: Bearer). */
  credentials?: Credentials;
  /** Parameters the document requires on every request. */
  parameters?: RequiredParameters;
  idempotency?: {
    path: string;
    body: Record<string, unknown>;
    otherBody: Record<string, unknown>;
    collectionPath?: string;
    /** D-STATE-MODEL: every collection's POST honours Idempotency-Key, not only `path`. */
    everyPost?: boolean;
  };
  protected: ProfileRequest;
  /** The rate-limit plan: `refillPerSecond` for the buckets, `windowSeconds` for the windows (the schema requires the one that applies). */
  rateLimit?: { capacity: number; refillPerSecond?: number; windowSeconds?: number; algorithm?: RateLimitAlgorithm };
  features?: {
    exampleApi?: boolean;
    hypermedia?: boolean;
    /** Whether the base URLs are instances of one service sharing one store (conformance/support/multi-target.ts). */
    multiTarget?: boolean;
    faultInjection?: { header: string; slowValue?: string };
  };
  runs?: { properties?: number };
}

/** Thrown for a profile that cannot be used; the message names the file and the bad field. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}

/** The reference server's profile, fixtures/profiles/reference.json: the default of `run`. */
export const REFERENCE_PROFILE = packagePath('fixtures', 'profiles', 'reference.json');

/** A profile as read from its file, before validation: any member may be missing. */
export type ProfileDocument = Partial<TargetProfile> & Record<string, unknown>;

function describeError(error: ErrorObject, data: unknown): string {
  const where = error.instancePath === '' ? '(profile)' : error.instancePath;
  if (error.keyword === 'additionalProperties') {
    return `${where}: unknown member "${String((error.params as { additionalProperty: string }).additionalProperty)}"`;
  }
  if (error.keyword === 'required') {
    return `${where}: missing member "${String((error.params as { missingProperty: string }).missingProperty)}"`;
  }
  if (error.keyword === 'pattern' && /^\/baseUrls\/\d+$/.test(error.instancePath)) {
    const index = Number(error.instancePath.split('/')[2]);
    const url = String((data as { baseUrls?: unknown[] }).baseUrls?.[index] ?? '');
    const variable = /\{[^}]*\}/.exec(url)?.[0];
    return variable
      ? `${where}: ${url} holds the OpenAPI server variable ${variable}: give the URL with its value (or --target URL)`
      : `${where}: ${url} is not an http(s) URL without a query or a fragment (or --target URL)`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}

/** Validates parsed profile data (D-PROFILE); returns one readable line per problem, empty when valid. */
export function profileProblems(data: unknown): string[] {
  const validate = getValidator('target-profile');
  if (!validate(data)) return [...new Set((validate.errors ?? []).map((error) => describeError(error, data)))];
  return planProblems((data as TargetProfile).rateLimit);
}

/** The member of `rateLimit` its algorithm needs: `windowSeconds` for a window, `refillPerSecond` for a bucket (D-SUITE-TRUST). */
function planProblems(plan: TargetProfile['rateLimit']): string[] {
  if (plan === undefined) return [];
  const algorithm = rateLimitAlgorithm(plan);
  if (isWindow(algorithm) && plan.windowSeconds === undefined) {
    return [`/rateLimit: missing member "windowSeconds" (the length of a window in seconds, which the algorithm "${algorithm}" needs)`];
  }
  if (!isWindow(algorithm) && plan.refillPerSecond === undefined) {
    return [`/rateLimit: missing member "refillPerSecond" (tokens per second, which the algorithm "${algorithm}" needs)`];
  }
  return [];
}

/**
 * Every value of a profile document still marked `TODO:` (what `init` writes for a value it could not
 * get), as `/json/pointer: marker`: such a profile is refused naming the field.
 */
export function todoMarkers(value: unknown, pointer = ''): string[] {
  if (typeof value === 'string') return value.startsWith('TODO:') ? [`${pointer || '(profile)'}: ${value}`] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => todoMarkers(v, `${pointer}/${i}`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => todoMarkers(v, `${pointer}/${k}`));
  return [];
}

/** Validates parsed data as a profile and returns it typed; throws ProfileError naming the bad fields. */
export function parseProfile(data: unknown, source = 'profile'): TargetProfile {
  const todos = todoMarkers(data);
  if (todos.length > 0) {
    throw new ProfileError(`${source} still has values to fill in (or members to delete, where the marker says so):\n  ${todos.join('\n  ')}`);
  }
  const problems = profileProblems(data);
  if (problems.length > 0) {
    throw new ProfileError(`${source} is not a valid target profile:\n  ${problems.join('\n  ')}`);
  }
  const profile = data as TargetProfile;
  return { ...profile, baseUrls: profile.baseUrls.map((u) => u.replace(/\/+$/, '')) };
}

/** Reads a profile file without validating it; throws ProfileError when it is missing, not JSON or not an object. */
export function readProfile(path: string): ProfileDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ProfileError(`cannot read the profile ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ProfileError(`profile ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ProfileError(`profile ${path}: (profile): must be a JSON object`);
  return withOpenApiResolved(data as ProfileDocument, dirname(resolve(path)));
}

/** Whether `location` is an http(s) URL rather than a file path. */
export function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * The profile with its `openapi` file path made absolute against `folder` (the profile's own folder):
 * the profile the `run` command hands to its suite lies elsewhere (D-SCHEMA-INPUTS). A URL, an absolute
 * path and a value that is not a string (refused by the schema) are left as they are.
 */
export function withOpenApiResolved(profile: ProfileDocument, folder: string): ProfileDocument {
  const location = profile.openapi;
  if (typeof location !== 'string' || location === '' || isUrl(location) || isAbsolute(location) || location.startsWith('TODO:')) return profile;
  return { ...profile, openapi: resolve(folder, location) };
}

/** Reads, parses and validates a profile file (D-PROFILE); throws ProfileError when unusable. */
export function loadProfile(path: string): TargetProfile {
  return parseProfile(readProfile(path), `profile ${path}`);
}

/**
 * Reads a profile that the `run` command has already validated and written for its suite
 * (HAC_PROFILE_CHECKED, D-PROFILE), without validating it again: the validator's build and compile
 * cost each suite worker ~90 ms of CPU before its first check.
 */
export function loadValidatedProfile(path: string): TargetProfile {
  const profile = readProfile(path) as TargetProfile;
  if (!Array.isArray(profile.baseUrls)) throw new ProfileError(`profile ${path}: the run command wrote no baseUrls`);
  return { ...profile, baseUrls: profile.baseUrls.map((u) => u.replace(/\/+$/, '')) };
}

/** The profile with its base URLs replaced by the `--target` URLs (trailing slashes removed). */
export function withTargets(profile: ProfileDocument, targets: string[]): ProfileDocument {
  if (targets.length === 0) return profile;
  return { ...profile, baseUrls: targets.map((t) => t.replace(/\/+$/, '')) };
}

/** Whether the profile names at least one base URL. */
export function hasBaseUrls(profile: ProfileDocument): boolean {
  return Array.isArray(profile.baseUrls) && profile.baseUrls.length > 0;
}

/**
 * The profile's rate-limit tokens, each its own bucket on one policy: `tokens.rateLimit`, then
 * `tokens.rateLimitPool` (D-PROFILE); empty when the profile names none.
 */
export function rateLimitPool(profile: Pick<TargetProfile, 'tokens'>): string[] {
  const { rateLimit, rateLimitPool: more = [] } = profile.tokens;
  return rateLimit === undefined ? [] : [...new Set([rateLimit, ...more])];
}
