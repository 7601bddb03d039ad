/**
 * What an OpenAPI document tells about a target profile (D-PROFILE): the collections with their
 * item paths and exact methods, which of them need a token, valid create and replace bodies, an
 * invalid body, the protected endpoint, the POST that takes an `Idempotency-Key`, and whether the
 * document describes the conventions document's own example API and hypermedia links. Everything
 * else (tokens, fault injection) is the caller's to supply. What a member is and what happens without
 * it are the profile schema's words (spec/profile-fields.ts), not the draft's own.
 */
import type { Credentials, RequiredParameters, ProfileCollection, ProfileRequest } from '../../conformance/target/profile.ts';
import { checkedBody, invalidBody, otherBody, propertiesOf, validBody } from '../../conformance/openapi/bodies.ts';
import type { CheckedBody } from '../../conformance/openapi/bodies.ts';
import { schemaValidator } from '../../conformance/openapi/schema-validator.ts';
import type { InvalidFields } from '../../conformance/openapi/schema-validator.ts';
import { HTTP_METHODS, jsonRequestMedia } from '../../conformance/openapi/document.ts';
import type { MediaType, OpenApiDocument, Operation, PathItem, SecurityRequirement } from '../../conformance/openapi/document.ts';
import { profileField, withoutIt } from '../../spec/profile-fields.ts';
import { shapeFromDocument } from './shapes.ts';
import { credentialsFrom, parametersOf, requiredParametersOf } from './credentials.ts';
import { errorShapeNotes } from './error-shapes.ts';

/** The paths of the conventions document's example API (D-PATHS), parameters written `{}`. */
const EXAMPLE_API_PATHS = ['/users', '/users/{}', '/users/{}/orders', '/account', '/orders/{}/cancel', '/orders/{}/payment', '/payments', '/transfers/{}'];

export interface Draft {
  name: string;
  description: string;
  /** Absolute http(s) URLs of the document's `servers`. */
  serverUrls: string[];
  collections: ProfileCollection[];
  protected?: ProfileRequest;
  idempotency?: { path: string; body: Record<string, unknown>; otherBody: Record<string, unknown>; collectionPath: string; everyPost?: true };
  /** A write that needs a permission: the request a limited token should be refused. */
  limitedCandidate?: ProfileRequest;
  features: { exampleApi: boolean; hypermedia: boolean };
  /** How the API takes tokens, where it is not the document's Bearer (D-SHAPES). */
  credentials?: Credentials;
  /** Header and query parameters every request needs: API keys required beside the token's. */
  parameters?: RequiredParameters;
  /** What the draft left out and why, for the user. */
  notes: string[];
}

const shape = (path: string): string => path.replace(/\{[^}]+\}/g, '{}');

/**
 * Whether the document allows the operation: it may succeed (a 2xx or 3xx response, or only a
 * `default` one). An operation some documents declare only to say it is refused (405 alone) is not
 * a method of the path (spec/openapi.yaml declares none such, D-METHODS).
 */
function allowed(op: Operation | undefined): op is Operation {
  if (op === undefined) return false;
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

/** `methods` in the order the profile writes them (HTTP_METHODS). */
export function methodOrder(methods: Iterable<string>): string[] {
  const set = new Set([...methods].map((m) => m.toUpperCase()));
  return HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => set.has(m));
}

/**
 * The methods of a path with HEAD (where GET is) and OPTIONS added when the document leaves them out
 * (D-METHODS-IMPLICIT): RFC 9110 §9.1 requires HEAD wherever GET is, and most frameworks answer
 * OPTIONS on every route, so a document that lists neither still describes a server that answers them.
 */
export function withImplicitMethods(methods: string[], head: boolean, options: boolean): string[] {
  const added = [...methods];
  if (head && methods.includes('GET')) added.push('HEAD');
  if (options) added.push('OPTIONS');
  return methodOrder(added);
}

/**
 * The item path below a collection path, by the document's own structure: `P/{param}`, or
 * `P/{param}.ext` for `P.ext` (`/Services.json`, `/Services/{Sid}.json`).
 */
function itemPathBelow(path: string, paths: Record<string, PathItem>): { itemPath: string; written: string } | undefined {
  const extension = /\.[A-Za-z0-9]+$/.exec(path.split('/').pop() ?? '')?.[0] ?? '';
  const base = extension ? path.slice(0, -extension.length) : path;
  for (const candidate of Object.keys(paths)) {
    if (!candidate.startsWith(`${base}/`) || !candidate.endsWith(extension)) continue;
    const rest = candidate.slice(base.length + 1, candidate.length - extension.length);
    if (/^\{[^}/]+\}$/.test(rest)) return { itemPath: candidate, written: `${base}/{id}${extension}` };
  }
  return undefined;
}

/** Why a document gives no collection, in the words of `init`'s refusal: what it lacks and what to do. */
export function noCollectionReason(doc: OpenApiDocument): string {
  const paths = Object.entries(doc.paths ?? {});
  const fix =
    'the suite certifies the collections of an API (a path such as /things with its item path /things/{id}); ' +
    'give the document of an API that serves one, or write the profile by hand (spec/schemas/target-profile.schema.json)';
  if (paths.length === 0) {
    const webhooks = Object.keys(doc.webhooks ?? {});
    return webhooks.length > 0
      ? `no collection: this document describes webhooks only (${webhooks.join(', ')}), no path the API serves; ${fix}`
      : `no collection: this document describes no path; ${fix}`;
  }
  const operations = paths.flatMap(([path, item]) => HTTP_METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] as Operation })));
  const withCallbacks = operations.filter((o) => Object.keys(o.op.callbacks ?? {}).length > 0);
  if (withCallbacks.length > 0 && withCallbacks.length === operations.length)
    return `no collection: this document describes subscriptions and their callbacks only (${withCallbacks
      .map((o) => `${o.method.toUpperCase()} ${o.path}`)
      .join(', ')}); ${fix}`;
  const nested = paths.map(([p]) => p).filter((p) => p.includes('{') && itemPathBelow(p, doc.paths) !== undefined);
  if (nested.length > 0)
    return (
      `no collection: every collection of this document is nested under a path parameter (${nested.join(', ')}), ` +
      `whose value the suite cannot know before the run; ${fix}`
    );
  const rootItem = paths.find(([p]) => /^\/\{[^}/]+\}$/.test(p));
  if (doc.paths['/'] !== undefined && rootItem !== undefined) {
    const server = doc.servers?.[0]?.url ?? 'its server URL';
    return (
      `no collection: the collection is the server URL itself (/ and ${rootItem[0]} under ${server}), and the suite names a collection by ` +
      `its path; write the profile by hand with the server URL's parent as baseUrls and its last segment as the collection's path ` +
      `(spec/schemas/target-profile.schema.json)`
    );
  }
  const listing = paths.map(([p, item]) => `${p} ${methodsOf(item).join(',')}`).join('; ');
  return `no collection: no path of this document has an item path below it (its paths: ${listing}); ${fix}`;
}

/** One line per security scheme or body format the suite does not speak, with what it can and cannot check. */
function unsupportedNotes(doc: OpenApiDocument, paths: Record<string, PathItem>): string[] {
  const notes: string[] = [];
  for (const [name, scheme] of Object.entries(doc.components?.securitySchemes ?? {})) {
    const kind = scheme.type === 'http' ? `HTTP ${String(scheme.scheme ?? '').toLowerCase()}` : scheme.type;
    if (kind === 'HTTP bearer' || kind === 'HTTP basic' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') continue;
    // An API key in a header or the query is sent so (credentials, D-SHAPES); one in a cookie is not.
    if (scheme.type === 'apiKey' && (scheme.in === 'header' || scheme.in === 'query')) continue;
    const how = scheme.type === 'apiKey' ? `an API key in the ${scheme.in ?? '?'} "${scheme.name ?? '?'}"` : kind;
    notes.push(
      `security scheme ${name} is ${how}: the suite sends tokens as "Authorization: Bearer" (D-AUTH), so the 401/403 and owner-isolation ` +
        'checks will fail or be skipped on the endpoints that need it; the checks without a token (405, 404, problem documents, caching) still apply',
    );
  }
  const formOnly = new Set<string>();
  for (const [path, item] of Object.entries(paths))
    for (const m of HTTP_METHODS) {
      const content = Object.keys(item[m]?.requestBody?.content ?? {});
      if (content.length > 0 && !content.some((k) => /json/i.test(k))) formOnly.add(`${m.toUpperCase()} ${path} (${content.join(', ')})`);
    }
  if (formOnly.size > 0)
    notes.push(
      `${formOnly.size} operation${formOnly.size === 1 ? '' : 's'} take no JSON body ` +
        `(${[...formOnly].slice(0, 3).join('; ')}${formOnly.size > 3 ? '; ...' : ''}): ` +
        'the suite sends JSON, so no create, replace or invalid body is written for them and their write checks are skipped',
    );
  return notes;
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

/** A short name for the profile from the document's title, as long as the schema allows `name` to be. */
function profileName(doc: OpenApiDocument): string {
  const slug = (doc.info?.title ?? 'my-api').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return (slug || 'my-api').slice(0, profileField('name').schema.maxLength);
}

/** A note on a member the draft leaves out or false: why, and what the schema says happens without it. */
function withoutNote(path: string, state: string, why: string): string {
  return `${path} ${state}: ${why}; without it, ${withoutIt(profileField(path))}`;
}

/** A create body of a collection and the media type it was drawn from (the idempotent POST reuses it). */
interface CreateBody {
  media: MediaType;
  body: Record<string, unknown>;
}

/**
 * The body written for a request: checked against the document's own schema (an example that breaks it
 * gives way to a sample; no body when nothing passes), with what to say about it; unchecked when the
 * schema does not compile.
 */
function bodyFor(media: MediaType, compile: (schema: unknown) => InvalidFields | string): CheckedBody {
  const invalidFields = media.schema === undefined ? undefined : compile(media.schema);
  if (typeof invalidFields !== 'function') {
    const body = validBody(media);
    return body ? { body } : {};
  }
  return checkedBody(media, invalidFields) ?? {};
}

/** The collections of the document (a path with an item path below it), their create bodies, and whether any item carries links. */
function draftCollections(
  doc: OpenApiDocument,
  paths: Record<string, PathItem>,
  notes: string[],
  credentials?: Credentials,
): { collections: ProfileCollection[]; bodies: Map<string, CreateBody>; hypermedia: boolean } {
  const collections: ProfileCollection[] = [];
  const bodies = new Map<string, CreateBody>();
  const compile = schemaValidator(doc);
  let hypermedia = false;
  for (const [path, item] of Object.entries(paths)) {
    const below = itemPathBelow(path, paths);
    if (!below) continue;
    if (path.includes('{')) {
      notes.push(`${path}: a nested collection (its parent id is not known before the run), left out`);
      continue;
    }
    const { itemPath, written } = below;
    const itemItem = paths[itemPath] as PathItem;
    const name = path.split('/').filter(Boolean).join('-').replace(/[^A-Za-z0-9_-]/g, '-') || 'root';
    const collection: ProfileCollection = {
      name,
      path,
      itemPath: written,
      methods: withImplicitMethods(methodsOf(item), true, true),
      itemMethods: withImplicitMethods(methodsOf(itemItem), true, true),
      auth: { read: !isAnonymous(item.get, doc), write: !isAnonymous(item.post, doc) },
    };
    const createMedia = jsonRequestMedia(item.post);
    if (item.post && createMedia) {
      const { body, note } = bodyFor(createMedia, compile);
      if (note) notes.push(`POST ${path}: ${note}`);
      if (body) {
        collection.create = body;
        bodies.set(path, { media: createMedia, body });
        const invalid = invalidBody(createMedia.schema);
        if (invalid) collection.invalid = invalid;
        else notes.push(`POST ${path}: the schema states no constraint to break, no invalid body`);
      } else if (!note) notes.push(`POST ${path}: no example and no object schema for the body, no create body`);
    }
    const replaceMedia = jsonRequestMedia(itemItem.put);
    if (itemItem.put && replaceMedia) {
      const { body, note } = bodyFor(replaceMedia, compile);
      if (note) notes.push(`PUT ${itemPath}: ${note}`);
      if (body) collection.replace = body;
    }
    const parameters = requiredParametersOf(item, itemItem, path, credentials);
    if (parameters) {
      collection.parameters = parameters;
      const names = [...Object.keys(parameters.headers ?? {}), ...Object.keys(parameters.query ?? {})];
      notes.push(`${path}: the document requires ${names.join(', ')} (collections[].parameters)`);
    }
    // D-SHAPES: what the document states of the answers' and the id's shapes, where they are not the project's own.
    const shape = shapeFromDocument(item, itemItem, itemPath, path);
    if (shape) {
      collection.shape = shape;
      notes.push(`${path}: shapes read from the document (collections[].shape): ${JSON.stringify(shape)}`);
    }
    const newestFirst = newestFirstOf(item, (shape?.idSchema?.type ?? 'integer') === 'integer');
    if (newestFirst !== undefined) {
      collection.newestFirst = newestFirst;
      notes.push(`${path}: listed newest first with ?${newestFirst} (collections[].newestFirst, D-STATE-MODEL)`);
    }
    if (hasLinks(itemItem.get) || hasLinks(item.post)) hypermedia = true;
    if (itemPath !== collection.itemPath) notes.push(`${itemPath}: written as ${collection.itemPath} (the suite fills {id})`);
    collections.push(collection);
  }
  return { collections, bodies, hypermedia };
}

/** Sort parameter names, and the descending values that put the newest items first: an integer id (no ties), else creation time. */
const SORT_PARAMETERS = ['sort', 'sort_by', 'sortBy', 'order_by', 'orderBy'];
const NEWEST_FIRST = ['-createdAt', '-created_at', '-created'];

/**
 * D-STATE-MODEL: the query that lists a collection newest first, where its GET declares a sort parameter whose
 * enum holds `-id` (for integer ids, which the server hands out in order and never twice) or a descending
 * creation time (two items created in one millisecond may then list either way).
 */
function newestFirstOf(item: PathItem, integerIds: boolean): string | undefined {
  const parameters = [...(item.parameters ?? []), ...(item.get?.parameters ?? [])];
  for (const parameter of parameters.filter((p) => p.in === 'query' && SORT_PARAMETERS.includes(p.name))) {
    const values = (parameter.schema as { enum?: unknown[] } | undefined)?.enum ?? [];
    const value = [...(integerIds ? ['-id'] : []), ...NEWEST_FIRST].find((v) => values.includes(v));
    if (value !== undefined) return `${encodeURIComponent(parameter.name)}=${encodeURIComponent(value)}`;
  }
  return undefined;
}

/** The protected endpoint: a GET without parameters that needs a token, one outside the collections first (`/account`, `/me`). */
function protectedPathOf(doc: OpenApiDocument, paths: Record<string, PathItem>, collections: ProfileCollection[], notes: string[]): string | undefined {
  const protectedPaths = Object.entries(paths).filter(([p, item]) => !p.includes('{') && item.get && !isAnonymous(item.get, doc)).map(([p]) => p);
  const found = protectedPaths.find((p) => !collections.some((c) => c.path === p)) ?? protectedPaths[0];
  if (found !== undefined || Object.values(paths).some((item) => HTTP_METHODS.some((m) => item[m] && !isAnonymous(item[m], doc)))) return found;
  // A document that declares no security at all: the conventions require tokens (D-AUTH), so the first readable collection is named.
  const assumed = collections.find((c) => c.methods.includes('GET'))?.path;
  if (assumed)
    notes.push(
      `the document declares no security: protected is assumed to be GET ${assumed}; if the API takes no token, ` +
        'the authentication checks (401, 403) will fail, as the conventions require tokens',
    );
  return assumed;
}

/**
 * The idempotent POST: a collection whose POST takes Idempotency-Key, one whose listing needs a token first
 * (its listing is then per caller, so a replay that creates nothing is visible in it).
 */
function idempotentCollectionOf(
  paths: Record<string, PathItem>,
  collections: ProfileCollection[],
  bodies: Map<string, CreateBody>,
  notes: string[],
): { idempotent?: ProfileCollection; idempotency?: Draft['idempotency'] } {
  const creatable = collections.filter((c) => bodies.has(c.path));
  const keyed = creatable.filter((c) => acceptsIdempotencyKey(paths[c.path]?.post, paths[c.path] as PathItem));
  const idempotent = [...keyed].sort((a, b) => Number(b.auth?.read ?? false) - Number(a.auth?.read ?? false))[0];
  if (!idempotent) {
    notes.push(withoutNote('idempotency', 'is left out', 'no POST declares an Idempotency-Key header parameter'));
    return {};
  }
  const { media, body } = bodies.get(idempotent.path) as CreateBody;
  // D-STATE-MODEL: every collection's POST declares the key, so the state model may key the creates of each.
  const everyPost = keyed.length > 1 && keyed.length === creatable.length ? { everyPost: true as const } : {};
  return { idempotent, idempotency: { path: idempotent.path, body, otherBody: otherBody(body, media.schema), collectionPath: idempotent.path, ...everyPost } };
}

/**
 * The document's absolute server URLs, each `{variable}` replaced by its default (OpenAPI's server
 * variables: `default` is required); a URL left with a variable without a default, or not http(s) once
 * filled, is not written, with a note.
 */
export function serverUrlsOf(doc: Pick<OpenApiDocument, 'servers'>, notes: string[]): string[] {
  return (doc.servers ?? []).flatMap((server) => {
    const unfilled: string[] = [];
    const url = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const value = server.variables?.[name]?.default;
      if (typeof value === 'string' || typeof value === 'number') return String(value);
      unfilled.push(name);
      return whole;
    });
    if (unfilled.length > 0) {
      notes.push(`server ${server.url}: no default for ${unfilled.map((n) => `{${n}}`).join(', ')}, not written; give --target`);
      return [];
    }
    if (url !== server.url && /^https?:\/\//i.test(url)) notes.push(`server ${server.url}: written as ${url} (the variables' defaults)`);
    return /^https?:\/\//i.test(url) ? [url.replace(/\/+$/, '')] : [];
  });
}

/** Header and query parameters of both, `b`'s values first; undefined when neither has any. */
function mergedParameters(a: RequiredParameters | undefined, b: RequiredParameters | undefined): RequiredParameters | undefined {
  return parametersOf({ ...a?.headers, ...b?.headers }, { ...a?.query, ...b?.query });
}

/** Builds the draft profile from a dereferenced OpenAPI document. */
export function draftProfile(doc: OpenApiDocument, source: string): Draft {
  const notes: string[] = [];
  const paths: Record<string, PathItem> = Object.fromEntries(Object.entries(doc.paths ?? {}).map(([p, item]) => [p, allowedOperations(item)]));
  const { credentials, parameters: keyParameters, notes: credentialsNotes } = credentialsFrom(doc);
  notes.push(...credentialsNotes);
  const drafted = draftCollections(doc, paths, notes, credentials);
  const { bodies, hypermedia } = drafted;
  // The first collection is where most checks create, read and list (and where faults are injected):
  // one that has a create body, an item read and a listing comes first, in the document's order otherwise.
  const complete = (c: ProfileCollection): boolean => c.create !== undefined && c.methods.includes('GET') && (c.itemMethods ?? []).includes('GET');
  const collections = [...drafted.collections.filter(complete), ...drafted.collections.filter((c) => !complete(c))];
  const protectedPath = protectedPathOf(doc, paths, collections, notes);
  // The protected request is sent outside any collection: what its path requires (Apideck's
  // x-apideck-consumer-id on every operation) is sent on every request, with the keys required beside the token's.
  const protectedParameters = protectedPath ? requiredParametersOf(paths[protectedPath] ?? {}, undefined, protectedPath, credentials) : undefined;
  if (protectedParameters) {
    const names = [...Object.keys(protectedParameters.headers ?? {}), ...Object.keys(protectedParameters.query ?? {})];
    notes.push(`${protectedPath}: the document requires ${names.join(', ')} (parameters, sent on every request)`);
  }
  const parameters = mergedParameters(keyParameters, protectedParameters);
  const { idempotent, idempotency } = idempotentCollectionOf(paths, collections, bodies, notes);

  const limitedFrom =
    idempotent && needsPermission(paths[idempotent.path]?.post, doc)
      ? idempotent
      : (collections.find((c) => c.create && needsPermission(paths[c.path]?.post, doc)) ?? collections.find((c) => c.create && c.auth?.write));
  const limitedCandidate = limitedFrom?.create ? { method: 'POST', path: limitedFrom.path, body: limitedFrom.create } : undefined;

  const shapes = new Set(Object.keys(paths).map(shape));
  const missing = EXAMPLE_API_PATHS.filter((p) => !shapes.has(p));
  const exampleApi = missing.length === 0;
  if (!exampleApi)
    notes.push(withoutNote('features.exampleApi', 'is false', `the document lacks ${missing.join(', ')} of the conventions document's example API`));

  const serverUrls = serverUrlsOf(doc, notes);
  const listed = collections.filter((c) => !methodsOf(doc.paths[c.path] ?? {}).includes('OPTIONS'));
  const methodsNote =
    listed.length > 0
      ? `HEAD and OPTIONS: the document does not list them on ${listed.map((c) => c.path).join(', ')}; assumed answered (HEAD wherever GET is, ` +
        'RFC 9110 §9.1; OPTIONS, as most frameworks do) and written in methods (D-METHODS-IMPLICIT); give --target to ask the server instead'
      : undefined;
  if (methodsNote) notes.push(methodsNote);
  notes.push(...unsupportedNotes(doc, paths), ...errorShapeNotes(paths));
  return {
    name: profileName(doc),
    description: `Generated by \`http-api-conformance init\` from ${source}.${methodsNote ? ` ${methodsNote}.` : ''}`,
    serverUrls,
    collections,
    ...(protectedPath ? { protected: { method: 'GET', path: protectedPath } } : {}),
    ...(idempotency ? { idempotency } : {}),
    ...(limitedCandidate ? { limitedCandidate } : {}),
    features: { exampleApi, hypermedia },
    ...(credentials ? { credentials } : {}),
    ...(parameters ? { parameters } : {}),
    notes,
  };
}
