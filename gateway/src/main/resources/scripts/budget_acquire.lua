-- Sluice provider budget: check the pause, the window and the free slots, and take a request,
-- the tokens and a leased slot, all or nothing (ProviderBudget.tryAcquire).
-- KEYS[1] window hash  KEYS[2] lease set  KEYS[3] pause   (budget_common.lua)
-- ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] tokens   ARGV[3] lease id
-- ARGV[4] cap tokens   ARGV[5] cap requests   ARGV[6] max in flight   ARGV[7] lease ms
-- ARGV[8] wait hint when every slot is held
-- Returns {admitted, now, refusal (0 none, 1 paused, 2 tokens, 3 requests, 4 in flight), waitMs,
--          usedTokens, usedRequests, inFlight, pausedUntil, resetMs, then the leaving schedule:
--          leavesAt, tokens, requests per slot holding usage}
local now = clock(ARGV[1])
local tokens, leaseId = tonumber(ARGV[2]), ARGV[3]
local capT, capR, maxInFlight = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local leaseMs, hint = tonumber(ARGV[7]), tonumber(ARGV[8])

local w = advance(KEYS[1], now)
local inFlight = sweep(KEYS[2], now)
local paused = pausedUntil(KEYS[3], now)

local refusal, wait = 0, 0
local function block(code, ms)
  if refusal == 0 or ms > wait then refusal, wait = code, ms end
end
if tokens > capT then
  refusal, wait = 2, -1
else
  if paused > 0 then block(1, paused - now) end
  if w.T + tokens > capT then block(2, waitFor(w, now, tokens, 0, capT, BIG)) end
  if w.R + 1 > capR then block(3, waitFor(w, now, 0, 1, BIG, capR)) end
  if inFlight >= maxInFlight then block(4, hint) end
end

if refusal == 0 then
  adjustSlot(w, math.floor(now / SLOT_MS), tokens, 1)
  redis.call('ZADD', KEYS[2], now + leaseMs, leaseId)
  leaseTtl(KEYS[2], now)
  inFlight = redis.call('ZCARD', KEYS[2])
end
return withLeaving({ refusal == 0 and 1 or 0, now, refusal, wait, w.T, w.R, inFlight, paused, resetMs(w, now) }, w)
