/**
 * The traces of a twin shared by replicas (issue 28's traces, issue 23's store): a trace id an answer
 * of one replica carries opens on every replica (`GET /__admin/traces/<id>`, the console), and the
 * console lists the answers of all of them. Each replica still collects its own traces as in memory
 * (mock/trace/store.ts); a finished one also goes to the store with the other appends of its burst
 * (batch.ts): no round trip of its own on the request path. Secrets are redacted before they leave
 * (TraceRecord.stored).
 *
 * Ids are unique across the replicas: each takes blocks of numbers from the store (one round trip per
 * block, fetched ahead of need, never on a request's path). Were a replica to run out while the store
 * is away, it numbers on in a range of its block's own, far past any id the counter grants (no other
 * replica holds that block, so no other numbers there), and those traces stay its own (not sent: the
 * store never granted them).
 * A block is refused where the store lost the twin or its counter (ids.ts): ids go on past every
 * replica's once the twin is restored, never from 1 again.
 *
 * A cached answer is the same bytes every time it is sent: a replica sends them once, and the traces
 * of the answers it gave from them refer to them (counted; dropped with the last trace that refers to
 * them). So does an answer computed again with the same bytes as one sent lately (compared with the
 * last one of its length: a client's polls, a suite's repeated requests), which would otherwise carry
 * each answer's bytes to the store again (a 45 KB CRM page: most of what a traced read cost Redis). Were they dropped while the replica still refers to them, the store says so and the replica
 * sends them again from the next trace on.
 *
 * Keys, under the twin's hash tag:
 *   g<gen>:tr:feed              the summaries, oldest first (a stream capped at the ring's capacity)
 *   g<gen>:tr:meta, :req, :res  the traces by id: summary and all but the bodies, the request body, the answer's body
 *   g<gen>:tr:bodies, :refs     shared answer bodies by reference, and how many traces refer to each
 *   g<gen>:tr:bref              the reference of a trace whose answer is a shared body
 *   trace:ids                   the last number granted (ids go on after a reset, as in memory, and
 *                               after the store lost the twin: ids.ts)
 */
import { randomUUID } from 'node:crypto'
import type { ChainableCommander } from 'ioredis'
import { storedTrace, traceMatches, type TraceReader, type TraceRecord, type TraceSink, type TraceStore } from '../../trace/store.ts'
import type { TraceSummary } from '../../trace/types.ts'
import { LOST_IDS } from './ids.ts'
import type { SharedContext } from './journal.ts'
import { GC_MS } from './scripts.ts'

/** Ids a replica takes at a time. */
export const TRACE_ID_BLOCK = 1024
/**
 * Where the ids numbered past a block while the store is away start: block `b` (its top over
 * TRACE_ID_BLOCK) has UNSHARED_PER_BLOCK of them from UNSHARED_BASE + b * UNSHARED_PER_BLOCK. The
 * counter stays below UNSHARED_BASE (10^14 ids, at 1,024 a block), and the ids keep to 15 digits for
 * the first 5 * 10^10 ids the counter grants.
 */
export const UNSHARED_BASE = 100_000_000_000_000
export const UNSHARED_PER_BLOCK = 2 ** 24
/** The last answer bodies a replica sent that it compares a new one with (one per length), and the bytes they may hold. */
const SAME_BODIES = 256
const SAME_BODY_BYTES = 32 * 1024 * 1024
/** How often an open console asks for new traces (ms). */
export const FEED_POLL_MS = 100

/**
 * A block of ids: the counter moved on by `block`, unless the store lost the twin or the counter
 * (ids.ts). KEYS: counter, cfg. ARGV: block, the counter's value this replica saw. Returns the block's last id.
 */
export const TRACE_IDS = `${LOST_IDS}
local lost = lostIds(KEYS[2], KEYS[1], ARGV[2], 'trace ids')
if lost then return redis.error_reply(lost) end
return redis.call('INCRBY', KEYS[1], ARGV[1])
`

/**
 * Appends traces and drops the oldest beyond the cap.
 * KEYS: feed, meta, req, res, bodies, refs, bref. ARGV: cap, gc ms, then per trace 8 values: id,
 * summary, meta, request body, answer body (when not shared), reference of a shared answer body (or
 * ''), its bytes, whether they are sent (1/0).
 * Returns how many traces referred to a shared body the store no longer had (the replica then sends
 * its bodies again).
 */
export const TRACE_APPEND = `
local missing = 0
for t = 3, #ARGV, 8 do
  local id = ARGV[t]
  local ref = ARGV[t + 5]
  redis.call('XADD', KEYS[1], '*', 'i', id, 's', ARGV[t + 1], 'b', ref)
  redis.call('HSET', KEYS[2], id, ARGV[t + 1] .. '\\n' .. ARGV[t + 2])
  redis.call('HSET', KEYS[3], id, ARGV[t + 3])
  if ref == '' then
    redis.call('HSET', KEYS[4], id, ARGV[t + 4])
  else
    if ARGV[t + 7] == '1' then redis.call('HSET', KEYS[5], ref, ARGV[t + 6]) end
    if redis.call('HEXISTS', KEYS[5], ref) == 0 then missing = missing + 1 end
    redis.call('HINCRBY', KEYS[6], ref, 1)
    redis.call('HSET', KEYS[7], id, ref)
  end
end
local over = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[1])
if over > 0 then
  -- The oldest beyond the cap, each hash's fields in one call, the feed trimmed in one.
  local old = {}
  for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', over)) do
    old[#old + 1] = e[2][2]
    local oldRef = e[2][6]
    if oldRef and oldRef ~= '' and redis.call('HINCRBY', KEYS[6], oldRef, -1) <= 0 then
      redis.call('HDEL', KEYS[6], oldRef)
      redis.call('HDEL', KEYS[5], oldRef)
    end
  end
  for _, k in ipairs({KEYS[2], KEYS[3], KEYS[4], KEYS[7]}) do
    for i = 1, #old, 1000 do redis.call('HDEL', k, unpack(old, i, math.min(i + 999, #old))) end
  end
  redis.call('XTRIM', KEYS[1], 'MAXLEN', '=', ARGV[1])
end
for i = 1, 7 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return missing
`

type Appender = ChainableCommander & { twinTrace(...args: Array<string | number | Buffer>): ChainableCommander }
type Granting = { twinTraceIds(counter: string, cfg: string, block: number, seen: number): Promise<number> }

export interface SharedTraces extends TraceReader {
  /** Takes the first block of ids (before the replica answers). */
  ready(): Promise<void>
  metrics(): Record<string, number>
}

/** The shared traces of a replica whose own trace store is `local` (its sink is set here). */
export function createRedisTraces(ctx: SharedContext, local: TraceStore): SharedTraces {
  const { redis, prefix } = ctx
  ctx.batch.define('twinTrace', 7, TRACE_APPEND)
  redis.defineCommand('twinTraceIds', { numberOfKeys: 2, lua: TRACE_IDS })
  const keys = (gen: number) => {
    const p = `${prefix}g${gen}:tr:`
    return { feed: `${p}feed`, meta: `${p}meta`, req: `${p}req`, res: `${p}res`, bodies: `${p}bodies`, refs: `${p}refs`, bref: `${p}bref` }
  }
  // The shared answer bodies this replica has sent, per generation (a reset starts with none): by the bytes' object (a cached
  // answer), and the last ones sent by their length (an answer computed again with the same bytes: a poll, a repeated request).
  const tag = randomUUID().slice(0, 8)
  let bodyCount = 0
  const unsent = () => ({ gen: -1, bodies: new WeakMap<Uint8Array, string>(), byLength: new Map<number, { body: Uint8Array; ref: string }>(), held: 0 })
  let sent = unsent()
  const sentIn = (gen: number) => (sent.gen === gen ? sent : (sent = { ...unsent(), gen }))
  /** The reference of bytes sent before with the same content, or of these once sent (`fresh`: they go with this trace). */
  const referenceOf = (gen: number, body: Uint8Array): { ref: string; fresh: boolean } => {
    const known = sentIn(gen)
    const ref = known.bodies.get(body)
    if (ref) return { ref, fresh: false }
    const same = known.byLength.get(body.byteLength)
    if (same && Buffer.from(same.body.buffer, same.body.byteOffset, same.body.byteLength).equals(body)) {
      known.bodies.set(body, same.ref)
      return { ref: same.ref, fresh: false }
    }
    const made = `${tag}.${++bodyCount}`
    known.bodies.set(body, made)
    // The last bodies by length, bounded (entries and bytes held): a miss only sends the bytes, as before.
    if (same) known.held -= same.body.byteLength
    if (known.byLength.size >= SAME_BODIES || known.held + body.byteLength > SAME_BODY_BYTES) {
      known.byLength.clear()
      known.held = 0
    }
    known.byLength.set(body.byteLength, { body, ref: made })
    known.held += body.byteLength
    return { ref: made, fresh: true }
  }
  const idsKey = `${prefix}trace:ids`
  const cap = local.capacity
  let unsharedCount = 0

  // The ids: the block in use (last, end], the next one once fetched.
  let last = 0
  let end = 0
  let next: [number, number] | undefined
  let fetching: Promise<void> | undefined
  /** Numbers given out past a block's end (the store was away): those traces are not sent. */
  const unshared = new Set<number>()
  /** The block whose own range numbers past it, and how many it gave there. */
  let spareOf = 0
  let spare = 0
  const fetchBlock = (): Promise<void> =>
    (fetching ??= (redis as unknown as Granting)
      .twinTraceIds(idsKey, ctx.cfg, TRACE_ID_BLOCK, ctx.ids.seen('trace'))
      .then(
        (top) => {
          ctx.ids.saw('trace', top)
          next = [top - TRACE_ID_BLOCK, top]
        },
        () => {},
      )
      .finally(() => {
        fetching = undefined
      }))

  // One script per burst (per generation: a reset within a burst makes two).
  const append = ctx.batch.lane<{ gen: number; record: TraceRecord }>('traces', (pipeline, items) => {
    const byGen = new Map<number, Array<string | number | Buffer>>()
    for (const { gen, record } of items) {
      let args = byGen.get(gen)
      if (!args) byGen.set(gen, (args = []))
      const stored = record.stored()
      const body = stored.responseBody
      let inline = ''
      let ref = ''
      let bytes: string | Buffer = ''
      if (typeof body === 'string') inline = body
      else {
        const reference = referenceOf(gen, body)
        ref = reference.ref
        if (reference.fresh) bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
      }
      args.push(record.id, stored.summary, stored.meta, stored.requestBody, inline, ref, bytes, bytes ? 1 : 0)
    }
    for (const [gen, args] of byGen) {
      const k = keys(gen)
      ;(pipeline as Appender).twinTrace(k.feed, k.meta, k.req, k.res, k.bodies, k.refs, k.bref, cap, GC_MS, ...args)
    }
    // A shared body the store had dropped: every one is sent again from the next trace on.
    return (replies) => {
      if (replies.some((reply) => typeof reply === 'number' && reply > 0)) sent = unsent()
    }
  })

  const sink: TraceSink = {
    nextId() {
      if (last >= end && next) {
        ;[last, end] = next
        next = undefined
      }
      // Half of the block used: the next one is asked for, off the request's path.
      if (!next && end - last <= TRACE_ID_BLOCK / 2) void fetchBlock()
      if (last < end) {
        const id = ++last
        ctx.ids.gave('trace', id)
        return id
      }
      // Used up, and no next block (the store is away): an id of this block's own range, never granted
      // by the counter nor numbered by another replica (each numbers past blocks of its own).
      if (spareOf !== end) {
        spareOf = end
        spare = 0
      }
      const id = UNSHARED_BASE + Math.floor(end / TRACE_ID_BLOCK) * UNSHARED_PER_BLOCK + (++spare % UNSHARED_PER_BLOCK)
      unshared.add(id)
      return id
    },
    push(record) {
      if (unshared.size && unshared.delete(record.n)) {
        unsharedCount++
        return
      }
      append({ gen: ctx.generation(), record })
    },
  }
  local.sink = sink

  const summariesOf = (entries: Array<[string, string[]]>): TraceSummary[] => entries.map(([, fields]) => JSON.parse(fields[3]!) as TraceSummary)
  const find = async (id: string) => {
    const k = keys(ctx.generation())
    const got = await redis.pipeline().hget(k.meta, id).hget(k.req, id).hget(k.res, id).hget(k.bref, id).exec()
    const [meta, req, res, ref] = (got ?? []).map(([error, value]) => {
      if (error) throw error
      return value as string | null
    })
    if (!meta) return undefined
    // Its summary, a line, then the rest (JSON has no raw line break).
    const line = meta.indexOf('\n')
    return storedTrace(meta.slice(0, line), meta.slice(line + 1), req ?? '', (ref ? await redis.hget(k.bodies, ref) : res) ?? '')
  }

  return {
    ready: async () => {
      await fetchBlock()
      if (!next) throw new Error('cannot take trace ids from the shared store')
    },
    get: (id) =>
      ctx.guard(async () => {
        if (!/^\d{1,15}$/.test(id)) return undefined
        await ctx.sync()
        // This replica's own entries first (a trace its ring dropped is gone once they are in).
        await ctx.batch.flush()
        // Not there yet: the replica that answered may not have sent it.
        return (await find(id)) ?? (await ctx.batch.barrier(), await find(id))
      }),
    list: (filter = {}) =>
      ctx.guard(async () => {
        await ctx.sync()
        await ctx.batch.barrier()
        let rows = summariesOf(await redis.xrange(keys(ctx.generation()).feed, '-', '+'))
        if (filter.after !== undefined) {
          // Newer than `after`: those stored after it (ids of two replicas do not follow the order).
          const at = rows.findIndex((r) => r.id === String(filter.after))
          rows = at >= 0 ? rows.slice(at + 1) : rows.filter((r) => Number(r.id) > Number(filter.after))
        }
        const out = rows.filter((r) => traceMatches(r, filter))
        return filter.limit !== undefined ? out.slice(Math.max(0, out.length - filter.limit)) : out
      }),
    open(backlog, row) {
      let gen = -1
      let cursor = '-'
      let busy = false
      const poll = async () => {
        if (busy) return
        busy = true
        try {
          await ctx.sync()
          const now = ctx.generation()
          if (now !== gen) {
            // The first look, or a reset started a new generation: the whole list again.
            gen = now
            const entries = await redis.xrange(keys(gen).feed, '-', '+')
            cursor = entries.at(-1)?.[0] ?? '0-0'
            backlog(summariesOf(entries))
            return
          }
          const entries = await redis.xrange(keys(gen).feed, `(${cursor}`, '+', 'COUNT', 1000)
          if (entries.length) cursor = entries.at(-1)![0]
          for (const summary of summariesOf(entries)) row(summary)
        } catch {
          // The store is away: the next poll tries again.
        } finally {
          busy = false
        }
      }
      void poll()
      const timer = setInterval(() => void poll(), FEED_POLL_MS)
      timer.unref()
      return () => clearInterval(timer)
    },
    metrics: () => ({ trace_ids_to: end, traces_unshared: unsharedCount }),
  }
}
