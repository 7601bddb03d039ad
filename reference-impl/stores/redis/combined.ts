import { randomInt } from 'node:crypto';
import { assertPolicy } from '../../rate-limit/rounding.ts';
import { CREATED_BY } from '../types.ts';
import type {
  Creation,
  CreationOutcome,
  IdempotencyStore,
  RateLimitStore,
  RequestOperations,
  ResourceStore,
  StoredResource,
} from '../types.ts';
import { Batcher, CallFailed } from './batcher.ts';
import { NEXT_ID_LUA } from './clock-ids.ts';
import { lua } from './connection.ts';
import type { RedisConnection } from './connection.ts';
import { completedRecord, inFlight, toMs } from './idempotency.ts';
import type { RedisKeys } from './keys.ts';
import type { TokenTakes } from './token-takes.ts';

/**
 * Placeholder ids for `Creation.build`: "-1.", 13 digits drawn once per process, then the id's 1-based
 * position (1-9). Each prints as the same 18 characters in JSON and in `String()` (15 significant
 * digits round-trip exactly, and the last is not 0), none is a prefix of another (one length), no real
 * id (a positive integer) equals one, and a client cannot guess one into a request body: the drawn
 * digits never leave the process (every placeholder is replaced before a text is stored or answered).
 * Drawn once, not per creation: a random draw per creation cost as much as the rest of the planning.
 */
const PLACEHOLDER_DIGITS = String(randomInt(10 ** 12, 10 ** 13));
const PLACEHOLDERS = Array.from({ length: 9 }, (_, index) => Number(`-1.${PLACEHOLDER_DIGITS}${index + 1}`));
const PLACEHOLDER_TEXTS = PLACEHOLDERS.map(String);
if (PLACEHOLDER_TEXTS.some((text, index) => text !== `-1.${PLACEHOLDER_DIGITS}${index + 1}`)) throw new Error('placeholder ids do not print as drawn');
/** The placeholders as Lua patterns ("-" and "." escaped; digits match themselves). */
const PLACEHOLDER_PATTERNS = PLACEHOLDER_TEXTS.map((text) => text.replace(/[-.]/g, '%$&'));

/**
 * The creations of one event-loop turn (batcher.ts), run one after the other, each as it would run
 * alone. ARGV, read by a cursor: the number of plans, the number of placeholder patterns and the
 * patterns, then per plan:
 *   seqs: count, then KEYS index of each sequence (one new id each, in order);
 *   check: KEYS index of the marker key (0: none), then, when given, the item prefix of its kind;
 *   items: count, then per item: item prefix, KEYS index of its index, 1-based id number, JSON text,
 *     KEYS index of its marker key (0: none);
 *   complete: KEYS index of the idempotency record (0: none), then, when given, our in-flight record,
 *     the completed record and the ttl in ms.
 * Every text is the JSON `build` gave for the placeholder ids; the script puts the real ids in their
 * place (gsub of placeholder i by id i). Every argument of a plan is read before it runs, so a plan
 * that returns early leaves the cursor at the next one.
 * Ids come from next_id (clock-ids.ts, D-IDS).
 * Reply, one per plan: { 0, existing JSON } when the marker names a live resource, else { 1, id1, id2, … }.
 * Item keys are made from their prefix, which shares the `{res}` hash tag (keys.ts): one slot.
 */
const CREATE = lua(`${NEXT_ID_LUA}
local cursor = 1
local function arg()
  local value = ARGV[cursor]
  cursor = cursor + 1
  return value
end
local plans = tonumber(arg())
local patterns = {}
for i = 1, tonumber(arg()) do patterns[i] = arg() end
local function fill(text, ids)
  for i = 1, #ids do text = string.gsub(text, patterns[i], ids[i]) end
  return text
end
local function create()
  local seqs = {}
  for i = 1, tonumber(arg()) do seqs[i] = KEYS[tonumber(arg())] end
  local check = tonumber(arg())
  local checkItem = nil
  if check > 0 then checkItem = arg() end
  local items = {}
  for i = 1, tonumber(arg()) do
    items[i] = { prefix = arg(), index = tonumber(arg()), id = tonumber(arg()), json = arg(), mark = tonumber(arg()) }
  end
  local record = tonumber(arg())
  local inflight, completed, ttl = nil, nil, nil
  if record > 0 then inflight, completed, ttl = arg(), arg(), arg() end
  if check > 0 then
    local id = redis.call('GET', KEYS[check])
    if id then
      local existing = redis.call('GET', checkItem .. id)
      if existing then
        -- Rewritten as it is: a write, so a WAIT after this script (D-STORE-DURABILITY) also covers
        -- the earlier attempt's writes that another connection made.
        redis.call('SET', KEYS[check], id)
        return { 0, existing }
      end
    end
  end
  local ids = {}
  for i, seq in ipairs(seqs) do ids[i] = next_id(seq) end
  for _, item in ipairs(items) do
    local id = ids[item.id]
    redis.call('SET', item.prefix .. id, fill(item.json, ids))
    redis.call('ZADD', KEYS[item.index], id, id)
    if item.mark > 0 then redis.call('SET', KEYS[item.mark], id) end
  end
  if record > 0 then
    local existing = redis.call('GET', KEYS[record])
    if existing == false or existing == inflight then redis.call('SET', KEYS[record], fill(completed, ids), 'PX', ttl) end
  end
  local reply = { 1 }
  for i, id in ipairs(ids) do reply[i + 1] = id end
  return reply
end
local replies = {}
for i = 1, plans do replies[i] = create() end
return replies
`);

/** The KEYS and ARGV of one CREATE call (see CREATE for the layout). */
class ScriptArguments {
  readonly keys: string[] = [];
  readonly args: (string | number)[] = [0, PLACEHOLDER_PATTERNS.length, ...PLACEHOLDER_PATTERNS];
  private readonly keyIndex = new Map<string, number>();

  /** A key several plans of a batch share (a sequence, an index): declared once. */
  sharedKey(name: string): number {
    let index = this.keyIndex.get(name);
    if (index === undefined) {
      index = this.keys.push(name);
      this.keyIndex.set(name, index);
    }
    return index;
  }

  /** A key of one plan only (its marker, its idempotency record): no lookup. */
  key(name: string): number {
    return this.keys.push(name);
  }
}

/** The plain stores, for the steps one script does not cover (a leaky bucket's take and read, a take and claim in two slots, a Cluster's completion). */
interface Covers {
  rateLimits: RateLimitStore;
  idempotency: IdempotencyStore;
  resources: ResourceStore;
}

/** A resource's stored JSON text as the resource; a missing key (nil, or '' from a script) is undefined. */
function parseResource(raw: unknown): StoredResource | undefined {
  return typeof raw === 'string' && raw !== '' ? (JSON.parse(raw) as StoredResource) : undefined;
}

/** Adds one creation's plan to `script` (CREATE's layout); throws when it cannot be planned, adding no argument. */
function planCreation(creation: Creation, script: ScriptArguments, keys: RedisKeys, clustered: boolean): void {
  const count = creation.kinds.length;
  if (count > PLACEHOLDERS.length) throw new Error(`a creation of more than ${PLACEHOLDERS.length} resources cannot be planned`);
  const fakes = PLACEHOLDERS.slice(0, count);
  const draft = creation.build(fakes);
  const out: (string | number)[] = [count];
  for (const kind of creation.kinds) out.push(script.sharedKey(keys.sequence(kind)));
  // The marker checked is usually the one the created item carries: its key (a hash) is made once.
  const check = creation.marker;
  const checkKey = check === undefined ? 0 : script.key(keys.marker(check.kind, check.value));
  if (check === undefined) out.push(0);
  else out.push(checkKey, keys.itemPrefix(check.kind));
  out.push(draft.entries.length);
  for (const [kind, resource] of draft.entries) {
    const id = fakes.indexOf(resource.id) + 1;
    if (id === 0) throw new Error(`a created ${kind} must take its id from build()`);
    const marker = resource[CREATED_BY];
    let mark = 0;
    if (typeof marker === 'string') mark = check?.kind === kind && check.value === marker ? checkKey : script.key(keys.marker(kind, marker));
    out.push(keys.itemPrefix(kind), script.sharedKey(keys.index(kind)), id, JSON.stringify(resource), mark);
  }
  // On a Cluster the record lives in the caller's slot: it is completed by a second script (createOperation).
  const done = creation.complete;
  if (done !== undefined && !clustered) {
    out.push(script.key(keys.idempotency(done.key)), inFlight(done.fingerprint), completedRecord(done.fingerprint, draft.response), toMs(done.ttlSeconds));
  } else out.push(0);
  for (const value of out) script.args.push(value);
  script.args[0] = Number(script.args[0]) + 1;
}

/**
 * `takeAndGet`: a leaky bucket takes, then reads when admitted (through the covers). A token bucket
 * reads along with its take (token-takes.ts) on one Redis; on a Cluster the read goes out beside the take.
 */
function takeAndGetOperation(connection: RedisConnection, keys: RedisKeys, covers: Covers, tokenTakes: TokenTakes): RequestOperations['takeAndGet'] {
  return async function takeAndGet(key, policy, read) {
    assertPolicy(policy);
    if (policy.algorithm !== 'token-bucket') {
      const decision = await covers.rateLimits.take(key, policy);
      const resource = decision.allowed ? await covers.resources.get(read.kind, read.id) : undefined;
      return resource === undefined ? { decision } : { decision, resource };
    }
    const item = keys.item(read.kind, read.id);
    if (connection.clustered) {
      // The read goes out beside the take, to its own node; a caller inside its denial window reads nothing.
      const denied = tokenTakes.deniedNow(key, policy);
      if (denied !== undefined) return { decision: denied };
      const [decision, raw] = await Promise.all([covers.rateLimits.take(key, policy), connection.run((c) => c.get(item))]);
      const resource = decision.allowed ? parseResource(raw) : undefined;
      return resource === undefined ? { decision } : { decision, resource };
    }
    const { decision, along } = await tokenTakes.take(key, policy, { kind: 'get', key: item });
    const resource = decision.allowed ? parseResource(along) : undefined;
    return resource === undefined ? { decision } : { decision, resource };
  };
}

/**
 * `create`: a creation with its idempotent result in one CREATE script, batched with the creations of
 * the same event-loop turn; on a Cluster the completion is a second script, on the caller's slot.
 */
function createOperation(connection: RedisConnection, keys: RedisKeys, covers: Covers): RequestOperations['create'] {
  // Batched (batcher.ts): the creations of one event-loop turn in one CREATE script. Every key of a plan
  // but its completion is in the resources' slot, and on a Cluster completions are separate, so a
  // batch stays in one slot there too.
  // A creation that cannot be planned (a build() that ignores its ids) fails alone; the others are sent.
  const creations = new Batcher<Creation, unknown>(async (batch) => {
    const script = new ScriptArguments();
    const results: unknown[] = batch.map((creation) => {
      try {
        planCreation(creation, script, keys, connection.clustered);
        return undefined;
      } catch (error) {
        return new CallFailed(error);
      }
    });
    const planned = Number(script.args[0]);
    if (planned === 0) return results;
    const replies = await connection.script(CREATE, script.keys, script.args);
    if (!Array.isArray(replies) || replies.length !== planned) throw new Error('unexpected reply from the creation script');
    let next = 0;
    return results.map((result) => (result instanceof CallFailed ? result : replies[next++]));
  });

  return async function create(creation: Creation): Promise<CreationOutcome> {
    const reply = await creations.add(creation);
    if (!Array.isArray(reply) || reply.length < 1) throw new Error('unexpected reply from the creation script');
    if (Number(reply[0]) === 0) {
      const existing = parseResource(reply[1]);
      if (existing === undefined) throw new Error('unexpected reply from the creation script');
      return { created: false, existing };
    }
    const ids = reply.slice(1).map(Number);
    const built = creation.build(ids);
    const done = creation.complete;
    if (done !== undefined && connection.clustered) await covers.idempotency.complete(done.key, done.fingerprint, built.response, done.ttlSeconds);
    return { created: true, ids, ...built };
  };
}

/**
 * The Redis adapter's one-round-trip operations (types.ts RequestOperations). On one Redis: token
 * and read in one script, and a creation with its idempotent result in one script. On a Cluster the
 * keys of one script share a hash tag (keys.ts), so the token and the read go out together to their
 * two nodes, and a creation is one script on the resources' slot and the completion another on the
 * caller's slot. Each operation is built by its own step (takeAndGetOperation, createOperation).
 */
export function createRedisCombined(connection: RedisConnection, keys: RedisKeys, covers: Covers, tokenTakes: TokenTakes): RequestOperations {
  return {
    takeAndGet: takeAndGetOperation(connection, keys, covers, tokenTakes),
    create: createOperation(connection, keys, covers),
  };
}
