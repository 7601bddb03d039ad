/**
 * Users (spec/decisions.md D-PATHS, D-FIELDS, D-CONCURRENCY): public list and item reads, create,
 * replace with optional version check, delete, and the owner-only `/users/{id}/orders`.
 */
import type { AppContext, Deps } from '../context.ts';
import { principalOf } from '../context.ts';
import { HttpProblem, notFound } from '../problem.ts';
import { applyQuery, pageDocument, parseCollectionQuery } from '../query.ts';
import { orderRepresentation, userRepresentation } from '../representations.ts';
import { type ResourceStore, type StoredResource, type Stores, StoreUnavailableError } from '../stores/types.ts';
import { created, createdEarlier, getOr404, now, stamp, validBody } from './common.ts';
import { type ResourceRouter, type RouteKit, idParam, resourceRouter } from './kit.ts';
import { ORDER_QUERY } from './orders.ts';

interface UserRequest {
  name: string;
  email: string;
  version?: number;
}

const USER_QUERY = { sortable: ['id', 'name', 'email', 'createdAt'], filters: { name: 'string', email: 'string' } } as const;

function emailTaken(): HttpProblem {
  return new HttpProblem(409, {
    type: 'email-taken',
    title: 'Email already in use',
    detail: 'Another user already has this email address.',
  });
}

/** A PUT's `version` is not the user's current one (D-CONCURRENCY, CONCURRENCY-VERSION-409): nothing was changed. */
function versionConflict(current: number, requested: number | undefined): HttpProblem {
  return new HttpProblem(409, {
    type: 'version-conflict',
    title: 'Version conflict',
    detail: `The user is at version ${current}, not ${String(requested)}.`,
    members: { currentVersion: current },
  });
}

async function assertEmailFree(store: ResourceStore, email: string, exceptId?: number): Promise<void> {
  const wanted = email.toLowerCase();
  const users = await store.list('users');
  if (users.some((user) => user.id !== exceptId && String(user.email).toLowerCase() === wanted)) throw emailTaken();
}

const LOCK_WAIT_MS = 2000;

/**
 * Runs `work` while holding a lock on `email`, taken through the idempotency store's atomic claim
 * so that it also holds across instances sharing one Redis (D-CONCURRENCY: two users never get one
 * email). A held lock is waited for (polling) up to LOCK_WAIT_MS, then the answer is 503.
 */
async function withEmailLock<T>(stores: Stores, lockSeconds: number, email: string, work: () => Promise<T>): Promise<T> {
  const key = `lock:email:${email.toLowerCase()}`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  while ((await stores.idempotency.claim(key, 'email-lock', lockSeconds)).state !== 'claimed') {
    if (Date.now() > deadline) throw new StoreUnavailableError(`email lock ${key} still held after ${LOCK_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 15));
  }
  try {
    return await work();
  } finally {
    await stores.idempotency.release(key, 'email-lock').catch(() => undefined);
  }
}

/** The users router. */
export function usersRouter({ stores, config }: Deps, { access, json, idempotent }: RouteKit): ResourceRouter {
  const router = resourceRouter();
  const resources = stores.resources;
  const lockSeconds = config.idempotency.lockSeconds;

  router.get('/users', access('public'), async (ctx: AppContext) => {
    const query = parseCollectionQuery(ctx.query, USER_QUERY);
    const { page, total } = applyQuery(await resources.list('users'), query);
    ctx.body = pageDocument(ctx.path, query, page.map(userRepresentation), total);
  });

  router.get('/users/:id', access('public'), async (ctx: AppContext) => {
    ctx.body = userRepresentation(await getOr404(resources, 'users', idParam(ctx), ctx));
  });

  router.post('/users', access('users:write'), ...json, idempotent, async (ctx: AppContext) => {
    // `version` is not a member of user-request: a create has no version to match (D-CONCURRENCY).
    const request = validBody<UserRequest>(ctx, 'user-request');
    const earlier = await createdEarlier(ctx, resources, 'users');
    if (earlier) return created(ctx, `/users/${earlier.id}`, userRepresentation(earlier));
    const user = await withEmailLock(stores, lockSeconds, request.email, async () => {
      await assertEmailFree(resources, request.email);
      const record: StoredResource = stamp(ctx, {
        id: await resources.nextId('users'),
        name: request.name,
        email: request.email,
        version: 1,
        createdAt: now(),
      });
      await resources.put('users', record);
      return record;
    });
    created(ctx, `/users/${user.id}`, userRepresentation(user));
  });

  router.put('/users/:id', access('users:write'), ...json, async (ctx: AppContext) => {
    const id = idParam(ctx);
    const request = validBody<UserRequest>(ctx, 'user-replace-request');
    const updated = await withEmailLock(stores, lockSeconds, request.email, async () => {
      await getOr404(resources, 'users', id);
      await assertEmailFree(resources, request.email, id);
      let conflict: number | undefined;
      const result = await resources.update('users', id, (current) => {
        const version = Number(current.version);
        if (request.version !== undefined && request.version !== version) {
          conflict = version;
          return undefined;
        }
        return { ...current, name: request.name, email: request.email, version: version + 1 };
      });
      if (conflict !== undefined) throw versionConflict(conflict, request.version);
      if (!result) throw notFound();
      return result;
    });
    ctx.body = userRepresentation(updated);
  });

  router.delete('/users/:id', access('users:write'), async (ctx: AppContext) => {
    if (!(await resources.delete('users', idParam(ctx)))) throw notFound();
    ctx.status = 204;
  });

  router.get('/users/:id/orders', access('orders:read'), async (ctx: AppContext) => {
    const id = idParam(ctx);
    if (id !== principalOf(ctx).userId) throw notFound();
    await getOr404(resources, 'users', id);
    const query = parseCollectionQuery(ctx.query, ORDER_QUERY);
    const own = (await resources.list('orders')).filter((order) => order.userId === id);
    const { page, total } = applyQuery(own, query);
    ctx.body = pageDocument(ctx.path, query, page.map(orderRepresentation), total);
  });

  return router;
}
