-- Sluice provider budget: correct an earlier charge by signed deltas in the slot it was made in,
-- if that slot is still in the window (ProviderBudget.adjust). Each window is touched only for a
-- delta that is not zero (a budget without the input/output split is never given one).
-- KEYS[1] window hash   KEYS[2] input window hash   KEYS[3] output window hash
-- ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] charged at (ms)
-- ARGV[3] delta tokens   ARGV[4] delta requests   ARGV[5] delta input   ARGV[6] delta output
-- Returns 1 if the slot was still in the (total) window, else 0.
--@include budget_common
local now = clock(ARGV[1])
local slot = math.floor(tonumber(ARGV[2]) / SLOT_MS)
local dT, dR = tonumber(ARGV[3]), tonumber(ARGV[4])
local dI, dO = tonumber(ARGV[5] or '0'), tonumber(ARGV[6] or '0')
local inWindow = 0
if dT ~= 0 or dR ~= 0 then inWindow = adjustSlot(advance(KEYS[1], now, SLOT_MS, true), slot, dT, dR) end
if dI ~= 0 then adjustSlot(advance(KEYS[2], now, SLOT_MS), slot, dI, 0) end
if dO ~= 0 then adjustSlot(advance(KEYS[3], now, SLOT_MS), slot, dO, 0) end
return inWindow
