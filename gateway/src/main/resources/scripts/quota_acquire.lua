-- Sluice tenant quota: check every sliding window and spend budget of a tenant and charge all or none.
-- The Redis twin of dev.sluice.gateway.quota.SlidingWindow / TenantWindows / SpendCounters; read those
-- for the reasoning. Each window is one hash of window_lib.lua, with slots of (length / 60) ms; each
-- spend budget one string of micro-dollars for its calendar period.
--
-- KEYS[1..n]    one hash per window, all with the tenant's hash tag, e.g. sluice:q:{acme}:minute
--               (a tier's window for the request's model, model-limits, is one more: sluice:q:{acme}:model:gpt-4o)
-- KEYS[n+1..]   one string per spend budget's period now, e.g. sluice:q:{acme}:spend:day:2026-12-06
-- ARGV[1]  now in ms, or "" to use Redis TIME (so replicas share one clock)
-- ARGV[2]  tokens to charge   ARGV[3]  requests to charge
-- ARGV[3+2i-1], ARGV[3+2i]   window i: length in ms, then "capTokens:capRequests"
-- then per spend budget j, three values: cap in micro-dollars, the period's end in ms, the cost to charge
--   (so s = #ARGV - 3 - 2 * #KEYS budgets follow the n = #KEYS - s windows)
-- Returns {admitted, now, retryAfterMs (-1: never fits), blockingIndex (0: none; past n: a budget),
--          then per window: usedTokens, usedRequests, resetMs; then per budget: usedMicros, resetMs}
--@include window_lib
local now = clock(ARGV[1])
local addT = tonumber(ARGV[2])
local addR = tonumber(ARGV[3])
if not addT or not addR or addT < 0 or addR < 0 then
  return redis.error_reply('amounts must not be negative: tokens=' .. tostring(ARGV[2]) .. ' requests=' .. tostring(ARGV[3]))
end
local s = #ARGV - 3 - 2 * #KEYS
local n = #KEYS - s
if s < 0 or n < 0 then return redis.error_reply('arguments do not match the keys') end

-- The budgets' arguments are read before anything is written: a bad one fails with nothing written.
local spends = {}
local cost = 0
for j = 1, s do
  local a = 3 + 2 * n + 3 * (j - 1)
  local capM, endMs, c = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  if not capM or not endMs or not c or c < 0 then
    return redis.error_reply('cost must not be negative: ' .. tostring(ARGV[a + 3]))
  end
  cost = micros(c)
  spends[j] = { key = KEYS[n + j], cap = micros(capM), endMs = endMs }
end

local windows = {}
local fits = true
for i = 1, n do
  local len = tonumber(ARGV[2 + 2 * i])
  local capT, capR = string.match(ARGV[3 + 2 * i], '(%d+):(%d+)')
  capT, capR = cap(tonumber(capT)), cap(tonumber(capR)) -- before advance: a bad argument fails with nothing written
  local w = advance(KEYS[i], now, len / SLOTS)
  w.capT, w.capR = capT, capR
  if addT > room(w.capT, w.T) or addR > room(w.capR, w.R) then fits = false end
  windows[i] = w
end
for _, b in ipairs(spends) do
  b.used = tonumber(redis.call('GET', b.key)) or 0
  if cost > math.max(0, b.cap - b.used) then fits = false end
end

local retry, blocking = 0, 0
-- A peek (0 tokens, 0 requests) reads only: no slot, TTL or key is written for it.
if fits and (addT > 0 or addR > 0) then
  for i, w in ipairs(windows) do
    local slot = math.floor(now / w.slotMs)
    w.T, w.R = w.T + addT, w.R + addR
    if not w.n or slot > w.n then w.n = slot end
    -- No saturation needed here: the charge fitted, so the slot stays within the window's total.
    redis.call('HINCRBY', w.key, 't:' .. slot, addT)
    redis.call('HINCRBY', w.key, 'r:' .. slot, addR)
    redis.call('HSET', w.key, 'T', w.T, 'R', w.R, 'h', w.h, 'n', w.n)
    redis.call('PEXPIRE', w.key, windowTtlMs(w.slotMs))
  end
  if cost > 0 then
    for _, b in ipairs(spends) do
      b.used = b.used + cost -- it fitted: within the cap, so within MAX_MICROS
      redis.call('SET', b.key, b.used, 'PXAT', b.endMs + SPEND_GRACE_MS)
    end
  end
elseif not fits then
  for i, w in ipairs(windows) do
    local wait = waitFor(w, now, addT, addR, w.capT, w.capR)
    if wait < 0 then
      retry, blocking = -1, i
      break
    elseif wait > retry then
      retry, blocking = wait, i
    end
  end
  -- A budget makes room when its period turns; a cost above the whole budget never fits.
  for j, b in ipairs(spends) do
    if retry < 0 then break end
    local wait = 0
    if cost > b.cap then
      wait = -1
    elseif cost > math.max(0, b.cap - b.used) then
      wait = math.max(1, b.endMs - now)
    end
    if wait < 0 then
      retry, blocking = -1, n + j
    elseif wait > retry then
      retry, blocking = wait, n + j
    end
  end
end

local out = { fits and 1 or 0, now, retry, blocking }
for _, w in ipairs(windows) do
  out[#out + 1] = w.T
  out[#out + 1] = w.R
  out[#out + 1] = resetMs(w, now)
end
for _, b in ipairs(spends) do
  out[#out + 1] = b.used
  out[#out + 1] = math.max(0, b.endMs - now)
end
return out
