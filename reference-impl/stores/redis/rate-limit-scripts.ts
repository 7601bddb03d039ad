import { lua } from './connection.ts';

/**
 * Lua ports of rate-limit/token-bucket.ts and rate-limit/leaky-bucket.ts. Each runs atomically in
 * Redis and reads the server clock (`TIME`), so every instance sees one bucket and one clock
 * (D-RATE-LIMIT "shared store"). The arithmetic mirrors the TypeScript line for line (same IEEE
 * doubles, same epsilon, same correction of the rounded-up seconds), so both adapters answer alike.
 * Reply: { allowed (0|1), remaining, resetSeconds, retryAfterSeconds, delayMs }.
 */
const COMMON = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local bucket = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local eps = 1e-9
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local function whole_seconds(estimate, minimum, reached)
  local s = math.max(minimum, math.ceil(estimate - eps))
  while not reached(s) do s = s + 1 end
  while s - 1 >= minimum and reached(s - 1) do s = s - 1 end
  return s
end
local function whole_units(amount)
  return math.min(math.floor(capacity), math.max(0, math.floor(amount + eps)))
end
local function num(x) return string.format('%.17g', x) end
`;

/**
 * Body of `take()` on the hash `bucket` {t = tokens, u = updatedAtMs}. A rejection's fifth element
 * is the tokens available (a string, full precision): from it an instance knows exactly how long the
 * bucket stays empty (redis/denials.ts).
 */
const TOKEN_TAKE = `
local function take()
  local saved = redis.call('HMGET', bucket, 't', 'u')
  local at = now
  local available = capacity
  local function tokens_at(tokens, updated, t)
    return math.min(capacity, tokens + (math.max(0, t - updated) * rate) / 1000)
  end
  if saved[1] and saved[2] then
    local tokens, updated = tonumber(saved[1]), tonumber(saved[2])
    at = math.max(now, updated)
    available = tokens_at(tokens, updated, at)
  end
  local function reset_seconds(tokens)
    return whole_seconds((capacity - tokens) / rate, 0, function(s) return tokens + s * rate >= capacity - eps end)
  end
  local function save(tokens)
    redis.call('HSET', bucket, 't', num(tokens), 'u', num(at))
    redis.call('PEXPIRE', bucket, math.ceil(((capacity - tokens) * 1000) / rate) + 1000)
  end
  if available >= 1 - eps then
    local left = math.max(0, available - 1)
    save(left)
    return { 1, whole_units(left), reset_seconds(left), 0, 0 }
  end
  save(available)
  local retry = whole_seconds((1 - available) / rate, 1, function(s)
    return tokens_at(available, at, at + s * 1000) >= 1 - eps
  end)
  return { 0, 0, reset_seconds(available), retry, num(available) }
end
`;

/** Body of `take()` on `bucket` = string holding drainAtMs. */
const LEAKY_TAKE = `
local function take()
  local saved = tonumber(redis.call('GET', bucket) or '')
  local function queued_at(drain_at, t)
    return (math.max(0, drain_at - t) * rate) / 1000
  end
  local queued = 0
  if saved then queued = queued_at(saved, now) end
  local drain_at = math.max(now, saved or now)
  local function empty_seconds(d)
    return whole_seconds((d - now) / 1000, 0, function(s) return queued_at(d, now + s * 1000) <= eps end)
  end
  if queued <= capacity - 1 + eps then
    local after_drain = drain_at + 1000 / rate
    local after = queued_at(after_drain, now)
    redis.call('SET', bucket, num(after_drain), 'PX', math.ceil(after_drain - now) + 1000)
    return { 1, whole_units(capacity - after), empty_seconds(after_drain), 0, math.max(0, math.ceil(drain_at - now - eps)) }
  end
  local retry = whole_seconds((queued - (capacity - 1)) / rate, 1, function(s)
    return queued_at(drain_at, now + s * 1000) <= capacity - 1 + eps
  end)
  return { 0, 0, empty_seconds(drain_at), retry, 0 }
end
`;

/**
 * After an admitted take, reads the resource `key` (a read along with the limiter: one round trip
 * for a request that passes the limiter and reads a resource). Reply element 6: its JSON, or ''.
 */
const THEN_GET = `
local function then_get(reply, key)
  if reply[1] == 1 then reply[6] = redis.call('GET', key) or '' end
  return reply
end
`;

/**
 * Several token-bucket takes in one script, run one after the other as separate calls would run
 * (redis/token-takes.ts batches the takes of one event-loop turn). ARGV[1] = number of calls; then per
 * call: op ('t' take, 'g' take then get), capacity, refill per second. KEYS: per call its bucket, then
 * for 'g' the read key. Reply: one reply per call, in order.
 */
const BATCH = `
local replies = {}
local a, k = 2, 1
for i = 1, tonumber(ARGV[1]) do
  local op = ARGV[a]
  capacity = tonumber(ARGV[a + 1])
  rate = tonumber(ARGV[a + 2])
  a = a + 3
  bucket = KEYS[k]
  k = k + 1
  local reply = take()
  if op == 'g' then
    reply = then_get(reply, KEYS[k])
    k = k + 1
  end
  replies[i] = reply
end
return replies
`;

/** KEYS[1] = bucket hash; ARGV = capacity, refillPerSecond. */
export const TOKEN_BUCKET = lua(`${COMMON}${TOKEN_TAKE}return take()\n`);

/** KEYS[1] = drain-time string; ARGV = capacity, refillPerSecond. */
export const LEAKY_BUCKET = lua(`${COMMON}${LEAKY_TAKE}return take()\n`);

/** KEYS = bucket hash, resource; ARGV = capacity, refillPerSecond. Token bucket only: a leaky bucket delays the request, so its read would be stale. */
export const TOKEN_BUCKET_THEN_GET = lua(`${COMMON}${TOKEN_TAKE}${THEN_GET}return then_get(take(), KEYS[2])\n`);

/** Token-bucket takes, each alone or with its read, batched (see BATCH). One Redis only: the keys span callers. */
export const TOKEN_BUCKET_BATCH = lua(`${COMMON}${TOKEN_TAKE}${THEN_GET}${BATCH}`);
