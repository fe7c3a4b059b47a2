-- Sluice provider budget: correct an earlier charge by signed deltas in the slot it was made in,
-- if that slot is still in the window (ProviderBudget.adjust).
-- KEYS[1] window hash   ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] charged at (ms)
-- ARGV[3] delta tokens   ARGV[4] delta requests
-- Returns 1 if the slot was still in the window, else 0.
--@include budget_common
local now = clock(ARGV[1])
local w = advance(KEYS[1], now, SLOT_MS)
return adjustSlot(w, math.floor(tonumber(ARGV[2]) / SLOT_MS), tonumber(ARGV[3]), tonumber(ARGV[4]))
