import { createHash } from 'node:crypto';
import type { ResourceKind } from '../types.ts';

/**
 * Every Redis key of the adapter, in one place. Keys that one Lua script touches together share a
 * hash tag (`{…}`), so on a Redis Cluster they land in one slot (D-RATE-LIMIT "shared store"):
 * - a caller's rate-limit bucket and its idempotency records: `{<caller>}`, so the token and the
 *   Idempotency-Key claim are taken by one script;
 * - every resource, index, id sequence and creation marker: `{res}`, so a creation (ids, items,
 *   indexes, markers) and `list` stay atomic and single-slot.
 * On a single Redis the tags are plain characters of the name.
 */
export interface RedisKeys {
  /** The token-bucket hash or leaky-bucket string of a caller (`token:<sha256>` or `ip:<address>`). */
  bucket(callerKey: string, leaky: boolean): string;
  /** The idempotency record of a scoped key (`<caller>:<Idempotency-Key>`, or any other claim key). */
  idempotency(scopedKey: string): string;
  item(kind: ResourceKind, id: number | string): string;
  /** The prefix of every item key of `kind` (the item key is this plus the id). */
  itemPrefix(kind: ResourceKind): string;
  index(kind: ResourceKind): string;
  sequence(kind: ResourceKind): string;
  marker(kind: ResourceKind, marker: string): string;
  /** The hash tag of a caller key or scoped key; keys with equal tags share a slot. */
  tagOf(key: string): string;
}

/**
 * A caller key at the start of a scoped key: `token:<hex>` or an IPv4 `ip:<address>` (an IPv6
 * address has colons and cannot be told from the rest, so such a key is tagged whole: still one
 * slot per record, only its claim and the caller's token then take two scripts on a Cluster).
 */
const CALLER = /^(?:token:[0-9a-f]+|ip:[0-9.]+)(?=:|$)/;
/** Resources share one tag: a creation writes two kinds, their indexes and sequences in one script. */
const RESOURCES_TAG = 'res';

/** The hash tag of a key: its caller part when it starts with one, else the whole key (braces removed). */
export function callerTag(key: string): string {
  return (CALLER.exec(key)?.[0] ?? key).replace(/[{}]/g, '');
}

/** `key` with its hash tag in braces: `{token:ab12}:<rest>`, or `{<whole key>}`. */
function tagged(key: string): string {
  const caller = CALLER.exec(key)?.[0];
  return caller === undefined ? `{${key.replace(/[{}]/g, '')}}` : `{${caller}}${key.slice(caller.length)}`;
}

/** How many callers' token-bucket names are kept made (about 2 MB at most). */
const BUCKET_NAMES = 10_000;

/** The key names under `keyPrefix`. */
export function redisKeys(keyPrefix: string): RedisKeys {
  const res = `${keyPrefix}{${RESOURCES_TAG}}`;
  // The few per-kind names are made once: every creation and read names them, and a string made once
  // is hashed once where a batch looks it up (combined.ts ScriptArguments).
  const perKind = new Map<ResourceKind, { itemPrefix: string; index: string; sequence: string }>();
  const namesOf = (kind: ResourceKind): { itemPrefix: string; index: string; sequence: string } => {
    let names = perKind.get(kind);
    if (names === undefined) {
      names = { itemPrefix: `${res}:item:${kind}:`, index: `${res}:idx:${kind}`, sequence: `${res}:seq:${kind}` };
      perKind.set(kind, names);
    }
    return names;
  };
  // A caller's token-bucket name, made once while the caller is recent: every request names it, and the
  // denial window (denials.ts) looks it up. Bounded: the table is emptied when it reaches BUCKET_NAMES.
  const buckets = new Map<string, string>();
  const bucketName = (callerKey: string, leaky: boolean): string => `${keyPrefix}rl:${leaky ? 'lb' : 'tb'}:{${callerKey.replace(/[{}]/g, '')}}`;
  return {
    bucket: (callerKey, leaky) => {
      if (leaky) return bucketName(callerKey, true);
      let name = buckets.get(callerKey);
      if (name === undefined) {
        if (buckets.size >= BUCKET_NAMES) buckets.clear();
        name = bucketName(callerKey, false);
        buckets.set(callerKey, name);
      }
      return name;
    },
    idempotency: (scopedKey) => `${keyPrefix}idem:${tagged(scopedKey)}`,
    item: (kind, id) => `${namesOf(kind).itemPrefix}${id}`,
    itemPrefix: (kind) => namesOf(kind).itemPrefix,
    index: (kind) => namesOf(kind).index,
    sequence: (kind) => namesOf(kind).sequence,
    marker: (kind, marker) => `${res}:mark:${kind}:${createHash('sha256').update(marker).digest('hex')}`,
    tagOf: callerTag,
  };
}
