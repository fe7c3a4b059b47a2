-- Sluice sliding window: the helpers the quota (quota_*.lua) and the provider budget
-- (budget_*.lua) scripts share. The Redis twin of dev.sluice.gateway.quota.SlidingWindow; read it
-- for the reasoning. LuaScripts puts this file where a script says "--@include window_lib", so
-- every operation is still one script, one round trip.
-- A window is a hash of the 61 slots of (length / 60) ms that overlap it, and one slot ahead of
-- now that a charge stamped ahead may take (the provider budget's count delay; the quota never does):
--   t:<slot> r:<slot>  tokens and requests charged in that slot
--   T R                totals over the slots still in the window
--   h                  oldest slot that may hold usage;  n  newest slot with usage
local SLOTS = 60
local HELD = SLOTS + 1
local RING = HELD + 1
-- SlidingWindow.MAX_AMOUNT: the most a slot holds and the highest cap that counts; 62 slots of
-- it sum below 2^53, so these doubles count exactly. Compare room left, never a sum.
local MAX_AMOUNT = 145277407334532

local function cap(c)
  return math.min(c, MAX_AMOUNT)
end

local function room(c, used)
  return math.max(0, cap(c) - used)
end

-- SlidingWindow.saturated: within [0, MAX_AMOUNT] whatever the delta (a double sum out of range is clamped).
local function saturated(v, d)
  return math.min(MAX_AMOUNT, math.max(0, v + d))
end

-- The caller's now in ms, or Redis TIME when it passes "" (so replicas share one clock).
local function clock(arg)
  local now = tonumber(arg)
  if now then return now end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- A window's hash outlives its last slot (one ahead of now at most) by one slot either side of the edge.
local function windowTtlMs(slotMs)
  return (SLOTS + 3) * slotMs
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

local LEFT_FIELDS = { 'l0s', 'l0T', 'l0R', 'l1s', 'l1T', 'l1R' }

-- SlidingWindow.left: of the slots leaving ({slot, T, R}, oldest first), the two newest that held
-- usage are remembered in fields l0s l0T l0R (newest) and l1s l1T l1R; st holds those fields as
-- they were (read before the hash may have been deleted).
local function remember(key, gone, st, slotMs)
  local s0, t0, r0 = tonumber(st[1]), tonumber(st[2]), tonumber(st[3])
  local s1, t1, r1 = tonumber(st[4]), tonumber(st[5]), tonumber(st[6])
  local changed = false
  for _, g in ipairs(gone) do
    if (g[2] > 0 or g[3] > 0) and (not s0 or g[1] > s0) then
      s1, t1, r1 = s0, t0, r0
      s0, t0, r0 = g[1], g[2], g[3]
      changed = true
    end
  end
  if not changed then return end
  redis.call('HSET', key, 'l0s', s0, 'l0T', t0, 'l0R', r0)
  if s1 then redis.call('HSET', key, 'l1s', s1, 'l1T', t1, 'l1R', r1) end
  redis.call('PEXPIRE', key, windowTtlMs(slotMs))
end

-- Drops the slots that left the window at now (SlidingWindow.advance); returns the window:
-- { key, slotMs, h, T, R, n }. With track, the newest slots that left are remembered (leftSince).
local function advance(key, now, slotMs, track)
  local oldest = math.floor(now / slotMs) - SLOTS
  local st = redis.call('HMGET', key, 'h', 'T', 'R', 'n')
  local w = { key = key, slotMs = slotMs, h = tonumber(st[1]), T = tonumber(st[2]) or 0, R = tonumber(st[3]) or 0,
              n = tonumber(st[4]) }
  local gone, before = nil, nil
  if not w.h or oldest - w.h >= RING or not w.n or w.n < oldest then
    -- Everything charged has left the window (or nothing was): start afresh, reading nothing
    -- (but the newest two slots, when tracked).
    if w.h then
      if track and w.n then
        before = redis.call('HMGET', key, unpack(LEFT_FIELDS))
        local first = math.max(w.h, w.n - 1)
        local v = redis.call('HMGET', key, unpack(slotFields(first, w.n)))
        gone = {}
        for j = 1, #v, 2 do
          gone[#gone + 1] = { first + (j - 1) / 2, tonumber(v[j]) or 0, tonumber(v[j + 1]) or 0 }
        end
      end
      redis.call('DEL', key)
    end
    w.T, w.R, w.n = 0, 0, nil
  elseif w.h < oldest then
    -- One read for the slots that left, up to the newest with usage (a call per slot made a
    -- tenant seen every 20 s pay 2.5x the script time).
    local fields = slotFields(w.h, math.min(oldest - 1, w.n))
    local v = redis.call('HMGET', key, unpack(fields))
    if track then gone = {} end
    for j = 1, #v, 2 do
      local t, r = tonumber(v[j]) or 0, tonumber(v[j + 1]) or 0
      w.T = w.T - t
      w.R = w.R - r
      if gone then gone[#gone + 1] = { w.h + (j - 1) / 2, t, r } end
    end
    redis.call('HDEL', key, unpack(fields))
    redis.call('HSET', key, 'T', w.T, 'R', w.R, 'h', oldest)
  end
  if not w.h or oldest > w.h then w.h = oldest end
  if gone then remember(key, gone, before or redis.call('HMGET', key, unpack(LEFT_FIELDS)), slotMs) end
  return w
end

-- SlidingWindow.leftSince: the tokens and requests of the remembered slots that left after fromMs.
local function leftSince(key, fromMs, slotMs)
  local st = redis.call('HMGET', key, unpack(LEFT_FIELDS))
  local T, R = 0, 0
  for j = 0, 1 do
    local s = tonumber(st[3 * j + 1])
    if s and (s + HELD) * slotMs > fromMs then
      T = T + (tonumber(st[3 * j + 2]) or 0)
      R = R + (tonumber(st[3 * j + 3]) or 0)
    end
  end
  return T, R
end

-- Milliseconds until the addition fits, walking the slots oldest first (SlidingWindow.waitMs):
-- 0 when it fits now, -1 when it never fits.
local function waitFor(w, now, addT, addR, capT, capR)
  if addT > cap(capT) or addR > cap(capR) then return -1 end
  local T, R = w.T, w.R
  if addT <= room(capT, T) and addR <= room(capR, R) then return 0 end
  local v = redis.call('HMGET', w.key, unpack(slotFields(w.h, w.h + HELD))) -- one read, not one per slot
  for s = w.h, w.h + HELD do
    local j = 2 * (s - w.h) + 1
    T = T - (tonumber(v[j]) or 0)
    R = R - (tonumber(v[j + 1]) or 0)
    if addT <= room(capT, T) and addR <= room(capR, R) then return math.max(1, (s + HELD) * w.slotMs - now) end
  end
  return SLOTS * w.slotMs
end

-- Until the newest usage has left the window (OpenAI's reset), 0 for an empty window.
local function resetMs(w, now)
  if (w.T > 0 or w.R > 0) and w.n then return math.max(0, (w.n + HELD) * w.slotMs - now) end
  return 0
end

-- Adds signed deltas to one slot still in the window, saturating (SlidingWindow.adjust);
-- returns 1 if the slot was still in the window, else 0.
local function adjustSlot(w, slot, dT, dR)
  if slot < w.h or slot > w.h + HELD then return 0 end
  local v = redis.call('HMGET', w.key, 't:' .. slot, 'r:' .. slot)
  local t0, r0 = tonumber(v[1]) or 0, tonumber(v[2]) or 0
  local t1, r1 = saturated(t0, dT), saturated(r0, dR)
  w.T, w.R = w.T + t1 - t0, w.R + r1 - r0
  if (t1 > 0 or r1 > 0) and (not w.n or slot > w.n) then w.n = slot end
  redis.call('HSET', w.key, 't:' .. slot, t1, 'r:' .. slot, r1, 'T', w.T, 'R', w.R, 'h', w.h)
  if w.n then redis.call('HSET', w.key, 'n', w.n) end
  redis.call('PEXPIRE', w.key, windowTtlMs(w.slotMs))
  return 1
end

-- When what is in the window leaves it: {leavesAt, tokens, requests} per slot holding usage,
-- oldest first, flattened (SlidingWindow.forEachSlot). One HGETALL for the whole window: an
-- HMGET of its 122 slot fields looks each one up in the listpack on its own, about 6 times the
-- server time of reading the hash once (81 against 13 us for a full window, measured).
local function leaving(w)
  local all = redis.call('HGETALL', w.key)
  local t, r = {}, {}
  for i = 1, #all, 2 do
    local f = all[i]
    local kind = string.sub(f, 1, 2)
    if kind == 't:' then
      t[tonumber(string.sub(f, 3))] = tonumber(all[i + 1])
    elseif kind == 'r:' then
      r[tonumber(string.sub(f, 3))] = tonumber(all[i + 1])
    end
  end
  local out = {}
  for s = w.h, w.h + HELD do
    local ts, rs = t[s] or 0, r[s] or 0
    if ts > 0 or rs > 0 then
      out[#out + 1] = (s + HELD) * w.slotMs
      out[#out + 1] = ts
      out[#out + 1] = rs
    end
  end
  return out
end

-- Spend budgets (the twin of dev.sluice.gateway.quota.SpendCounters): one string per budget period,
-- micro-dollars, e.g. sluice:q:{acme}:spend:day:2026-12-06. Money.MAX_MICROS, 2^53-1, is the most a
-- counter holds and the highest cap that counts, so these doubles count exactly.
local MAX_MICROS = 9007199254740991
-- SpendLimit.GRACE_MS: a period's counter outlives its end by an hour (settlements of calls that straddle the turn).
local SPEND_GRACE_MS = 3600000

local function micros(v)
  return math.max(0, math.min(MAX_MICROS, v))
end
