/**
 * What an OpenAPI document tells about a target profile (D-PROFILE): the collections with their
 * item paths and exact methods, which of them need a token, valid create and replace bodies, an
 * invalid body, the protected endpoint, the POST that takes an `Idempotency-Key`, and whether the
 * document describes the conventions document's own example API and hypermedia links. Everything
 * else (tokens, fault injection) is the caller's to supply.
 */
import type { ProfileCollection, ProfileRequest } from '../../conformance/target/profile.ts';
import { invalidBody, otherBody, propertiesOf, validBody } from './bodies.ts';
import { HTTP_METHODS } from './openapi.ts';
import type { MediaType, OpenApiDocument, Operation, PathItem, SecurityRequirement } from './openapi.ts';

/** The paths of the conventions document's example API (D-PATHS), parameters written `{}`. */
const EXAMPLE_API_PATHS = ['/users', '/users/{}', '/users/{}/orders', '/account', '/orders/{}/cancel', '/orders/{}/payment', '/payments', '/transfers/{}'];

export interface Draft {
  name: string;
  description: string;
  /** Absolute http(s) URLs of the document's `servers`. */
  serverUrls: string[];
  collections: ProfileCollection[];
  protected?: ProfileRequest;
  idempotency?: { path: string; body: Record<string, unknown>; otherBody: Record<string, unknown>; collectionPath: string };
  /** A write that needs a permission: the request a limited token should be refused. */
  limitedCandidate?: ProfileRequest;
  features: { exampleApi: boolean; hypermedia: boolean };
  /** What the draft left out and why, for the user. */
  notes: string[];
}

const shape = (path: string): string => path.replace(/\{[^}]+\}/g, '{}');

/**
 * Whether the document allows the operation: it may succeed (a 2xx or 3xx response, or only a
 * `default` one). An operation documented only to say it is refused (405 alone, or
 * `x-method-not-allowed: true`) is not a method of the path.
 */
function allowed(op: Operation | undefined): op is Operation {
  if (op === undefined || (op as Record<string, unknown>)['x-method-not-allowed'] === true) return false;
  const codes = Object.keys(op.responses ?? {});
  return codes.length === 0 || codes.some((code) => /^[23]/.test(code)) || codes.every((code) => code === 'default');
}

/** The path item with only the operations the document allows. */
function allowedOperations(item: PathItem): PathItem {
  const result: PathItem = item.parameters ? { parameters: item.parameters } : {};
  for (const m of HTTP_METHODS) if (allowed(item[m])) result[m] = item[m];
  return result;
}

function methodsOf(item: PathItem): string[] {
  return HTTP_METHODS.filter((m) => item[m] !== undefined).map((m) => m.toUpperCase());
}

/** Whether an operation can be called without credentials: no security, or an empty alternative (`- {}`). */
function isAnonymous(op: Operation | undefined, doc: OpenApiDocument): boolean {
  const security: SecurityRequirement[] = op?.security ?? doc.security ?? [];
  return security.length === 0 || security.some((s) => Object.keys(s).length === 0);
}

/** Whether an operation states scopes: a token without them is refused (403). */
function needsPermission(op: Operation | undefined, doc: OpenApiDocument): boolean {
  const security: SecurityRequirement[] = op?.security ?? doc.security ?? [];
  return !isAnonymous(op, doc) && security.some((s) => Object.values(s).some((scopes) => scopes.length > 0));
}

function jsonMedia(op: Operation | undefined): MediaType | undefined {
  const content = op?.requestBody?.content;
  if (!content) return undefined;
  const key = Object.keys(content).find((k) => /^application\/([\w.+-]+\+)?json\b/i.test(k));
  return key ? content[key] : undefined;
}

function acceptsIdempotencyKey(op: Operation | undefined, item: PathItem): boolean {
  return [...(item.parameters ?? []), ...(op?.parameters ?? [])].some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
}

/** Whether a successful response of the operation carries `_links` (level 3, D-LINKS). */
function hasLinks(op: Operation | undefined): boolean {
  for (const [status, response] of Object.entries(op?.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    for (const media of Object.values(response.content ?? {})) if ('_links' in propertiesOf(media.schema).properties) return true;
  }
  return false;
}

/** A short name for the profile from the document's title. */
function profileName(doc: OpenApiDocument): string {
  const slug = (doc.info?.title ?? 'my-api').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return (slug || 'my-api').slice(0, 100);
}

/** Builds the draft profile from a dereferenced OpenAPI document. */
export function draftProfile(doc: OpenApiDocument, source: string): Draft {
  const notes: string[] = [];
  const paths: Record<string, PathItem> = Object.fromEntries(Object.entries(doc.paths ?? {}).map(([p, item]) => [p, allowedOperations(item)]));
  const collections: ProfileCollection[] = [];
  const bodies = new Map<string, { media: MediaType; body: Record<string, unknown> }>();
  let hypermedia = false;
  for (const [path, item] of Object.entries(paths)) {
    const itemEntry = Object.entries(paths).find(([p]) => /^\/\{[^}/]+\}$/.test(p.slice(path.length)) && p.startsWith(path));
    if (!itemEntry) continue;
    if (path.includes('{')) {
      notes.push(`${path}: a nested collection (its parent id is not known before the run), left out`);
      continue;
    }
    const [itemPath, itemItem] = itemEntry;
    const name = path.split('/').filter(Boolean).join('-') || 'root';
    const collection: ProfileCollection = {
      name,
      path,
      itemPath: `${path}/{id}`,
      methods: methodsOf(item),
      itemMethods: methodsOf(itemItem),
      auth: { read: !isAnonymous(item.get, doc), write: !isAnonymous(item.post, doc) },
    };
    const createMedia = jsonMedia(item.post);
    if (item.post && createMedia) {
      const body = validBody(createMedia);
      if (body) {
        collection.create = body;
        bodies.set(path, { media: createMedia, body });
        const invalid = invalidBody(createMedia.schema);
        if (invalid) collection.invalid = invalid;
        else notes.push(`POST ${path}: the schema states no constraint to break, no invalid body`);
      } else notes.push(`POST ${path}: no example and no object schema for the body, no create body`);
    }
    const replaceMedia = jsonMedia(itemItem.put);
    if (itemItem.put && replaceMedia) {
      const body = validBody(replaceMedia);
      if (body) collection.replace = body;
    }
    if (hasLinks(itemItem.get) || hasLinks(item.post)) hypermedia = true;
    if (itemPath !== collection.itemPath) notes.push(`${itemPath}: written as ${collection.itemPath} (the suite fills {id})`);
    collections.push(collection);
  }

  // The protected endpoint: a GET without parameters that needs a token, one outside the collections first (`/account`, `/me`).
  const protectedPaths = Object.entries(paths).filter(([p, item]) => !p.includes('{') && item.get && !isAnonymous(item.get, doc)).map(([p]) => p);
  const protectedPath = protectedPaths.find((p) => !collections.some((c) => c.path === p)) ?? protectedPaths[0];

  // The idempotent POST: a collection whose POST takes Idempotency-Key, one whose listing needs a token first
  // (its listing is then per caller, so a replay that creates nothing is visible in it).
  const idempotent = collections
    .filter((c) => bodies.has(c.path) && acceptsIdempotencyKey(paths[c.path]?.post, paths[c.path] as PathItem))
    .sort((a, b) => Number(b.auth?.read ?? false) - Number(a.auth?.read ?? false))[0];
  let idempotency: Draft['idempotency'];
  if (idempotent) {
    const { media, body } = bodies.get(idempotent.path) as { media: MediaType; body: Record<string, unknown> };
    idempotency = { path: idempotent.path, body, otherBody: otherBody(body, media.schema), collectionPath: idempotent.path };
  } else notes.push('no POST declares an Idempotency-Key header parameter: the idempotency checks will be skipped');

  const limitedFrom =
    idempotent && needsPermission(paths[idempotent.path]?.post, doc)
      ? idempotent
      : (collections.find((c) => c.create && needsPermission(paths[c.path]?.post, doc)) ?? collections.find((c) => c.create && c.auth?.write));
  const limitedCandidate = limitedFrom?.create ? { method: 'POST', path: limitedFrom.path, body: limitedFrom.create } : undefined;

  const shapes = new Set(Object.keys(paths).map(shape));
  const missing = EXAMPLE_API_PATHS.filter((p) => !shapes.has(p));
  const exampleApi = missing.length === 0;
  if (!exampleApi)
    notes.push(
      `features.exampleApi is false: the document lacks ${missing.join(', ')} of the conventions document's example API, so that group of checks is skipped`,
    );

  const serverUrls = (doc.servers ?? []).map((s) => s.url).filter((u) => /^https?:\/\//i.test(u)).map((u) => u.replace(/\/+$/, ''));
  if (collections.length === 0)
    notes.push('no collection found: a collection is a path without parameters with an item path below it (/things and /things/{id})');
  return {
    name: profileName(doc),
    description: `Generated by \`http-api-conformance init\` from ${source}.`,
    serverUrls,
    collections,
    ...(protectedPath ? { protected: { method: 'GET', path: protectedPath } } : {}),
    ...(idempotency ? { idempotency } : {}),
    ...(limitedCandidate ? { limitedCandidate } : {}),
    features: { exampleApi, hypermedia },
    notes,
  };
}
