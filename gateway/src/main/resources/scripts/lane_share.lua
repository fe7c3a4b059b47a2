-- One replica's fair-queue lanes for one provider budget, shared so fairness holds across replicas; the Java
-- twin is InMemoryLaneShare. In one round trip: forgets replicas silent past the TTL, reads the
-- lowest counter waiting on any other replica, adds this replica's service since its last
-- report to each tenant's counter (lifting a tenant that starts waiting again to the floor less
-- the credit), records this replica's lowest waiting counter, advances the floor, stores this
-- replica's door demand and hands back the other fresh replicas' (opaque strings, summed in Java).
-- KEYS[1] the hash. Fields: 'floor' -> counter; 'r:<replica>' -> '<seenMs> <lowest>';
--         't:<tenant>' -> '<counter> <seenWaitingMs>'; 'd:<replica>' -> '<seenMs> <demand>'
-- ARGV[1] replica id, ARGV[2] now (ms), ARGV[3] ttl (ms), ARGV[4] credit, ARGV[5] key ttl (ms),
-- ARGV[6] this replica's demand ('' for none),
-- then per lane: tenant, served since the last report (tokens x priority), waiting (1/0)
-- Returns {1 or 0 (another replica waits), its lowest counter, n, n demands of other replicas,
--          tenant, counter, ...}.
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
local demands = {}
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local field, value = all[i], all[i + 1]
  local kind = string.sub(field, 1, 2)
  local a, b = string.match(value, '^(%-?%d+) (%-?%d+)$')
  a, b = tonumber(a), tonumber(b)
  if kind == 'd:' then
    local seen, demand = string.match(value, '^(%-?%d+) (.*)$')
    seen = tonumber(seen)
    if seen == nil or seen < fresh then
      redis.call('HDEL', key, field)
    elseif field ~= 'd:' .. me then
      demands[#demands + 1] = demand
    end
  elseif kind == 'r:' then
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
      tenants[string.sub(field, 3)] = {a, b}
    end
  end
end

local out = {0, 0, #demands}
for i = 1, #demands do out[#out + 1] = demands[i] end
if ARGV[6] == '' then
  redis.call('HDEL', key, 'd:' .. me)
else
  redis.call('HSET', key, 'd:' .. me, string.format('%d ', now) .. ARGV[6])
end
local mine = nil
for i = 7, #ARGV, 3 do
  local tenant, served, waiting = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2] == '1'
  local was = tenants[tenant]
  local counter = start
  local seen = -MAX
  if was ~= nil then
    counter, seen = was[1], was[2]
  end
  if waiting and not (was ~= nil and was[2] >= fresh) and counter < start then counter = start end
  counter = clamp(counter + clamp(served))
  if waiting then seen = now end
  redis.call('HSET', key, 't:' .. tenant, string.format('%d %d', counter, seen))
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
