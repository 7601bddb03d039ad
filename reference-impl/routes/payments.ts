/**
 * Payments and transfers (spec/decisions.md D-FIELDS): `POST /payments` creates a payment and
 * the transfer it produces; both are readable only by their owner (D-AUTH).
 */
import { RouteSet } from './route-set.ts';
import type { Deps } from '../context.ts';
import { principalOf } from '../context.ts';
import { applyQuery, pageDocument, parseCollectionQuery } from '../query.ts';
import { paymentRepresentation, transferRepresentation } from '../representations.ts';
import type { ResourceStore, StoredResource } from '../stores/types.ts';
import { CREATED_BY, created, createdEarlier, getOwnedOr404, idParam, now, validBody } from './common.ts';

const MONEY_QUERY = { sortable: ['id', 'amount', 'createdAt'], filters: { currency: 'string' } } as const;

interface PaymentRequest {
  amount: number;
  currency: string;
  description?: string;
}

export interface NewPayment {
  paymentId: number;
  transferId: number;
  userId: number;
  amount: number;
  currency: string;
  description?: string;
  /** The idempotency marker of the creating request (routes/common.ts `stamp`). */
  createdBy?: string;
}

/** Stores a succeeded payment and its completed transfer in one step (the transfer first, so a payment never links to nothing). */
export async function createPayment(store: ResourceStore, input: NewPayment): Promise<StoredResource> {
  const createdAt = now();
  const transfer: StoredResource = {
    id: input.transferId,
    userId: input.userId,
    paymentId: input.paymentId,
    amount: input.amount,
    currency: input.currency,
    status: 'completed',
    createdAt,
  };
  const payment: StoredResource = {
    id: input.paymentId,
    userId: input.userId,
    amount: input.amount,
    currency: input.currency,
    ...(input.description === undefined ? {} : { description: input.description }),
    status: 'succeeded',
    transferId: input.transferId,
    createdAt,
    ...(input.createdBy === undefined ? {} : { [CREATED_BY]: input.createdBy }),
  };
  await store.putAll([
    ['transfers', transfer],
    ['payments', payment],
  ]);
  return payment;
}

/** The payments and transfers router. */
export function paymentsRoutes({ stores }: Deps): RouteSet {
  const router = new RouteSet();
  const resources = stores.resources;

  for (const kind of ['payments', 'transfers'] as const) {
    const represent = kind === 'payments' ? paymentRepresentation : transferRepresentation;
    router.get(`/${kind}`, async (ctx) => {
      const { userId } = principalOf(ctx);
      const query = parseCollectionQuery(ctx.query, MONEY_QUERY);
      const own = (await resources.list(kind)).filter((item) => item.userId === userId);
      const { page, total } = applyQuery(own, query);
      ctx.body = pageDocument(ctx.path, query, page.map(represent), total);
    });
    router.get(`/${kind}/{id}`, async (ctx) => {
      ctx.body = represent(await getOwnedOr404(resources, kind, idParam(ctx), principalOf(ctx).userId));
    });
  }

  router.post('/payments', async (ctx) => {
    const request = validBody<PaymentRequest>(ctx, 'payment-request');
    // The marker lookup and both id allocations go out together (one round trip to Redis); when an
    // earlier attempt is found the two ids are left unused, which D-IDS allows (never reused).
    const [earlier, paymentId, transferId] = await Promise.all([
      createdEarlier(ctx, resources, 'payments'),
      resources.nextId('payments'),
      resources.nextId('transfers'),
    ]);
    if (earlier) return created(ctx, `/payments/${earlier.id}`, paymentRepresentation(earlier));
    const payment = await createPayment(resources, {
      paymentId,
      transferId,
      userId: principalOf(ctx).userId,
      amount: request.amount,
      currency: request.currency,
      ...(request.description === undefined ? {} : { description: request.description }),
      ...(ctx.state.idempotencyMarker === undefined ? {} : { createdBy: ctx.state.idempotencyMarker }),
    });
    created(ctx, `/payments/${payment.id}`, paymentRepresentation(payment));
  });

  return router;
}
