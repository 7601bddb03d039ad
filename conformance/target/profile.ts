/**
 * The target profile (spec/decisions.md D-PROFILE): its type, and loading it from a file with
 * validation against spec/schemas/target-profile.schema.json. The CLI and the suite both use this.
 */
import { readFileSync } from 'node:fs';
import { packagePath } from '../../spec/package-files.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

export interface ProfileRequest {
  method: string;
  path: string;
  body?: unknown;
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
}

export interface TargetProfile {
  $schema?: string;
  name: string;
  description?: string;
  baseUrls: string[];
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
  idempotency?: {
    path: string;
    body: Record<string, unknown>;
    otherBody: Record<string, unknown>;
    collectionPath?: string;
  };
  protected: ProfileRequest;
  rateLimit?: { capacity: number; refillPerSecond: number; algorithm?: 'token-bucket' | 'leaky-bucket' };
  features?: {
    exampleApi?: boolean;
    hypermedia?: boolean;
    multiTarget?: boolean;
    faultInjection?: { header: string; slowValue?: string };
  };
  runs?: { properties?: number };
}

/** Thrown for a profile that cannot be used; the message names the file and the bad field. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}

export const profileSchemaPath = packagePath('spec', 'schemas', 'target-profile.schema.json');

let validator: ValidateFunction | undefined;

function profileValidator(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    validator = ajv.compile(JSON.parse(readFileSync(profileSchemaPath, 'utf8')) as object);
  }
  return validator;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(profile)' : error.instancePath;
  if (error.keyword === 'additionalProperties') {
    return `${where}: unknown member "${String((error.params as { additionalProperty: string }).additionalProperty)}"`;
  }
  if (error.keyword === 'required') {
    return `${where}: missing member "${String((error.params as { missingProperty: string }).missingProperty)}"`;
  }
  return `${where}: ${error.message ?? 'is invalid'}`;
}

/** Validates parsed profile data (D-PROFILE); returns one readable line per problem, empty when valid. */
export function profileProblems(data: unknown): string[] {
  const validate = profileValidator();
  if (validate(data)) return [];
  return [...new Set((validate.errors ?? []).map(describeError))];
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

/** Reads, parses and validates a profile file (D-PROFILE); throws ProfileError when unusable. */
export function loadProfile(path: string): TargetProfile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ProfileError(`cannot read profile ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ProfileError(`profile ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseProfile(data, `profile ${path}`);
}

/** The reference server's profile, fixtures/profiles/reference.json. */
export const referenceProfilePath = packagePath('fixtures', 'profiles', 'reference.json');
