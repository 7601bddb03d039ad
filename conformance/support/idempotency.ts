/**
 * The profile's idempotent endpoint as the checks use it (document section 8 "Idempotency keys",
 * D-IDEMPOTENCY, D-PROFILE `idempotency`): bodies filled once per check, a fresh key, the
 * Idempotency-Key header, counting the endpoint's collection, and catching a request whose key is in flight.
 */
import type { Client } from '../transport/client.ts';
import { delay } from '../transport/http.ts';
import type { HttpResponse } from '../transport/message.ts';
import { exchangeText } from './problem.ts';
import { collectionCount } from './target.ts';
import { fillTemplate, uniqueValue } from './template.ts';
import type { ProfileCollection, TargetProfile } from '../target/profile.ts';

/** The skip reason of every check that needs the profile's `idempotency` member. */
export const NO_IDEMPOTENT_ENDPOINT = 'the profile names no endpoint accepting Idempotency-Key (idempotency)';

export interface IdempotentEndpoint {
  path: string;
  /** `idempotency.body`, filled once for this check. */
  body: Record<string, unknown>;
  /** `idempotency.otherBody`, filled with the same unique value: another payload for the same key. */
  otherBody: Record<string, unknown>;
  /** Where the created resources are listed: `idempotency.collectionPath`, else `path`. */
  collectionPath: string;
  /** The invalid body the profile gives for the endpoint's collection, if any. */
  invalidBody?: unknown;
  /** The collection the endpoint creates in, for its shapes (D-SHAPES), when the profile lists it. */
  collection?: ProfileCollection;
  /** The caller the check sends as (the counting caller, see fixtures.ts). */
  caller: Client;
  /** POSTs `body` (default: `body` above) as the caller, with `Idempotency-Key: key` when a key is given, and any other `headers`. */
  send(key?: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
}

/** The profile's idempotent endpoint for `caller`, or undefined when the profile names none. */
export function idempotentEndpointOf(profile: TargetProfile, caller: Client): IdempotentEndpoint | undefined {
  const idem = profile.idempotency;
  if (!idem) return undefined;
  const unique = uniqueValue();
  const invalid = profile.collections.find((c) => c.path === idem.path && c.invalid)?.invalid;
  const collection = profile.collections.find((c) => c.path === (idem.collectionPath ?? idem.path)) ?? profile.collections.find((c) => c.path === idem.path);
  const body = fillTemplate(idem.body, unique);
  return {
    path: idem.path,
    body,
    otherBody: fillTemplate(idem.otherBody, unique),
    collectionPath: idem.collectionPath ?? idem.path,
    ...(invalid ? { invalidBody: invalid.body } : {}),
    ...(collection ? { collection } : {}),
    caller,
    send: (key, sent = body, headers = {}) => caller.post(idem.path, sent, key === undefined ? { headers } : keyed(key, headers)),
  };
}

/**
 * A race shows only when the requests overlap, and a busy machine may serialise one wave of them:
 * up to this many waves are sent, each with a fresh key, and the first wave that shows a defect is
 * the one judged (provoke where defects hide; a conforming server passes every wave).
 */
export const CONCURRENT_WAVES = 4;

/** Whether `answer` is the stored result of `first`, its status and body: what a key arriving again may get (D-IDEMPOTENCY). */
export function isStoredResult(answer: HttpResponse, first: HttpResponse): boolean {
  return answer.status === first.status && JSON.stringify(answer.json) === JSON.stringify(first.json);
}

/** A key no request has used yet. */
export function freshKey(): string {
  return `hac-${uniqueValue()}`;
}

/** Request options carrying `Idempotency-Key: key` (and any other `headers`). */
export function keyed(key: string, headers: Record<string, string> = {}): { headers: Record<string, string> } {
  return { headers: { 'idempotency-key': key, ...headers } };
}

/** The number of items the caller's collection of the endpoint lists now (page.total, total or the items). */
export async function countItems(e: IdempotentEndpoint): Promise<number> {
  const response = await e.caller.get(e.collectionPath);
  const n = collectionCount(response.json, e.collection);
  if (n === undefined) throw new Error(`cannot count the collection: ${exchangeText(response)}`);
  return n;
}

/**
 * Sends `body` with a fresh key and the slow fault value and, while it runs, the same request without
 * the fault: up to three tries until that second answer is a 409 (on a loaded machine the second
 * request may overtake the first before its claim). Returns the last second answer, whatever it was.
 */
export async function secondWhileSlow(client: Client, path: string, body: unknown, fault: { header: string; slowValue: string }): Promise<HttpResponse> {
  let second: HttpResponse | undefined;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const key = freshKey();
    const slow = client.post(path, body, keyed(key, { [fault.header]: fault.slowValue }));
    await delay(100 + attempt * 100);
    second = await client.post(path, body, keyed(key));
    await slow;
    if (second.status === 409) return second;
  }
  return second as HttpResponse;
}

/**
 * Tries to catch a request whose key is in flight: with the profile's slow fault value when it gives
 * one (the profile promises a window in which the key is in flight, so what answered instead is the
 * failure), else by 20 concurrent requests with one key, five rounds; undefined when none overlapped.
 */
export async function catchInFlight(e: IdempotentEndpoint, fault: { header: string; slowValue?: string } | undefined): Promise<HttpResponse | undefined> {
  if (fault?.slowValue) return secondWhileSlow(e.caller, e.path, e.body, { header: fault.header, slowValue: fault.slowValue });
  for (let round = 0; round < 5; round += 1) {
    const key = freshKey();
    const responses = await Promise.all(Array.from({ length: 20 }, () => e.send(key)));
    const inFlight = responses.find((r) => r.status === 409);
    if (inFlight) return inFlight;
  }
  return undefined;
}
