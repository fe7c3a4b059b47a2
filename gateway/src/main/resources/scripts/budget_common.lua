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
-- ProviderBudget.WORD_AGE_MS: how old the upstream's word on its room may be against the window.
local WORD_AGE_MS = 2 * SLOT_MS
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

-- ProviderBudget.refusal: a need above its cap is refused for good (wait -1); otherwise the first
-- dimension that refuses it, or a later one that must wait longer. need and caps are {T, R, I, O};
-- the input and output windows count where wi and wo are read; the pause refuses where pauseBlocks.
-- Returns the refusal (0 none, 1 paused, 2 tokens, 3 requests, 4 in flight, 5 input, 6 output), waitMs.
local function refusalOf(w, wi, wo, now, paused, pauseBlocks, need, caps, slotsFull, hint)
  if need.T > caps.T then return 2, -1 end
  if wi and need.I > caps.I then return 5, -1 end
  if wo and need.O > caps.O then return 6, -1 end
  local refusal, wait = 0, 0
  local function block(code, ms)
    if refusal == 0 or ms > wait then refusal, wait = code, ms end
  end
  if paused > 0 and pauseBlocks then block(1, paused - now) end
  if need.T > caps.T - w.T then block(2, waitFor(w, now, need.T, 0, caps.T, BIG)) end
  if need.R > caps.R - w.R then block(3, waitFor(w, now, 0, need.R, BIG, caps.R)) end
  if slotsFull then block(4, hint) end
  if wi and need.I > caps.I - wi.T then block(5, waitFor(wi, now, need.I, 0, caps.I, BIG)) end
  if wo and need.O > caps.O - wo.T then block(6, waitFor(wo, now, need.O, 0, caps.O, BIG)) end
  return refusal, wait
end
