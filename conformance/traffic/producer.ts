/**
 * Who produced a response (D-TRAFFIC): its status, the request's method and the route template of the
 * request's path, as `404 GET /widgets/{id}`. Violations of one rule by one producer are one finding
 * however many exchanges show them: a thousand identical 401s without a challenge are one defect.
 *
 * The route template comes from the API's own paths, as the profile declares them (collections, item
 * paths, the protected and idempotent requests); a path none of them matches keeps its literal
 * segments, with the segments that look like generated values (numbers, UUIDs, long hexadecimal or
 * random-looking tokens the suite made up) written `{…}`.
 */
import type { TargetProfile } from '../target/profile.ts';

/** A declared template, split into segments, `{name}` matching any one segment. */
type Template = { text: string; segments: string[] };

function templateOf(text: string): Template {
  return { text, segments: text.split('/').filter((s) => s !== '') };
}

/** The templates of the paths the profile declares, most literal segments first (so `/users/me` wins over `/users/{id}`). */
export function routeTemplates(profile: Pick<TargetProfile, 'collections' | 'protected' | 'idempotency' | 'tokens'>): Template[] {
  const texts = new Set<string>();
  for (const c of profile.collections) {
    texts.add(c.path);
    if (c.itemPath) texts.add(c.itemPath);
  }
  texts.add(profile.protected.path);
  if (profile.idempotency) texts.add(profile.idempotency.path);
  if (profile.tokens.limited) texts.add(profile.tokens.limited.request.path);
  const literal = (t: Template): number => t.segments.filter((s) => !/^\{.*\}$/.test(s)).length;
  return [...texts].map((t) => templateOf(t.split('?')[0] ?? t)).sort((a, b) => literal(b) - literal(a));
}

/** A segment the suite or the server generated rather than a route's own name. */
function generatedSegment(segment: string): boolean {
  return (
    /^\d+$/.test(segment) ||
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(segment) ||
    /^[0-9a-f]{12,}$/i.test(segment) ||
    /^hac-/i.test(segment) ||
    /%/.test(segment) ||
    segment.length > 40
  );
}

/** The route template of `path` (no query): a declared template it matches, else its segments with generated ones written `{…}`. */
export function routeOf(path: string, templates: readonly Template[]): string {
  const segments = path.split('/').filter((s) => s !== '');
  const match = templates.find(
    (t) => t.segments.length === segments.length && t.segments.every((s, i) => /^\{.*\}$/.test(s) || s === segments[i]),
  );
  if (match) return match.text;
  return `/${segments.map((s) => (generatedSegment(s) ? '{…}' : s)).join('/')}`;
}

/** The producer of an answer: `status METHOD route`. */
export function producerOf(status: number, method: string, url: string, templates: readonly Template[]): string {
  return `${status} ${method.toUpperCase()} ${routeOf(new URL(url).pathname, templates)}`;
}
