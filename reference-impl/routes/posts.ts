/**
 * Posts and their nested comments (spec/decisions.md D-PATHS, D-FIELDS): public reads, writes
 * with `posts:write`; a post names an existing author (else 422), a comment belongs to its post.
 */
import type { AppContext, Deps } from '../context.ts';
import { notFound } from '../problem.ts';
import { applyQuery, pageDocument, parseCollectionQuery } from '../query.ts';
import { commentRepresentation, postRepresentation } from '../representations.ts';
import type { ResourceStore, StoredResource } from '../stores/types.ts';
import { created, createdEarlier, getOr404, now, stamp, validBody } from './common.ts';
import { type ResourceRouter, type RouteKit, idParam, resourceRouter } from './kit.ts';

const POST_QUERY = { sortable: ['id', 'title', 'createdAt'], filters: { authorId: 'integer' } } as const;
const COMMENT_QUERY = { sortable: ['id', 'createdAt'], filters: {} } as const;

interface PostRequest {
  authorId: number;
  title: string;
  body: string;
}

interface CommentRequest {
  authorName: string;
  body: string;
}

async function commentOf(store: ResourceStore, postId: number, commentId: number): Promise<StoredResource> {
  await getOr404(store, 'posts', postId);
  const comment = await store.get('comments', commentId);
  if (!comment || comment.postId !== postId) throw notFound();
  return comment;
}

/**
 * The comments of a post, nested under it (D-PATHS): every comment route answers 404 unless the post
 * exists, and a comment is found only under its own post.
 */
function addCommentRoutes(router: ResourceRouter, resources: ResourceStore, { access, json, idempotent }: RouteKit): void {
  router.get('/posts/:id/comments', access('public'), async (ctx: AppContext) => {
    const postId = idParam(ctx);
    await getOr404(resources, 'posts', postId);
    const query = parseCollectionQuery(ctx.query, COMMENT_QUERY);
    const own = (await resources.list('comments')).filter((comment) => comment.postId === postId);
    const { page, total } = applyQuery(own, query);
    ctx.body = pageDocument(ctx.path, query, page.map(commentRepresentation), total);
  });

  router.post('/posts/:id/comments', access('posts:write'), ...json, idempotent, async (ctx: AppContext) => {
    const postId = idParam(ctx);
    await getOr404(resources, 'posts', postId);
    const request = validBody<CommentRequest>(ctx, 'comment-request');
    const earlier = await createdEarlier(ctx, resources, 'comments');
    if (earlier) return created(ctx, `/posts/${postId}/comments/${earlier.id}`, commentRepresentation(earlier));
    const comment: StoredResource = stamp(ctx, {
      id: await resources.nextId('comments'),
      postId,
      authorName: request.authorName,
      body: request.body,
      createdAt: now(),
    });
    await resources.put('comments', comment);
    created(ctx, `/posts/${postId}/comments/${comment.id}`, commentRepresentation(comment));
  });

  router.get('/posts/:id/comments/:commentId', access('public'), async (ctx: AppContext) => {
    ctx.body = commentRepresentation(await commentOf(resources, idParam(ctx), idParam(ctx, 'commentId')));
  });

  router.delete('/posts/:id/comments/:commentId', access('posts:write'), async (ctx: AppContext) => {
    const comment = await commentOf(resources, idParam(ctx), idParam(ctx, 'commentId'));
    if (!(await resources.delete('comments', comment.id))) throw notFound();
    ctx.status = 204;
  });
}

/** The posts and comments router (the comments' routes: addCommentRoutes). */
export function postsRouter({ stores }: Deps, kit: RouteKit): ResourceRouter {
  const { access, json, idempotent } = kit;
  const router = resourceRouter();
  const resources = stores.resources;

  router.get('/posts', access('public'), async (ctx: AppContext) => {
    const query = parseCollectionQuery(ctx.query, POST_QUERY);
    const { page, total } = applyQuery(await resources.list('posts'), query);
    ctx.body = pageDocument(ctx.path, query, page.map(postRepresentation), total);
  });

  router.get('/posts/:id', access('public'), async (ctx: AppContext) => {
    ctx.body = postRepresentation(await getOr404(resources, 'posts', idParam(ctx), ctx));
  });

  router.post('/posts', access('posts:write'), ...json, idempotent, async (ctx: AppContext) => {
    const body = ctx.state.body as Record<string, unknown> | undefined;
    const authorId = body?.authorId;
    const missingAuthor =
      typeof authorId === 'number' && Number.isSafeInteger(authorId) && authorId >= 1 && !(await resources.get('authors', authorId))
        ? [{ field: 'authorId', message: 'must name an existing author' }]
        : [];
    const request = validBody<PostRequest>(ctx, 'post-request', missingAuthor);
    const earlier = await createdEarlier(ctx, resources, 'posts');
    if (earlier) return created(ctx, `/posts/${earlier.id}`, postRepresentation(earlier));
    const post: StoredResource = stamp(ctx, {
      id: await resources.nextId('posts'),
      authorId: request.authorId,
      title: request.title,
      body: request.body,
      createdAt: now(),
    });
    await resources.put('posts', post);
    created(ctx, `/posts/${post.id}`, postRepresentation(post));
  });

  router.delete('/posts/:id', access('posts:write'), async (ctx: AppContext) => {
    const id = idParam(ctx);
    if (!(await resources.delete('posts', id))) throw notFound();
    const comments = (await resources.list('comments')).filter((comment) => comment.postId === id);
    await Promise.all(comments.map((comment) => resources.delete('comments', comment.id)));
    ctx.status = 204;
  });

  addCommentRoutes(router, resources, kit);
  return router;
}
