/**
 * Orders (spec/decisions.md D-FIELDS, D-ORDER-STATES): the caller's orders, creation, and the two
 * transitions `cancel` and `pay` (which creates a payment and its transfer), 409
 * `illegal-transition` when the order is not pending.
 */
import type { AppContext, Deps } from '../context.ts';
import { principalOf } from '../context.ts';
import { HttpProblem, notFound } from '../problem.ts';
import { applyQuery, pageDocument, parseCollectionQuery } from '../query.ts';
import { orderRepresentation } from '../representations.ts';
import type { ResourceStore, StoredResource } from '../stores/types.ts';
import { created, createdEarlier, getOwnedOr404, now, stamp, validBody } from './common.ts';
import { type ResourceRouter, type RouteKit, idParam, resourceRouter } from './kit.ts';
import { createPayment } from './payments.ts';

export const ORDER_QUERY = {
  sortable: ['id', 'total', 'status', 'createdAt'],
  filters: { status: ['pending', 'paid', 'cancelled'] },
} as const;

interface OrderRequest {
  total: number;
  currency: string;
}

type Transition = 'cancel' | 'pay';

function illegal(transition: Transition, currentStatus: string): HttpProblem {
  return new HttpProblem(409, {
    type: 'illegal-transition',
    title: 'Illegal transition',
    detail: `An order that is ${currentStatus} cannot take the transition "${transition}".`,
    members: { currentStatus, transition },
  });
}

/**
 * Moves the caller's order `id` from pending to `next` atomically; 404 when absent or not the
 * caller's, 409 when not pending (D-ORDER-STATES).
 */
async function transition(
  store: ResourceStore,
  id: number,
  userId: number,
  name: Transition,
  change: (order: StoredResource) => StoredResource,
): Promise<StoredResource> {
  const seen: { outcome: 'missing' | 'illegal' | 'done'; status: string } = { outcome: 'missing', status: '' };
  const result = await store.update('orders', id, (order) => {
    if (order.userId !== userId) {
      seen.outcome = 'missing';
      return undefined;
    }
    if (order.status !== 'pending') {
      seen.outcome = 'illegal';
      seen.status = String(order.status);
      return undefined;
    }
    seen.outcome = 'done';
    return change(order);
  });
  if (seen.outcome === 'illegal') throw illegal(name, seen.status);
  if (seen.outcome !== 'done' || !result) throw notFound();
  return result;
}

/** The orders router. */
export function ordersRouter({ stores }: Deps, { access, json, emptyBody, idempotent }: RouteKit): ResourceRouter {
  const router = resourceRouter();
  const resources = stores.resources;

  router.get('/orders', access('orders:read'), async (ctx: AppContext) => {
    const { userId } = principalOf(ctx);
    const query = parseCollectionQuery(ctx.query, ORDER_QUERY);
    const own = (await resources.list('orders')).filter((order) => order.userId === userId);
    const { page, total } = applyQuery(own, query);
    ctx.body = pageDocument(ctx.path, query, page.map(orderRepresentation), total);
  });

  router.post('/orders', access('orders:write'), ...json, idempotent, async (ctx: AppContext) => {
    const request = validBody<OrderRequest>(ctx, 'order-request');
    const earlier = await createdEarlier(ctx, resources, 'orders');
    if (earlier) return created(ctx, `/orders/${earlier.id}`, orderRepresentation(earlier));
    const timestamp = now();
    const order: StoredResource = stamp(ctx, {
      id: await resources.nextId('orders'),
      userId: principalOf(ctx).userId,
      status: 'pending',
      total: request.total,
      currency: request.currency,
      createdAt: timestamp,
      updatedAt: timestamp,
    });
    await resources.put('orders', order);
    created(ctx, `/orders/${order.id}`, orderRepresentation(order));
  });

  router.get('/orders/:id', access('orders:read'), async (ctx: AppContext) => {
    ctx.body = orderRepresentation(await getOwnedOr404(resources, 'orders', idParam(ctx), principalOf(ctx).userId, ctx));
  });

  router.post('/orders/:id/cancel', access('orders:write'), ...emptyBody, idempotent, async (ctx: AppContext) => {
    const order = await transition(resources, idParam(ctx), principalOf(ctx).userId, 'cancel', (current) => ({
      ...current,
      status: 'cancelled',
      updatedAt: now(),
    }));
    ctx.body = orderRepresentation(order);
  });

  router.post('/orders/:id/payment', access('payments:write'), ...emptyBody, idempotent, async (ctx: AppContext) => {
    const id = idParam(ctx);
    const { userId } = principalOf(ctx);
    await getOwnedOr404(resources, 'orders', id, userId);
    const [paymentId, transferId] = await Promise.all([resources.nextId('payments'), resources.nextId('transfers')]);
    const order = await transition(resources, id, userId, 'pay', (current) => ({
      ...current,
      status: 'paid',
      paymentId,
      updatedAt: now(),
    }));
    await createPayment(resources, {
      paymentId,
      transferId,
      userId,
      amount: Math.round(Number(order.total) * 100),
      currency: String(order.currency),
      description: `Payment of order ${order.id}`,
    });
    ctx.body = orderRepresentation(order);
  });

  return router;
}
