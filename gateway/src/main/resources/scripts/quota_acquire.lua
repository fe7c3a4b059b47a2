-- Sluice tenant quota: check every sliding window of a tenant and charge all or none.
-- The Redis twin of dev.sluice.gateway.quota.SlidingWindow / TenantWindows; read those for
-- the reasoning. Each window is one hash of window_lib.lua, with slots of (length / 60) ms.
--
-- KEYS[i]  one hash per window, all with the tenant's hash tag, e.g. sluice:q:{acme}:minute
--          (a tier's window for the request's model, model-limits, is one more: sluice:q:{acme}:model:gpt-4o)
-- ARGV[1]  now in ms, or "" to use Redis TIME (so replicas share one clock)
-- ARGV[2]  tokens to charge   ARGV[3]  requests to charge
-- ARGV[3+2i-1], ARGV[3+2i]   window i: length in ms, then "capTokens:capRequests"
-- Returns {admitted, now, retryAfterMs (-1: never fits), blockingIndex (0: none),
--          then per window: usedTokens, usedRequests, resetMs}
--@include window_lib
local now = clock(ARGV[1])
local addT = tonumber(ARGV[2])
local addR = tonumber(ARGV[3])
if not addT or not addR or addT < 0 or addR < 0 then
  return redis.error_reply('amounts must not be negative: tokens=' .. tostring(ARGV[2]) .. ' requests=' .. tostring(ARGV[3]))
end

local windows = {}
local fits = true
for i = 1, #KEYS do
  local len = tonumber(ARGV[2 + 2 * i])
  local capT, capR = string.match(ARGV[3 + 2 * i], '(%d+):(%d+)')
  capT, capR = cap(tonumber(capT)), cap(tonumber(capR)) -- before advance: a bad argument fails with nothing written
  local w = advance(KEYS[i], now, len / SLOTS)
  w.capT, w.capR = capT, capR
  if addT > room(w.capT, w.T) or addR > room(w.capR, w.R) then fits = false end
  windows[i] = w
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
end

local out = { fits and 1 or 0, now, retry, blocking }
for _, w in ipairs(windows) do
  out[#out + 1] = w.T
  out[#out + 1] = w.R
  out[#out + 1] = resetMs(w, now)
end
return out
