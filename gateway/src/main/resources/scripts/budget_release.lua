-- Sluice provider budget: free a leased slot (ProviderBudget.release). Idempotent.
-- KEYS[1] lease set   ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] lease id
-- Returns 1 if the lease was held and had not expired, else 0.
--@include budget_common
local now = clock(ARGV[1])
local expiresAt = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[2]))
if not expiresAt then return 0 end
redis.call('ZREM', KEYS[1], ARGV[2])
if expiresAt > now then return 1 end
return 0
