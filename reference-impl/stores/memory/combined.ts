import type { CombinedOperations, CreationOutcome } from '../types.ts';
import type { MemoryIdempotency } from './idempotency.ts';
import type { MemoryRateLimits } from './rate-limits.ts';
import type { MemoryResources } from './resources.ts';

/**
 * The combined operations of the memory adapter (types.ts CombinedOperations): the same sub-store
 * calls in the same order, run as one synchronous step, so a request's token and read, token and
 * claim, or creation and completion cost one promise instead of one per call (D-RATE-LIMIT,
 * D-IDEMPOTENCY: the result is exactly that of the calls they stand for).
 */
export function createMemoryCombined(rateLimits: MemoryRateLimits, idempotency: MemoryIdempotency, resources: MemoryResources): CombinedOperations {
  return {
    covers: { rateLimits, idempotency, resources },
    async takeAndGet(key, policy, read) {
      const decision = rateLimits.takeNow(key, policy);
      if (!decision.allowed) return { decision };
      const resource = resources.getNow(read.kind, read.id);
      return resource === undefined ? { decision } : { decision, resource };
    },
    async takeAndClaim(key, policy, claim) {
      const decision = rateLimits.takeNow(key, policy);
      if (!decision.allowed) return { decision };
      return { decision, claim: idempotency.claimNow(claim.key, claim.fingerprint, claim.lockSeconds) };
    },
    async create(creation): Promise<CreationOutcome> {
      const { marker } = creation;
      const existing = marker === undefined ? undefined : resources.findCreatedByNow(marker.kind, marker.value);
      if (existing !== undefined) return { created: false, existing };
      const ids = creation.kinds.map((kind) => resources.nextIdNow(kind));
      const { entries, response } = creation.build(ids);
      for (const [kind, resource] of entries) resources.putNow(kind, resource);
      const { complete } = creation;
      if (complete !== undefined) idempotency.completeNow(complete.key, complete.fingerprint, response, complete.ttlSeconds);
      return { created: true, ids, entries, response };
    },
  };
}
