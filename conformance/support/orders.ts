/**
 * The example API's orders as the checks drive them (document sections 2 and 3, D-ORDER-STATES,
 * D-SUITE-TRUST): every action through the link the order's representation offers, never a URL the
 * suite builds, and every state read back through the order's `self` link.
 */
import { expect } from '@playwright/test';
import type { Client } from '../transport/client.ts';
import { succeeded } from './collection.ts';
import type { HttpResponse } from '../transport/message.ts';
import { follow, linkOf } from './links.ts';
import type { Link } from './links.ts';
import { exchangeText } from './problem.ts';
import type { Target } from './target.ts';

/** The link `rel` of a response, asserted present. */
export function mustLink(response: HttpResponse, rel: string): Link {
  const link = linkOf(response.json, rel);
  expect(link, `the ${rel} link of ${exchangeText(response)}`).toBeDefined();
  return link as Link;
}

/** The `status` member of an order representation. */
export function statusOf(response: HttpResponse): unknown {
  return (response.json as { status?: unknown } | undefined)?.status;
}

/** Orders of one caller (the valid one unless told). */
export class Orders {
  constructor(
    readonly target: Target,
    readonly client: Client = target.client,
  ) {}

  /** The same orders driven by another caller. */
  as(client: Client): Orders {
    return new Orders(this.target, client);
  }

  /** Creates an order of `total` euros and asserts it was created; the answer carries its links. */
  async create(total = 12.5): Promise<HttpResponse> {
    const response = await this.client.post('/orders', { total, currency: 'eur' });
    expect(succeeded(response), `the order is created: ${exchangeText(response)}`).toBe(true);
    return response;
  }

  /** Follows the order's `rel` link with its method and no body, whatever the answer. */
  follow(order: HttpResponse, rel: string): Promise<HttpResponse> {
    return follow(this.target, this.client, mustLink(order, rel));
  }

  /** Follows an action link and asserts success (any 2xx: the action's status code is "not shown"). */
  async act(order: HttpResponse, rel: string): Promise<HttpResponse> {
    const response = await this.follow(order, rel);
    expect(succeeded(response), `${rel}: ${exchangeText(response)}`).toBe(true);
    return response;
  }

  /** The order read back through its self link. */
  read(order: HttpResponse): Promise<HttpResponse> {
    return this.follow(order, 'self');
  }

  /** The order's status read back through its self link: an action's answer body is "not shown" (D-SUITE-TRUST). */
  async statusNow(order: HttpResponse): Promise<unknown> {
    return statusOf(await this.read(order));
  }
}
