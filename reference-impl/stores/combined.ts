/**
 * The multi-store sequences of one request, in as few round trips as the stores allow: the
 * adapter's `combined` operations when the sub-stores are its own, else the same sub-store calls in
 * the same order (types.ts CombinedOperations). The app calls these, never `stores.combined`.
 */
import type {
  ClaimAlong,
  CombinedOperations,
  Creation,
  CreationOutcome,
  IdempotencyClaim,
  RateLimitDecision,
  RateLimitPolicy,
  ReadAlong,
  StoredResource,
  Stores,
} from './types.ts';

/** The adapter's combined operations, when every sub-store they cover is still in place. */
function combinedOf(stores: Stores): CombinedOperations | undefined {
  const combined = stores.combined;
  if (combined === undefined) return undefined;
  const { covers } = combined;
  const intact = covers.rateLimits === stores.rateLimits && covers.idempotency === stores.idempotency && covers.resources === stores.resources;
  return intact ? combined : undefined;
}

/**
 * Takes the caller's token and, when admitted, reads `read` (D-RATE-LIMIT first, then the route's read).
 * These functions are not async themselves: the adapter's promise is returned as it is, not wrapped in
 * another one (a promise and two microtasks fewer on every request).
 */
export function takeAndGet(
  stores: Stores,
  key: string,
  policy: RateLimitPolicy,
  read: ReadAlong,
): Promise<{ decision: RateLimitDecision; resource?: StoredResource }> {
  const combined = combinedOf(stores);
  return combined ? combined.takeAndGet(key, policy, read) : composedTakeAndGet(stores, key, policy, read);
}

async function composedTakeAndGet(
  stores: Stores,
  key: string,
  policy: RateLimitPolicy,
  read: ReadAlong,
): Promise<{ decision: RateLimitDecision; resource?: StoredResource }> {
  const decision = await stores.rateLimits.take(key, policy);
  if (!decision.allowed) return { decision };
  const resource = await stores.resources.get(read.kind, read.id);
  return resource === undefined ? { decision } : { decision, resource };
}

/** Takes the caller's token and, when admitted, claims the Idempotency-Key (D-IDEMPOTENCY). */
export function takeAndClaim(
  stores: Stores,
  key: string,
  policy: RateLimitPolicy,
  claim: ClaimAlong,
): Promise<{ decision: RateLimitDecision; claim?: IdempotencyClaim }> {
  const combined = combinedOf(stores);
  return combined ? combined.takeAndClaim(key, policy, claim) : composedTakeAndClaim(stores, key, policy, claim);
}

async function composedTakeAndClaim(
  stores: Stores,
  key: string,
  policy: RateLimitPolicy,
  claim: ClaimAlong,
): Promise<{ decision: RateLimitDecision; claim?: IdempotencyClaim }> {
  const decision = await stores.rateLimits.take(key, policy);
  if (!decision.allowed) return { decision };
  return { decision, claim: await stores.idempotency.claim(claim.key, claim.fingerprint, claim.lockSeconds) };
}

/**
 * Creates resources with new ids and completes the request's Idempotency-Key with the response,
 * unless an earlier attempt of the same request already created them (its `CREATED_BY` marker).
 */
export function createResources(stores: Stores, creation: Creation): Promise<CreationOutcome> {
  const combined = combinedOf(stores);
  return combined ? combined.create(creation) : composedCreate(stores, creation);
}

async function composedCreate(stores: Stores, creation: Creation): Promise<CreationOutcome> {
  const { resources } = stores;
  // The marker lookup and the id allocations go out together; ids left unused when an earlier
  // attempt is found are allowed by D-IDS (never reused, gaps allowed).
  const [existing, ids] = await Promise.all([
    creation.marker === undefined ? undefined : resources.findCreatedBy(creation.marker.kind, creation.marker.value),
    Promise.all(creation.kinds.map((kind) => resources.nextId(kind))),
  ]);
  if (existing !== undefined) return { created: false, existing };
  const built = creation.build(ids);
  await resources.putAll(built.entries);
  if (creation.complete) {
    const { key, fingerprint, ttlSeconds } = creation.complete;
    await stores.idempotency.complete(key, fingerprint, built.response, ttlSeconds);
  }
  return { created: true, ids, ...built };
}
