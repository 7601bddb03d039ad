/**
 * The paths and methods the server answers, read off its resource routers (spec/decisions.md
 * D-PATHS, D-METHODS, D-AUTH): each path in D-PATHS notation (`/users/{id}`) with the access rule of
 * each method. Nothing is declared here: a route is written once, in its resource module, and this
 * table is what the 405 with `Allow`, OPTIONS and a parser-refused method (middleware/route.ts,
 * client-error.ts) and the OpenAPI tests read.
 */
import type { Router } from '@koa/router';
import { accessOf } from './middleware/role.ts';
import type { Access } from './permissions.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface MethodSpec {
  access: Access;
}

export interface RouteSpec {
  /** D-PATHS notation: `/users/{id}`. */
  pattern: string;
  methods: Partial<Record<Method, MethodSpec>>;
}

/** A path matched against the table. */
export interface RouteMatch {
  route: RouteSpec;
  /** The `Allow` header value (RFC 9110 §10.2.1), in D-METHODS order. */
  allow: string;
  /** The spec of the request method, or undefined when the method is not allowed (or is OPTIONS). */
  method: MethodSpec | undefined;
  /** The path parameters by name (`{ id: '42' }`), in canonical form (D-IDS). */
  params: Record<string, string>;
}

export interface RouteTable {
  readonly routes: readonly RouteSpec[];
  /** The route of a path (case-sensitive, no trailing slash, canonical ids: D-PATHS, D-IDS) and method; undefined for no route. */
  match(path: string, method: string): RouteMatch | undefined;
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;
const ROUTE_METHODS = new Set<string>(['GET', 'POST', 'PUT', 'DELETE']);

/** D-IDS: an id in a path is a positive integer without a sign or leading zeros, at most 16 digits. */
const CANONICAL_ID = '[1-9][0-9]{0,15}';
const CANONICAL_ID_SEGMENT = new RegExp(`^${CANONICAL_ID}$`);

/** True when `segment` is an id in its canonical form (D-IDS); any other segment names no resource. */
export function isCanonicalId(segment: string): boolean {
  return CANONICAL_ID_SEGMENT.test(segment);
}

/** The methods allowed on `route`: GET implies HEAD, OPTIONS everywhere (D-METHODS). */
export function allowedMethods(route: RouteSpec): string[] {
  const present = new Set<string>(Object.keys(route.methods));
  if (present.has('GET')) present.add('HEAD');
  present.add('OPTIONS');
  return METHOD_ORDER.filter((method) => present.has(method));
}

interface CompiledRoute {
  route: RouteSpec;
  regexp: RegExp;
  names: string[];
  allow: string;
}

/** The first segment of a path (`users` of `/users/42`): the one router that serves it (middleware/route.ts `routes`). */
export function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
}

/** The table of what `routers` answer: one entry per path, in the order the routers registered them. */
export function routeTableOf<State>(routers: readonly Router<State>[]): RouteTable {
  const byPattern = new Map<string, RouteSpec>();
  for (const router of routers) {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string' || layer.methods.length === 0) continue;
      const pattern = layer.path.replace(/:([A-Za-z]+)/g, '{$1}');
      const route = byPattern.get(pattern) ?? { pattern, methods: {} };
      const rule = accessOf(layer.stack);
      for (const method of layer.methods) {
        if (!ROUTE_METHODS.has(method)) continue;
        if (rule === undefined) throw new Error(`${method} ${layer.path} declares no access rule (routes/kit.ts access)`);
        route.methods[method as Method] = { access: rule };
      }
      byPattern.set(pattern, route);
    }
  }
  const routes = [...byPattern.values()];
  const bySegment = new Map<string, CompiledRoute[]>();
  for (const route of routes) {
    const entry: CompiledRoute = {
      route,
      regexp: new RegExp(`^${route.pattern.replace(/\{[A-Za-z]+\}/g, `(${CANONICAL_ID})`)}$`),
      names: [...route.pattern.matchAll(/\{([A-Za-z]+)\}/g)].map((found) => found[1] ?? ''),
      allow: allowedMethods(route).join(', '),
    };
    const segment = firstSegment(route.pattern);
    bySegment.set(segment, [...(bySegment.get(segment) ?? []), entry]);
  }
  return {
    routes,
    match(path, method) {
      const candidates = path.charCodeAt(0) === 47 ? bySegment.get(firstSegment(path)) : undefined;
      for (const entry of candidates ?? []) {
        const found = entry.regexp.exec(path);
        if (found === null) continue;
        const params: Record<string, string> = {};
        entry.names.forEach((name, index) => (params[name] = found[index + 1] ?? ''));
        const methods = entry.route.methods as Record<string, MethodSpec | undefined>;
        const lookup = method === 'HEAD' ? 'GET' : method;
        return { route: entry.route, allow: entry.allow, method: Object.hasOwn(methods, lookup) ? methods[lookup] : undefined, params };
      }
      return undefined;
    },
  };
}
