/**
 * The smoke check `init` runs against `--target` once the profile is written: the target answers,
 * the valid token opens the protected endpoint and no token is a 401 (AUTH-401-MISSING), every
 * create body is accepted, the `Allow` of an OPTIONS matches the methods the document lists
 * (METHOD-ALLOW-HEADER), and the limited token is refused with 403 (AUTH-403-PERMISSION). It tells
 * the user what to fix before the first run; the suite itself is the judge.
 */
import type { TargetProfile, ProfileRequest } from '../../conformance/target/profile.ts';
import { fillTemplate } from '../../conformance/support/template.ts';
import { TODO_PREFIX } from './answers.ts';

export interface SmokeLine {
  ok: boolean;
  text: string;
}

const known = (token: string | undefined): token is string => token !== undefined && !token.startsWith(TODO_PREFIX);

async function send(baseUrl: string, request: ProfileRequest, token: string | undefined): Promise<{ status: number; detail: string }> {
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(fillTemplate(request.body));
  }
  const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers, body, signal: AbortSignal.timeout(5000) });
  const text = await response.text();
  let detail: string;
  try {
    const problem = JSON.parse(text) as { detail?: unknown; title?: unknown };
    detail = String(problem.detail ?? problem.title ?? '');
  } catch {
    detail = text.slice(0, 120);
  }
  return { status: response.status, detail };
}

/** The methods in the `Allow` header of an OPTIONS answer (RFC 9110 §10.2.1), or undefined when the target gives none. */
async function allowOf(baseUrl: string, path: string, token: string | undefined): Promise<string[] | undefined> {
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(5000),
    });
    await response.arrayBuffer();
    const allow = response.headers.get('allow');
    return response.ok && allow ? allow.split(',').map((m) => m.trim().toUpperCase()).filter(Boolean) : undefined;
  } catch {
    return undefined;
  }
}

/** The items of a collection response: the array itself, or its `items` or `data` member. */
function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return [];
  const { items, data } = body as { items?: unknown; data?: unknown };
  return Array.isArray(items) ? items : Array.isArray(data) ? data : [];
}

/**
 * The id of the first item each collection lists to the valid token (a resource that exists and that
 * caller may read), by collection name: the profile's `existingIds`, learnt from the target.
 */
export async function existingIds(profile: TargetProfile): Promise<Map<string, number | string>> {
  const found = new Map<string, number | string>();
  const token = profile.tokens.valid;
  if (!known(token)) return found;
  for (const collection of profile.collections) {
    if (!collection.methods.includes('GET') || !collection.itemPath) continue;
    try {
      const response = await fetch(`${profile.baseUrls[0] as string}${collection.path}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(5000),
      });
      if (!response.ok) continue;
      const first = itemsOf(await response.json())[0] as { id?: unknown } | undefined;
      if (typeof first?.id === 'number' || (typeof first?.id === 'string' && first.id !== '')) found.set(collection.name, first.id);
    } catch {
      // no id learnt: the suite creates its own items or skips the item checks
    }
  }
  return found;
}

/** Runs the smoke check against the profile's first base URL; one line per check. */
export async function smokeCheck(profile: TargetProfile): Promise<SmokeLine[]> {
  const baseUrl = profile.baseUrls[0] as string;
  const lines: SmokeLine[] = [];
  const check = async (
    label: string,
    request: ProfileRequest,
    token: string | undefined,
    expect: (status: number) => boolean,
    wanted: string,
  ): Promise<void> => {
    try {
      const { status, detail } = await send(baseUrl, request, token);
      const ok = expect(status);
      lines.push({ ok, text: `${label}: ${request.method} ${request.path} -> ${status}${ok ? '' : `, expected ${wanted}${detail ? ` (${detail})` : ''}`}` });
    } catch (error) {
      lines.push({ ok: false, text: `${label}: ${request.method} ${request.path} failed: ${(error as Error).message}` });
    }
  };
  const valid = known(profile.tokens.valid) ? profile.tokens.valid : undefined;
  if (!profile.protected.path.startsWith(TODO_PREFIX)) {
    await check('no token', profile.protected, undefined, (s) => s === 401, '401');
    if (valid) await check('tokens.valid', profile.protected, valid, (s) => s >= 200 && s < 300, '2xx');
  }
  if (valid) {
    for (const collection of profile.collections) {
      if (!collection.create || !collection.methods.includes('POST')) continue;
      await check(
        `collections ${collection.name} create`,
        { method: 'POST', path: collection.path, body: collection.create },
        valid,
        (s) => s >= 200 && s < 300,
        '2xx',
      );
    }
  }
  for (const collection of profile.collections) {
    const paths: [string, string[] | undefined][] = [[collection.path, collection.methods]];
    const id = collection.existingIds?.[0];
    if (collection.itemPath && id !== undefined) paths.push([collection.itemPath.replace('{id}', encodeURIComponent(String(id))), collection.itemMethods]);
    for (const [path, listed] of paths) {
      const allow = listed ? await allowOf(baseUrl, path, valid) : undefined;
      if (!allow || !listed) continue;
      const same = allow.length === listed.length && allow.every((m) => listed.includes(m));
      const problem =
        `the target's Allow is ${allow.join(', ')} but the profile lists ${listed.join(', ')} (from the document): ` +
        'the 405 checks would fail; correct the document or the profile';
      lines.push({ ok: same, text: `methods of ${path}: ${same ? listed.join(', ') : problem}` });
    }
  }
  const limited = profile.tokens.limited;
  if (limited && known(limited.token) && !limited.request.path.startsWith(TODO_PREFIX)) {
    await check('tokens.limited', limited.request, limited.token, (s) => s === 403, '403');
  }
  return lines;
}
