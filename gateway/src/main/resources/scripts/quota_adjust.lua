-- Sluice tenant quota: correct earlier charges by signed deltas, each in the slot it was made in,
-- in every window that still holds that slot (the twin of SlidingWindow.adjust). One call may
-- carry several charges of one tenant (a batch of settlements): one round trip for all of them.
-- KEYS[i]  the tenant's window hashes (as in quota_acquire.lua)
-- ARGV[1]  now in ms, or "" for Redis TIME;  ARGV[2] chargedAt in ms
-- ARGV[3]  delta tokens;  ARGV[4] delta requests;  ARGV[4+i] window i's length in ms
-- ARGV[5+#KEYS..] more charges, three values each: chargedAt, delta tokens, delta requests
-- Returns the number of (window, charge) pairs adjusted.
--@include window_lib
local now = clock(ARGV[1])
local charges = { { tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]) } }
for j = 5 + #KEYS, #ARGV, 3 do
  charges[#charges + 1] = { tonumber(ARGV[j]), tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]) }
end
local adjusted = 0
for i = 1, #KEYS do
  local key, len = KEYS[i], tonumber(ARGV[4 + i])
  local slotMs = len / SLOTS
  local oldest = math.floor(now / slotMs) - SLOTS
  local touched = false
  for _, c in ipairs(charges) do
    local slot, dT, dR = math.floor(c[1] / slotMs), c[2], c[3]
    -- Only a slot that is still in the window and still stored; stale slots are dropped by acquire.
    -- Not advance + adjustSlot: a correction reads and writes one slot and never drops others.
    if slot >= oldest then
      local v = redis.call('HMGET', key, 't:' .. slot, 'r:' .. slot, 'T', 'R')
      if v[1] then
        local t0, r0 = tonumber(v[1]), tonumber(v[2]) or 0
        local t1, r1 = saturated(t0, dT), saturated(r0, dR)
        local T = (tonumber(v[3]) or 0) + (t1 - t0)
        local R = (tonumber(v[4]) or 0) + (r1 - r0)
        redis.call('HSET', key, 't:' .. slot, t1, 'r:' .. slot, r1, 'T', T, 'R', R)
        adjusted = adjusted + 1
        touched = true
      end
    end
  end
  if touched then redis.call('PEXPIRE', key, windowTtlMs(slotMs)) end
end
return adjusted
