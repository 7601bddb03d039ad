/**
 * The request operations of a store (types.ts RequestOperations) as the plain sequence of the
 * sub-store calls each one names, in order: the memory adapter's, and those of a store whose parts a
 * variant or a test decorates (conformance/target/embedded.ts runs every decorated store through
 * `sequenced`, so nothing goes around a decorator). The Redis adapter runs each operation in one
 * round trip instead (stores/redis/combined.ts).
 */
import type { CreationOutcome, StoreParts, Stores } from './types.ts';

/** `parts` with the request operations made of its own sub-store calls. */
export function sequenced(parts: StoreParts): Stores {
  const { rateLimits, idempotency, resources } = parts;
  return {
    rateLimits,
    idempotency,
    resources,
    ping: () => parts.ping(),
    close: () => parts.close(),

    async takeAndGet(key, policy, read) {
      const decision = await rateLimits.take(key, policy);
      if (!decision.allowed) return { decision };
      const resource = await resources.get(read.kind, read.id);
      return resource === undefined ? { decision } : { decision, resource };
    },

    async create(creation): Promise<CreationOutcome> {
      const { marker } = creation;
      const existing = marker === undefined ? undefined : await resources.findCreatedBy(marker.kind, marker.value);
      if (existing !== undefined) return { created: false, existing };
      // Ids are allocated only when nothing was created earlier (D-IDS allows gaps, but none are made here).
      const ids = await Promise.all(creation.kinds.map((kind) => resources.nextId(kind)));
      const built = creation.build(ids);
      await resources.putAll(built.entries);
      if (creation.complete) {
        const { key, fingerprint, ttlSeconds } = creation.complete;
        await idempotency.complete(key, fingerprint, built.response, ttlSeconds);
      }
      return { created: true, ids, ...built };
    },
  };
}
