-- Adds a replica's shadow counts to one minute of the what-if ledger (dev.sluice.gateway.shadow.redis.RedisShadowLedger).
-- KEYS[1] the minute's hash; ARGV[1] when it expires (epoch ms); then pairs of field, count to add.
local expireAt = tonumber(ARGV[1])
if not expireAt or (#ARGV - 1) % 2 ~= 0 then return redis.error_reply('expected an expiry and field/count pairs') end
for i = 2, #ARGV, 2 do
  local n = tonumber(ARGV[i + 1])
  if not n or n < 0 or n ~= math.floor(n) then return redis.error_reply('counts are whole and not negative: ' .. tostring(ARGV[i + 1])) end
end
for i = 2, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIREAT', KEYS[1], expireAt)
return 1
