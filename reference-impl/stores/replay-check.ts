/**
 * D-IDEMPOTENCY, "a replay never names work that is gone": before a stored 201 is replayed, the
 * resource its `Location` names must still be the one this key's request created (its `CREATED_BY`
 * marker). A store that lost writes (a Redis failover to a replica that was behind) may have lost the
 * resource while the record survived, or handed its id to another request; neither is replayed.
 */
import { CREATED_BY } from './types.ts';
import type { ResourceKind, ResourceStore, StoredResponse } from './types.ts';

const KINDS: ReadonlySet<string> = new Set<ResourceKind>(['users', 'orders', 'payments', 'transfers', 'authors', 'posts', 'comments']);

/** The marker a creation carries (`CREATED_BY`): the scoped key and the request's fingerprint. */
export function creationMarker(scopedKey: string, fingerprint: string): string {
  return `${scopedKey} ${fingerprint}`;
}

/** The resource a stored 201 names by its `Location` (`…/<kind>/<id>`), else undefined. */
export function namedResource(response: StoredResponse): { kind: ResourceKind; id: number } | undefined {
  const location = response.headers.location;
  if (response.status !== 201 || location === undefined) return undefined;
  const segments = new URL(location, 'http://stored.invalid').pathname.split('/');
  const kind = segments.at(-2) ?? '';
  const id = Number(segments.at(-1));
  if (!KINDS.has(kind) || !Number.isSafeInteger(id) || id < 1) return undefined;
  return { kind: kind as ResourceKind, id };
}

/**
 * Whether replaying `response` names the work of the request with `marker`: true when it names no
 * resource, or when the resource with that marker still exists under the id it names.
 */
export async function replayNamesItsWork(resources: ResourceStore, marker: string, response: StoredResponse): Promise<boolean> {
  const named = namedResource(response);
  if (named === undefined) return true;
  const found = await resources.findCreatedBy(named.kind, marker);
  // Both: the marker's index may still point at an id that was overwritten by another key's resource.
  return found?.id === named.id && found[CREATED_BY] === marker;
}
