/**
 * Collection queries (spec/decisions.md D-QUERY): paging (`limit`, `offset`), sorting (`sort`,
 * `-field`) and exact-match filters, validated (400 `invalid-query` naming every bad parameter),
 * and the page document with `next`/`prev` links.
 */
import type { ParsedUrlQuery } from 'node:querystring';
import { type FieldError, invalidQueryProblem } from './problem.ts';
import type { StoredResource } from './stores/types.ts';

/** A filter whose value must be one of `values`; `message` names the set when it is too long to list. */
export interface EnumFilter {
  values: readonly string[];
  message: string;
}

/** How one collection may be queried. */
export interface CollectionQuerySpec {
  sortable: readonly string[];
  /** Filter parameter → how its value is parsed (`string`, a positive `integer`, an enum list or an EnumFilter). */
  filters: Readonly<Record<string, 'string' | 'integer' | readonly string[] | EnumFilter>>;
}

export interface CollectionQuery {
  limit: number;
  offset: number;
  sort: string;
  filters: Record<string, string | number>;
}

/** D-QUERY: `offset` is 0 … 999 999 999 (nine digits), `limit` 1 … 100. */
export const MAX_OFFSET = 999_999_999;
const NON_NEGATIVE = /^(0|[1-9][0-9]{0,8})$/;

/** The `field` of an error about a query parameter sent without a name (`?=x`): `field` is never empty (D-QUERY). */
export const UNNAMED_PARAMETER_FIELD = '(unnamed)';

/** Validates `query` against `spec`; throws 400 `invalid-query` listing every bad parameter. */
export function parseCollectionQuery(query: ParsedUrlQuery, spec: CollectionQuerySpec): CollectionQuery {
  const errors: FieldError[] = [];
  const result: CollectionQuery = { limit: 20, offset: 0, sort: 'id', filters: {} };
  for (const [name, raw] of Object.entries(query)) {
    if (name === '') {
      errors.push({ field: UNNAMED_PARAMETER_FIELD, message: 'a query parameter needs a name' });
      continue;
    }
    if (Array.isArray(raw) || raw === undefined) {
      errors.push({ field: name, message: 'must be given at most once' });
      continue;
    }
    if (name === 'limit') {
      const value = NON_NEGATIVE.test(raw) ? Number(raw) : NaN;
      if (value >= 1 && value <= 100) result.limit = value;
      else errors.push({ field: name, message: 'must be an integer from 1 to 100' });
    } else if (name === 'offset') {
      if (NON_NEGATIVE.test(raw)) result.offset = Number(raw);
      else errors.push({ field: name, message: `must be an integer from 0 to ${MAX_OFFSET}` });
    } else if (name === 'sort') {
      const field = raw.startsWith('-') ? raw.slice(1) : raw;
      if (spec.sortable.includes(field)) result.sort = raw;
      else errors.push({ field: name, message: `must be one of ${spec.sortable.join(', ')}, optionally prefixed with -` });
    } else if (Object.hasOwn(spec.filters, name)) {
      const kind = spec.filters[name];
      if (kind === 'integer') {
        if (/^[1-9][0-9]{0,15}$/.test(raw)) result.filters[name] = Number(raw);
        else errors.push({ field: name, message: 'must be a positive integer' });
      } else if (typeof kind === 'object' && 'message' in kind) {
        if (kind.values.includes(raw)) result.filters[name] = raw;
        else errors.push({ field: name, message: kind.message });
      } else if (Array.isArray(kind)) {
        if (kind.includes(raw)) result.filters[name] = raw;
        else errors.push({ field: name, message: `must be one of ${kind.join(', ')}` });
      } else {
        result.filters[name] = raw;
      }
    } else {
      errors.push({ field: name, message: 'is not a known query parameter' });
    }
  }
  if (errors.length > 0) throw invalidQueryProblem(errors);
  return result;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const left = String(a ?? '');
  const right = String(b ?? '');
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Filters, sorts (ties by ascending id) and slices `items` per `query`. */
export function applyQuery(items: StoredResource[], query: CollectionQuery): { page: StoredResource[]; total: number } {
  const filtered = items.filter((item) =>
    Object.entries(query.filters).every(([name, value]) => item[name] === value),
  );
  const descending = query.sort.startsWith('-');
  const field = descending ? query.sort.slice(1) : query.sort;
  const sorted = [...filtered].sort((a, b) => {
    const order = compare(a[field], b[field]);
    return (descending ? -order : order) || a.id - b.id;
  });
  return { page: sorted.slice(query.offset, query.offset + query.limit), total: filtered.length };
}

function hrefFor(path: string, query: CollectionQuery, offset: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query.filters)) params.set(name, String(value));
  if (query.sort !== 'id') params.set('sort', query.sort);
  params.set('limit', String(query.limit));
  params.set('offset', String(offset));
  return `${path}?${params.toString()}`;
}

/** The collection page document of D-QUERY: items, page numbers and self/next/prev links. */
export function pageDocument(
  path: string,
  query: CollectionQuery,
  items: unknown[],
  total: number,
): Record<string, unknown> {
  const links: Record<string, { href: string }> = { self: { href: hrefFor(path, query, query.offset) } };
  if (query.offset + query.limit < total) links.next = { href: hrefFor(path, query, query.offset + query.limit) };
  if (query.offset > 0) links.prev = { href: hrefFor(path, query, Math.max(0, query.offset - query.limit)) };
  return { items, page: { limit: query.limit, offset: query.offset, total }, _links: links };
}
