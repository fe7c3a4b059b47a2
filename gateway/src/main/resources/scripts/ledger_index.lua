-- Names tenants in a month's ledger index (the export reads it), and keeps the index as long as the days.
-- KEYS[1] the month's set of tenant ids; ARGV[1] TTL in ms, then the tenant ids.
for i = 2, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
