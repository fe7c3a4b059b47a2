-- Appends one minute to a tenant's usage series.
-- KEYS[1] the series (sorted set scored by minute ms); ARGV: minute ms, encoded sample, retention ms.
local minute = tonumber(ARGV[1])
local retention = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], minute, minute)
redis.call('ZADD', KEYS[1], minute, ARGV[2])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local last = tonumber(newest[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (last - retention + 60000))
redis.call('PEXPIRE', KEYS[1], retention)
return 1
