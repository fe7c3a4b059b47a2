-- Sluice provider budget: the state now, taking nothing (ProviderBudget.snapshot).
-- KEYS[1] window hash  KEYS[2] lease set  KEYS[3] pause   ARGV[1] now in ms, or "" for Redis TIME
-- KEYS[4] input window  KEYS[5] output window: read only when ARGV[2] / ARGV[3] is "1" (the limits have them)
-- Returns {now, usedTokens, usedRequests, inFlight, pausedUntil, resetMs, usedInput, usedOutput, then the
--          leaving schedule: leavesAt, tokens, requests per slot holding usage}.
--@include budget_common
local now = clock(ARGV[1])
local w = advance(KEYS[1], now, SLOT_MS, true)
local inFlight = sweep(KEYS[2], now)
local usedI, usedO = 0, 0
if ARGV[2] == '1' then usedI = advance(KEYS[4], now, SLOT_MS).T end
if ARGV[3] == '1' then usedO = advance(KEYS[5], now, SLOT_MS).T end
return withLeaving({ now, w.T, w.R, inFlight, pausedUntil(KEYS[3], now), resetMs(w, now), usedI, usedO }, w)
