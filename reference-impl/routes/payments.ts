/**
 * Payments and transfers (spec/decisions.md D-FIELDS): `POST /payments` creates a payment and
 * the transfer it produces; both are readable only by their owner (D-AUTH).
 */
import type { AppContext, Deps } from '../context.ts';
import { principalOf } from '../context.ts';
import { getSchema } from '../../spec/schemas.ts';
import { type CollectionQuerySpec, applyQuery, pageDocument, parseCollectionQuery } from '../query.ts';
import { paymentRepresentation, transferRepresentation } from '../representations.ts';
import type { ResourceStore, StoredResource } from '../stores/types.ts';
import { CREATED_BY, created, createdResponse, getOwnedOr404, now, validBody } from './common.ts';
import { type ResourceRouter, type RouteKit, idParam, resourceRouter } from './kit.ts';

/** D-QUERY: `currency` is filtered by the currency list of the schema, so `currency=AAA` is 400. */
const CURRENCIES = getSchema('currency').enum as readonly string[];
const MONEY_QUERY: CollectionQuerySpec = {
  sortable: ['id', 'amount', 'createdAt'],
  filters: { currency: { values: CURRENCIES, message: 'must be a lowercase ISO 4217 currency code' } },
};

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

/**
 * The records of a succeeded payment and its completed transfer. Members are added in the order
 * of D-FIELDS (the stored and rendered order), optional ones only when present, without the
 * temporary objects of conditional spreads (CPU per POST /payments).
 */
function paymentRecords(input: NewPayment, createdAt: string): { payment: StoredResource; transfer: StoredResource } {
  const transfer: StoredResource = {
    id: input.transferId,
    userId: input.userId,
    paymentId: input.paymentId,
    amount: input.amount,
    currency: input.currency,
    status: 'completed',
    createdAt,
  };
  const payment: StoredResource = { id: input.paymentId, userId: input.userId, amount: input.amount, currency: input.currency };
  if (input.description !== undefined) payment.description = input.description;
  payment.status = 'succeeded';
  payment.transferId = input.transferId;
  payment.createdAt = createdAt;
  if (input.createdBy !== undefined) payment[CREATED_BY] = input.createdBy;
  return { payment, transfer };
}

/** Stores a succeeded payment and its completed transfer in one step (the transfer first, so a payment never links to nothing). */
export async function createPayment(store: ResourceStore, input: NewPayment): Promise<StoredResource> {
  const { payment, transfer } = paymentRecords(input, now());
  await store.putAll([
    ['transfers', transfer],
    ['payments', payment],
  ]);
  return payment;
}

/** The payments and transfers router. */
export function paymentsRouter({ stores }: Deps, { access, json, idempotent }: RouteKit): ResourceRouter {
  const router = resourceRouter();
  const resources = stores.resources;

  for (const kind of ['payments', 'transfers'] as const) {
    const represent = kind === 'payments' ? paymentRepresentation : transferRepresentation;
    router.get(`/${kind}`, access('payments:read'), async (ctx: AppContext) => {
      const { userId } = principalOf(ctx);
      const query = parseCollectionQuery(ctx.query, MONEY_QUERY);
      const own = (await resources.list(kind)).filter((item) => item.userId === userId);
      const { page, total } = applyQuery(own, query);
      ctx.body = pageDocument(ctx.path, query, page.map(represent), total);
    });
    router.get(`/${kind}/:id`, access('payments:read'), async (ctx: AppContext) => {
      ctx.body = represent(await getOwnedOr404(resources, kind, idParam(ctx), principalOf(ctx).userId, ctx));
    });
  }

  router.post('/payments', access('payments:write'), ...json, idempotent, async (ctx: AppContext) => {
    const request = validBody<PaymentRequest>(ctx, 'payment-request');
    const marker = ctx.state.idempotencyMarker;
    const held = ctx.state.idempotency;
    const createdAt = now();
    const userId = principalOf(ctx).userId;
    // The marker check, both ids, both records and the idempotent result in one step (one round
    // trip to Redis, stores/sequences.ts); an earlier attempt of this request that created the
    // payment without recording its result is answered instead (D-IDEMPOTENCY: exactly one result).
    const outcome = await stores.create({
      kinds: ['payments', 'transfers'],
      ...(marker === undefined ? {} : { marker: { kind: 'payments', value: marker } }),
      build([paymentId = 0, transferId = 0]) {
        const input: NewPayment = { paymentId, transferId, userId, amount: request.amount, currency: request.currency };
        if (request.description !== undefined) input.description = request.description;
        if (marker !== undefined) input.createdBy = marker;
        const { payment, transfer } = paymentRecords(input, createdAt);
        return {
          entries: [
            ['transfers', transfer],
            ['payments', payment],
          ],
          response: createdResponse(`/payments/${paymentId}`, paymentRepresentation(payment)),
        };
      },
      ...(held === undefined ? {} : { complete: { key: held.key, fingerprint: held.fingerprint, ttlSeconds: held.ttlSeconds } }),
    });
    if (!outcome.created) return created(ctx, `/payments/${outcome.existing.id}`, paymentRepresentation(outcome.existing));
    if (held !== undefined) held.completed = true;
    created(ctx, `/payments/${outcome.ids[0] ?? 0}`, outcome.response.body);
  });

  return router;
}
