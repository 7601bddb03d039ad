/**
 * How the API takes its tokens and which parameters it requires, read from the document (D-SHAPES):
 * the profile's `credentials` from the security scheme the operations name, and each collection's
 * `parameters` from the header and query parameters its operations mark required, with a value from
 * the document (example, default, first enum value) or a TODO naming the parameter.
 */
import type { OpenApiDocument, Operation, Parameter, PathItem } from '../../conformance/openapi/document.ts';
import type { Credentials, RequiredParameters } from '../../conformance/target/profile.ts';

/** Headers the suite sets itself on every request that needs them. */
const SET_BY_THE_SUITE = new Set(['authorization', 'content-type', 'content-length', 'idempotency-key', 'host', 'cookie']);

/** The scheme names the document's operations require, most used first. */
function schemesInUse(doc: OpenApiDocument): string[] {
  const counts = new Map<string, number>();
  const count = (requirements: Record<string, string[]>[] | undefined): void => {
    for (const requirement of requirements ?? []) for (const name of Object.keys(requirement)) counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  count(doc.security);
  for (const item of Object.values(doc.paths ?? {})) for (const op of Object.values(item) as (Operation | undefined)[]) count(op?.security);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

/**
 * The requirement (one alternative of a `security` list) that names `scheme` with the most schemes
 * beside it: the schemes that must all be sent together.
 */
function requirementWith(doc: OpenApiDocument, scheme: string): string[] {
  const requirements = [
    ...(doc.security ?? []),
    ...Object.values(doc.paths ?? {}).flatMap((item) => (Object.values(item) as (Operation | undefined)[]).flatMap((op) => op?.security ?? [])),
  ];
  return requirements.map((r) => Object.keys(r)).filter((names) => names.includes(scheme)).sort((x, y) => y.length - x.length)[0] ?? [scheme];
}

/** Whether an API key's name says it carries the caller's secret (`x-api-key`, `X-Auth-Token`) rather than an account's id (`x-app-id`). */
const namesASecret = (name: string): boolean => /key|token|secret|auth/i.test(name) && !/[-_ ]?id$/i.test(name);

/**
 * The profile's `credentials` (undefined for the document's own Bearer, or where no scheme is used),
 * the API keys that must be sent beside them (`parameters`: Algolia requires
 * `x-algolia-application-id` and `x-algolia-api-key` together), and notes saying which scheme was read.
 */
export function credentialsFrom(doc: OpenApiDocument): { credentials?: Credentials; parameters?: RequiredParameters; notes: string[] } {
  const schemes = doc.components?.securitySchemes ?? {};
  for (const name of schemesInUse(doc)) {
    const scheme = schemes[name];
    if (!scheme) continue;
    const httpScheme = String(scheme.scheme ?? '').toLowerCase();
    if ((scheme.type === 'http' && httpScheme === 'bearer') || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return { notes: [] };
    if (scheme.type === 'http' && httpScheme === 'basic') {
      const note = `security scheme ${name} is HTTP Basic: credentials.scheme "basic" (each token is the base64 of user:password)`;
      return { credentials: { scheme: 'basic' }, notes: [note] };
    }
    // A key "in the header Authorization" is what documents such as Apideck's declare for `Authorization: Bearer <key>`.
    if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name?.toLowerCase() === 'authorization') {
      return { notes: [`security scheme ${name} is an API key in the Authorization header: sent as a bearer token (Authorization: Bearer <token>)`] };
    }
    if (scheme.type === 'apiKey' && (scheme.in === 'header' || scheme.in === 'query') && scheme.name) {
      // Keys required together: the token is the one whose name says it is the caller's secret; the others are parameters.
      const together = requirementWith(doc, name)
        .map((n) => ({ n, s: schemes[n] }))
        .filter((k): k is { n: string; s: NonNullable<typeof scheme> } => k.s?.type === 'apiKey' && (k.s.in === 'header' || k.s.in === 'query') && !!k.s.name);
      const token = together.find((k) => namesASecret(k.s.name ?? '')) ?? { n: name, s: scheme };
      const others = together.filter((k) => k !== token && k.n !== token.n);
      const credentials: Credentials = { scheme: 'apiKey', in: token.s.in as 'header' | 'query', name: token.s.name as string };
      const notes = [
        `security scheme ${token.n} is an API key in the ${token.s.in} "${token.s.name}": credentials written so ` +
          '(AUTH-BEARER-HEADER fails once; the other checks send the key)',
      ];
      if (others.length === 0) return { credentials, notes };
      const headers: Record<string, string> = {};
      const query: Record<string, string> = {};
      for (const { n, s } of others) {
        (s.in === 'header' ? headers : query)[s.name as string] = `TODO: the value of ${s.name} (security scheme ${n}, required with ${token.n})`;
      }
      notes.push(`security schemes ${others.map((k) => k.n).join(', ')} are required with ${token.n}: written as parameters with a TODO each (parameters)`);
      const parameters = parametersOf(headers, query);
      return { credentials, ...(parameters ? { parameters } : {}), notes };
    }
  }
  return { notes: [] };
}

/** The profile's `parameters` holding `headers` and `query`, each left out when empty; undefined when both are. */
export function parametersOf(headers: Record<string, string>, query: Record<string, string>): RequiredParameters | undefined {
  const found: RequiredParameters = {
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(Object.keys(query).length > 0 ? { query } : {}),
  };
  return Object.keys(found).length > 0 ? found : undefined;
}

/** The value the document gives a parameter, or a TODO marker naming it. */
function valueOf(parameter: Parameter, where: string): string {
  const schema = (typeof parameter.schema === 'object' && parameter.schema !== null ? parameter.schema : {}) as Record<string, unknown>;
  const enumValue = Array.isArray(schema.enum) ? schema.enum[0] : undefined;
  const examples = schema.examples;
  const value = parameter.example ?? schema.example ?? (Array.isArray(examples) ? examples[0] : undefined) ?? schema.default ?? enumValue;
  return value === undefined || value === null ? `TODO: a value of the required ${parameter.in} parameter ${parameter.name} (${where})` : String(value);
}

/**
 * The header and query parameters the operations of a collection (`collection`, its item `item`) mark
 * required, but those the suite sets itself and the API key the credentials carry.
 */
export function requiredParametersOf(
  collection: PathItem,
  item: PathItem | undefined,
  path: string,
  credentials?: Credentials,
): RequiredParameters | undefined {
  const headers: Record<string, string> = {};
  const query: Record<string, string> = {};
  const key = credentials?.scheme === 'apiKey' ? credentials.name.toLowerCase() : undefined;
  for (const pathItem of [collection, item]) {
    if (!pathItem) continue;
    const operations = [pathItem.get, pathItem.post, pathItem.put, pathItem.delete].filter((op): op is Operation => op !== undefined);
    const declared = [...(pathItem.parameters ?? []), ...operations.flatMap((op) => op.parameters ?? [])];
    for (const parameter of declared) {
      if (parameter.required !== true || parameter.name.toLowerCase() === key) continue;
      if (parameter.in === 'header' && !SET_BY_THE_SUITE.has(parameter.name.toLowerCase())) headers[parameter.name] ??= valueOf(parameter, path);
      if (parameter.in === 'query') query[parameter.name] ??= valueOf(parameter, path);
    }
  }
  return parametersOf(headers, query);
}
