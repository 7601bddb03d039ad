/**
 * Authors, posts and nested comments (spec/decisions.md D-PATHS, D-FIELDS): public reads, writes
 * with `posts:write`, a post's author must exist, comments live under their post.
 */
import { expect, test } from '@playwright/test';
import { ALICE, READER, type TestServer, client, startTestServer } from './support/harness.ts';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => {
  await server.close();
});

test('an author, a post and a comment are created, linked and readable without a token', async () => {
  const api = client(server.url);
  const author = await api.post('/authors', { token: ALICE, body: { name: 'Ada', bio: 'writes' } });
  expect(author.status).toBe(201);
  expect(author.headers.get('location')).toBe(`/authors/${author.json.id}`);
  const post = await api.post('/posts', { token: ALICE, body: { authorId: author.json.id, title: 'Hello', body: 'World' } });
  expect(post.status).toBe(201);
  expect(post.json._links).toMatchObject({ author: { href: `/authors/${author.json.id}` }, comments: { href: `/posts/${post.json.id}/comments` } });
  const comment = await api.post(post.json._links.comments.href, { token: ALICE, body: { authorName: 'Bea', body: 'Nice' } });
  expect(comment.status).toBe(201);
  expect(comment.headers.get('location')).toBe(`/posts/${post.json.id}/comments/${comment.json.id}`);
  expect(comment.json).toMatchObject({ postId: post.json.id, authorName: 'Bea', body: 'Nice' });
  const read = await api.get(comment.headers.get('location') ?? '');
  expect(read.status).toBe(200);
  expect(read.headers.get('cache-control')).toBe('public, max-age=5');
  const list = await api.get(`/posts?authorId=${author.json.id}`);
  expect(list.json.items.map((item: { id: number }) => item.id)).toEqual([post.json.id]);
  const comments = await api.get(`/posts/${post.json.id}/comments`);
  expect(comments.json.page.total).toBe(1);
  expect((await api.get(author.json._links.posts.href)).json.page.total).toBe(1);
});

test('a post naming an absent author is 422 on authorId', async () => {
  const reply = await client(server.url).post('/posts', { token: ALICE, body: { authorId: 999999, title: 'T', body: 'B' } });
  expect(reply.status).toBe(422);
  expect(reply.json.errors).toEqual([{ field: 'authorId', message: expect.any(String) }]);
});

test('a comment is found only under its own post', async () => {
  const api = client(server.url);
  const author = await api.post('/authors', { token: ALICE, body: { name: 'Cy' } });
  const first = await api.post('/posts', { token: ALICE, body: { authorId: author.json.id, title: 'One', body: '1' } });
  const second = await api.post('/posts', { token: ALICE, body: { authorId: author.json.id, title: 'Two', body: '2' } });
  const comment = await api.post(`/posts/${first.json.id}/comments`, { token: ALICE, body: { authorName: 'Di', body: 'hi' } });
  expect((await api.get(`/posts/${second.json.id}/comments/${comment.json.id}`)).status).toBe(404);
  expect((await api.get(`/posts/999999/comments`)).status).toBe(404);
  expect((await api.post(`/posts/999999/comments`, { token: ALICE, body: { authorName: 'Di', body: 'hi' } })).status).toBe(404);
});

test('deletes are 204 with posts:write, 403 without, and remove the comments of a post', async () => {
  const api = client(server.url);
  const author = await api.post('/authors', { token: ALICE, body: { name: 'Ed' } });
  const post = await api.post('/posts', { token: ALICE, body: { authorId: author.json.id, title: 'Bye', body: 'x' } });
  const comment = await api.post(`/posts/${post.json.id}/comments`, { token: ALICE, body: { authorName: 'F', body: 'y' } });
  expect((await api.delete(`/posts/${post.json.id}`, { token: READER })).status).toBe(403);
  const commentPath = `/posts/${post.json.id}/comments/${comment.json.id}`;
  expect((await api.delete(commentPath, { token: ALICE })).status).toBe(204);
  expect((await api.delete(commentPath, { token: ALICE })).status).toBe(404);
  expect((await api.delete(`/posts/${post.json.id}`, { token: ALICE })).status).toBe(204);
  expect((await api.get(`/posts/${post.json.id}`)).status).toBe(404);
  expect((await api.delete(`/authors/${author.json.id}`, { token: ALICE })).status).toBe(204);
  expect((await api.get(`/authors/${author.json.id}`)).status).toBe(404);
});

test('invalid author, post and comment bodies list every invalid field', async () => {
  const api = client(server.url);
  const author = await api.post('/authors', { token: ALICE, body: { name: '', bio: 'b'.repeat(1001) } });
  expect((author.json.errors as { field: string }[]).map((error) => error.field).sort()).toEqual(['bio', 'name']);
  const post = await api.post('/posts', { token: ALICE, body: { authorId: 'one', title: '' } });
  expect((post.json.errors as { field: string }[]).map((error) => error.field).sort()).toEqual(['authorId', 'body', 'title']);
  const sorts = await api.get('/posts?sort=-title&authorId=abc');
  expect(sorts.status).toBe(400);
  expect(sorts.json.errors.map((error: { field: string }) => error.field)).toEqual(['authorId']);
});
