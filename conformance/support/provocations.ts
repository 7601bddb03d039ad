/**
 * Every error the suite can provoke from a profile alone, as named requests with the status the
 * project gives them (`status`) and the statuses the document allows (`accepted`, D-SUITE-TRUST):
 * where the document's status table fixes the answer they are the same; where it does not (a body
 * without a JSON media type: the table has no 415) every 4xx is allowed and the project's choice is
 * a SHOULD of its own. The envelope checks run over all of them.
 */
import { uniqueValue, fillTemplate } from './template.ts';
import type { HttpResponse } from '../transport/message.ts';
import type { Target } from './target.ts';
import { noteBreaks } from '../transport/exchange-log.ts';
import { problemIssues } from './problem.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';

export interface Provocation {
  name: string;
  /** The project's answer (document section 7 "Status codes", or the project's SHOULD where the table has none). */
  status: number;
  /** The answers a MUST accepts: `status` alone where the document fixes it (D-SUITE-TRUST). */
  accepted: readonly number[];
  /** The MUST that gives the error its status: an answer outside `accepted` breaks it (D-FINDINGS). */
  requirement?: RequirementId;
  send(): Promise<HttpResponse>;
}

/** Every 4xx: "4xx means the client must change something" (document section 7) is all the document says of them. */
const ANY_4XX: readonly number[] = Array.from({ length: 100 }, (_, i) => 400 + i);

/** `provocation` with exactly its own status accepted (the document's table fixes it). */
function fixed(provocation: Omit<Provocation, 'accepted'>): Provocation {
  return { ...provocation, accepted: [provocation.status] };
}

/** How a MUST names what a provocation accepts, for failure messages. */
export function acceptedText(provocation: Provocation): string {
  return provocation.accepted === ANY_4XX ? 'a 4xx' : provocation.accepted.join(' or ');
}

const methodsToTry = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The provocations that apply to this target's profile: routes and methods, bodies, credentials, injected faults. */
export function provocations(target: Target): Provocation[] {
  return [...routeProvocations(target), ...bodyProvocations(target), ...credentialProvocations(target), ...faultProvocations(target)];
}

/** An unknown route, an unknown id and a method the first collection does not allow. */
function routeProvocations(target: Target): Provocation[] {
  const { profile, client, anonymous } = target;
  const list: Provocation[] = [];
  const unknownRoute = (): Promise<HttpResponse> => anonymous.get(`/hac-no-such-route-${uniqueValue()}`);
  list.push(fixed({ name: 'unknown route', status: 404, requirement: 'STATUS-404-UNKNOWN-ROUTE', send: unknownRoute }));
  // A method the item path allows: a DELETE-only item path answers GET with 405, rightly (D-SUITE-TRUST).
  const unknownItem = target.collectionsWithItems().map((c) => target.unknownItemRequest(c)).find((r) => r !== undefined);
  if (unknownItem) {
    const name = `unknown id: ${unknownItem.method} ${unknownItem.path}`;
    list.push(fixed({ name, status: 404, requirement: 'STATUS-404-UNKNOWN-RESOURCE', send: unknownItem.send }));
  }
  const first = profile.collections[0];
  const disallowed = first ? methodsToTry.find((m) => m !== 'HEAD' && !first.methods.includes(m)) : undefined;
  if (first && disallowed) {
    const send = (): Promise<HttpResponse> => client.request(disallowed, first.path);
    list.push(fixed({ name: `${disallowed} ${first.path}`, status: 405, requirement: 'METHOD-NOT-ALLOWED-405', send }));
  }
  return list;
}

/** Malformed JSON, a body without a JSON media type, and invalid values. */
function bodyProvocations(target: Target): Provocation[] {
  const { profile, client } = target;
  const list: Provocation[] = [];
  const creatable = target.creatable();
  if (creatable) {
    list.push(fixed({
      name: `malformed JSON to ${creatable.path}`,
      status: 400,
      requirement: 'STATUS-400-MALFORMED-JSON',
      send: () => client.request('POST', creatable.path, { body: '{"broken": ', headers: { 'content-type': 'application/json' } }),
    }));
    // The status table has no 415: 400, 415 or 422 are all allowed (MEDIA-TYPE-415 asks for 415).
    list.push({
      name: `text/plain body to ${creatable.path}`,
      status: 415,
      accepted: ANY_4XX,
      requirement: 'STATUS-415-MEDIA-TYPE',
      send: () => client.request('POST', creatable.path, { body: JSON.stringify(fillTemplate(creatable.create)), headers: { 'content-type': 'text/plain' } }),
    });
  }
  const invalid = profile.collections.find((c) => c.invalid !== undefined && c.methods.includes('POST'));
  if (invalid?.invalid) {
    const body = invalid.invalid.body;
    const send = (): Promise<HttpResponse> => client.post(invalid.path, body);
    list.push(fixed({ name: `invalid body to ${invalid.path}`, status: 422, requirement: 'STATUS-422-INVALID-VALUES', send }));
  }
  return list;
}

/** The protected endpoint without a token and with an unknown one, and the limited token's request. */
function credentialProvocations(target: Target): Provocation[] {
  const { profile, client, anonymous } = target;
  const list: Provocation[] = [];
  const prot = profile.protected;
  const withoutToken = (): Promise<HttpResponse> => anonymous.request(prot.method, prot.path, jsonOf(prot.body));
  list.push(fixed({ name: `${prot.method} ${prot.path} without a token`, status: 401, requirement: 'AUTH-401-MISSING', send: withoutToken }));
  list.push(fixed({
    name: `${prot.method} ${prot.path} with an unknown token`,
    status: 401,
    requirement: 'AUTH-401-INVALID',
    send: () => client.request(prot.method, prot.path, { ...jsonOf(prot.body), token: `hac-unknown-${uniqueValue()}` }),
  }));
  const limited = profile.tokens.limited;
  if (limited) {
    list.push(fixed({
      name: `${limited.request.method} ${limited.request.path} with the limited token`,
      status: 403,
      requirement: 'AUTH-403-PERMISSION',
      send: () => client.request(limited.request.method, limited.request.path, { ...jsonOf(limited.request.body), token: limited.token }),
    }));
  }
  return list;
}

/** A 500 and a 503 injected on GET of the first collection (features.faultInjection). */
function faultProvocations(target: Target): Provocation[] {
  const { profile, client } = target;
  const fault = profile.features?.faultInjection;
  const first = profile.collections[0];
  if (!fault || !first) return [];
  return [500, 503].map((status) => {
    const send = (): Promise<HttpResponse> => client.get(first.path, { headers: { [fault.header]: String(status) } });
    return fixed({ name: `injected ${status} on GET ${first.path}`, status, send });
  });
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
    // An answer outside what its MUST accepts breaks that MUST: the envelope checks failing on this
    // answer only repeat that defect (D-FINDINGS).
    if (provocation.requirement && !provocation.accepted.includes(response.status)) {
      noteBreaks(response, provocation.requirement, acceptedText(provocation));
    }
    // An error answer that is no problem document breaks the first envelope rule it breaks (problemIssues):
    // a check over every provoked error failing on it for that alone repeats that defect.
    problemIssues(response);
    return { provocation, response };
  });
}
