/**
 * The store interface of the reference server: one contract, two adapters (memory, Redis).
 * The app only ever sees these types; `createMemoryStores()` and `createRedisStores()` return them.
 */

/** A rate-limit plan (spec/decisions.md D-RATE-LIMIT). */
export interface RateLimitPolicy {
  /** `token-bucket` (default, section 8.3) or `leaky-bucket` (section 8.4). */
  algorithm: 'token-bucket' | 'leaky-bucket';
  /** Bucket size: the burst admitted from full (token bucket) or the queue length (leaky bucket). */
  capacity: number;
  /** Tokens added (token bucket) or requests drained (leaky bucket) per second. */
  refillPerSecond: number;
}

/** The outcome of taking one token for one request; every number is already rounded for the headers. */
export interface RateLimitDecision {
  allowed: boolean;
  /** `RateLimit-Limit`: the capacity. */
  limit: number;
  /** `RateLimit-Remaining`: whole tokens left after this request (0 when rejected). */
  remaining: number;
  /** `RateLimit-Reset`: delta-seconds until the bucket is full again, rounded up (0 when full). */
  resetSeconds: number;
  /** `Retry-After` on rejection: seconds until one token is available, rounded up, at least 1. 0 when allowed. */
  retryAfterSeconds: number;
  /** Leaky bucket only: milliseconds the admitted request must wait in the queue before it is served. */
  delayMs?: number;
}

export interface RateLimitStore {
  /** Atomically takes one token from the bucket `key` under `policy`. */
  take(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision>;
}

/** What an idempotency record keeps of a finished request (spec/decisions.md D-IDEMPOTENCY). */
export interface StoredResponse {
  status: number;
  /** Only the headers that matter: `content-type`, `location` (lower-case names). */
  headers: Record<string, string>;
  /** The parsed JSON body, or null when the response had none. */
  body: unknown;
}

export type IdempotencyClaim =
  /** The key was free: this request owns it and must `complete` or `release` it. */
  | { state: 'claimed' }
  /** Another request with the same key and fingerprint is still running. */
  | { state: 'in-flight' }
  /** The key was used with another fingerprint. */
  | { state: 'mismatch' }
  /** The key was used with this fingerprint and finished: replay `response`. */
  | { state: 'completed'; response: StoredResponse };

export interface IdempotencyStore {
  /**
   * Atomically claims `key` (already scoped per caller) for a request with `fingerprint`.
   * A claim left neither completed nor released expires after `lockSeconds`.
   */
  claim(key: string, fingerprint: string, lockSeconds: number): Promise<IdempotencyClaim>;
  /** Stores the result under a claimed key, kept for `ttlSeconds`. */
  complete(key: string, fingerprint: string, response: StoredResponse, ttlSeconds: number): Promise<void>;
  /** Frees a claimed key without a result (the work failed with a 5xx), so a retry runs it again. */
  release(key: string, fingerprint: string): Promise<void>;
}

/** A stored resource: a JSON object with a numeric `id`. */
export interface StoredResource {
  id: number;
  [member: string]: unknown;
}

/**
 * The member of a stored resource that records the idempotent request that created it
 * (never rendered). Stores index it, so `findCreatedBy` is one lookup, not a scan.
 */
export const CREATED_BY = 'createdByRequest';

/** Resource kinds the reference server keeps. */
export type ResourceKind = 'users' | 'orders' | 'payments' | 'transfers' | 'authors' | 'posts' | 'comments';

export interface ResourceStore {
  /** Allocates the next id of `kind` (1, 2, 3, …; never reused). */
  nextId(kind: ResourceKind): Promise<number>;
  /** Makes sure `nextId(kind)` never returns an id ≤ `upTo` (used when seeding fixed ids; idempotent). */
  reserveIds(kind: ResourceKind, upTo: number): Promise<void>;
  get(kind: ResourceKind, id: number): Promise<StoredResource | undefined>;
  /** Every resource of `kind`, in ascending id order. Filtering, sorting and paging are the caller's. */
  list(kind: ResourceKind): Promise<StoredResource[]>;
  /** Creates or overwrites; a string `CREATED_BY` member is indexed for `findCreatedBy`. */
  put(kind: ResourceKind, resource: StoredResource): Promise<void>;
  /**
   * Creates or overwrites several resources in one step, in order, as `put` does each (for speed:
   * one Redis round trip, MULTI/EXEC, for a payment and its transfer; the memory adapter calls
   * `this.put` for every entry within one synchronous step, so a decorated `put` sees each write).
   */
  putAll(entries: readonly (readonly [ResourceKind, StoredResource])[]): Promise<void>;
  /** The resource of `kind` whose `CREATED_BY` member equals `marker`, if it still exists. */
  findCreatedBy(kind: ResourceKind, marker: string): Promise<StoredResource | undefined>;
  /** Removes; resolves true when something was removed. */
  delete(kind: ResourceKind, id: number): Promise<boolean>;
  /**
   * Atomic read-modify-write: `change` sees the current value and returns the next one, or
   * `undefined` to leave it unchanged. Resolves to what is stored afterwards (undefined when absent).
   * Concurrent updates of one resource never lose a write. `change` must be free of side effects:
   * the Redis adapter calls it again when a concurrent update won the race.
   */
  update(
    kind: ResourceKind,
    id: number,
    change: (current: StoredResource) => StoredResource | undefined,
  ): Promise<StoredResource | undefined>;
}

/** The resource a request reads, fetched together with its rate-limit token. */
export interface ReadAlong {
  kind: ResourceKind;
  id: number;
}

/** What a creation writes and answers once its ids are known. */
export interface Built {
  entries: (readonly [ResourceKind, StoredResource])[];
  response: StoredResponse;
}

/** Resources created in one step, with the result of the idempotent request that creates them. */
export interface Creation {
  /** One new id per kind, allocated as `nextId` allocates them (ids[i] is of kinds[i]). */
  kinds: readonly ResourceKind[];
  /** When a resource of `kind` carries this `CREATED_BY` marker, nothing is created: it is returned. */
  marker?: { kind: ResourceKind; value: string };
  /**
   * The records (written as `putAll` writes them) and the response, from the new ids. Pure, and ids
   * are only copied into the values (as numbers or inside strings), never computed with: an adapter
   * may call it with placeholder ids and put the real ids in their place inside the serialised text.
   */
  build(ids: readonly number[]): Built;
  /** The claimed Idempotency-Key to complete with `response` in the same step. */
  complete?: { key: string; fingerprint: string; ttlSeconds: number };
}

export type CreationOutcome =
  | ({ created: true; ids: number[] } & Built)
  /** An earlier attempt of the same request created it (its result was never recorded). */
  | { created: false; existing: StoredResource };

/**
 * The store sequences of one request, each one operation of the store so that an adapter runs it in
 * as few round trips as it can. Each gives exactly the result of the sub-store calls it names, run in
 * that order: the memory adapter runs those calls (stores/sequences.ts), the Redis adapter one
 * script call per operation (stores/redis/combined.ts).
 */
export interface RequestOperations {
  /** `rateLimits.take(key, policy)`, then `resources.get(read.kind, read.id)` when admitted. */
  takeAndGet(key: string, policy: RateLimitPolicy, read: ReadAlong): Promise<{ decision: RateLimitDecision; resource?: StoredResource }>;
  /**
   * `resources.findCreatedBy(marker)`; when absent: `nextId` per kind, `putAll(build(ids).entries)`
   * and `idempotency.complete(…, build(ids).response, …)`, atomically where the adapter can.
   */
  create(creation: Creation): Promise<CreationOutcome>;
}

/** The parts of a store: what a variant or a test decorates (then `sequenced` gives it its request operations). */
export interface StoreParts {
  rateLimits: RateLimitStore;
  idempotency: IdempotencyStore;
  resources: ResourceStore;
  /** Resolves when the backing store answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** All stores of one server; the same object may back several app instances. */
export interface Stores extends StoreParts, RequestOperations {}

/** Thrown by any store operation when the backing store cannot be reached in time: the app answers 503. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
