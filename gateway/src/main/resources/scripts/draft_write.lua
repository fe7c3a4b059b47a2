-- One change of the tiers draft, atomically: save, shadow on/off, or delete. The version rises by
-- one on every change and is kept through a delete, so a later draft never reuses a number.
-- KEYS[1] the draft hash; ARGV[1] the operation (save | shadow | delete), ARGV[2] the expected
-- version (-1: any); save: ARGV[3] yaml, ARGV[4] author, ARGV[5] now (epoch ms);
-- shadow: ARGV[3] '1' on / '0' off, ARGV[4] now. Returns {written (1/0), the hash's fields after, flat}.
local key = KEYS[1]
local op = ARGV[1]
local expected = tonumber(ARGV[2])
local version = tonumber(redis.call('HGET', key, 'version') or '0')
local exists = redis.call('HEXISTS', key, 'yaml') == 1
local function answer(written)
  local out = redis.call('HGETALL', key)
  table.insert(out, 1, written)
  return out
end
if op == 'save' then
  if expected >= 0 and expected ~= version then return answer(0) end
  local shadow = exists and redis.call('HEXISTS', key, 'shadow-since') == 1
  redis.call('HSET', key, 'yaml', ARGV[3], 'version', version + 1, 'author', ARGV[4], 'saved-at', ARGV[5])
  if shadow then redis.call('HSET', key, 'shadow-since', ARGV[5]) end
  return answer(1)
elseif op == 'shadow' then
  if not exists then return answer(0) end
  local on = redis.call('HEXISTS', key, 'shadow-since') == 1
  if (ARGV[3] == '1') == on then return answer(1) end
  if ARGV[3] == '1' then
    redis.call('HSET', key, 'shadow-since', ARGV[4], 'version', version + 1)
  else
    redis.call('HDEL', key, 'shadow-since')
    redis.call('HSET', key, 'version', version + 1)
  end
  return answer(1)
elseif op == 'delete' then
  if not exists or (expected >= 0 and expected ~= version) then return answer(0) end
  redis.call('DEL', key)
  redis.call('HSET', key, 'version', version + 1)
  return answer(1)
end
return redis.error_reply('unknown draft operation ' .. tostring(op))
