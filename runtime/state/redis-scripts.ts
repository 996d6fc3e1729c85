/**
 * The Redis backend's operations as Lua scripts: each runs whole on the server, so it is atomic
 * against every other client. They say what semantics.ts says, on native structures:
 *
 *   record   HASH  v (JSON), ver, exp?     lock   HASH  tok, exp (0 when released)
 *   slots    ZSET  id → until              block  STRING until
 *   counter  HASH  val, reset              seen   ZSET  id → until
 *
 * "now" comes from the caller's clock (ARGV), so tests can drive time; real PEXPIREs only collect
 * garbage a minute after an entry stopped mattering.
 */

const GC_MS = 60_000;

const LIVE_COUNTER = `
local function live_counter(k, now)
  local h = redis.call('HMGET', k, 'val', 'reset')
  if not h[1] then return nil, nil end
  if tonumber(h[2]) <= now then redis.call('DEL', k) return nil, nil end
  return tonumber(h[1]), tonumber(h[2])
end
local function gc(k, untilMs, now)
  local ms = untilMs - now + ${GC_MS}
  if ms < ${GC_MS} then ms = ${GC_MS} end
  if redis.call('PTTL', k) < ms then redis.call('PEXPIRE', k, math.floor(ms)) end
end
`;

export const SCRIPTS = {
  /** KEYS: record. ARGV: now. → nil | {json, version} */
  sfGet: {
    keys: 1,
    lua: `
local now = tonumber(ARGV[1])
local h = redis.call('HMGET', KEYS[1], 'v', 'ver', 'exp')
if h[3] and tonumber(h[3]) <= now then redis.call('DEL', KEYS[1]) return false end
if not h[1] then return false end
return {h[1], tonumber(h[2])}`,
  },
  /**
   * KEYS: record, lock. ARGV: json, ifVersion|'', fenceToken|'', ttlMs|'', now. → {1, version} | {0, reason, json|nil,
   * version}
   */
  sfSet: {
    keys: 2,
    lua: `
local now = tonumber(ARGV[5])
local h = redis.call('HMGET', KEYS[1], 'v', 'ver', 'exp')
local ver = tonumber(h[2]) or 0
local cur = h[1]
if h[3] and tonumber(h[3]) <= now then redis.call('DEL', KEYS[1]) ver = 0 cur = false end
if ARGV[3] ~= '' then
  local tok = redis.call('HGET', KEYS[2], 'tok')
  if (not tok) or tonumber(tok) ~= tonumber(ARGV[3]) then return {0, 'fence', cur, ver} end
end
if ARGV[2] ~= '' then
  local have = 0
  if cur then have = ver end
  if have ~= tonumber(ARGV[2]) then return {0, 'version', cur, ver} end
end
ver = ver + 1
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'ver', ver)
if ARGV[4] ~= '' then
  local ttl = tonumber(ARGV[4])
  redis.call('HSET', KEYS[1], 'exp', now + ttl)
  redis.call('PEXPIRE', KEYS[1], math.floor(ttl + ${GC_MS}))
else
  redis.call('HDEL', KEYS[1], 'exp')
  redis.call('PERSIST', KEYS[1])
end
return {1, ver}`,
  },
  /** KEYS: record. ARGV: ifVersion|'', now. → 0 | 1 */
  sfDel: {
    keys: 1,
    lua: `
local now = tonumber(ARGV[2])
local h = redis.call('HMGET', KEYS[1], 'v', 'ver', 'exp')
if h[3] and tonumber(h[3]) <= now then redis.call('DEL', KEYS[1]) return 0 end
if not h[1] then return 0 end
if ARGV[1] ~= '' and tonumber(h[2]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HDEL', KEYS[1], 'v', 'exp')
redis.call('PERSIST', KEYS[1])
return 1`,
  },
  /** KEYS: lock. ARGV: ttlMs, now. → {1, token, expiresAt} | {0, heldUntil} */
  sfLock: {
    keys: 1,
    lua: `
local now = tonumber(ARGV[2])
local h = redis.call('HMGET', KEYS[1], 'tok', 'exp')
local exp = tonumber(h[2]) or 0
if exp > now then return {0, exp} end
local tok = (tonumber(h[1]) or 0) + 1
exp = now + tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'tok', tok, 'exp', exp)
return {1, tok, exp}`,
  },
  /** KEYS: lock. ARGV: token, ttlMs, now. → expiresAt | nil */
  sfRenew: {
    keys: 1,
    lua: `
local now = tonumber(ARGV[3])
local h = redis.call('HMGET', KEYS[1], 'tok', 'exp')
if tonumber(h[1]) ~= tonumber(ARGV[1]) or (tonumber(h[2]) or 0) <= now then return false end
local exp = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'exp', exp)
return exp`,
  },
  /** KEYS: lock. ARGV: token. */
  sfUnlock: {
    keys: 1,
    lua: `
if tonumber(redis.call('HGET', KEYS[1], 'tok')) == tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'exp', 0) end
return 1`,
  },
  /**
   * KEYS: two per item (slots: zset, block; counter/budget: hash, unused).
   * ARGV: now, id, then per item kind ('s'|'c'|'b'), p1, p2, p3
   * (s: capacity, holdMs; c: limit, cost, resetAt; b: cost).
   * → {1, left…} | {0, item, exhausted (0|1), retryAt|resetAt}, where `left` is what each item
   * has left after admission (free slots, what a counter may still add, a budget's value as a
   * string so a fraction survives, '' for a budget never reported): a gauge needs no second trip.
   */
  sfAdmit: {
    keys: -1,
    lua: `${LIVE_COUNTER}
local now = tonumber(ARGV[1])
local id = ARGV[2]
local n = (#ARGV - 2) / 4
local function arg(i, j) return ARGV[2 + (i - 1) * 4 + j] end
for i = 1, n do
  local kind = arg(i, 1)
  local k = KEYS[(i - 1) * 2 + 1]
  if kind == 'c' then
    local v, r = live_counter(k, now)
    if (v or 0) + tonumber(arg(i, 3)) > tonumber(arg(i, 2)) then return {0, i - 1, 1, r or tonumber(arg(i, 4))} end
  elseif kind == 'b' then
    local v, r = live_counter(k, now)
    if v and v - tonumber(arg(i, 2)) < 0 then return {0, i - 1, 1, r} end
  end
end
local item, at = -1, 0
for i = 1, n do
  if arg(i, 1) == 's' then
    local k = KEYS[(i - 1) * 2 + 1]
    redis.call('ZREMRANGEBYSCORE', k, '-inf', now)
    local retry = 0
    local blocked = tonumber(redis.call('GET', KEYS[(i - 1) * 2 + 2]) or '0')
    if blocked > now then retry = blocked end
    local excess = redis.call('ZCARD', k) - tonumber(arg(i, 2)) + 1
    if excess > 0 then
      local e = redis.call('ZRANGE', k, excess - 1, excess - 1, 'WITHSCORES')
      if tonumber(e[2]) > retry then retry = tonumber(e[2]) end
    end
    if retry > 0 and retry > at then item = i - 1 at = retry end
  end
end
if item >= 0 then return {0, item, 0, at} end
local reply = {1}
for i = 1, n do
  local kind = arg(i, 1)
  local k = KEYS[(i - 1) * 2 + 1]
  if kind == 's' then
    local untilMs = now + tonumber(arg(i, 3))
    redis.call('ZADD', k, untilMs, id)
    gc(k, untilMs, now)
    reply[i + 1] = math.max(0, tonumber(arg(i, 2)) - redis.call('ZCARD', k))
  elseif kind == 'c' then
    local v, r = live_counter(k, now)
    local reset = r or tonumber(arg(i, 4))
    local value = (v or 0) + tonumber(arg(i, 3))
    redis.call('HSET', k, 'val', value, 'reset', reset)
    gc(k, reset, now)
    reply[i + 1] = math.max(0, tonumber(arg(i, 2)) - value)
  else
    local v = live_counter(k, now)
    if v then
      -- A float: services report points with fractions, and HINCRBY refuses those.
      reply[i + 1] = redis.call('HINCRBYFLOAT', k, 'val', -tonumber(arg(i, 2)))
    else
      reply[i + 1] = ''
    end
  end
end
return reply`,
  },
  /** KEYS: slots. ARGV: id, ms, now. → 0 | 1 */
  sfHold: {
    keys: 1,
    lua: `${LIVE_COUNTER}
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local ms = tonumber(ARGV[2])
if ms <= 0 then redis.call('ZREM', KEYS[1], ARGV[1]) return 1 end
redis.call('ZADD', KEYS[1], 'XX', now + ms, ARGV[1])
gc(KEYS[1], now + ms, now)
return 1`,
  },
  /** KEYS: block. ARGV: until, now. */
  sfBlock: {
    keys: 1,
    lua: `
local now = tonumber(ARGV[2])
local untilMs = tonumber(ARGV[1])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > cur and untilMs > now then
  redis.call('SET', KEYS[1], untilMs, 'PX', math.floor(untilMs - now + ${GC_MS}))
end
return 1`,
  },
  /** KEYS: slots, block. ARGV: now. → {live, blockedUntil} */
  sfSlots: {
    keys: 2,
    lua: `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
if blocked <= now then blocked = 0 end
return {redis.call('ZCARD', KEYS[1]), blocked}`,
  },
  /** KEYS: counter. ARGV: now. → nil | {value, resetAt} */
  sfCounter: {
    keys: 1,
    lua: `${LIVE_COUNTER}
local v, r = live_counter(KEYS[1], tonumber(ARGV[1]))
if not v then return false end
-- The value as a string: a Lua number in a reply is cut to an integer, and budgets have fractions.
return {tostring(v), r}`,
  },
  /** KEYS: counter. ARGV: delta, resetAt, now. → value */
  sfAdd: {
    keys: 1,
    lua: `${LIVE_COUNTER}
local now = tonumber(ARGV[3])
local v, r = live_counter(KEYS[1], now)
local value = (v or 0) + tonumber(ARGV[1])
if value < 0 then value = 0 end
local reset = r or tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'val', value, 'reset', reset)
gc(KEYS[1], reset, now)
return value`,
  },
  /** KEYS: counter. ARGV: value, resetAt, now. */
  sfSetCounter: {
    keys: 1,
    lua: `${LIVE_COUNTER}
redis.call('HSET', KEYS[1], 'val', ARGV[1], 'reset', ARGV[2])
gc(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
return 1`,
  },
  /** KEYS: seen. ARGV: id, windowMs, now. → 1 first time, 0 repeat */
  sfSeen: {
    keys: 1,
    lua: `${LIVE_COUNTER}
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local untilMs = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], untilMs, ARGV[1])
gc(KEYS[1], untilMs, now)
return 1`,
  },
} as const;

export type ScriptName = keyof typeof SCRIPTS;
