/** Builders for the example-API checks (D-PATHS, D-FIELDS): one resource of every kind, schema checks. */
import { expect } from '@playwright/test';
import { getValidator } from '../../spec/schemas.ts';
import type { HttpResponse } from '../transport/message.ts';
import { linkOf } from './links.ts';
import { exchangeText } from './problem.ts';
import type { Target } from './target.ts';
import { uniqueValue } from './template.ts';

/** The skip reason of every example-API check: they run only on a profile declaring `features.exampleApi`. */
export const NO_EXAMPLE_API = 'the profile does not declare features.exampleApi (the document\'s example API)';

/** Schema violations of `data` against the named spec/schemas schema, one line each. */
export function schemaIssues(schema: string, data: unknown): string[] {
  const validate = getValidator(schema);
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${schema}${e.instancePath} ${e.message ?? ''}`);
}

/** The parsed body, typed by the caller. */
export function json<T>(response: HttpResponse): T {
  return response.json as T;
}

/** POSTs `body` and asserts success: any 2xx (201 is STATUS-201-CREATED-LOCATION, a SHOULD; D-SUITE-TRUST). */
export async function created(target: Target, path: string, body: unknown): Promise<HttpResponse> {
  const response = await target.client.post(path, body);
  expect(response.status >= 200 && response.status < 300, `the create succeeds: ${exchangeText(response)}`).toBe(true);
  return response;
}

/** The item path of what `response` created: its Location, else `collection/id` (D-SUITE-TRUST: learnt from the target). */
export function createdItem(target: Target, collection: string, response: HttpResponse): string {
  return target.createdPath(response, { itemPath: `${collection}/{id}` }).path ?? `${collection}/${String(json<{ id?: unknown }>(response).id)}`;
}

/** One resource of every kind, created by the valid caller, with their item paths (D-PATHS). */
export async function world(target: Target) {
  const u = uniqueValue();
  const user = await created(target, '/users', { name: `user ${u}`, email: `u-${u}@example.com` });
  const order = await created(target, '/orders', { total: 10, currency: 'eur' });
  const payment = await created(target, '/payments', { amount: 500, currency: 'usd', description: `hac ${u}` });
  const author = await created(target, '/authors', { name: `author ${u}` });
  const post = await created(target, '/posts', { authorId: json<{ id: number }>(author).id, title: `title ${u}`, body: 'text' });
  const postPath = createdItem(target, '/posts', post);
  // Nested paths come from the server's own links where it gives them (D-SUITE-TRUST), else from D-PATHS.
  const commentsLink = linkOf(post.json, 'comments');
  const comments = commentsLink ? target.pathOf(commentsLink.href) : `${postPath}/comments`;
  const comment = await created(target, comments, { authorName: 'reader', body: 'nice' });
  const transferLink = linkOf(payment.json, 'transfer');
  const transfer = transferLink ? target.pathOf(transferLink.href) : `/transfers/${String(json<{ transferId?: unknown }>(payment).transferId)}`;
  return {
    user: createdItem(target, '/users', user),
    order: createdItem(target, '/orders', order),
    payment: createdItem(target, '/payments', payment),
    transfer,
    author: createdItem(target, '/authors', author),
    post: postPath,
    comments,
    comment: createdItem(target, comments, comment),
    responses: { user, order, payment, author, post, comment },
  };
}

export type World = Awaited<ReturnType<typeof world>>;

/**
 * The caller's own `/users/{id}/orders` (document section 4): the account's `orders` link, else the
 * path with the account's `userId` (or `id`); undefined when the account names neither.
 */
export async function userOrdersPath(target: Target): Promise<string | undefined> {
  const account = await target.client.get('/account');
  const link = linkOf(account.json, 'orders');
  if (link) return target.pathOf(link.href);
  const body = account.json as { userId?: unknown; id?: unknown } | undefined;
  const id = body?.userId ?? body?.id;
  return typeof id === 'number' || typeof id === 'string' ? `/users/${id}/orders` : undefined;
}

/** An item's path: its `self` link, else `collection/id`. */
export function selfPath(target: Target, item: unknown, collection: string): string {
  const self = linkOf(item, 'self');
  return self ? target.pathOf(self.href) : `${collection}/${String((item as { id?: unknown } | undefined)?.id)}`;
}
