/**
 * Helpers shared by the route handlers: body validation against the spec's request schemas,
 * owner-only lookups and timestamps.
 */
import { validationErrors } from '../../spec/schemas.ts';
import type { AppContext } from '../context.ts';
import { itemReadAlong } from '../middleware/one-round-trip.ts';
import { type FieldError, notFound, validationProblem } from '../problem.ts';
import { CREATED_BY } from '../stores/types.ts';
import type { ResourceKind, ResourceStore, StoredResource, StoredResponse } from '../stores/types.ts';

/** The request schemas of spec/schemas/ the routes validate bodies with (compiled at start-up, app.ts). */
export const REQUEST_SCHEMAS = [
  'user-request',
  'user-replace-request',
  'order-request',
  'payment-request',
  'author-request',
  'post-request',
  'comment-request',
] as const;

export type RequestSchema = (typeof REQUEST_SCHEMAS)[number];

/**
 * Validates the parsed body with the spec schema `name` (spec/schemas.ts, compiled once) plus
 * `extra` errors; throws 422 `validation-error` listing every invalid field (D-FIELDS, D-ERRORS).
 */
export function validBody<T>(ctx: AppContext, name: RequestSchema, extra: FieldError[] = []): T {
  const body = ctx.state.body;
  const errors = validationErrors(name, body);
  // A valid body with nothing extra is the common case: no map and no copies of empty lists (D-FIELDS).
  if (errors.length === 0 && extra.length === 0) return body as T;
  const byField = new Map<string, string[]>();
  for (const { field, message } of [...errors, ...extra]) {
    const messages = byField.get(field) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byField.set(field, messages);
  }
  if (byField.size > 0) {
    throw validationProblem([...byField].map(([field, messages]) => ({ field, message: messages.join('; ') })));
  }
  return body as T;
}

/** The resource: the one read with the rate-limit token when it is this one (middleware/one-round-trip.ts), else from the store. */
function read(store: ResourceStore, kind: ResourceKind, id: number, ctx?: AppContext): Promise<StoredResource | undefined> | StoredResource | undefined {
  const along = ctx === undefined ? undefined : itemReadAlong(ctx, kind, id);
  return along === undefined ? store.get(kind, id) : along.resource;
}

/** The resource or 404 (`ctx`: use the resource read with the rate-limit token). */
export async function getOr404(store: ResourceStore, kind: ResourceKind, id: number, ctx?: AppContext): Promise<StoredResource> {
  const found = await read(store, kind, id, ctx);
  if (!found) throw notFound();
  return found;
}

/** The caller's own resource, or 404 when it is absent or another user's (D-AUTH). */
export async function getOwnedOr404(
  store: ResourceStore,
  kind: ResourceKind,
  id: number,
  userId: number,
  ctx?: AppContext,
): Promise<StoredResource> {
  const found = await read(store, kind, id, ctx);
  if (!found || found.userId !== userId) throw notFound();
  return found;
}

let lastMs = 0;
let lastText = '';

/** The current time as an RFC 3339 UTC timestamp (formatted once per millisecond: it is on every create). */
export function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = new Date(ms).toISOString();
  }
  return lastText;
}

/** The stored form of the 201 `created` answers, for a route that records its idempotent result with its work. */
export function createdResponse(location: string, body: unknown): StoredResponse {
  return { status: 201, headers: { 'content-type': 'application/json; charset=utf-8', location }, body };
}

/** Answers 201 with `body` and `Location: location` (D-SUCCESS-STATUS). */
export function created(ctx: AppContext, location: string, body: unknown): void {
  ctx.status = 201;
  ctx.set('Location', location);
  ctx.body = body;
}

export { CREATED_BY };

/**
 * Stamps a new record with the request's idempotency marker (never rendered) so that
 * `createdEarlier` can find it if the result could not be stored (D-IDEMPOTENCY: exactly one result).
 */
export function stamp(ctx: AppContext, record: StoredResource): StoredResource {
  if (ctx.state.idempotencyMarker !== undefined) record[CREATED_BY] = ctx.state.idempotencyMarker;
  return record;
}

/**
 * The resource of `kind` an earlier attempt of this same idempotent request created, when its
 * result was never recorded (the store failed between the work and `complete`).
 */
export async function createdEarlier(
  ctx: AppContext,
  store: ResourceStore,
  kind: ResourceKind,
): Promise<StoredResource | undefined> {
  const marker = ctx.state.idempotencyMarker;
  if (marker === undefined) return undefined;
  return store.findCreatedBy(kind, marker);
}
