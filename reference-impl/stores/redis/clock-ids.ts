import { lua } from './connection.ts';

/**
 * Ids a rollback cannot hand out twice (D-IDS): the next id of a kind is the larger of "last id + 1"
 * and "the Redis server's clock in milliseconds × 1000". A promoted replica whose copy of the sequence
 * is behind (it missed the last writes of its primary) starts from its own clock, which is past every
 * id the lost primary handed out as long as those ids stayed within 1000 per millisecond of their
 * primary's clock and the clocks of the two hosts differ by less than the failover took (seconds:
 * cluster-node-timeout and the election). Ids stay positive integers below 2^53 until the year 2255,
 * ascending per kind (creation order), with gaps (D-IDS allows them).
 *
 * `NEXT_ID_LUA` defines the Lua function `next_id(sequenceKey)`, returning the id as a decimal string;
 * it is pasted into every script that allocates ids (TIME inside a script is replicated as its
 * effects, Redis ≥ 5). The clock is read once per script, so the ids one script hands out are
 * consecutive (a second reading could cross a millisecond and jump by 1000).
 */
export const IDS_PER_MILLISECOND = 1000;

export const NEXT_ID_LUA = `
local id_floor
local function next_id(seq)
  if not id_floor then
    local clock = redis.call('TIME')
    id_floor = (tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)) * ${IDS_PER_MILLISECOND}
  end
  local floor = id_floor
  local id = tonumber(redis.call('GET', seq) or '0') + 1
  if id < floor then id = floor end
  local text = string.format('%d', id)
  redis.call('SET', seq, text)
  return text
end
`;

/** KEYS[1] = sequence. One new id (a decimal string). */
export const NEXT_ID = lua(`${NEXT_ID_LUA}
return next_id(KEYS[1])
`);
