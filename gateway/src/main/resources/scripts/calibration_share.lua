-- One replica's learned token ratio for one provider budget, shared: writes this replica's
-- entry, drops the entries of replicas silent for longer than max age (restarted or gone),
-- and returns what is left, in one round trip.
-- KEYS[1] the hash (field: replica id, value: "<atMs> <ratio> <samples>")
-- ARGV[1] replica id, ARGV[2] its entry, ARGV[3] now (ms, the replica's clock), ARGV[4] max age (ms)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
-- The hash outlives its last writer by max age, then goes.
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local oldest = tonumber(ARGV[3]) - tonumber(ARGV[4])
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local at = tonumber(string.match(all[i + 1], '^(%-?%d+)'))
  if at == nil or at < oldest then
    redis.call('HDEL', KEYS[1], all[i])
  else
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  end
end
return out
