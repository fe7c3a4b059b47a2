-- One replica's fair-queue lanes for one provider budget, shared (issue 15, item 5); the Java
-- twin is InMemoryLaneShare. In one round trip: forgets replicas silent past the TTL, reads the
-- lowest counter waiting on any other replica, adds this replica's service since its last
-- report to each tenant's counter (lifting a tenant that starts waiting again to the floor less
-- the credit), records this replica's lowest waiting counter, advances the floor.
-- KEYS[1] the hash. Fields: 'floor' -> counter; 'r:<replica>' -> '<seenMs> <lowest>';
--         't:<tenant>' -> '<counter> <seenWaitingMs> <queuedTokens>'
-- ARGV[1] replica id, ARGV[2] now (ms), ARGV[3] ttl (ms), ARGV[4] credit, ARGV[5] key ttl (ms),
-- then per lane: tenant, served since the last report (tokens x priority), waiting (1/0), tokens queued
-- Returns {1 or 0 (another replica waits), its lowest counter, n, then n pairs (counter, tokens queued) of the
-- tenants waiting elsewhere, then tenant, counter, ... for this replica's lanes}.
-- Counters are integers kept within +-2^53 (exact in a Lua number) and written with %d.
local MAX = 9007199254740992
local function clamp(v)
  if v > MAX then return MAX elseif v < -MAX then return -MAX end
  return v
end
local key, me = KEYS[1], ARGV[1]
local now, ttl, credit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local fresh = now - ttl
local floor = tonumber(redis.call('HGET', key, 'floor')) or 0
local start = clamp(floor - credit)

local others = nil
local tenants = {}
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local field, value = all[i], all[i + 1]
  local kind = string.sub(field, 1, 2)
  local a, b, q = string.match(value, '^(%-?%d+) (%-?%d+) ?(%-?%d*)$')
  a, b, q = tonumber(a), tonumber(b), tonumber(q) or 0
  if kind == 'r:' then
    if a == nil or a < fresh then
      redis.call('HDEL', key, field)
    elseif field ~= 'r:' .. me and (others == nil or b < others) then
      others = b
    end
  elseif kind == 't:' then
    -- Not waiting anywhere and not ahead of where it would start again: forgetting it changes nothing.
    if a == nil or (b < fresh and a <= start) then
      redis.call('HDEL', key, field)
    else
      tenants[string.sub(field, 3)] = {a, b, q}
    end
  end
end

-- Tenants seen waiting within the TTL that this replica does not report: the door's lanes elsewhere.
local reported = {}
for i = 6, #ARGV, 4 do reported[ARGV[i]] = true end
local out = {0, 0, 0}
for tenant, t in pairs(tenants) do
  if t[2] >= fresh and not reported[tenant] then
    out[3] = out[3] + 1
    out[#out + 1] = t[1]
    out[#out + 1] = t[3]
  end
end

local mine = nil
for i = 6, #ARGV, 4 do
  local tenant, served, waiting = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2] == '1'
  local queued = math.max(0, tonumber(ARGV[i + 3]) or 0)
  local was = tenants[tenant]
  local counter = start
  local seen = -MAX
  if was ~= nil then
    counter, seen = was[1], was[2]
  end
  if waiting and not (was ~= nil and was[2] >= fresh) and counter < start then counter = start end
  counter = clamp(counter + clamp(served))
  if waiting then seen = now end
  redis.call('HSET', key, 't:' .. tenant, string.format('%d %d %d', counter, seen, waiting and queued or 0))
  out[#out + 1] = tenant
  out[#out + 1] = counter
  if waiting and (mine == nil or counter < mine) then mine = counter end
end

if mine == nil then
  redis.call('HDEL', key, 'r:' .. me)
else
  redis.call('HSET', key, 'r:' .. me, string.format('%d %d', now, mine))
end
local level = mine
if others ~= nil and (level == nil or others < level) then level = others end
if level ~= nil and level > floor then redis.call('HSET', key, 'floor', string.format('%d', level)) end
redis.call('PEXPIRE', key, ARGV[5])
if others ~= nil then
  out[1] = 1
  out[2] = others
end
return out
