/**
 * Helpers shared by the route modules: body validation against the spec's request schemas,
 * id parameters, owner-only lookups and timestamps.
 */
import { validationErrors } from '../../spec/schemas.ts';
import type { AppContext } from '../context.ts';
import { type FieldError, notFound, validationProblem } from '../problem.ts';
import { CREATED_BY } from '../stores/types.ts';
import type { ResourceKind, ResourceStore, StoredResource } from '../stores/types.ts';

export type RequestSchema =
  | 'user-request'
  | 'order-request'
  | 'payment-request'
  | 'author-request'
  | 'post-request'
  | 'comment-request';

/**
 * Validates the parsed body with the spec schema `name` (spec/schemas.ts, compiled once) plus
 * `extra` errors; throws 422 `validation-error` listing every invalid field (D-FIELDS, D-ERRORS).
 */
export function validBody<T>(ctx: AppContext, name: RequestSchema, extra: FieldError[] = []): T {
  const body = ctx.state.body;
  const byField = new Map<string, string[]>();
  for (const { field, message } of [...validationErrors(name, body), ...extra]) {
    const messages = byField.get(field) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byField.set(field, messages);
  }
  if (byField.size > 0) {
    throw validationProblem([...byField].map(([field, messages]) => ({ field, message: messages.join('; ') })));
  }
  return body as T;
}

/** The integer value of a path parameter already checked by the route table (D-IDS). */
export function idParam(ctx: AppContext, name = 'id'): number {
  const value = Number(ctx.state.route?.params[name]);
  if (!Number.isSafeInteger(value) || value < 1) throw notFound();
  return value;
}

/** The resource or 404. */
export async function getOr404(store: ResourceStore, kind: ResourceKind, id: number): Promise<StoredResource> {
  const found = await store.get(kind, id);
  if (!found) throw notFound();
  return found;
}

/** The caller's own resource, or 404 when it is absent or another user's (D-AUTH). */
export async function getOwnedOr404(
  store: ResourceStore,
  kind: ResourceKind,
  id: number,
  userId: number,
): Promise<StoredResource> {
  const found = await store.get(kind, id);
  if (!found || found.userId !== userId) throw notFound();
  return found;
}

/** The current time as an RFC 3339 UTC timestamp. */
export function now(): string {
  return new Date().toISOString();
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
