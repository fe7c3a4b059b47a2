-- Compare-and-set of the tiers document on its version.
-- KEYS[1] the document hash; ARGV: expected version, yaml, updated-by, now (epoch ms).
-- Returns the new version, or 0 when the stored version is not the expected one.
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then
  return 0
end
local next = current + 1
redis.call('HSET', KEYS[1], 'yaml', ARGV[2], 'version', next, 'updated-by', ARGV[3], 'updated-at', ARGV[4])
return next
