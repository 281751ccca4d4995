/**
 * The Lua scripts of the shared store. Each runs atomically in Redis, on keys that share the twin's
 * hash tag (one slot). Times are the twin's clock (epoch ms, passed in): a frozen or moved clock
 * decides windows and expiry, not Redis. Wall-clock expiries (PEXPIRE) only collect garbage long after.
 */
import { LOST_IDS, RAISE_IDS } from './ids.ts'

/** Two days: how long a record or counter outlives its use, whatever the twin's clock does meanwhile. */
export const GC_MS = 2 * 86_400_000

/**
 * spec: Limits: 10 per second (a sliding one-second window) and 1,000,000 per day, per key and shop.
 * `take(recent, day, now, perSecond, perDay, midnight)`: recent is the list of accepted instants, day
 * the counter of the twin's UTC day, midnight the next one (ms). Returns {allowed 1|0, window,
 * retryAfterSeconds, secondCount, windowStart, dayCount}.
 */
const TAKE = `
local function take(recent, day, now, perSecond, perDay, midnight)
  local dayCount = tonumber(redis.call('GET', day) or '0')
  local keep = {}
  for _, t in ipairs(redis.call('LRANGE', recent, 0, -1)) do
    local v = tonumber(t)
    -- A clock set back must not leave future instants blocking the window.
    if now - v < 1000 and v <= now then table.insert(keep, v) end
  end
  table.sort(keep)
  local oldest = keep[1] or now
  if dayCount >= perDay then
    return {0, 'day', math.max(1, math.ceil((midnight - now) / 1000)), #keep, oldest, dayCount}
  end
  if #keep >= perSecond then
    return {0, 'second', math.max(1, math.ceil((keep[1] + 1000 - now) / 1000)), #keep, oldest, dayCount}
  end
  table.insert(keep, now)
  local text = {}
  for i, v in ipairs(keep) do text[i] = string.format('%d', v) end
  redis.call('DEL', recent)
  -- In chunks: Lua unpacks at most a few thousand values into one call.
  for i = 1, #text, 1000 do redis.call('RPUSH', recent, unpack(text, i, math.min(i + 999, #text))) end
  redis.call('PEXPIRE', recent, ${GC_MS})
  redis.call('INCR', day)
  redis.call('PEXPIRE', day, ${GC_MS})
  return {1, '', 0, #keep, keep[1], dayCount + 1}
end
`

/** The rate limit's take alone. KEYS: recent, day. ARGV: now, perSecond, perDay, next midnight (ms). */
export const RATE_LIMIT = `${TAKE}
return take(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
`

/**
 * Gives back a slot taken ahead of a request that did not reach the rate limit after all (refused
 * before it: its key's route, its shop). KEYS: recent, day. ARGV: the instant taken.
 */
export const RATE_REFUND = `
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 1 and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 1
`

/**
 * spec: Idempotency: a key starts a record (`processing`), or meets one in flight (409 for up to 60 s on
 * the twin's clock: a claim whose replica died frees itself then) or completed (replayed until it
 * expires, 24 h on the twin's clock). The index keeps the store bounded (oldest evicted).
 * KEYS: record, index. ARGV: now, inFlightMs, maxRecords.
 * Returns {'started'} | {'in-flight'} | {'replay', responseStatus, rawBody, headers, permission, startedAt, expiresAt}.
 */
const INDEX = `
local function indexed(record, index, at, maxRecords)
  redis.call('ZADD', index, at, record)
  local over = redis.call('ZCARD', index) - maxRecords
  if over > 0 then
    local old = redis.call('ZPOPMIN', index, over)
    for i = 1, #old, 2 do if old[i] ~= record then redis.call('DEL', old[i]) end end
  end
end
`

const CLAIM = `${INDEX}
local function claim(record, index, now, inFlightMs, maxRecords)
  local r = redis.call('HMGET', record, 'status', 'startedAt', 'expiresAt', 'responseStatus', 'rawBody', 'headers', 'permission')
  if r[1] == 'completed' and tonumber(r[3]) > now then
    return {'replay', r[4], r[5], r[6] or '', r[7] or '', r[2], r[3]}
  end
  if r[1] == 'processing' and now - tonumber(r[2]) < inFlightMs then
    return {'in-flight'}
  end
  -- A record left by a claim that expired or a completion that did: its fields go.
  if r[1] then redis.call('DEL', record) end
  redis.call('HSET', record, 'status', 'processing', 'startedAt', string.format('%d', now))
  redis.call('PEXPIRE', record, ${GC_MS})
  indexed(record, index, now, maxRecords)
  return {'started'}
end
`

export const IDEMPOTENCY_CLAIM = `${CLAIM}
return claim(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
`

/**
 * The fenced commit of one write of the twin: only the holder of the lease, at the head it caught up
 * to, appends its operations; the idempotency record of the request they answer is completed in the
 * same step, so the side effect and its record appear together or not at all. A reset starts a new
 * generation of records and counters (the old ones are left to expire).
 * The lease is kept when the replica asks (its next writes need not take it again; their commits
 * follow on the same connection); whether another replica asked for it (`wanted`) is returned, so
 * the holder hands it over.
 * The new head is published on the twin's channel: every other replica hears of it and catches up at
 * once (each still checks the head before it answers).
 * The record is logged too, after the operations (a `rec` entry): a replica that holds the lease has
 * then every record of the twin at hand, and decides a keyed write's claim without asking the store.
 * The record goes in the records' index here too (a claim decided by the replica under its lease
 * may not have been sent to the store).
 * No commit lands where the twin's settings or its log's entries are gone (the store lost the twin:
 * index.ts restores it first), so a write never starts a fresh log under the twin's name; nor on a log
 * written back since the replica read it (its epoch is another: the replica's state may not be that
 * log's), nor where the generation went back.
 * KEYS: lease, head, log, gen, idempotency record (or the lease again when none), wanted, channel, index, cfg, epoch.
 * ARGV: token, expected head, reset (0/1), has record (0/1), status, rawBody, headers, permission, expiresAt, startedAt, keep lease (0/1),
 * this replica listens (0/1), the record as the log keeps it (JSON), maxRecords, the epoch this replica read, its generation, op...
 * Returns {head, gen, wanted 0|1, another replica listens 0|1} or {-1} (lease lost) or {-2, head} (the log moved: another writer was fenced in)
 * or {-3} (the twin's settings are gone) or {-4, head, entries} (the log has fewer entries than its head: lost)
 * or {-5, epoch} (the log was written back since: another epoch) or {-6, gen} (the generation went back).
 */
export const COMMIT = `${INDEX}
if redis.call('EXISTS', KEYS[9]) == 0 then return {-3} end
local epoch = redis.call('GET', KEYS[10]) or ''
if epoch ~= ARGV[15] then return {-5, epoch} end
local lh = redis.call('MGET', KEYS[1], KEYS[2], KEYS[4])
if tonumber(lh[3] or '0') < tonumber(ARGV[16]) then return {-6, tonumber(lh[3] or '0')} end
if lh[1] ~= ARGV[1] then return {-1} end
local head = tonumber(lh[2] or '0')
if head ~= tonumber(ARGV[2]) then return {-2, head} end
local len = redis.call('XLEN', KEYS[3])
if len ~= head then return {-4, head, len} end
for i = 17, #ARGV do
  head = head + 1
  redis.call('XADD', KEYS[3], string.format('%d', head) .. '-0', 'op', ARGV[i])
end
local gen = tonumber(lh[3] or '0')
if ARGV[3] == '1' then gen = redis.call('INCR', KEYS[4]) end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[5], 'status', 'completed', 'responseStatus', ARGV[5], 'rawBody', ARGV[6], 'headers', ARGV[7], 'permission', ARGV[8], 'expiresAt', ARGV[9], 'startedAt', ARGV[10])
  redis.call('PEXPIRE', KEYS[5], ${GC_MS})
  indexed(KEYS[5], KEYS[8], tonumber(ARGV[10]), tonumber(ARGV[14]))
  head = head + 1
  redis.call('XADD', KEYS[3], string.format('%d', head) .. '-0', 'rec', ARGV[13])
end
redis.call('SET', KEYS[2], string.format('%d', head))
if ARGV[11] ~= '1' then redis.call('DEL', KEYS[1]) end
-- Heard by this replica's own listener too: published only when another replica listens.
local others = 0
if redis.call('PUBSUB', 'SHARDNUMSUB', KEYS[7])[2] > tonumber(ARGV[12]) then
  others = 1
  redis.call('SPUBLISH', KEYS[7], head)
end
return {head, gen, redis.call('EXISTS', KEYS[6]), others}
`

/**
 * Takes the write lease, or queues for it: one round trip. A replica that finds the lease taken says it
 * wants it (`wanted`, its id, for a second, and `want` on the twin's channel); the holder hands it over
 * after its write in progress, or at once when it has none, and until then only that replica may take
 * it, so a replica with a long burst of writes cannot keep it.
 * KEYS: lease, head, gen, wanted, channel, epoch. ARGV: token, ms, replica.
 * Returns {1, head, gen, epoch} (taken: the log's head to catch up to, and the log's epoch) or {0}.
 */
const ACQUIRE_LEASE = `
local function acquire(lease, head, gen, wanted, channel, token, ms, replica, epoch)
  local w = redis.call('GET', wanted)
  local holder = redis.call('GET', lease)
  -- Tokens start with the replica's id. A replica asks only when it holds no lease: one of its own
  -- still here was left by a hand-over that never reached the store (it was away), and is taken over.
  local own = holder and string.sub(holder, 1, #replica + 1) == replica .. ':'
  if (not w or w == replica) and (not holder or own) then
    redis.call('SET', lease, token, 'PX', ms)
    if w then redis.call('DEL', wanted) end
    -- head, gen and epoch are keys, or their values when the caller has read them already.
    if type(head) == 'number' then return {1, head, gen, epoch} end
    local hg = redis.call('MGET', head, gen, epoch)
    return {1, tonumber(hg[1] or '0'), tonumber(hg[2] or '0'), hg[3] or ''}
  end
  if own then return {0} end
  if not w then
    redis.call('SET', wanted, replica, 'PX', 1000)
    redis.call('SPUBLISH', channel, 'want')
  elseif w == replica then redis.call('PEXPIRE', wanted, 1000) end
  return {0}
end
`

export const ACQUIRE = `${ACQUIRE_LEASE}
return acquire(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1], ARGV[2], ARGV[3], KEYS[6])
`

/**
 * A keyed write's claim and, when it starts and the lease is free, the lease too: one round trip
 * where two would be. KEYS: record, index, lease, head, gen, wanted, channel, epoch.
 * ARGV: now, inFlightMs, maxRecords, token, ms, replica.
 * Returns the claim's answer; a start that took the lease is {'started', 1, head, gen, epoch}.
 */
export const CLAIM_AND_ACQUIRE = `${CLAIM}
${ACQUIRE_LEASE}
local c = claim(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
if c[1] ~= 'started' then return c end
local l = acquire(KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], ARGV[4], ARGV[5], ARGV[6], KEYS[8])
if l[1] == 1 then return {'started', 1, l[2], l[3], l[4]} end
return c
`

/**
 * A request's catch-up with what it will need next, in one round trip, when the log's head and the
 * generation are still what the replica has applied (its clock is then the twin's), and the log's epoch
 * the one it read (not written back since by a restore): the rate limit's
 * slot (when asked), then, if the slot was given, a keyed write's idempotency claim (when asked) and,
 * when that claim starts and `lease` asks for it, the free write lease. Otherwise nothing is done and
 * the head is returned, to catch up first (the request then takes and claims in its own steps).
 * A replica that holds the lease passes applied -1: the log moves only by its own commits then (some
 * may be on their way), and its keyed write's commit is fenced.
 * KEYS: head, gen, recent, day, record, index, lease, wanted, channel, epoch.
 * ARGV: applied, gen, now, perSecond, perDay, next midnight, rate (0/1), claim (0/1), inFlightMs,
 * maxRecords, lease (0/1), token, ms, replica, epoch.
 * Returns {head, gen, epoch} or {head, gen, allowed, window, retryAfterSeconds, secondCount, windowStart,
 * dayCount, claim kind ('' when none), lease taken (0/1), the replay's fields...}.
 */
export const SYNC_AHEAD = `${TAKE}
${CLAIM}
${ACQUIRE_LEASE}
local hg = redis.call('MGET', KEYS[1], KEYS[2], KEYS[10])
local head = tonumber(hg[1] or '0')
local gen = tonumber(hg[2] or '0')
local epoch = hg[3] or ''
if epoch ~= ARGV[15] or (ARGV[1] ~= '-1' and (head ~= tonumber(ARGV[1]) or gen ~= tonumber(ARGV[2]))) then return {head, gen, epoch} end
local now = tonumber(ARGV[3])
local r = {1, '', 0, 0, 0, 0}
if ARGV[7] == '1' then r = take(KEYS[3], KEYS[4], now, tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])) end
local out = {head, gen, r[1], r[2], r[3], r[4], r[5], r[6], '', 0}
if ARGV[8] ~= '1' or r[1] ~= 1 then return out end
local c = claim(KEYS[5], KEYS[6], now, tonumber(ARGV[9]), tonumber(ARGV[10]))
out[9] = c[1]
for i = 2, #c do out[9 + i] = c[i] end
if c[1] == 'started' and ARGV[11] == '1' then
  local l = acquire(KEYS[7], head, gen, KEYS[8], KEYS[9], ARGV[12], ARGV[13], ARGV[14], epoch)
  if l[1] == 1 then out[10] = 1 end
end
return out
`

/**
 * A catch-up's read of the log's entries, only while its epoch is the one the replica read: a log
 * written back by a restore since (another replica's copy) is not applied on top of what the replica
 * holds. KEYS: log, epoch. ARGV: from, to, count, epoch. Returns {1, entries} or {0, the log's epoch}.
 */
export const RANGE = `
local epoch = redis.call('GET', KEYS[2]) or ''
if epoch ~= ARGV[4] then return {0, epoch} end
return {1, redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[2], 'COUNT', ARGV[3])}
`

/**
 * Frees a claim made ahead of a request that was refused before its idempotency step, and the lease
 * taken with it if this replica still holds it under that token. KEYS: record, lease. ARGV: token ('' for none).
 */
export const RELEASE_CLAIM = `
if redis.call('HGET', KEYS[1], 'status') == 'processing' then redis.call('DEL', KEYS[1]) end
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
`

/** Releases the lease if this replica still holds it. KEYS: lease. ARGV: token. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`

/**
 * Entries of the account's activity log, in order: each numbered, appended to a capped stream; refused,
 * nothing numbered, where the store lost the twin or the counter (ids.ts: an id is never given twice).
 * KEYS: stream, counter, cfg. ARGV: cap, the counter's value this replica saw, then each entry's JSON
 * without id. Returns the last id.
 */
export const ACTIVITY_RECORD = `${LOST_IDS}
local lost = lostIds(KEYS[3], KEYS[2], ARGV[2], 'activity ids')
if lost then return redis.error_reply(lost) end
local id = 0
for i = 3, #ARGV do
  id = redis.call('INCR', KEYS[2])
  redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[1], '*', 'id', id, 'entry', ARGV[i])
end
return id
`

/** Extends the lease if this replica still holds it (a write that takes long, on a live replica). KEYS: lease. ARGV: token, ms. */
export const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`

/**
 * Writes a twin the store lost back from a replica's copy (index.ts), atomically, and only where the
 * store does not hold it whole already: two replicas that notice at once restore once (the second
 * finds it whole and adopts it), and a replica that applied less never writes an older log over a
 * newer one (it finds the store's log at least as long as its own and adopts it).
 * The log's epoch (`<token> <parent token> <entries>`) says how the store's log stands to the
 * replica's: its own epoch (one log, only ever appended to: the shorter is the longer's beginning), one
 * a restore wrote from its epoch's log (the first `<entries>` are the replica's own; written since if
 * the log is longer), or another (then only the entry at the replica's last, and where the logs part,
 * by bisection, tell). A replica that applied more writes its log over a shorter one only where that
 * one is its own beginning; else the store's log was written since, and wins. Every restore that
 * writes its log writes a new epoch (its parent the replica's), so a replica that read the old one
 * refuses to go on from it unverified (index.ts). The replica's log was staged beforehand in a key of
 * its own (KEYS[5]), renamed into place here. The generation's idempotency records are written back
 * from the log's `rec` entries after its last reset.
 * Whatever the outcome (but another twin's), the id counters go past the highest any replica said it
 * knows (ids.ts: asked before), and the generation never goes back (the higher of the store's and the
 * replica's), in the same step: no id is given twice, no generation's records or windows met again.
 * KEYS: cfg, head, log, gen, staged log, the trace, journal and activity counters, epoch.
 * ARGV: cfg (JSON), entries staged, gen, the last reset's entry, the generation keys' prefix (`…g`),
 * maxRecords, the highest trace, journal and activity ids, the replica's epoch, a new epoch's token.
 * Returns {outcome, head, records, what was written back (1 cfg, 2 gen, 4 8 16 the counters, 32 the
 * epoch), trace, journal, activity counters, entries the logs share, gen, epoch}: outcome 2 (restored),
 * 1 (the log whole: its settings, generation, counters or epoch written back), 0 (whole: adopted), -2
 * (the store's log and the staged one part: adopted), or {-1} (another twin's settings under the name).
 */
export const RESTORE = `${INDEX}
${RAISE_IDS}
local cfg = redis.call('GET', KEYS[1])
if cfg and cfg ~= ARGV[1] then return {-1} end
local mask = 0
local counters = {}
for i = 1, 3 do
  local value, moved = raiseIds(KEYS[5 + i], ARGV[6 + i])
  counters[i] = value
  if moved == 1 then mask = mask + 2 ^ (i + 1) end
end
local head = tonumber(redis.call('GET', KEYS[2]) or '0')
local len = redis.call('XLEN', KEYS[3])
local n = tonumber(ARGV[2])
local gen = math.max(tonumber(redis.call('GET', KEYS[4]) or '0'), tonumber(ARGV[3]))
if tonumber(redis.call('GET', KEYS[4]) or '0') < gen then redis.call('SET', KEYS[4], string.format('%d', gen)); mask = mask + 2 end
local stored = redis.call('GET', KEYS[9])
local ours = ARGV[10]
local ourToken = string.match(ours, '^(%S+)') or ''
local relation, at = 'other', 0
if stored and stored == ours then relation = 'same'
elseif stored then
  local _, parent, entries = string.match(stored, '^(%S+) (%S+) (%d+)$')
  if parent and parent == ourToken then relation = 'restored'; at = tonumber(entries) end
end
-- Where the store keeps no epoch (lost), one it cannot vouch for: every replica verifies the log anew.
local function epochKept()
  if stored then return stored end
  stored = ARGV[11] .. ' - ' .. head
  redis.call('SET', KEYS[9], stored)
  mask = mask + 32
  return stored
end
local function parted(lo)
  redis.call('DEL', KEYS[5])
  if not cfg then redis.call('SET', KEYS[1], ARGV[1]); mask = mask + 1 end
  return {-2, head, 0, mask, counters[1], counters[2], counters[3], lo, gen, epochKept()}
end
local function kept()
  if not cfg then redis.call('SET', KEYS[1], ARGV[1]); mask = mask + 1 end
  redis.call('DEL', KEYS[5])
  local e = epochKept()
  if mask > 0 then return {1, head, 0, mask, counters[1], counters[2], counters[3], math.min(head, n), gen, e} end
  return {0, head, 0, 0, counters[1], counters[2], counters[3], math.min(head, n), gen, e}
end
local whole = len == head and head > 0
if whole and relation == 'same' then
  if head >= n then return kept() end
elseif whole and relation == 'restored' then
  if n <= at then return kept() end
  if head ~= at then return parted(at) end
elseif whole then
  -- Where the store's log and the staged one part (entries past that point differ: another replica
  -- restored less and the log was written since), by bisection; none: one is the other's beginning.
  local function same(seq)
    if seq == 0 then return true end
    local theirs = redis.call('XRANGE', KEYS[3], seq .. '-0', seq .. '-0')
    local ours = redis.call('XRANGE', KEYS[5], seq .. '-0', seq .. '-0')
    return #theirs == 1 and #ours == 1 and theirs[1][2][1] == ours[1][2][1] and theirs[1][2][2] == ours[1][2][2]
  end
  local top = math.min(head, n)
  if not same(top) then
    local lo, hi = 0, top
    while hi - lo > 1 do
      local mid = math.floor((lo + hi) / 2)
      if same(mid) then lo = mid else hi = mid end
    end
    return parted(lo)
  end
  if head >= n then return kept() end
elseif len == head and n == 0 then
  return kept()
end
if n > 0 then
  redis.call('RENAME', KEYS[5], KEYS[3])
  redis.call('PERSIST', KEYS[3])
else
  redis.call('DEL', KEYS[3])
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], string.format('%d', n))
redis.call('SET', KEYS[4], string.format('%d', gen))
local epoch = ARGV[11] .. ' ' .. ourToken .. ' ' .. n
redis.call('SET', KEYS[9], epoch)
local records = 0
if n > tonumber(ARGV[4]) then
  local prefix = ARGV[5] .. gen .. ':idem:'
  local index = ARGV[5] .. gen .. ':idemidx'
  for _, e in ipairs(redis.call('XRANGE', KEYS[3], (tonumber(ARGV[4]) + 1) .. '-0', '+')) do
    if e[2][1] == 'rec' then
      local r = cjson.decode(e[2][2])
      local hash = prefix .. r.shop .. ':' .. r.key
      redis.call('HSET', hash, 'status', 'completed', 'responseStatus', string.format('%d', r.status), 'rawBody', r.rawBody, 'headers', r.headers, 'permission', r.permission, 'expiresAt', string.format('%d', r.expiresAt), 'startedAt', string.format('%d', r.startedAt))
      redis.call('PEXPIRE', hash, ${GC_MS})
      indexed(hash, index, tonumber(r.startedAt), tonumber(ARGV[6]))
      records = records + 1
    end
  end
end
return {2, n, records, mask, counters[1], counters[2], counters[3], n, gen, epoch}
`
