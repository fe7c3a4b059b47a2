-- Sluice provider budget: settle an ended call (ProviderBudget.settle). Its charge takes the
-- provider's usage (a signed delta) and, when the answer proves the provider counted the call in
-- a later slot than the charge's, moves there: it then leaves this window no sooner than the
-- provider's count leaves the provider's.
-- KEYS[1] window hash   ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] charged at (ms)
-- ARGV[3] counted by (ms; a huge negative number when unknown)   ARGV[4] tokens charged
-- ARGV[5] delta tokens
-- Returns 1 when the charge moved, else 0.
--@include budget_common
local now = clock(ARGV[1])
local chargedAt, countedBy = tonumber(ARGV[2]), tonumber(ARGV[3])
local charged, delta = math.min(math.max(0, tonumber(ARGV[4])), MAX_AMOUNT), tonumber(ARGV[5])
local w = advance(KEYS[1], now, SLOT_MS, true)
local from = math.floor(chargedAt / SLOT_MS)
local to = math.floor(math.min(countedBy, now) / SLOT_MS)
if to <= from then
  adjustSlot(w, from, delta, 0)
  return 0
end
adjustSlot(w, from, -charged, -1)
adjustSlot(w, to, saturated(charged, delta), 1)
return 1
