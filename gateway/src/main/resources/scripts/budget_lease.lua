-- Sluice provider budget: a replica's slice (ProviderBudget.lease, line for line). In one step:
-- the replica's queued settlements, the unspent rest of its previous slice given back, the slots
-- its calls use kept and renewed, then (unless paused or refused) a new slice and spare slots.
-- KEYS[1] window hash  KEYS[2] lease set  KEYS[3] pause  KEYS[4] input window  KEYS[5] output window
-- ARGV[1] now in ms, or "" for Redis TIME   ARGV[2] replica (its slots are replica#1..n)
-- ARGV[3] cap tokens  ARGV[4] cap requests  ARGV[5] max in flight  ARGV[6] cap input (0: none)
-- ARGV[7] cap output (0: none)  ARGV[8] count delay ms, in [0, SLOT_MS]  ARGV[9] wait hint when every slot is held
-- ARGV[10] slot ttl ms  ARGV[11] slots in use  ARGV[12] slots held  ARGV[13] slots wanted
-- ARGV[14] need slot (1/0)  ARGV[15..18] need requests, tokens, input, output
-- ARGV[19..22] want requests, tokens, input, output
-- ARGV[23] give back at (ms)  ARGV[24..27] give back requests, tokens, input, output
-- ARGV[28] renew the slots kept (1/0)
-- ARGV[29] settlements n, then n times 7 values: charged at, counted by (or a huge negative
--          number), charged tokens, delta tokens, delta requests, delta input, delta output
-- Returns {admitted, now, refusal (as budget_acquire.lua), waitMs, usedTokens, usedRequests,
--          inFlight, pausedUntil, resetMs, usedInput, usedOutput, chargedAt, slotsHeld,
--          granted requests, tokens, input, output, then the leaving schedule: leavesAt, tokens, requests}
--@include budget_common
local now = clock(ARGV[1])
local replica = ARGV[2]
local capT, capR, maxInFlight = cap(tonumber(ARGV[3])), cap(tonumber(ARGV[4])), tonumber(ARGV[5])
local capI, capO = cap(tonumber(ARGV[6])), cap(tonumber(ARGV[7]))
local countDelay, hint, ttl = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
if not countDelay or countDelay < 0 or countDelay > SLOT_MS then
  return redis.error_reply('count delay must be in [0, ' .. SLOT_MS .. '], was ' .. tostring(ARGV[8]))
end
local inUse, heldBefore, wantSlots = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local needSlot = ARGV[14] == '1'
local needR, needT, needI, needO = tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17]), tonumber(ARGV[18])
local wantR, wantT, wantI, wantO = tonumber(ARGV[19]), tonumber(ARGV[20]), tonumber(ARGV[21]), tonumber(ARGV[22])
for i = 11, 27 do
  local v = tonumber(ARGV[i])
  if i ~= 14 and i ~= 23 and (not v or v < 0) then
    return redis.error_reply('slot counts and amounts must not be negative, argument ' .. i .. ' was ' .. tostring(ARGV[i]))
  end
end

local w = advance(KEYS[1], now, SLOT_MS, true)
sweep(KEYS[2], now)
local paused = pausedUntil(KEYS[3], now)
local wi, wo = nil, nil
if capI > 0 then wi = advance(KEYS[4], now, SLOT_MS) end
if capO > 0 then wo = advance(KEYS[5], now, SLOT_MS) end

-- Settlements, as budget_settle.lua / budget_adjust.lua each would have applied them.
local n = tonumber(ARGV[29]) or 0
for k = 0, n - 1 do
  local b = 30 + 7 * k
  local chargedAt, countedBy = tonumber(ARGV[b]), tonumber(ARGV[b + 1])
  local charged = math.min(math.max(0, tonumber(ARGV[b + 2])), MAX_AMOUNT)
  local dT, dR, dI, dO = tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4]), tonumber(ARGV[b + 5]), tonumber(ARGV[b + 6])
  local from = math.floor(chargedAt / SLOT_MS)
  local to = math.floor(math.min(countedBy, now) / SLOT_MS)
  if dR == 0 and dI == 0 and dO == 0 and to > from then
    adjustSlot(w, from, -charged, -1)
    adjustSlot(w, to, saturated(charged, dT), 1)
  else
    if dT ~= 0 or dR ~= 0 then adjustSlot(w, from, dT, dR) end
    if dI ~= 0 and wi then adjustSlot(wi, from, dI, 0) end
    if dO ~= 0 and wo then adjustSlot(wo, from, dO, 0) end
  end
end
-- The previous slice's unspent rest.
local backAt = math.floor(tonumber(ARGV[23]) / SLOT_MS)
local backR, backT, backI, backO = tonumber(ARGV[24]), tonumber(ARGV[25]), tonumber(ARGV[26]), tonumber(ARGV[27])
if backT > 0 or backR > 0 then adjustSlot(w, backAt, -backT, -backR) end
if backI > 0 and wi then adjustSlot(wi, backAt, -backI, 0) end
if backO > 0 and wo then adjustSlot(wo, backAt, -backO, 0) end

-- Slots: those in use stay held and are renewed; spares go back, then are taken again if they fit.
local keep = math.min(heldBefore, inUse)
for i = keep + 1, heldBefore do redis.call('ZREM', KEYS[2], replica .. '#' .. i) end
if ARGV[28] == '1' then
  for i = 1, keep do redis.call('ZADD', KEYS[2], now + ttl, replica .. '#' .. i) end
end
local slotRoom = math.max(0, maxInFlight - redis.call('ZCARD', KEYS[2]))

local pauseBlocks = needR > 0 or needT > 0 or needI > 0 or needO > 0 or needSlot
local refusal, wait = refusalOf(w, wi, wo, now, paused, pauseBlocks, { T = needT, R = needR, I = needI, O = needO },
                                { T = capT, R = capR, I = capI, O = capO }, needSlot and slotRoom < 1, hint)

-- ProviderBudget.grant: all of the want while room is plentiful, only the need under twice the want.
local function grant(need, want, room)
  if room <= 0 then return math.min(need, math.max(0, room)) end
  local x = math.max(need, want)
  if math.floor(room / 2) < x then return math.min(need, room) end
  return x
end
local chargedAt = now + countDelay
local gR, gT, gI, gO, held = 0, 0, 0, 0, keep
if refusal == 0 and paused == 0 then
  gR = grant(needR, wantR, capR - w.R)
  gT = grant(needT, wantT, capT - w.T)
  if wi then gI = grant(needI, wantI, capI - wi.T) end
  if wo then gO = grant(needO, wantO, capO - wo.T) end
  local at = math.floor(chargedAt / SLOT_MS)
  if gT > 0 or gR > 0 then adjustSlot(w, at, gT, gR) end
  if gI > 0 then adjustSlot(wi, at, gI, 0) end
  if gO > 0 then adjustSlot(wo, at, gO, 0) end
  local spare = grant(needSlot and 1 or 0, math.max(0, wantSlots - keep), slotRoom)
  for i = 1, spare do redis.call('ZADD', KEYS[2], now + ttl, replica .. '#' .. (keep + i)) end
  held = keep + spare
end
leaseTtl(KEYS[2], now)
local reply = { refusal == 0 and 1 or 0, now, refusal, wait, w.T, w.R, redis.call('ZCARD', KEYS[2]), paused, resetMs(w, now),
                wi and wi.T or 0, wo and wo.T or 0, chargedAt, held, gR, gT, gI, gO }
return withLeaving(reply, w)
