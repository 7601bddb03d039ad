/** Authors (spec/decisions.md D-PATHS, D-FIELDS): public reads, create and delete with `posts:write`. */
import { RouteSet } from './route-set.ts';
import type { Deps } from '../context.ts';
import { notFound } from '../problem.ts';
import { applyQuery, pageDocument, parseCollectionQuery } from '../query.ts';
import { authorRepresentation } from '../representations.ts';
import type { StoredResource } from '../stores/types.ts';
import { created, createdEarlier, getOr404, idParam, now, stamp, validBody } from './common.ts';

const AUTHOR_QUERY = { sortable: ['id', 'name'], filters: {} } as const;

interface AuthorRequest {
  name: string;
  bio?: string;
}

/** The authors router. */
export function authorsRoutes({ stores }: Deps): RouteSet {
  const router = new RouteSet();
  const resources = stores.resources;

  router.get('/authors', async (ctx) => {
    const query = parseCollectionQuery(ctx.query, AUTHOR_QUERY);
    const { page, total } = applyQuery(await resources.list('authors'), query);
    ctx.body = pageDocument(ctx.path, query, page.map(authorRepresentation), total);
  });

  router.get('/authors/{id}', async (ctx) => {
    ctx.body = authorRepresentation(await getOr404(resources, 'authors', idParam(ctx), ctx));
  });

  router.post('/authors', async (ctx) => {
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

  router.delete('/authors/{id}', async (ctx) => {
    if (!(await resources.delete('authors', idParam(ctx)))) throw notFound();
    ctx.status = 204;
  });

  return router;
}
