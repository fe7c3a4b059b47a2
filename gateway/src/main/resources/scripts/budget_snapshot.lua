-- Sluice provider budget: the state now, taking nothing (ProviderBudget.snapshot).
-- KEYS[1] window hash  KEYS[2] lease set  KEYS[3] pause   ARGV[1] now in ms, or "" for Redis TIME
-- Returns {now, usedTokens, usedRequests, inFlight, pausedUntil, resetMs, then the leaving schedule:
--          leavesAt, tokens, requests per slot holding usage}.
--@include budget_common
local now = clock(ARGV[1])
local w = advance(KEYS[1], now, SLOT_MS)
local inFlight = sweep(KEYS[2], now)
return withLeaving({ now, w.T, w.R, inFlight, pausedUntil(KEYS[3], now), resetMs(w, now) }, w)
