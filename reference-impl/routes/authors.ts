/** Authors (spec/decisions.md D-PATHS, D-FIELDS): public reads, create and delete with `posts:write`. */
import type { AppContext, Deps } from '../context.ts';
import { notFound } from '../problem.ts';
import { applyQuery, pageDocument, parseCollectionQuery } from '../query.ts';
import { authorRepresentation } from '../representations.ts';
import type { StoredResource } from '../stores/types.ts';
import { created, createdEarlier, getOr404, now, stamp, validBody } from './common.ts';
import { type ResourceRouter, type RouteKit, idParam, resourceRouter } from './kit.ts';

const AUTHOR_QUERY = { sortable: ['id', 'name'], filters: {} } as const;

interface AuthorRequest {
  name: string;
  bio?: string;
}

/** The authors router. */
export function authorsRouter({ stores }: Deps, { access, json, idempotent }: RouteKit): ResourceRouter {
  const router = resourceRouter();
  const resources = stores.resources;

  router.get('/authors', access('public'), async (ctx: AppContext) => {
    const query = parseCollectionQuery(ctx.query, AUTHOR_QUERY);
    const { page, total } = applyQuery(await resources.list('authors'), query);
    ctx.body = pageDocument(ctx.path, query, page.map(authorRepresentation), total);
  });

  router.get('/authors/:id', access('public'), async (ctx: AppContext) => {
    ctx.body = authorRepresentation(await getOr404(resources, 'authors', idParam(ctx), ctx));
  });

  router.post('/authors', access('posts:write'), ...json, idempotent, async (ctx: AppContext) => {
    const request = validBody<AuthorRequest>(ctx, 'author-request');
    const earlier = await createdEarlier(ctx, resources, 'authors');
    if (earlier) return created(ctx, `/authors/${earlier.id}`, authorRepresentation(earlier));
    const author: StoredResource = stamp(ctx, {
      id: await resources.nextId('authors'),
      name: request.name,
      ...(request.bio === undefined ? {} : { bio: request.bio }),
      createdAt: now(),
    });
    await resources.put('authors', author);
    created(ctx, `/authors/${author.id}`, authorRepresentation(author));
  });

  router.delete('/authors/:id', access('posts:write'), async (ctx: AppContext) => {
    if (!(await resources.delete('authors', idParam(ctx)))) throw notFound();
    ctx.status = 204;
  });

  return router;
}
