-- Adds one replica's buffered activity for one minute.
-- KEYS[1] tenants hash (tenant -> tier), KEYS[2] stages hash ("<tenant> <stage>" -> count),
-- KEYS[3] pressure hash ("<tenant> <window> <metric>" -> value).
-- ARGV[1] TTL in ms, ARGV[2] n, ARGV[3] s, then n tenant/tier pairs, then s field/count pairs,
-- then field/op/value triples for the pressure counters: op '+' adds, '>' keeps the larger,
-- '<' the smaller (abuse/Pressure.merge in Java).
local ttl = ARGV[1]
local n = tonumber(ARGV[2])
local s = tonumber(ARGV[3])
local i = 4
for _ = 1, n do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for _ = 1, s do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
local p = 0
while i + 2 <= #ARGV do
  local field, op, value = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if op == '+' then
    redis.call('HINCRBY', KEYS[3], field, value)
  else
    local old = redis.call('HGET', KEYS[3], field)
    local v = tonumber(value)
    if not old or (op == '>' and v > tonumber(old)) or (op == '<' and v < tonumber(old)) then
      redis.call('HSET', KEYS[3], field, value)
    end
  end
  p = p + 1
  i = i + 3
end
if n > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
if s > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
if p > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
return 1
