-- Adds one replica's buffered activity for one minute.
-- KEYS[1] tenants hash (tenant -> tier), KEYS[2] stages hash ("<tenant> <stage>" -> count).
-- ARGV[1] TTL in ms, ARGV[2] n, then n tenant/tier pairs, then field/count pairs.
local ttl = ARGV[1]
local n = tonumber(ARGV[2])
local i = 3
for _ = 1, n do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
while i <= #ARGV do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
if n > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
if i > 3 + 2 * n then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
