-- Sluice provider budget: never show more room than the upstream reports (ProviderBudget.correct).
-- The excess is charged in the slot that leaves the window when the upstream's usage resets. The
-- upstream's latest word replaces its last: the phantom the previous correction charged in a dimension
-- reported now is taken back first (window fields cTs, cT, cRs, cR: its slot and amount per dimension),
-- and usage that left the window within WORD_AGE_MS is not excess (the word is that old).
-- KEYS[1] window hash   ARGV[1] now in ms, or "" for Redis TIME
-- ARGV[2] cap tokens   ARGV[3] cap requests
-- ARGV[4] upstream remaining tokens   ARGV[5] upstream remaining requests   (-1: not reported)
-- ARGV[6] upstream reset in ms from now
-- Returns {usedTokens, usedRequests}.
--@include budget_common
local now = clock(ARGV[1])
local capT, capR = cap(tonumber(ARGV[2])), cap(tonumber(ARGV[3]))
-- A reset past two windows lands in the current slot anyway (ProviderBudget.correctionSlot).
local remT, remR, reset = tonumber(ARGV[4]), tonumber(ARGV[5]), math.min(math.max(0, tonumber(ARGV[6])), 2 * SLOTS * SLOT_MS)
local w = advance(KEYS[1], now, SLOT_MS, true)
local last = redis.call('HMGET', KEYS[1], 'cTs', 'cT', 'cRs', 'cR')
if remT >= 0 and last[1] then
  adjustSlot(w, tonumber(last[1]), -tonumber(last[2]), 0)
  redis.call('HDEL', KEYS[1], 'cTs', 'cT')
end
if remR >= 0 and last[3] then
  adjustSlot(w, tonumber(last[3]), 0, -tonumber(last[4]))
  redis.call('HDEL', KEYS[1], 'cRs', 'cR')
end
-- The word is as old as its answer's way back: what left the window within WORD_AGE_MS is not excess.
local staleT, staleR = leftSince(KEYS[1], now - WORD_AGE_MS, SLOT_MS)
local extraT, extraR = 0, 0
if remT >= 0 and capT - w.T > remT then extraT = math.max(0, capT - w.T - remT - staleT) end
if remR >= 0 and capR - w.R > remR then extraR = math.max(0, capR - w.R - remR - staleR) end
if extraT > 0 or extraR > 0 then
  local current = math.floor(now / SLOT_MS)
  local slot = math.floor((now + reset + SLOT_MS - 1) / SLOT_MS) - HELD
  slot = math.min(current, math.max(current - SLOTS, slot))
  adjustSlot(w, slot, extraT, extraR)
  if extraT > 0 then redis.call('HSET', KEYS[1], 'cTs', slot, 'cT', extraT) end
  if extraR > 0 then redis.call('HSET', KEYS[1], 'cRs', slot, 'cR', extraR) end
end
return { w.T, w.R }
