/**
 * Hypermedia links (conventions document section 2): `_links.<rel>` holds `href` and optionally
 * `method`. The client reads targets from representations and never builds URLs itself.
 */

/** One link of a representation's `_links`. */
export interface Link {
  href: string;
  method?: string;
}

/** Thrown when a representation does not offer the requested relation. */
export class LinkNotFoundError extends Error {
  override readonly name = 'LinkNotFoundError';
  readonly rel: string;
  readonly available: string[];

  constructor(rel: string, available: string[]) {
    const offered = available.length > 0 ? available.join(', ') : 'none';
    super(`the representation offers no "${rel}" link (links offered: ${offered})`);
    this.rel = rel;
    this.available = available;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * CLIENT-LINKS-FOLLOWED: the link named `rel` of a representation (or of a response whose `body`
 * is one). Throws LinkNotFoundError when the relation is absent or has no string `href`.
 */
export function findLink(resource: unknown, rel: string): Link {
  const representation = isRecord(resource) && 'status' in resource && 'body' in resource && isRecord(resource.body) ? resource.body : resource;
  const links = isRecord(representation) && isRecord(representation._links) ? representation._links : {};
  const raw = links[rel];
  const link = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw;
  if (!isRecord(link) || typeof link.href !== 'string' || link.href === '') {
    throw new LinkNotFoundError(rel, Object.keys(links));
  }
  return typeof link.method === 'string' ? { href: link.href, method: link.method.toUpperCase() } : { href: link.href };
}
