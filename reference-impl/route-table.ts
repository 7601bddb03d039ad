/**
 * The paths and methods of the API (spec/decisions.md D-PATHS, D-METHODS, D-AUTH): which methods
 * each path allows, who may call them, and whether they read a body. app.ts registers the
 * @koa/router routes from it (404, 405 + Allow, OPTIONS); the rate limiter looks a path up in it
 * before the router runs, to read a GET's item with the rate-limit token.
 */
import type { ResourceKind } from './stores/types.ts';

export type Permission =
  | 'users:write'
  | 'orders:read'
  | 'orders:write'
  | 'payments:read'
  | 'payments:write'
  | 'posts:write';

export const ALL_PERMISSIONS: readonly Permission[] = [
  'users:write',
  'orders:read',
  'orders:write',
  'payments:read',
  'payments:write',
  'posts:write',
];

/** `public`: no token needed; `authenticated`: any valid token; else the permission required. */
export type Access = 'public' | 'authenticated' | Permission;

/** `json`: a JSON object body is required; `empty`: no body, an empty body or `{}` (actions). */
export type BodyKind = 'json' | 'empty';

interface MethodSpec {
  access: Access;
  body?: BodyKind;
  /** The kind whose `{id}` item the GET handler reads: fetched with the rate-limit token (one round trip). */
  reads?: ResourceKind;
}

export interface RouteSpec {
  /** D-PATHS notation: `/users/{id}`. */
  pattern: string;
  methods: Partial<Record<'GET' | 'POST' | 'PUT' | 'DELETE', MethodSpec>>;
}

const read = (access: Access): MethodSpec => ({ access });
const readItem = (access: Access, reads: ResourceKind): MethodSpec => ({ access, reads });
const write = (access: Access, body: BodyKind = 'json'): MethodSpec => ({ access, body });

export const ROUTES: readonly RouteSpec[] = [
  { pattern: '/users', methods: { GET: read('public'), POST: write('users:write') } },
  {
    pattern: '/users/{id}',
    methods: { GET: readItem('public', 'users'), PUT: write('users:write'), DELETE: read('users:write') },
  },
  { pattern: '/users/{id}/orders', methods: { GET: read('orders:read') } },
  { pattern: '/account', methods: { GET: read('authenticated') } },
  { pattern: '/orders', methods: { GET: read('orders:read'), POST: write('orders:write') } },
  { pattern: '/orders/{id}', methods: { GET: readItem('orders:read', 'orders') } },
  { pattern: '/orders/{id}/cancel', methods: { POST: write('orders:write', 'empty') } },
  { pattern: '/orders/{id}/payment', methods: { POST: write('payments:write', 'empty') } },
  { pattern: '/payments', methods: { GET: read('payments:read'), POST: write('payments:write') } },
  { pattern: '/payments/{id}', methods: { GET: readItem('payments:read', 'payments') } },
  { pattern: '/transfers', methods: { GET: read('payments:read') } },
  { pattern: '/transfers/{id}', methods: { GET: readItem('payments:read', 'transfers') } },
  { pattern: '/authors', methods: { GET: read('public'), POST: write('posts:write') } },
  { pattern: '/authors/{id}', methods: { GET: readItem('public', 'authors'), DELETE: read('posts:write') } },
  { pattern: '/posts', methods: { GET: read('public'), POST: write('posts:write') } },
  { pattern: '/posts/{id}', methods: { GET: readItem('public', 'posts'), DELETE: read('posts:write') } },
  { pattern: '/posts/{id}/comments', methods: { GET: read('public'), POST: write('posts:write') } },
  {
    pattern: '/posts/{id}/comments/{commentId}',
    methods: { GET: read('public'), DELETE: read('posts:write') },
  },
];

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;

/** A path matched against the table. */
export interface RouteMatch {
  route: RouteSpec;
  /** The `Allow` header value (RFC 9110 §10.2.1), in D-METHODS order. */
  allow: string;
  /** The spec of the request method, or undefined when the method is not allowed (or is OPTIONS). */
  method: MethodSpec | undefined;
  /** The path parameters by name (`{ id: '42' }`), already in canonical form (D-IDS). */
  params: Record<string, string>;
}

const CANONICAL_ID = '[1-9][0-9]{0,15}';

interface CompiledRoute {
  route: RouteSpec;
  regexp: RegExp;
  names: string[];
  allow: string;
}

const compiled: CompiledRoute[] = ROUTES.map((route) => ({
  route,
  regexp: new RegExp(`^${route.pattern.replace(/\{[A-Za-z]+\}/g, `(${CANONICAL_ID})`)}$`),
  names: [...route.pattern.matchAll(/\{([A-Za-z]+)\}/g)].map((found) => found[1] ?? ''),
  allow: allowedMethods(route).join(', '),
}));

const compiledByRoute = new Map(compiled.map((entry) => [entry.route, entry]));

/** The path of `route` as the router matches it: case-sensitive, no trailing slash, canonical ids (D-PATHS, D-IDS). */
export function pathRegExp(route: RouteSpec): RegExp {
  return compiledByRoute.get(route)?.regexp ?? new RegExp(`^${route.pattern}$`);
}

/** The `Allow` value and the path parameters of `route` from the router's captures (`{ id: '42' }`). */
export function describeMatch(route: RouteSpec, captures: readonly string[], method: string): RouteMatch {
  const entry = compiledByRoute.get(route);
  const params: Record<string, string> = {};
  entry?.names.forEach((name, index) => (params[name] = captures[index] ?? ''));
  const methods = route.methods as Record<string, MethodSpec | undefined>;
  const lookup = method === 'HEAD' ? 'GET' : method;
  return { route, allow: entry?.allow ?? '', method: Object.hasOwn(methods, lookup) ? methods[lookup] : undefined, params };
}

/** The compiled routes by their first path segment (`users`), so a lookup tests only a few patterns. */
const bySegment = new Map<string, CompiledRoute[]>();
for (const entry of compiled) {
  const segment = firstSegment(entry.route.pattern);
  const list = bySegment.get(segment) ?? [];
  list.push(entry);
  bySegment.set(segment, list);
}

function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
}

/** The methods allowed on `route`: GET implies HEAD, OPTIONS everywhere (D-METHODS). */
export function allowedMethods(route: RouteSpec): string[] {
  const present = new Set<string>(Object.keys(route.methods));
  if (present.has('GET')) present.add('HEAD');
  present.add('OPTIONS');
  return METHOD_ORDER.filter((method) => present.has(method));
}

/**
 * Matches a request path (case-sensitive, no trailing slash, ids in canonical positive-integer
 * form per D-IDS) and method; undefined when the path names no route.
 */
export function matchRoute(path: string, method: string): RouteMatch | undefined {
  const candidates = path.charCodeAt(0) === 47 ? bySegment.get(firstSegment(path)) : undefined;
  if (candidates === undefined) return undefined;
  for (const entry of candidates) {
    const found = entry.regexp.exec(path);
    if (found === null) continue;
    const params: Record<string, string> = {};
    for (let index = 0; index < entry.names.length; index += 1) params[entry.names[index] ?? ''] = found[index + 1] ?? '';
    const lookup = method === 'HEAD' ? 'GET' : method;
    const methods = entry.route.methods as Record<string, MethodSpec | undefined>;
    return { route: entry.route, allow: entry.allow, method: Object.hasOwn(methods, lookup) ? methods[lookup] : undefined, params };
  }
  return undefined;
}
