/** Builders for the example-API checks (D-PATHS, D-FIELDS): one resource of every kind, schema checks. */
import { expect } from '@playwright/test';
import { getValidator } from '../../spec/schemas.ts';
import type { HttpResponse } from './http.ts';
import { describe } from './problem.ts';
import type { Target } from './target.ts';
import { uniqueValue } from './template.ts';

/** Schema violations of `data` against the named spec/schemas schema, one line each. */
export function schemaIssues(schema: string, data: unknown): string[] {
  const validate = getValidator(schema);
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${schema}${e.instancePath} ${e.message ?? ''}`);
}

/** The parsed body, typed by the caller. */
export function json<T>(response: HttpResponse): T {
  return response.json as T;
}

/** POSTs `body` and asserts a 201. */
export async function created(target: Target, path: string, body: unknown): Promise<HttpResponse> {
  const response = await target.client.post(path, body);
  expect(response.status, describe(response)).toBe(201);
  return response;
}

/** One resource of every kind, created by the valid caller, with their item paths (D-PATHS). */
export async function world(target: Target) {
  const u = uniqueValue();
  const user = await created(target, '/users', { name: `user ${u}`, email: `u-${u}@example.com` });
  const order = await created(target, '/orders', { total: 10, currency: 'eur' });
  const payment = await created(target, '/payments', { amount: 500, currency: 'usd', description: `hac ${u}` });
  const author = await created(target, '/authors', { name: `author ${u}` });
  const post = await created(target, '/posts', { authorId: json<{ id: number }>(author).id, title: `title ${u}`, body: 'text' });
  const postId = json<{ id: number }>(post).id;
  const comment = await created(target, `/posts/${postId}/comments`, { authorName: 'reader', body: 'nice' });
  const transferId = json<{ transferId: number }>(payment).transferId;
  return {
    user: `/users/${json<{ id: number }>(user).id}`,
    order: `/orders/${json<{ id: number }>(order).id}`,
    payment: `/payments/${json<{ id: number }>(payment).id}`,
    transfer: `/transfers/${transferId}`,
    author: `/authors/${json<{ id: number }>(author).id}`,
    post: `/posts/${postId}`,
    comments: `/posts/${postId}/comments`,
    comment: `/posts/${postId}/comments/${json<{ id: number }>(comment).id}`,
    responses: { user, order, payment, author, post, comment },
  };
}

export type World = Awaited<ReturnType<typeof world>>;
