-- Adds one replica's buffered ledger rows for one tenant (every key is the tenant's: one slot).
-- KEYS: the tenant's month hashes. ARGV[1] TTL in ms, then 7 per row: the KEYS index of its month,
-- its day of the month ("06"), input tokens, output tokens, requests, micro-dollars, tier ('' keeps it).
-- A day's fields in its month's hash: "<dd>:in", "<dd>:out", "<dd>:req", "<dd>:usd", "<dd>:tier".
local ttl = ARGV[1]
local i = 2
while i + 6 <= #ARGV do
  local key = KEYS[tonumber(ARGV[i])]
  local d = ARGV[i + 1]
  redis.call('HINCRBY', key, d .. ':in', ARGV[i + 2])
  redis.call('HINCRBY', key, d .. ':out', ARGV[i + 3])
  redis.call('HINCRBY', key, d .. ':req', ARGV[i + 4])
  redis.call('HINCRBY', key, d .. ':usd', ARGV[i + 5])
  if ARGV[i + 6] ~= '' then redis.call('HSET', key, d .. ':tier', ARGV[i + 6]) end
  i = i + 7
end
for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, ttl) end
return 1
