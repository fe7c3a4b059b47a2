-- Seeds the tiers document as version 1 unless one exists.
-- KEYS[1] the document hash; ARGV: yaml, source, now (epoch ms). Returns 1 if seeded, 0 if present.
if redis.call('HEXISTS', KEYS[1], 'version') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'yaml', ARGV[1], 'version', 1, 'updated-by', ARGV[2], 'updated-at', ARGV[3])
return 1
