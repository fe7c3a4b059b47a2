-- Sluice provider budget: hold every admission off, on every replica (ProviderBudget.pause).
-- A longer pause already set stays.
-- KEYS[1] pause key   ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] pause in ms from now
-- Returns the pause's end in ms (0 when not paused).
--@include budget_common
local now = clock(ARGV[1])
local untilMs = math.max(pausedUntil(KEYS[1], now), now + math.min(MAX_PAUSE_MS, math.max(0, tonumber(ARGV[2]))))
if untilMs <= now then return 0 end
-- The value says when the pause ends; the TTL only cleans up, a slot late, so that a pause of
-- a millisecond is still there for a read in the same millisecond of a slower clock.
redis.call('SET', KEYS[1], untilMs, 'PX', untilMs - now + SLOT_MS)
return untilMs
