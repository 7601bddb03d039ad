/**
 * Every error the suite can provoke from a profile alone, as named requests with the status the
 * conventions give them (document section 7 "Status codes"). The envelope checks run over all of them.
 */
import { uniqueValue, fillTemplate } from './template.ts';
import type { HttpResponse } from './http.ts';
import { unknownItemPath } from './target.ts';
import type { Target } from './target.ts';
import { noteBreaks } from './exchange-log.ts';

export interface Provocation {
  name: string;
  status: number;
  /** The requirement that gives the error its status: an answer with another status breaks it (D-FINDINGS). */
  requirement?: string;
  send(): Promise<HttpResponse>;
}

const methodsToTry = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The provocations that apply to this target's profile. */
export function provocations(target: Target): Provocation[] {
  const { profile, client, anonymous } = target;
  const list: Provocation[] = [];
  list.push({ name: 'unknown route', status: 404, requirement: 'STATUS-404-UNKNOWN-ROUTE', send: () => anonymous.get(`/hac-no-such-route-${uniqueValue()}`) });
  const withItems = target.collectionsWithItems()[0];
  if (withItems) {
    const send = (): Promise<HttpResponse> => client.get(unknownItemPath(withItems.itemPath));
    list.push({ name: `unknown id in ${withItems.itemPath}`, status: 404, requirement: 'STATUS-404-UNKNOWN-RESOURCE', send });
  }
  const first = profile.collections[0];
  const disallowed = first ? methodsToTry.find((m) => m !== 'HEAD' && !first.methods.includes(m)) : undefined;
  if (first && disallowed) {
    list.push({ name: `${disallowed} ${first.path}`, status: 405, requirement: 'METHOD-NOT-ALLOWED-405', send: () => client.request(disallowed, first.path) });
  }
  const creatable = target.creatable();
  if (creatable) {
    list.push({
      name: `malformed JSON to ${creatable.path}`,
      status: 400,
      requirement: 'STATUS-400-MALFORMED-JSON',
      send: () => client.request('POST', creatable.path, { body: '{"broken": ', headers: { 'content-type': 'application/json' } }),
    });
    list.push({
      name: `text/plain body to ${creatable.path}`,
      status: 415,
      requirement: 'STATUS-415-MEDIA-TYPE',
      send: () => client.request('POST', creatable.path, { body: JSON.stringify(fillTemplate(creatable.create)), headers: { 'content-type': 'text/plain' } }),
    });
  }
  const invalid = profile.collections.find((c) => c.invalid !== undefined && c.methods.includes('POST'));
  if (invalid?.invalid) {
    const body = invalid.invalid.body;
    list.push({ name: `invalid body to ${invalid.path}`, status: 422, requirement: 'STATUS-422-INVALID-VALUES', send: () => client.post(invalid.path, body) });
  }
  const prot = profile.protected;
  const sendAnonymous = (): Promise<HttpResponse> => anonymous.request(prot.method, prot.path, jsonOf(prot.body));
  list.push({ name: `${prot.method} ${prot.path} without a token`, status: 401, requirement: 'AUTH-401-MISSING', send: sendAnonymous });
  list.push({
    name: `${prot.method} ${prot.path} with an unknown token`,
    status: 401,
    requirement: 'AUTH-401-INVALID',
    send: () => client.request(prot.method, prot.path, { ...jsonOf(prot.body), token: `hac-unknown-${uniqueValue()}` }),
  });
  const limited = profile.tokens.limited;
  if (limited) {
    list.push({
      name: `${limited.request.method} ${limited.request.path} with the limited token`,
      status: 403,
      requirement: 'AUTH-403-PERMISSION',
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
  return list.map((provocation, i) => {
    const response = responses[i] as HttpResponse;
    // Another status breaks the provocation's own requirement: the envelope checks failing on this
    // answer only repeat that defect (D-FINDINGS).
    if (provocation.requirement && response.status !== provocation.status) noteBreaks(response, provocation.requirement, `${provocation.status}`);
    return { provocation, response };
  });
}
