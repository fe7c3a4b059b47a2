-- Sluice tenant quota: correct earlier charges by signed deltas, each in the slot it was made in,
-- in every window that still holds that slot (the twin of SlidingWindow.adjust), and its cost in
-- the spend budgets' periods it was charged in while their counters are kept (SpendCounters.adjust).
-- A positive correction in a slot or period Redis does not hold (a fail-open tenant's use during an
-- outage, handed over as Redis answers again; a charge whose key Redis lost) is charged there.
-- One call may carry several charges of one tenant (a batch of settlements): one round trip for all.
-- KEYS[1..n]  the tenant's window hashes (as in quota_acquire.lua); KEYS[n+1..] its budget periods' counters
-- ARGV[1]  now in ms, or "" for Redis TIME;  ARGV[2] n, the number of windows
-- ARGV[2+i] window i's length in ms;  ARGV[2+n+j] budget period j's end in ms
-- then per charge, four values: chargedAt in ms, delta tokens, delta requests, delta micro-dollars
-- Returns the number of (window or budget, charge) pairs adjusted.
--@include window_lib
local now = clock(ARGV[1])
local n = tonumber(ARGV[2])
local s = #KEYS - n
local charges = {}
for j = 3 + #KEYS, #ARGV, 4 do
  charges[#charges + 1] = { tonumber(ARGV[j]), tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]), tonumber(ARGV[j + 3]) }
end
local adjusted = 0
for i = 1, n do
  local key, len = KEYS[i], tonumber(ARGV[2 + i])
  local slotMs = len / SLOTS
  local oldest = math.floor(now / slotMs) - SLOTS
  local touched = false
  for _, c in ipairs(charges) do
    local slot, dT, dR = math.floor(c[1] / slotMs), c[2], c[3]
    -- Only a slot that is still in the window and still stored; stale slots are dropped by acquire.
    -- Not advance + adjustSlot: a correction reads and writes one slot and never drops others.
    if slot >= oldest and (dT ~= 0 or dR ~= 0) then
      local v = redis.call('HMGET', key, 't:' .. slot, 'r:' .. slot, 'T', 'R')
      if not v[1] and (dT > 0 or dR > 0) and slot <= math.floor(now / slotMs) then
        -- Not stored: the slot's bookkeeping (its window's oldest slot, newest, totals) is advance's.
        adjusted = adjusted + adjustSlot(advance(key, now, slotMs), slot, dT, dR)
        touched = true
      elseif v[1] then
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
for j = 1, s do
  local key, endMs = KEYS[n + j], tonumber(ARGV[2 + n + j])
  if now < endMs + SPEND_GRACE_MS then
    local v = tonumber(redis.call('GET', key))
    local kept = v ~= nil
    v = v or 0
    local changed = false
    for _, c in ipairs(charges) do
      -- A counter not kept is made by a positive correction only (a negative one has nothing to take back).
      if c[4] > 0 or (c[4] < 0 and (kept or v > 0)) then
        v = micros(v + c[4])
        adjusted = adjusted + 1
        changed = true
      end
    end
    -- An empty counter is deleted: a later correction finds none (SpendCounters drops it likewise).
    if changed then
      if v == 0 then
        if kept then redis.call('DEL', key) end
      elseif kept then
        redis.call('SET', key, v, 'KEEPTTL')
      else
        redis.call('SET', key, v, 'PXAT', endMs + SPEND_GRACE_MS)
      end
    end
  end
end
return adjusted
