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
 * is away, it numbers on, and those traces stay its own (not sent: their numbers were not granted).
 *
 * Keys, under the twin's hash tag:
 *   g<gen>:tr:feed              the summaries, oldest first (a stream capped at the ring's capacity)
 *   g<gen>:tr:meta, :req, :res  the traces by id: all but the bodies, the request body, the answer's body
 *   trace:ids                   the last number granted (ids go on after a reset, as in memory)
 */
import type { ChainableCommander } from 'ioredis'
import { storedTrace, traceMatches, type TraceReader, type TraceRecord, type TraceSink, type TraceStore } from '../../trace/store.ts'
import type { TraceSummary } from '../../trace/types.ts'
import type { SharedContext } from './journal.ts'
import { GC_MS } from './scripts.ts'

/** Ids a replica takes at a time. */
export const TRACE_ID_BLOCK = 1024
/** How often an open console asks for new traces (ms). */
export const FEED_POLL_MS = 100

/**
 * Appends one trace and drops the oldest beyond the cap.
 * KEYS: feed, meta, req, res. ARGV: cap, gc ms, id, summary, meta, request body, answer body.
 */
export const TRACE_APPEND = `
redis.call('XADD', KEYS[1], '*', 'i', ARGV[3], 's', ARGV[4])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[5])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[6])
redis.call('HSET', KEYS[4], ARGV[3], ARGV[7])
local over = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[1])
if over > 0 then
  for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', over)) do
    local id = e[2][2]
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
    redis.call('HDEL', KEYS[4], id)
    redis.call('XDEL', KEYS[1], e[1])
  end
end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 1
`

type Appender = ChainableCommander & { twinTrace(...args: Array<string | number | Buffer>): ChainableCommander }

export interface SharedTraces extends TraceReader {
  /** Takes the first block of ids (before the replica answers). */
  ready(): Promise<void>
  metrics(): Record<string, number>
}

/** The shared traces of a replica whose own trace store is `local` (its sink is set here). */
export function createRedisTraces(ctx: SharedContext, local: TraceStore): SharedTraces {
  const { redis, prefix } = ctx
  redis.defineCommand('twinTrace', { numberOfKeys: 4, lua: TRACE_APPEND })
  const keys = (gen: number) => ({ feed: `${prefix}g${gen}:tr:feed`, meta: `${prefix}g${gen}:tr:meta`, req: `${prefix}g${gen}:tr:req`, res: `${prefix}g${gen}:tr:res` })
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
  const fetchBlock = (): Promise<void> =>
    (fetching ??= redis
      .incrby(idsKey, TRACE_ID_BLOCK)
      .then(
        (top) => {
          next = [top - TRACE_ID_BLOCK, top]
        },
        () => {},
      )
      .finally(() => {
        fetching = undefined
      }))

  const append = ctx.batch.lane<{ gen: number; record: TraceRecord }>('traces', (pipeline, items) => {
    for (const { gen, record } of items) {
      const k = keys(gen)
      const stored = record.stored()
      const body = stored.responseBody
      ;(pipeline as Appender).twinTrace(k.feed, k.meta, k.req, k.res, cap, GC_MS, record.id, JSON.stringify(record.summary()), stored.meta, stored.requestBody, typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength))
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
      const id = ++last
      if (id > end) {
        unshared.add(id)
        end = last
      }
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
    const got = await redis.pipeline().hget(k.meta, id).hget(k.req, id).hget(k.res, id).exec()
    const [meta, req, res] = (got ?? []).map(([error, value]) => {
      if (error) throw error
      return value as string | null
    })
    return meta ? storedTrace(meta, req ?? '', res ?? '') : undefined
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
