/**
 * How every request reaches the API in its own way (D-SHAPES): a token sent the way the profile's
 * `credentials` say (the document's `Authorization: Bearer`, an API key in a header or the query, or
 * HTTP Basic), and the header and query parameters the API requires (`parameters`, globally and per
 * collection). The client (transport/client.ts) applies it to every request it sends; a check that sets a
 * header or the Authorization value itself keeps its own.
 */
import type { Credentials, RequiredParameters, TargetProfile } from '../target/profile.ts';

/** What the client adds to each request of one profile. */
export interface Sending {
  credentials: Credentials;
  /** The profile's parameters first, then each collection's, with the path prefixes they apply to. */
  parameters: { prefix: string; parameters: RequiredParameters }[];
}

/** The document's own way: a bearer token, no parameter. */
export const BEARER_ONLY: Sending = { credentials: { scheme: 'bearer' }, parameters: [] };

/** How `profile` sends its requests. */
export function sendingOf(profile: Pick<TargetProfile, 'credentials' | 'parameters' | 'collections'>): Sending {
  const parameters = [
    ...(profile.parameters ? [{ prefix: '', parameters: profile.parameters }] : []),
    ...profile.collections.flatMap((c) => (c.parameters ? [{ prefix: c.path, parameters: c.parameters }] : [])),
  ];
  return { credentials: profile.credentials ?? { scheme: 'bearer' }, parameters };
}

/** Whether `path` (with any query) lies under the collection path `prefix`: the path itself or below it. */
function under(path: string, prefix: string): boolean {
  const bare = path.split('?')[0] ?? '';
  return prefix === '' || bare === prefix || bare.startsWith(`${prefix}/`);
}

/** `path` with `name=value` added to its query string, unless the query already names the parameter. */
function withQuery(path: string, name: string, value: string): string {
  const [bare, query = ''] = path.split(/\?(.*)/s) as [string, string?];
  const search = new URLSearchParams(query);
  if (search.has(name)) return path;
  search.append(name, value);
  return `${bare}?${search.toString()}`;
}

/** How the token is described in messages: "an API key in the X-API-Key header". */
export function credentialsText(credentials: Credentials): string {
  if (credentials.scheme === 'apiKey') return `an API key in the ${credentials.name} ${credentials.in === 'header' ? 'header' : 'query parameter'}`;
  return credentials.scheme === 'basic' ? 'HTTP Basic credentials' : 'a bearer token in Authorization';
}

/**
 * The path and headers of a request for `token` (null: none): the required parameters of the path
 * added where the request does not set them, and the token the API's way. `headers` are the request's
 * own, lower-case names; an `authorization` among them is sent as it is (the checks of the Bearer form).
 */
export function prepared(
  sending: Sending,
  path: string,
  headers: Record<string, string>,
  token: string | null,
): { path: string; headers: Record<string, string> } {
  const own = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  const out: Record<string, string> = {};
  let target = path;
  for (const { prefix, parameters } of sending.parameters) {
    if (!under(path, prefix)) continue;
    for (const [name, value] of Object.entries(parameters.headers ?? {})) if (!own.has(name.toLowerCase())) out[name.toLowerCase()] = value;
    for (const [name, value] of Object.entries(parameters.query ?? {})) target = withQuery(target, name, value);
  }
  Object.assign(out, headers);
  if (token === null || own.has('authorization')) return { path: target, headers: out };
  const { credentials } = sending;
  if (credentials.scheme === 'bearer') out.authorization = `Bearer ${token}`;
  else if (credentials.scheme === 'basic') out.authorization = `Basic ${token}`;
  else if (credentials.in === 'header') out[credentials.name.toLowerCase()] = token;
  else target = withQuery(target, credentials.name, token);
  return { path: target, headers: out };
}

/** Who a request speaks for, as it was sent: the token's carrier and value ("Bearer x", "X-API-Key: x"); undefined when it carries none. */
export function callerKeyOf(request: { url: string; headers: Record<string, string | undefined> }, credentials: Credentials): string | undefined {
  if (credentials.scheme !== 'apiKey') return request.headers.authorization;
  const value = credentials.in === 'header' ? request.headers[credentials.name.toLowerCase()] : new URL(request.url).searchParams.get(credentials.name);
  return value === undefined || value === null ? undefined : callerKeyFor(value, credentials);
}

/** The caller key (`callerKeyOf`) of requests sent with `token`. */
export function callerKeyFor(token: string, credentials: Credentials): string {
  if (credentials.scheme === 'apiKey') return `${credentials.name}: ${token}`;
  return `${credentials.scheme === 'basic' ? 'Basic' : 'Bearer'} ${token}`;
}
