import { CREATED_BY } from '../types.ts';
import type { ResourceKind, ResourceStore, StoredResource } from '../types.ts';
import { NEXT_ID } from './clock-ids.ts';
import { lua } from './connection.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';

/** KEYS[1] = sequence; ARGV[1] = upTo. Raises the sequence to upTo, never lowers it. */
const RESERVE = lua(`
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`);

/** KEYS[1] = resource; ARGV = value read, value to write. Compare-and-set on the whole JSON. */
const COMPARE_AND_SET = lua(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

/**
 * ARGV[1] = n, then per entry: id, JSON, marked (1|0); KEYS per entry: item, index, and the marker
 * key when marked. Writes every item with its index entry and marker in one atomic step.
 */
const PUT_ALL = lua(`
local k = 1
for i = 0, tonumber(ARGV[1]) - 1 do
  local id, json, marked = ARGV[2 + i * 3], ARGV[3 + i * 3], ARGV[4 + i * 3]
  redis.call('SET', KEYS[k], json)
  redis.call('ZADD', KEYS[k + 1], id, id)
  k = k + 2
  if marked == '1' then
    redis.call('SET', KEYS[k], id)
    k = k + 1
  end
end
return 1
`);

const MAX_UPDATE_ATTEMPTS = 1000;

/** Throws the first error reply of a MULTI/EXEC, else returns the replies. */
function execReplies(results: [Error | null, unknown][] | null): unknown[] {
  if (results === null) throw new Error('transaction aborted');
  for (const [error] of results) if (error) throw error;
  return results.map(([, reply]) => reply);
}
const MGET_BATCH = 500;

/**
 * Resources in Redis (key names in keys.ts, all under one hash tag): an item key holds the JSON, a
 * sorted set per kind (score = id) orders them for `list`, a sequence per kind allocates ids
 * (clock-ids.ts: never reused, not even after a failover rolled the sequence back), a marker key
 * per kind and sha256 of a creation marker (`CREATED_BY`) maps it to its id; `put` and `putAll` write all three in one Lua script.
 * `update` is an optimistic compare-and-set loop, so concurrent updates never lose a write.
 */
export function createRedisResources(connection: RedisConnection, keys: RedisKeys): ResourceStore {
  const itemKey = keys.item;
  const indexKey = keys.index;
  const sequenceKey = keys.sequence;
  const markerKey = keys.marker;
  const parse = (raw: string | null | undefined): StoredResource | undefined => (raw == null ? undefined : (JSON.parse(raw) as StoredResource));

  /** One script for every entry: the item, its index entry and its marker (atomic, one command). */
  async function putAll(entries: readonly (readonly [ResourceKind, StoredResource])[]): Promise<void> {
    if (entries.length === 0) return;
    const keys: string[] = [];
    const args: (string | number)[] = [entries.length];
    for (const [kind, resource] of entries) {
      const marker = resource[CREATED_BY];
      const marked = typeof marker === 'string';
      keys.push(itemKey(kind, resource.id), indexKey(kind));
      if (marked) keys.push(markerKey(kind, marker));
      args.push(resource.id, JSON.stringify(resource), marked ? 1 : 0);
    }
    await connection.script(PUT_ALL, keys, args);
  }

  return {
    async nextId(kind) {
      return Number(await connection.script(NEXT_ID, [sequenceKey(kind)], []));
    },
    async reserveIds(kind, upTo) {
      await connection.script(RESERVE, [sequenceKey(kind)], [Math.floor(upTo)]);
    },
    async get(kind, id) {
      return parse(await connection.run((c) => c.get(itemKey(kind, id))));
    },
    async list(kind) {
      const ids = await connection.run((c) => c.zrange(indexKey(kind), '0', '-1'));
      const found: StoredResource[] = [];
      for (let start = 0; start < ids.length; start += MGET_BATCH) {
        const keys = ids.slice(start, start + MGET_BATCH).map((id) => itemKey(kind, Number(id)));
        const values = await connection.run((c) => c.mget(...keys));
        for (const value of values) {
          const resource = parse(value);
          if (resource !== undefined) found.push(resource);
        }
      }
      return found;
    },
    async put(kind, resource) {
      await putAll([[kind, resource]]);
    },
    putAll,
    async findCreatedBy(kind, marker) {
      const id = await connection.run((c) => c.get(markerKey(kind, marker)));
      return id === null ? undefined : this.get(kind, Number(id));
    },
    async delete(kind, id) {
      const [deleted] = execReplies(await connection.run((c) => c.multi().del(itemKey(kind, id)).zrem(indexKey(kind), String(id)).exec()));
      return Number(deleted) > 0;
    },
    async update(kind, id, change) {
      const key = itemKey(kind, id);
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt += 1) {
        const raw = await connection.run((c) => c.get(key));
        if (raw === null) return undefined;
        const next = change(JSON.parse(raw) as StoredResource);
        if (next === undefined) return parse(raw);
        const json = JSON.stringify({ ...next, id });
        if ((await connection.script(COMPARE_AND_SET, [key], [raw, json])) === 1) return parse(json);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt + 1)));
      }
      throw new Error(`update of ${kind} ${id} kept conflicting after ${MAX_UPDATE_ATTEMPTS} attempts`);
    },
  };
}
