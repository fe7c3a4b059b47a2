-- Opens a flag unless the tenant has an open one.
-- KEYS: open (tenant -> id), latest (tenant -> id), index (zset), the flag's hash.
-- ARGV: tenant, id, flag JSON, opened-at ms. Returns '' when opened, else the open flag's id.
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  return existing
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
redis.call('HSET', KEYS[4], 'doc', ARGV[3], 'rev', 1, 'status', 'open')
return ''
