-- Compare-and-set of a flag on its revision.
-- KEYS: the flag's hash, open (tenant -> id). ARGV: expected rev, flag JSON, status, tenant, id,
-- retention ms of a closed flag. Returns 1 when written, 0 when the revision moved on.
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '-1')
if rev ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'rev', rev + 1, 'status', ARGV[3])
if ARGV[3] ~= 'open' then
  if redis.call('HGET', KEYS[2], ARGV[4]) == ARGV[5] then
    redis.call('HDEL', KEYS[2], ARGV[4])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
end
return 1
