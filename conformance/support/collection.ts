/**
 * Reading collections without relying on the project's own choices (D-SUITE-TRUST): the items of a
 * page whatever its envelope (a bare array or `items`, COLLECTION-PAGE-SHAPE being a SHOULD), and
 * every page by following the server's own `next` links, never by guessing parameter names.
 */
import type { Client } from '../transport/client.ts';
import type { HttpResponse } from '../transport/message.ts';
import { linkOf } from './links.ts';
import { listedItems } from './shape.ts';
import type { Shaped } from './shape.ts';
import type { Target } from './target.ts';

/** The items of a collection response where the collection's shape puts them (D-SHAPES): by default the body when it is an array, else its `items`. */
export function itemsOf(body: unknown, collection: Shaped = {}): Record<string, unknown>[] | undefined {
  return listedItems(body, collection);
}

/** Whether a response reports success (any 2xx: the success code is the server's choice where the document shows none). */
export function succeeded(response: HttpResponse): boolean {
  return response.status >= 200 && response.status < 300;
}

/** The pages read and the items of all of them. */
export interface Pages {
  pages: HttpResponse[];
  items: Record<string, unknown>[];
}

/**
 * Every page of the collection at `path`, following `_links.next` (at most `maxPages`), and the
 * items of all of them. Stops at a page that is not a 200 collection.
 */
export async function allPages(target: Target, client: Client, path: string, maxPages = 50, collection: Shaped = {}): Promise<Pages> {
  const pages: HttpResponse[] = [];
  const items: Record<string, unknown>[] = [];
  let next: string | undefined = path;
  while (next !== undefined && pages.length < maxPages) {
    const page = await client.get(next);
    pages.push(page);
    const found = page.status === 200 ? itemsOf(page.json, collection) : undefined;
    if (!found) break;
    items.push(...found);
    const link = linkOf(page.json, 'next');
    next = link ? target.pathOf(link.href) : undefined;
  }
  return { pages, items };
}
