-- Sluice tenant quota: check every sliding window of a tenant and charge all or none.
-- The Redis twin of dev.sluice.gateway.quota.SlidingWindow / TenantWindows; read those for
-- the reasoning. Each window is a hash of the 61 slots of (length / 60) ms that overlap it:
--   t:<slot> r:<slot>  tokens and requests charged in that slot
--   T R                totals over the slots still in the window
--   h                  oldest slot that may hold usage;  n  newest slot with usage
--
-- KEYS[i]  one hash per window, all with the tenant's hash tag, e.g. sluice:q:{acme}:minute
-- ARGV[1]  now in ms, or "" to use Redis TIME (so replicas share one clock)
-- ARGV[2]  tokens to charge   ARGV[3]  requests to charge
-- ARGV[3+2i-1], ARGV[3+2i]   window i: length in ms, then "capTokens:capRequests"
-- Returns {admitted, now, retryAfterMs (-1: never fits), blockingIndex (0: none),
--          then per window: usedTokens, usedRequests, resetMs}
local SLOTS = 60
local HELD = SLOTS + 1
-- SlidingWindow.MAX_AMOUNT: the most a slot holds and the highest cap that counts; 61 slots of
-- it sum below 2^53, so these doubles count exactly. Compare room left, never a sum.
local MAX_AMOUNT = 147659004176081

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local addT = tonumber(ARGV[2])
local addR = tonumber(ARGV[3])
if not addT or not addR or addT < 0 or addR < 0 then
  return redis.error_reply('amounts must not be negative: tokens=' .. tostring(ARGV[2]) .. ' requests=' .. tostring(ARGV[3]))
end
local function room(cap, used)
  return math.max(0, cap - used)
end

-- The fields of slots first..last, in order: t:<slot>, r:<slot>, ...
local function slotFields(first, last)
  local fields = {}
  for i = first, last do
    fields[#fields + 1] = 't:' .. i
    fields[#fields + 1] = 'r:' .. i
  end
  return fields
end

-- Drop slots that left the window; returns totals and the window's slot arithmetic.
local function advance(key, slotMs)
  local oldest = math.floor(now / slotMs) - SLOTS
  local st = redis.call('HMGET', key, 'h', 'T', 'R', 'n')
  local h, T, R, n = tonumber(st[1]), tonumber(st[2]) or 0, tonumber(st[3]) or 0, tonumber(st[4])
  if not h or oldest - h >= HELD or not n or n < oldest then
    -- Everything charged has left the window (or nothing was): start afresh, reading nothing.
    if h then redis.call('DEL', key) end
    T, R, n = 0, 0, nil
  elseif h < oldest then
    -- One read for the slots that left, up to the newest with usage (a call per slot made a
    -- tenant seen every 20 s pay 2.5x the script time).
    local fields = slotFields(h, math.min(oldest - 1, n))
    local v = redis.call('HMGET', key, unpack(fields))
    for j = 1, #v, 2 do
      T = T - (tonumber(v[j]) or 0)
      R = R - (tonumber(v[j + 1]) or 0)
    end
    redis.call('HDEL', key, unpack(fields))
    redis.call('HSET', key, 'T', T, 'R', R)
  end
  if not h or oldest > h then h = oldest end
  return h, T, R, n
end

local windows = {}
local fits = true
for i = 1, #KEYS do
  local len = tonumber(ARGV[2 + 2 * i])
  local capT, capR = string.match(ARGV[3 + 2 * i], '(%d+):(%d+)')
  local w = { key = KEYS[i], len = len, slotMs = len / SLOTS,
              capT = math.min(tonumber(capT), MAX_AMOUNT), capR = math.min(tonumber(capR), MAX_AMOUNT) }
  w.h, w.T, w.R, w.n = advance(w.key, w.slotMs)
  if addT > room(w.capT, w.T) or addR > room(w.capR, w.R) then fits = false end
  windows[i] = w
end

local retry, blocking = 0, 0
-- A peek (0 tokens, 0 requests) reads only: no slot, TTL or key is written for it.
if fits and (addT > 0 or addR > 0) then
  for i, w in ipairs(windows) do
    local slot = math.floor(now / w.slotMs)
    w.T, w.R = w.T + addT, w.R + addR
    if addT > 0 or addR > 0 then
      if not w.n or slot > w.n then w.n = slot end
    end
    redis.call('HINCRBY', w.key, 't:' .. slot, addT)
    redis.call('HINCRBY', w.key, 'r:' .. slot, addR)
    redis.call('HSET', w.key, 'T', w.T, 'R', w.R, 'h', w.h, 'n', w.n or slot)
    redis.call('PEXPIRE', w.key, w.len + 2 * w.slotMs)
  end
elseif not fits then
  for i, w in ipairs(windows) do
    local wait
    if addT > w.capT or addR > w.capR then
      wait = -1
    elseif addT <= room(w.capT, w.T) and addR <= room(w.capR, w.R) then
      wait = 0
    else
      local T, R = w.T, w.R
      local v = redis.call('HMGET', w.key, unpack(slotFields(w.h, w.h + SLOTS))) -- one read, not one per slot
      for s = w.h, w.h + SLOTS do
        local j = 2 * (s - w.h) + 1
        T = T - (tonumber(v[j]) or 0)
        R = R - (tonumber(v[j + 1]) or 0)
        if addT <= room(w.capT, T) and addR <= room(w.capR, R) then
          wait = math.max(1, (s + HELD) * w.slotMs - now)
          break
        end
      end
      wait = wait or w.len
    end
    if wait < 0 then
      retry, blocking = -1, i
      break
    elseif wait > retry then
      retry, blocking = wait, i
    end
  end
end

local out = { fits and 1 or 0, now, retry, blocking }
for _, w in ipairs(windows) do
  local reset = 0
  if (w.T > 0 or w.R > 0) and w.n then reset = math.max(0, (w.n + HELD) * w.slotMs - now) end
  out[#out + 1] = w.T
  out[#out + 1] = w.R
  out[#out + 1] = reset
end
return out
