import { randomInt } from 'node:crypto';
import { assertPolicy } from '../../rate-limit/rounding.ts';
import { CREATED_BY } from '../types.ts';
import type { CombinedOperations, Creation, IdempotencyStore, RateLimitStore, ResourceStore, StoredResource } from '../types.ts';
import { Batcher, CallFailed } from './batcher.ts';
import { lua } from './connection.ts';
import type { RedisConnection } from './connection.ts';
import { claimOf, completedRecord, inFlight, toMs } from './idempotency.ts';
import type { RedisKeys } from './keys.ts';
import { LEAKY_BUCKET_THEN_CLAIM } from './rate-limit-scripts.ts';
import { decisionOf } from './rate-limits.ts';
import type { TokenTakes } from './token-takes.ts';

/**
 * KEYS = every key the creations touch. ARGV[1] = the plans (a JSON array: several creations of one
 * event-loop turn go out together, batcher.ts, and run one after the other, each as it would alone).
 * A plan names keys by their KEYS index and texts by their ARGV index, so no key or text is sent twice
 * and no JSON is escaped inside JSON: `check` (marker key) and `checkItem` (item prefix of its kind),
 * `seqs` (sequence keys, one new id each), `items` (per record: item prefix, index key, 1-based id
 * number, template, optional marker key), optional `complete` (record key, our in-flight record,
 * completed-record template, ttl ms). A template alternates texts and id numbers: { text, id, text, … }.
 * Reply, one per plan: { 0, existing JSON } when the marker names a live resource, else { 1, id1, id2, … }.
 * Item keys are made from their declared prefix; they share its hash tag (keys.ts), so the script
 * stays in one slot.
 */
const CREATE = lua(`
local function create(plan)
  if plan.check then
    local id = redis.call('GET', KEYS[plan.check])
    if id then
      local existing = redis.call('GET', ARGV[plan.checkItem] .. id)
      if existing then return { 0, existing } end
    end
  end
  local ids = {}
  for i, seq in ipairs(plan.seqs) do ids[i] = string.format('%d', redis.call('INCR', KEYS[seq])) end
  local function fill(template)
    local out = {}
    for i, part in ipairs(template) do
      if i % 2 == 1 then out[i] = ARGV[part] else out[i] = ids[part] end
    end
    return table.concat(out)
  end
  for _, item in ipairs(plan.items) do
    local id = ids[item.id]
    redis.call('SET', ARGV[item.prefix] .. id, fill(item.json))
    redis.call('ZADD', KEYS[item.index], id, id)
    if item.mark then redis.call('SET', KEYS[item.mark], id) end
  end
  if plan.complete then
    local c = plan.complete
    local existing = redis.call('GET', KEYS[c.key])
    if existing == false or existing == ARGV[c.inflight] then redis.call('SET', KEYS[c.key], fill(c.record), 'PX', c.ttl) end
  end
  local reply = { 1 }
  for i, id in ipairs(ids) do reply[i + 1] = id end
  return reply
end
local replies = {}
for i, plan in ipairs(cjson.decode(ARGV[1])) do replies[i] = create(plan) end
return replies
`);

/** The KEYS and ARGV of one CREATE call: each key and text is sent once and named by its 1-based index. */
class ScriptArguments {
  readonly keys: string[] = [];
  /** ARGV[1] holds the plans; texts start at ARGV[2]. */
  readonly texts: string[] = [];
  private readonly keyIndex = new Map<string, number>();
  private readonly textIndex = new Map<string, number>();

  /** A key several plans of a batch share (a sequence, an index): sent once. */
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

  text(value: string): number {
    return this.texts.push(value) + 1;
  }

  /** A text several plans of a batch share (an item prefix): sent once. */
  sharedText(value: string): number {
    let index = this.textIndex.get(value);
    if (index === undefined) {
      index = this.text(value);
      this.textIndex.set(value, index);
    }
    return index;
  }

  /** A CREATE template over `text`: its pieces between placeholders become texts, the placeholders id numbers. */
  template(text: string, placeholderTexts: readonly string[]): number[] {
    return template(text, placeholderTexts).map((part) => (typeof part === 'string' ? this.text(part) : part));
  }
}

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

/**
 * Splits `text` at every placeholder: text, id number (1-based), text, … (the CREATE template). A scan
 * with indexOf, not a RegExp built per creation: compiling that pattern cost more than the rest of
 * the creation's JavaScript. The placeholders have one length and none is a prefix of another.
 */
function template(text: string, placeholderTexts: readonly string[]): (string | number)[] {
  const parts: (string | number)[] = [];
  let last = 0;
  for (;;) {
    let at = -1;
    let which = -1;
    placeholderTexts.forEach((placeholder, index) => {
      const found = text.indexOf(placeholder, last);
      if (found !== -1 && (at === -1 || found < at)) {
        at = found;
        which = index;
      }
    });
    if (at === -1) break;
    parts.push(text.slice(last, at), which + 1);
    last = at + (placeholderTexts[which]?.length ?? 0);
  }
  parts.push(text.slice(last));
  return parts;
}

/**
 * The Redis adapter's one-round-trip operations (types.ts CombinedOperations). On one Redis: token
 * and read in one script, token and claim in one script, and a creation with its idempotent result
 * in one script. On a Cluster the keys of one script share a hash tag (keys.ts), so: token and claim
 * stay one script (a caller's bucket and records share its tag); the token and the read go out
 * together to their two nodes; a creation is one script on the resources' slot and the completion
 * another on the caller's slot.
 */
export function createRedisCombined(
  connection: RedisConnection,
  keys: RedisKeys,
  covers: { rateLimits: RateLimitStore; idempotency: IdempotencyStore; resources: ResourceStore },
  tokenTakes: TokenTakes,
): CombinedOperations {
  const parse = (raw: unknown): StoredResource | undefined =>
    typeof raw === 'string' && raw !== '' ? (JSON.parse(raw) as StoredResource) : undefined;

  /** The CREATE plan of one creation, its keys and texts added to `args`. */
  function planOf(creation: Creation, args: ScriptArguments): Record<string, unknown> {
    const count = creation.kinds.length;
    if (count > PLACEHOLDERS.length) throw new Error(`a creation of more than ${PLACEHOLDERS.length} resources cannot be planned`);
    const fakes = PLACEHOLDERS.slice(0, count);
    const fakeTexts = PLACEHOLDER_TEXTS.slice(0, count);
    const draft = creation.build(fakes);
    const seqs = creation.kinds.map((kind) => args.sharedKey(keys.sequence(kind)));
    // The marker checked is usually the one the created item carries: its key (a hash) is made once.
    const check = creation.marker;
    const checkKey = check === undefined ? undefined : args.key(keys.marker(check.kind, check.value));
    const items = draft.entries.map(([kind, resource]) => {
      const id = fakes.indexOf(resource.id) + 1;
      if (id === 0) throw new Error(`a created ${kind} must take its id from build()`);
      const marker = resource[CREATED_BY];
      const item = {
        prefix: args.sharedText(keys.itemPrefix(kind)),
        index: args.sharedKey(keys.index(kind)),
        id,
        json: args.template(JSON.stringify(resource), fakeTexts),
      };
      if (typeof marker !== 'string') return item;
      const mark = checkKey !== undefined && check?.kind === kind && check.value === marker ? checkKey : args.key(keys.marker(kind, marker));
      return { ...item, mark };
    });
    const plan: Record<string, unknown> = { seqs, items };
    if (check !== undefined) {
      plan.check = checkKey;
      plan.checkItem = args.sharedText(keys.itemPrefix(check.kind));
    }
    // On a Cluster the record lives in the caller's slot: it is completed by a second script (create).
    const done = creation.complete;
    if (done !== undefined && !connection.clustered) {
      plan.complete = {
        key: args.key(keys.idempotency(done.key)),
        inflight: args.text(inFlight(done.fingerprint)),
        record: args.template(completedRecord(done.fingerprint, draft.response), fakeTexts),
        ttl: toMs(done.ttlSeconds),
      };
    }
    return plan;
  }

  // Batched (batcher.ts): the creations of one event-loop turn in one CREATE script. Every key of a plan
  // but its completion is in the resources' slot, and on a Cluster completions are separate, so a
  // batch stays in one slot there too.
  // A creation that cannot be planned (a build() that ignores its ids) fails alone; the others are sent.
  const creations = new Batcher<Creation, unknown>(async (batch) => {
    const args = new ScriptArguments();
    const plans: Record<string, unknown>[] = [];
    const results: unknown[] = batch.map((creation) => {
      try {
        plans.push(planOf(creation, args));
        return undefined;
      } catch (error) {
        return new CallFailed(error);
      }
    });
    if (plans.length === 0) return results;
    const replies = await connection.script(CREATE, args.keys, [JSON.stringify(plans), ...args.texts]);
    if (!Array.isArray(replies) || replies.length !== plans.length) throw new Error('unexpected reply from the creation script');
    let next = 0;
    return results.map((result) => (result instanceof CallFailed ? result : replies[next++]));
  });

  return {
    covers,

    async takeAndGet(key, policy, read) {
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
        const resource = decision.allowed ? parse(raw) : undefined;
        return resource === undefined ? { decision } : { decision, resource };
      }
      const { decision, along } = await tokenTakes.take(key, policy, { kind: 'get', key: item });
      const resource = decision.allowed ? parse(along) : undefined;
      return resource === undefined ? { decision } : { decision, resource };
    },

    async takeAndClaim(key, policy, claim) {
      assertPolicy(policy);
      if (connection.clustered && keys.tagOf(key) !== keys.tagOf(claim.key)) {
        const decision = await covers.rateLimits.take(key, policy);
        if (!decision.allowed) return { decision };
        return { decision, claim: await covers.idempotency.claim(claim.key, claim.fingerprint, claim.lockSeconds) };
      }
      const record = keys.idempotency(claim.key);
      if (policy.algorithm === 'token-bucket') {
        const along = { kind: 'claim', key: record, record: inFlight(claim.fingerprint), lockMs: toMs(claim.lockSeconds) } as const;
        const taken = await tokenTakes.take(key, policy, along);
        if (!taken.decision.allowed) return { decision: taken.decision };
        return { decision: taken.decision, claim: claimOf(taken.along, claim.fingerprint) };
      }
      const reply = await connection.script(
        LEAKY_BUCKET_THEN_CLAIM,
        [keys.bucket(key, true), record],
        [policy.capacity, policy.refillPerSecond, inFlight(claim.fingerprint), toMs(claim.lockSeconds)],
      );
      const decision = decisionOf(reply, policy);
      if (!decision.allowed) return { decision };
      return { decision, claim: claimOf((reply as unknown[])[5], claim.fingerprint) };
    },

    async create(creation) {
      const reply = await creations.add(creation);
      if (!Array.isArray(reply) || reply.length < 1) throw new Error('unexpected reply from the creation script');
      if (Number(reply[0]) === 0) {
        const existing = parse(reply[1]);
        if (existing === undefined) throw new Error('unexpected reply from the creation script');
        return { created: false, existing };
      }
      const ids = reply.slice(1).map(Number);
      const built = creation.build(ids);
      const done = creation.complete;
      if (done !== undefined && connection.clustered) await covers.idempotency.complete(done.key, done.fingerprint, built.response, done.ttlSeconds);
      return { created: true, ids, ...built };
    },
  };
}
