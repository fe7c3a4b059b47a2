-- Sluice provider budget: the helpers every budget_*.lua script shares. Each script says
-- "--@include budget_common" and LuaScripts puts this file there, so every operation is still
-- one script, one round trip. The Redis twin of dev.sluice.gateway.dispatch.budget.ProviderBudget; read
-- it for the reasoning. The keys of one budget share its hash tag, e.g. sluice:b:{default:gpt-4o}:
--   :w  hash: the rolling 60 s window in 61 one-second slots (window_lib.lua)
--   :l  sorted set: in-flight leases, scored by expiry in ms
--   :p  string: paused-until in ms, expiring when the pause ends
--@include window_lib
local SLOT_MS = 1000
local BIG = MAX_AMOUNT -- "no cap" in one dimension, as ProviderBudget passes Long.MAX_VALUE
-- ProviderBudget.MAX_PAUSE_MS: the longest pause one push-back sets.
local MAX_PAUSE_MS = 3600000

-- Appends the leaving schedule to a reply.
local function withLeaving(reply, w)
  for _, x in ipairs(leaving(w)) do reply[#reply + 1] = x end
  return reply
end

-- Drops expired leases; returns the slots still held.
local function sweep(leases, now)
  redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
  return redis.call('ZCARD', leases)
end

-- The lease set lives as long as its longest lease.
local function leaseTtl(leases, now)
  local top = redis.call('ZRANGE', leases, -1, -1, 'WITHSCORES')
  if top[2] then redis.call('PEXPIRE', leases, math.max(1, tonumber(top[2]) - now)) end
end

local function pausedUntil(pause, now)
  local p = tonumber(redis.call('GET', pause))
  if p and p > now then return p end
  return 0
end
