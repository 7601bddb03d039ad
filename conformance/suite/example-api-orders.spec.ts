/**
 * The example API's orders (document sections 2 and 3, D-ORDER-STATES, D-PATHS): states, the
 * `cancel` and `pay` links followed from the response (never built by the suite), 409 for an
 * illegal transition, and owner-only access. Every check drives the `orders` fixture, which skips it
 * unless the profile declares features.exampleApi.
 */
import { test, expect } from '../fixtures.ts';
import { req } from '../support/requirement.ts';
import type { HttpResponse } from '../transport/message.ts';
import { follow, linkOf } from '../support/links.ts';
import { exchangeText, problemIssues } from '../support/problem.ts';
import { allPages, itemsOf } from '../support/collection.ts';
import { selfPath, userOrdersPath } from '../support/example-api.ts';
import { mustLink, statusOf } from '../support/orders.ts';
import type { Orders } from '../support/orders.ts';
import { skipCheck } from '../support/skip.ts';

test('an order has a number id, a string status, a number total and _links', req('ORDER-SHAPE', '@example-api'), async ({ orders }) => {
  const order = await orders.create();
  expect(order.json).toEqual(expect.objectContaining({ id: expect.any(Number), status: expect.any(String), total: 12.5, _links: expect.any(Object) }));
});

test('every order has a string status and a new order is pending', req('ORDER-STATUS-FIELD', '@example-api'), async ({ target, orders }) => {
  const order = await orders.create();
  expect(statusOf(order)).toBe('pending');
  const list = await target.client.get('/orders');
  for (const item of itemsOf(list.json) ?? []) expect(typeof item.status, exchangeText(list)).toBe('string');
});

test('orders move pending → paid or pending → cancelled and stay there', req('ORDER-STATES', '@example-api'), async ({ orders }) => {
  const a = await orders.create();
  await orders.act(a, 'pay');
  expect(await orders.statusNow(a)).toBe('paid');
  const b = await orders.create();
  await orders.act(b, 'cancel');
  expect(await orders.statusNow(b)).toBe('cancelled');
  for (const [order, final] of [[a, 'paid'], [b, 'cancelled']] as const) {
    await orders.follow(order, 'cancel');
    await orders.follow(order, 'pay');
    expect(await orders.statusNow(order), `a ${final} order is final`).toBe(final);
  }
});

test('a pending order offers cancel and pay links', req('LINKS-ORDER-ACTIONS', '@example-api'), async ({ orders }) => {
  const order = await orders.create();
  mustLink(order, 'cancel');
  mustLink(order, 'pay');
  const read = await orders.read(order);
  mustLink(read, 'cancel');
  mustLink(read, 'pay');
});

test('the action links name their method, POST', req('LINKS-ACTION-METHOD', '@example-api'), async ({ orders }) => {
  const order = await orders.create();
  expect(mustLink(order, 'cancel').method).toBe('POST');
  expect(mustLink(order, 'pay').method).toBe('POST');
});

test('cancel and pay are offered only while the order is pending', req('LINKS-ONLY-LEGAL-TRANSITIONS', '@example-api'), async ({ orders }) => {
  for (const action of ['pay', 'cancel']) {
    const order = await orders.create();
    const after = await orders.act(order, action);
    const read = await orders.read(order);
    // The action's answer is checked only when it is the order (its body is "not shown"); the read always.
    for (const response of linkOf(after.json, 'self') ? [after, read] : [read]) {
      expect(linkOf(response.json, 'cancel'), `no cancel after ${action}: ${exchangeText(response)}`).toBeUndefined();
      expect(linkOf(response.json, 'pay'), `no pay after ${action}: ${exchangeText(response)}`).toBeUndefined();
      expect(linkOf(response.json, 'self')).toBeDefined();
    }
  }
});

test(
  'following an action link with its method and no body performs the transition',
  req('LINKS-ACTIONS-WORK', '@example-api', '@smoke'),
  async ({ orders }) => {
    for (const [action, status] of [['cancel', 'cancelled'], ['pay', 'paid']] as const) {
      const order = await orders.create();
      await orders.act(order, action);
      expect(await orders.statusNow(order)).toBe(status);
    }
  },
);

test('the cancel link of a pending order cancels it', req('ORDER-CANCEL-TRANSITION', '@example-api'), async ({ orders }) => {
  const order = await orders.create();
  await orders.act(order, 'cancel');
  expect(await orders.statusNow(order), 'the order is now cancelled').toBe('cancelled');
});

test('the cancel action answers 200 with the order', req('ENDPOINT-ORDER-CANCEL', '@example-api'), async ({ orders }) => {
  const order = await orders.create();
  await orders.act(order, 'cancel');
  expect(await orders.statusNow(order)).toBe('cancelled');
});

test(
  'the pay link of a pending order pays it and creates one payment of its total and its transfer',
  req('ORDER-PAY-TRANSITION', '@example-api'),
  async ({ target, profile, orders, countingCaller: caller }) => {
    // Compared as sets of the caller's own items, every page by the server's next links (D-SUITE-TRUST).
    const listed = async (path: string): Promise<Map<string, Record<string, unknown>>> =>
      new Map((await allPages(target, caller, path)).items.map((item) => [selfPath(target, item, path), item]));
    const hasTransfers = profile.collections.some((c) => c.path === '/transfers' && c.methods.includes('GET'));
    const payments = await listed('/payments');
    const transfers = hasTransfers ? await listed('/transfers') : undefined;
    const callers = orders.as(caller);
    const order = await callers.create(19.99);
    await callers.act(order, 'pay');
    expect(await callers.statusNow(order)).toBe('paid');
    // Only this order's total counts: holding the counting caller keeps the idempotency checks out, not every writer.
    const newPayments = [...(await listed('/payments')).entries()]
      .filter(([path, item]) => !payments.has(path) && item.amount === 1999)
      .map(([, item]) => item);
    expect(newPayments, 'one payment of the order total in minor units').toEqual([expect.objectContaining({ amount: 1999, currency: 'eur' })]);
    if (transfers) {
      const newTransfers = [...(await listed('/transfers')).keys()].filter((path) => !transfers.has(path));
      expect(newTransfers, 'one transfer for the payment').toHaveLength(1);
    }
  },
);

test('the pay action answers 200 with the order', req('ENDPOINT-ORDER-PAYMENT', '@example-api'), async ({ orders }) => {
  const order = await orders.create();
  await orders.act(order, 'pay');
  expect(await orders.statusNow(order)).toBe('paid');
});

/** A paid order, and the answers to following its cancel and pay links once more. */
async function illegal(orders: Orders): Promise<{ order: HttpResponse; responses: HttpResponse[] }> {
  const order = await orders.create();
  await orders.act(order, 'pay');
  return { order, responses: [await orders.follow(order, 'cancel'), await orders.follow(order, 'pay')] };
}

test(
  'cancelling or paying an order that is no longer pending is a 409 and changes nothing',
  req('ORDER-ILLEGAL-TRANSITION-409', '@example-api', '@smoke'),
  async ({ orders }) => {
    const { order, responses } = await illegal(orders);
    for (const response of responses) {
      expect(response.status, exchangeText(response)).toBe(409);
      expect(problemIssues(response)).toEqual([]);
    }
    expect(await orders.statusNow(order)).toBe('paid');
    const cancelled = await orders.create();
    await orders.follow(cancelled, 'cancel');
    expect((await orders.follow(cancelled, 'pay')).status).toBe(409);
    expect(await orders.statusNow(cancelled)).toBe('cancelled');
  },
);

test('a request conflicting with the current state is a 409 problem', req('STATUS-409-CONFLICT', '@example-api'), async ({ orders }) => {
  const { responses } = await illegal(orders);
  for (const response of responses) {
    expect(response.status, exchangeText(response)).toBe(409);
    expect(problemIssues(response)).toEqual([]);
  }
});

test(
  'the 409 of an illegal transition names the current status and the transition',
  req('ORDER-TRANSITION-PROBLEM-MEMBERS', '@example-api'),
  async ({ orders }) => {
    const { responses } = await illegal(orders);
    const [cancel, pay] = responses as [HttpResponse, HttpResponse];
    expect(cancel.json).toEqual(expect.objectContaining({ type: expect.stringMatching(/\/illegal-transition$/), currentStatus: 'paid', transition: 'cancel' }));
    expect(pay.json).toEqual(expect.objectContaining({ currentStatus: 'paid', transition: 'pay' }));
  },
);

test('order actions accept an empty body without Content-Type and {}', req('ACTION-EMPTY-BODY', '@example-api'), async ({ target, orders }) => {
  const a = await orders.create();
  const empty = await target.client.request('POST', target.pathOf(mustLink(a, 'cancel').href));
  expect(empty.status, exchangeText(empty)).toBe(200);
  const b = await orders.create();
  const object = await target.client.post(target.pathOf(mustLink(b, 'cancel').href), {});
  expect(object.status, exchangeText(object)).toBe(200);
});

test('order actions are sub-resources of the order', req('URL-ACTION-SUBRESOURCE', '@example-api'), async ({ target, orders }) => {
  const order = await orders.create();
  const self = target.pathOf(mustLink(order, 'self').href);
  const actions = ['cancel', 'pay'].map((rel) => target.pathOf(mustLink(order, rel).href));
  if (!actions.every((a) => a.startsWith(`${self}/`))) skipCheck('feature not implemented (MAY): the actions live elsewhere');
  for (const action of actions) expect(action.slice(self.length + 1)).toMatch(/^[a-z-]+$/);
});

test(
  'another caller\'s order, its actions and payments are invisible',
  req('AUTH-OWNER-ONLY', '@example-api'),
  async ({ target, orders, otherCaller: stranger }) => {
    // Another user's item is refused with 404 or 403 (document section 5: "lack permission yield 403";
    // AUTH-OTHERS-404 asks for the project's 404, D-SUITE-TRUST).
    const refused = [403, 404];
    const order = await orders.create();
    const theirs = orders.as(stranger);
    const self = target.pathOf(mustLink(order, 'self').href);
    expect(refused).toContain((await theirs.read(order)).status);
    expect(refused).toContain((await theirs.follow(order, 'cancel')).status);
    expect(await orders.statusNow(order), 'the stranger changed nothing').toBe('pending');
    const paid = await orders.follow(order, 'pay');
    const payment = linkOf(paid.json, 'payment');
    if (payment) expect(refused).toContain((await follow(target, stranger, payment)).status);
    // The account's orders link may name a collection listing each caller's own orders (`/orders`): the
    // stranger may read it, it must only not show the owner's order there.
    const ordersPath = await userOrdersPath(target);
    if (ordersPath) {
      const listed = await stranger.get(ordersPath);
      if (listed.status < 300) {
        const items = (await allPages(target, stranger, ordersPath)).items.map((i) => selfPath(target, i, '/orders'));
        expect(items, `${ordersPath} read by another caller: ${exchangeText(listed)}`).not.toContain(self);
      } else expect(refused, `another user's orders: ${exchangeText(listed)}`).toContain(listed.status);
    }
    const visible = (await allPages(target, stranger, '/orders')).items.map((i) => selfPath(target, i, '/orders'));
    expect(visible).not.toContain(self);
  },
);

test('another caller\'s order is a 404 exactly like an unknown id', req('AUTH-OTHERS-404', '@example-api'), async ({ orders, otherCaller: stranger }) => {
  const order = await orders.create();
  const hidden = await orders.as(stranger).read(order);
  const unknown = await stranger.get('/orders/999999999999');
  expect(hidden.status).toBe(404);
  const strip = (r: HttpResponse): unknown => ({ ...(r.json as object), instance: undefined });
  expect(strip(hidden)).toEqual(strip(unknown));
});
