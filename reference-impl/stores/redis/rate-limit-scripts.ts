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

/** KEYS[1] = bucket hash {t = tokens, u = updatedAtMs}; ARGV = capacity, refillPerSecond. */
export const TOKEN_BUCKET = lua(`${COMMON}
local saved = redis.call('HMGET', KEYS[1], 't', 'u')
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
  redis.call('HSET', KEYS[1], 't', num(tokens), 'u', num(at))
  redis.call('PEXPIRE', KEYS[1], math.ceil(((capacity - tokens) * 1000) / rate) + 1000)
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
return { 0, 0, reset_seconds(available), retry, 0 }
`);

/** KEYS[1] = string holding drainAtMs; ARGV = capacity, refillPerSecond. */
export const LEAKY_BUCKET = lua(`${COMMON}
local saved = tonumber(redis.call('GET', KEYS[1]) or '')
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
  redis.call('SET', KEYS[1], num(after_drain), 'PX', math.ceil(after_drain - now) + 1000)
  return { 1, whole_units(capacity - after), empty_seconds(after_drain), 0, math.max(0, math.ceil(drain_at - now - eps)) }
end
local retry = whole_seconds((queued - (capacity - 1)) / rate, 1, function(s)
  return queued_at(drain_at, now + s * 1000) <= capacity - 1 + eps
end)
return { 0, 0, empty_seconds(drain_at), retry, 0 }
`);
