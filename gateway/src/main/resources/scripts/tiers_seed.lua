-- Seeds the tiers document unless one exists: as version 1, or as ARGV[4] when a replica puts
-- back the document it had in force (Redis came back empty), so versions keep rising.
-- KEYS[1] the document hash; ARGV: yaml, source, now (epoch ms)[, version]. Returns 1 if seeded, 0 if present.
if redis.call('HEXISTS', KEYS[1], 'version') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'yaml', ARGV[1], 'version', tonumber(ARGV[4]) or 1, 'updated-by', ARGV[2], 'updated-at', ARGV[3])
return 1
