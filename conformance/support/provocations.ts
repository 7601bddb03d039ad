/**
 * Every error the suite can provoke from a profile alone, as named requests with the status the
 * conventions give them (document section 7 "Status codes"). The envelope checks run over all of them.
 */
import { uniqueValue, fillTemplate } from './template.ts';
import type { HttpResponse } from './http.ts';
import { unknownItemPath } from './target.ts';
import type { Target } from './target.ts';

export interface Provocation {
  name: string;
  status: number;
  send(): Promise<HttpResponse>;
}

const methodsToTry = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The provocations that apply to this target's profile. */
export function provocations(target: Target): Provocation[] {
  const { profile, client, anonymous } = target;
  const list: Provocation[] = [];
  list.push({ name: 'unknown route', status: 404, send: () => anonymous.get(`/hac-no-such-route-${uniqueValue()}`) });
  const withItems = target.collectionsWithItems()[0];
  if (withItems) {
    list.push({ name: `unknown id in ${withItems.itemPath}`, status: 404, send: () => client.get(unknownItemPath(withItems.itemPath)) });
  }
  const first = profile.collections[0];
  const disallowed = first ? methodsToTry.find((m) => m !== 'HEAD' && !first.methods.includes(m)) : undefined;
  if (first && disallowed) {
    list.push({ name: `${disallowed} ${first.path}`, status: 405, send: () => client.request(disallowed, first.path) });
  }
  const creatable = target.creatable();
  if (creatable) {
    list.push({
      name: `malformed JSON to ${creatable.path}`,
      status: 400,
      send: () => client.request('POST', creatable.path, { body: '{"broken": ', headers: { 'content-type': 'application/json' } }),
    });
    list.push({
      name: `text/plain body to ${creatable.path}`,
      status: 415,
      send: () => client.request('POST', creatable.path, { body: JSON.stringify(fillTemplate(creatable.create)), headers: { 'content-type': 'text/plain' } }),
    });
  }
  const invalid = profile.collections.find((c) => c.invalid !== undefined && c.methods.includes('POST'));
  if (invalid?.invalid) {
    const body = invalid.invalid.body;
    list.push({ name: `invalid body to ${invalid.path}`, status: 422, send: () => client.post(invalid.path, body) });
  }
  const prot = profile.protected;
  list.push({ name: `${prot.method} ${prot.path} without a token`, status: 401, send: () => anonymous.request(prot.method, prot.path, jsonOf(prot.body)) });
  list.push({
    name: `${prot.method} ${prot.path} with an unknown token`,
    status: 401,
    send: () => client.request(prot.method, prot.path, { ...jsonOf(prot.body), token: `hac-unknown-${uniqueValue()}` }),
  });
  const limited = profile.tokens.limited;
  if (limited) {
    list.push({
      name: `${limited.request.method} ${limited.request.path} with the limited token`,
      status: 403,
      send: () => client.request(limited.request.method, limited.request.path, { ...jsonOf(limited.request.body), token: limited.token }),
    });
  }
  const fault = profile.features?.faultInjection;
  if (fault && first) {
    for (const status of [500, 503]) {
      const send = (): Promise<HttpResponse> => client.get(first.path, { headers: { [fault.header]: String(status) } });
      list.push({ name: `injected ${status} on GET ${first.path}`, status, send });
    }
  }
  return list;
}

function jsonOf(body: unknown): { json?: unknown } {
  return body === undefined ? {} : { json: fillTemplate(body) };
}

/** Sends every provocation once (concurrently) and pairs each with its response. */
export async function provokeAll(target: Target): Promise<{ provocation: Provocation; response: HttpResponse }[]> {
  const list = provocations(target);
  const responses = await Promise.all(list.map((p) => p.send()));
  return list.map((provocation, i) => ({ provocation, response: responses[i] as HttpResponse }));
}
