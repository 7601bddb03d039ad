/** Reading `_links` (document section 2, D-FIELDS): shapes, and following a link from a response. */
import type { Client } from '../transport/client.ts';
import type { HttpResponse } from '../transport/message.ts';

export interface Link {
  href: string;
  method?: string;
}

/** The `_links` member of a representation, or undefined. */
export function linksOf(body: unknown): Record<string, unknown> | undefined {
  const links = (body as { _links?: unknown } | undefined)?._links;
  return links !== null && typeof links === 'object' && !Array.isArray(links) ? (links as Record<string, unknown>) : undefined;
}

/**
 * Every way a `_links` object breaks the shape rule (LINKS-SHAPE); empty when it conforms. The document
 * states each value is "an object with `href` (string, path of the target) and optionally `method`"; it
 * forbids no other member, so HAL's `title`, `name`, `type`, `profile` or `templated` beside them pass.
 */
export function linkShapeIssues(links: unknown): string[] {
  if (links === null || typeof links !== 'object' || Array.isArray(links)) return [`_links is not an object: ${JSON.stringify(links)}`];
  const issues: string[] = [];
  for (const [rel, value] of Object.entries(links)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      issues.push(`${rel}: not an object`);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.href !== 'string' || record.href === '') issues.push(`${rel}: href is not a non-empty string`);
    if ('method' in record && (typeof record.method !== 'string' || !/^[A-Z]+$/.test(record.method))) issues.push(`${rel}: method is not an HTTP method`);
  }
  return issues;
}

/** The link `rel` of a representation, when present and shaped. */
export function linkOf(body: unknown, rel: string): Link | undefined {
  const value = linksOf(body)?.[rel] as Partial<Link> | undefined;
  if (!value || typeof value.href !== 'string') return undefined;
  return typeof value.method === 'string' ? { href: value.href, method: value.method } : { href: value.href };
}

/** Follows a link read from a response: its method (GET without one) to its href, no body. */
export function follow(target: { pathOf(href: string): string }, client: Client, link: Link): Promise<HttpResponse> {
  return client.request(link.method ?? 'GET', target.pathOf(link.href));
}
