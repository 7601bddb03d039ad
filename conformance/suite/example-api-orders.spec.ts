/**
 * The example API's orders (document sections 2 and 3, D-ORDER-STATES, D-PATHS): states, the
 * `cancel` and `pay` links followed from the response (never built by the suite), 409 for an
 * illegal transition, and owner-only access.
 */
import { test, expect } from '../fixtures.ts';
import { getValidator } from '../../spec/schemas.ts';
import type { Client } from '../support/client.ts';
import type { HttpResponse } from '../support/http.ts';
import { follow, linkOf } from '../support/links.ts';
import type { Link } from '../support/links.ts';
import { describe, problemIssues } from '../support/problem.ts';
import { collectionCount } from '../support/target.ts';
import type { Target } from '../support/target.ts';

const notExample = 'the profile does not declare features.exampleApi (the document\'s example API)';

async function newOrder(target: Target, client: Client = target.client, total = 12.5): Promise<HttpResponse> {
  const response = await client.post('/orders', { total, currency: 'eur' });
  expect(response.status, describe(response)).toBe(201);
  return response;
}

function mustLink(response: HttpResponse, rel: string): Link {
  const link = linkOf(response.json, rel);
  expect(link, `the ${rel} link of ${describe(response)}`).toBeDefined();
  return link as Link;
}

function statusOf(response: HttpResponse): unknown {
  return (response.json as { status?: unknown } | undefined)?.status;
}

test('an order has a number id, a string status, a number total and _links', { tag: ['@ORDER-SHAPE', '@example-api'], annotation: [{ type: 'requirement', description: 'ORDER-SHAPE' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  expect(order.json).toEqual(expect.objectContaining({ id: expect.any(Number), status: expect.any(String), total: 12.5, _links: expect.any(Object) }));
  expect(getValidator('order')(order.json), JSON.stringify(getValidator('order').errors)).toBe(true);
});

test('every order has a string status and a new order is pending', { tag: ['@ORDER-STATUS-FIELD', '@example-api'], annotation: [{ type: 'requirement', description: 'ORDER-STATUS-FIELD' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  expect(statusOf(order)).toBe('pending');
  const list = await target.client.get('/orders');
  for (const item of (list.json as { items: unknown[] }).items) expect(typeof (item as { status?: unknown }).status).toBe('string');
});

test('orders move pending → paid or pending → cancelled and stay there', { tag: ['@ORDER-STATES', '@example-api'], annotation: [{ type: 'requirement', description: 'ORDER-STATES' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const a = await newOrder(target);
  const paid = await follow(target, target.client, mustLink(a, 'pay'));
  expect(statusOf(paid)).toBe('paid');
  const b = await newOrder(target);
  const cancelled = await follow(target, target.client, mustLink(b, 'cancel'));
  expect(statusOf(cancelled)).toBe('cancelled');
  for (const [order, final] of [[a, 'paid'], [b, 'cancelled']] as const) {
    await follow(target, target.client, mustLink(order, 'cancel'));
    await follow(target, target.client, mustLink(order, 'pay'));
    const read = await follow(target, target.client, mustLink(order, 'self'));
    expect(statusOf(read), `a ${final} order is final`).toBe(final);
  }
});

test('a pending order offers cancel and pay links', { tag: ['@LINKS-ORDER-ACTIONS', '@example-api'], annotation: [{ type: 'requirement', description: 'LINKS-ORDER-ACTIONS' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  mustLink(order, 'cancel');
  mustLink(order, 'pay');
  const read = await follow(target, target.client, mustLink(order, 'self'));
  mustLink(read, 'cancel');
  mustLink(read, 'pay');
});

test('the action links name their method, POST', { tag: ['@LINKS-ACTION-METHOD', '@example-api'], annotation: [{ type: 'requirement', description: 'LINKS-ACTION-METHOD' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  expect(mustLink(order, 'cancel').method).toBe('POST');
  expect(mustLink(order, 'pay').method).toBe('POST');
});

test('cancel and pay are offered only while the order is pending', { tag: ['@LINKS-ONLY-LEGAL-TRANSITIONS', '@example-api'], annotation: [{ type: 'requirement', description: 'LINKS-ONLY-LEGAL-TRANSITIONS' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  for (const action of ['pay', 'cancel']) {
    const order = await newOrder(target);
    const after = await follow(target, target.client, mustLink(order, action));
    expect(after.status, describe(after)).toBe(200);
    const read = await follow(target, target.client, mustLink(order, 'self'));
    for (const response of [after, read]) {
      expect(linkOf(response.json, 'cancel'), `no cancel after ${action}: ${describe(response)}`).toBeUndefined();
      expect(linkOf(response.json, 'pay'), `no pay after ${action}: ${describe(response)}`).toBeUndefined();
      expect(linkOf(response.json, 'self')).toBeDefined();
    }
  }
});

test('following an action link with its method and no body performs the transition', { tag: ['@LINKS-ACTIONS-WORK', '@example-api', '@smoke'], annotation: [{ type: 'requirement', description: 'LINKS-ACTIONS-WORK' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  for (const [action, status] of [['cancel', 'cancelled'], ['pay', 'paid']] as const) {
    const order = await newOrder(target);
    const response = await follow(target, target.client, mustLink(order, action));
    expect(response.status, describe(response)).toBe(200);
    expect(statusOf(await follow(target, target.client, mustLink(order, 'self')))).toBe(status);
  }
});

test('the cancel link of a pending order cancels it', { tag: ['@ORDER-CANCEL-TRANSITION', '@example-api'], annotation: [{ type: 'requirement', description: 'ORDER-CANCEL-TRANSITION' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  const response = await follow(target, target.client, mustLink(order, 'cancel'));
  expect(response.status, describe(response)).toBe(200);
  expect(response.json).toEqual(expect.objectContaining({ id: (order.json as { id: number }).id, status: 'cancelled' }));
});

test('the cancel action answers 200 with the order', { tag: ['@ENDPOINT-ORDER-CANCEL', '@example-api'], annotation: [{ type: 'requirement', description: 'ENDPOINT-ORDER-CANCEL' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  const response = await follow(target, target.client, mustLink(order, 'cancel'));
  expect(response.status, describe(response)).toBe(200);
  expect(getValidator('order')(response.json)).toBe(true);
  expect(statusOf(await target.client.get(target.pathOf(mustLink(order, 'self').href)))).toBe('cancelled');
});

test('the pay link of a pending order pays it and creates one payment of its total and its transfer', { tag: ['@ORDER-PAY-TRANSITION', '@example-api'], annotation: [{ type: 'requirement', description: 'ORDER-PAY-TRANSITION' }], lock: 'hac-idempotency-counts' }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const caller = target.as(profile.tokens.other ?? profile.tokens.valid);
  const payments = collectionCount((await caller.get('/payments')).json) ?? Number.NaN;
  const transfers = collectionCount((await caller.get('/transfers')).json) ?? Number.NaN;
  const order = await newOrder(target, caller, 19.99);
  const response = await follow(target, caller, mustLink(order, 'pay'));
  expect(response.status, describe(response)).toBe(200);
  expect(statusOf(response)).toBe('paid');
  const after = await caller.get('/payments?sort=-id&limit=1');
  expect(collectionCount(after.json)).toBe(payments + 1);
  expect(collectionCount((await caller.get('/transfers')).json)).toBe(transfers + 1);
  const payment = (after.json as { items: { amount?: unknown; currency?: unknown }[] }).items[0];
  expect(payment, 'the new payment is of the order total in minor units').toEqual(expect.objectContaining({ amount: 1999, currency: 'eur' }));
});

test('the pay action answers 200 with the order', { tag: ['@ENDPOINT-ORDER-PAYMENT', '@example-api'], annotation: [{ type: 'requirement', description: 'ENDPOINT-ORDER-PAYMENT' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  const response = await follow(target, target.client, mustLink(order, 'pay'));
  expect(response.status, describe(response)).toBe(200);
  expect(getValidator('order')(response.json)).toBe(true);
});

async function illegal(target: Target): Promise<{ order: HttpResponse; responses: HttpResponse[] }> {
  const order = await newOrder(target);
  const cancel = mustLink(order, 'cancel');
  const pay = mustLink(order, 'pay');
  expect((await follow(target, target.client, pay)).status).toBe(200);
  return { order, responses: [await follow(target, target.client, cancel), await follow(target, target.client, pay)] };
}

test('cancelling or paying an order that is no longer pending is a 409 and changes nothing', { tag: ['@ORDER-ILLEGAL-TRANSITION-409', '@example-api', '@smoke'], annotation: [{ type: 'requirement', description: 'ORDER-ILLEGAL-TRANSITION-409' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const { order, responses } = await illegal(target);
  for (const response of responses) {
    expect(response.status, describe(response)).toBe(409);
    expect(problemIssues(response)).toEqual([]);
  }
  expect(statusOf(await follow(target, target.client, mustLink(order, 'self')))).toBe('paid');
  const cancelledOrder = await newOrder(target);
  const pay = mustLink(cancelledOrder, 'pay');
  await follow(target, target.client, mustLink(cancelledOrder, 'cancel'));
  expect((await follow(target, target.client, pay)).status).toBe(409);
  expect(statusOf(await follow(target, target.client, mustLink(cancelledOrder, 'self')))).toBe('cancelled');
});

test('a request conflicting with the current state is a 409 problem', { tag: ['@STATUS-409-CONFLICT', '@example-api'], annotation: [{ type: 'requirement', description: 'STATUS-409-CONFLICT' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const { responses } = await illegal(target);
  for (const response of responses) {
    expect(response.status, describe(response)).toBe(409);
    expect(problemIssues(response)).toEqual([]);
  }
});

test('the 409 of an illegal transition names the current status and the transition', { tag: ['@ORDER-TRANSITION-PROBLEM-MEMBERS', '@example-api'], annotation: [{ type: 'requirement', description: 'ORDER-TRANSITION-PROBLEM-MEMBERS' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const { responses } = await illegal(target);
  const [cancel, pay] = responses as [HttpResponse, HttpResponse];
  expect(cancel.json).toEqual(expect.objectContaining({ type: expect.stringMatching(/\/illegal-transition$/), currentStatus: 'paid', transition: 'cancel' }));
  expect(pay.json).toEqual(expect.objectContaining({ currentStatus: 'paid', transition: 'pay' }));
});

test('order actions accept an empty body without Content-Type and {}', { tag: ['@ACTION-EMPTY-BODY', '@example-api'], annotation: [{ type: 'requirement', description: 'ACTION-EMPTY-BODY' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const a = await newOrder(target);
  const empty = await target.client.request('POST', target.pathOf(mustLink(a, 'cancel').href));
  expect(empty.status, describe(empty)).toBe(200);
  const b = await newOrder(target);
  const object = await target.client.post(target.pathOf(mustLink(b, 'cancel').href), {});
  expect(object.status, describe(object)).toBe(200);
});

test('order actions are sub-resources of the order', { tag: ['@URL-ACTION-SUBRESOURCE', '@example-api'], annotation: [{ type: 'requirement', description: 'URL-ACTION-SUBRESOURCE' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const order = await newOrder(target);
  const self = target.pathOf(mustLink(order, 'self').href);
  const actions = ['cancel', 'pay'].map((rel) => target.pathOf(mustLink(order, rel).href));
  test.skip(!actions.every((a) => a.startsWith(`${self}/`)), 'feature not implemented (MAY): the actions live elsewhere');
  for (const action of actions) expect(action.slice(self.length + 1)).toMatch(/^[a-z-]+$/);
});

test('another caller\'s order, its actions and payments are invisible', { tag: ['@AUTH-OWNER-ONLY', '@example-api'], annotation: [{ type: 'requirement', description: 'AUTH-OWNER-ONLY' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const other = profile.tokens.other;
  test.skip(!other, 'the profile names no second caller (tokens.other)');
  if (!other) return;
  const stranger = target.as(other);
  const order = await newOrder(target);
  const self = mustLink(order, 'self');
  expect((await follow(target, stranger, self)).status).toBe(404);
  expect((await follow(target, stranger, mustLink(order, 'cancel'))).status).toBe(404);
  expect(statusOf(await follow(target, target.client, self)), 'the stranger changed nothing').toBe('pending');
  const paid = await follow(target, target.client, mustLink(order, 'pay'));
  const payment = linkOf(paid.json, 'payment');
  if (payment) expect((await follow(target, stranger, payment)).status).toBe(404);
  const account = await target.client.get('/account');
  const userId = (account.json as { userId?: number }).userId;
  expect((await stranger.get(`/users/${userId}/orders`)).status).toBe(404);
  const mine = await stranger.get('/orders');
  const ids = (mine.json as { items: { id: number }[] }).items.map((i) => i.id);
  expect(ids).not.toContain((order.json as { id: number }).id);
});

test('another caller\'s order is a 404 exactly like an unknown id', { tag: ['@AUTH-OTHERS-404', '@example-api'], annotation: [{ type: 'requirement', description: 'AUTH-OTHERS-404' }] }, async ({ target, profile }) => {
  test.skip(!profile.features?.exampleApi, notExample);
  const other = profile.tokens.other;
  test.skip(!other, 'the profile names no second caller (tokens.other)');
  if (!other) return;
  const order = await newOrder(target);
  const hidden = await follow(target, target.as(other), mustLink(order, 'self'));
  const unknown = await target.as(other).get('/orders/999999999999');
  expect(hidden.status).toBe(404);
  const strip = (r: HttpResponse): unknown => ({ ...(r.json as object), instance: undefined });
  expect(strip(hidden)).toEqual(strip(unknown));
});
