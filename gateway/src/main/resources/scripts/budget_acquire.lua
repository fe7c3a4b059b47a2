-- Sluice provider budget: check the pause, the window and the free slots, and take a request,
-- the tokens and a leased slot, all or nothing (ProviderBudget.tryAcquire).
-- KEYS[1] window hash  KEYS[2] lease set  KEYS[3] pause   (budget_common.lua)
-- ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] tokens   ARGV[3] lease id
-- ARGV[4] cap tokens   ARGV[5] cap requests   ARGV[6] max in flight   ARGV[7] lease ms
-- ARGV[8] wait hint when every slot is held
-- ARGV[9] "0" when the caller can do without the leaving schedule; it is read anyway after a
--         refusal or when the window is at least half full (absent: "1")
-- Input and output limits apart (Anthropic's ITPM, OTPM), only where the caps are not 0: else
-- KEYS[4], KEYS[5] are never touched, so a budget without the split costs what it did.
-- KEYS[4] input window hash   KEYS[5] output window hash   (absent: no split)
-- ARGV[10] input tokens   ARGV[11] output tokens   ARGV[12] cap input   ARGV[13] cap output   (0: none)
-- ARGV[14] count delay in ms, in [0, SLOT_MS]: the charges are stamped that much after now, when
--         the provider may count the call (absent: 0)
-- Returns {admitted, now, refusal (0 none, 1 paused, 2 tokens, 3 requests, 4 in flight, 5 input, 6 output),
--          waitMs, usedTokens, usedRequests, inFlight, pausedUntil, resetMs, scheduleFollows (1/0),
--          usedInput, usedOutput, then the leaving schedule if it follows: leavesAt, tokens, requests
--          per slot holding usage}
--@include budget_common
local now = clock(ARGV[1])
local tokens, leaseId = tonumber(ARGV[2]), ARGV[3]
local capT, capR, maxInFlight = cap(tonumber(ARGV[4])), cap(tonumber(ARGV[5])), tonumber(ARGV[6])
local leaseMs, hint = tonumber(ARGV[7]), tonumber(ARGV[8])
local wantSchedule = ARGV[9] ~= '0'
local countDelay = tonumber(ARGV[14] or '0')
if not countDelay or countDelay < 0 or countDelay > SLOT_MS then
  return redis.error_reply('count delay must be in [0, ' .. SLOT_MS .. '], was ' .. tostring(ARGV[14]))
end
if not tokens or tokens < 0 then return redis.error_reply('tokens must not be negative, was ' .. tostring(ARGV[2])) end
local input, output = tonumber(ARGV[10] or '0'), tonumber(ARGV[11] or '0')
local capI, capO = cap(tonumber(ARGV[12] or '0')), cap(tonumber(ARGV[13] or '0'))
if not input or input < 0 or not output or output < 0 then
  return redis.error_reply('input and output tokens must not be negative, were ' .. tostring(ARGV[10]) .. ', ' .. tostring(ARGV[11]))
end

local w = advance(KEYS[1], now, SLOT_MS, true)
local inFlight = sweep(KEYS[2], now)
local paused = pausedUntil(KEYS[3], now)
local wi, wo = nil, nil
if capI > 0 then wi = advance(KEYS[4], now, SLOT_MS) end
if capO > 0 then wo = advance(KEYS[5], now, SLOT_MS) end

local refusal, wait = refusalOf(w, wi, wo, now, paused, true, { T = tokens, R = 1, I = input, O = output },
                                { T = capT, R = capR, I = capI, O = capO }, inFlight >= maxInFlight, hint)

if refusal == 0 then
  local at = math.floor((now + countDelay) / SLOT_MS)
  adjustSlot(w, at, tokens, 1)
  if wi and input > 0 then adjustSlot(wi, at, input, 0) end
  if wo and output > 0 then adjustSlot(wo, at, output, 0) end
  redis.call('ZADD', KEYS[2], now + leaseMs, leaseId)
  leaseTtl(KEYS[2], now)
  inFlight = redis.call('ZCARD', KEYS[2])
end
-- The schedule is most of this script's cost (HGETALL and parsing the window): only when it may serve.
local schedule = wantSchedule or refusal ~= 0 or 2 * w.T >= capT or 2 * w.R >= capR
local reply = { refusal == 0 and 1 or 0, now, refusal, wait, w.T, w.R, inFlight, paused, resetMs(w, now), schedule and 1 or 0,
                wi and wi.T or 0, wo and wo.T or 0 }
if schedule then return withLeaving(reply, w) end
return reply
