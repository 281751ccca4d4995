/**
 * The request journal of a twin shared by replicas (`GET /__admin/requests` on any replica lists what
 * every replica received): one bounded list per twin, as the in-memory journal (mock/stores/journal.ts),
 * with the same cap and the same redaction. An entry is sent once its answer is known, with the other
 * appends of its burst (batch.ts): no round trip of its own on the request path.
 *
 * Keys, under the twin's hash tag (mock/twin/redis/index.ts names the others):
 *   g<gen>:journal   the entries, oldest first (a reset starts a new generation: an empty journal everywhere)
 *   journal:id       the entries' numbers (they go on after a clear or a reset, as in memory, and after
 *                    the store lost the twin: ids.ts)
 *
 * Order: the entries of all replicas by the instant each request arrived (wall clock, microseconds),
 * then by the store's number; so a client's requests sent one after another through a balancer are
 * listed in the order it sent them, whichever replica got each.
 */
import type { ChainableCommander, Redis } from 'ioredis'
import { REDACTED, SECRET_HEADERS, type JournalEntry, type JournalFilter, type JournalStore } from '../../stores/journal.ts'
import { GC_MS } from './scripts.ts'
import type { AppendBatch } from './batch.ts'
import { LOST_IDS, type IdMarks } from './ids.ts'

/**
 * Appends entries, numbered, and keeps the newest `cap`; refused, nothing numbered, where the store
 * lost the twin or the counter (ids.ts: an id is never given twice).
 * KEYS: list, counter, cfg. ARGV: cap, gc ms, the counter's value this replica saw, then per entry
 * `<arrival>|<JSON without id>`. Returns the last id.
 * An entry is kept as `<arrival>|{"id":N,...}` (the id first, as the in-memory journal shows it).
 */
export const JOURNAL_APPEND = `${LOST_IDS}
local lost = lostIds(KEYS[3], KEYS[2], ARGV[3], 'journal ids')
if lost then return redis.error_reply(lost) end
local id = 0
for i = 4, #ARGV do
  local e = ARGV[i]
  local bar = string.find(e, '|', 1, true)
  id = redis.call('INCR', KEYS[2])
  redis.call('RPUSH', KEYS[1], string.sub(e, 1, bar) .. '{"id":' .. id .. ',' .. string.sub(e, bar + 2))
end
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[1]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id
`

/** What the shared journal and traces need of their replica. */
export interface SharedContext {
  redis: Redis
  /** The twin's key prefix, `st:{tw:NAME}:`. */
  prefix: string
  /** The generation of records this replica is at (a reset starts a new one). */
  generation(): number
  /** Catches up with the twin (the generation is then current). */
  sync(): Promise<void> | void
  /** A store error becomes the twin's 503 (StoreUnavailable). */
  guard<T>(run: () => Promise<T>): Promise<T>
  batch: AppendBatch
  /** The settings' key (a script that numbers finds there whether the store still holds the twin). */
  cfg: string
  /** What this replica knows of the twin's counters (ids.ts). */
  ids: IdMarks
}

type Appender = ChainableCommander & { twinJournal(list: string, counter: string, cfg: string, ...args: Array<string | number>): ChainableCommander }

/** An entry as it goes to the store: its arrival (wall clock), then its JSON without the id, secrets redacted. */
function storedEntry(entry: JournalEntry, arrival: number): string {
  const { id: _id, ...rest } = (typeof (entry as { toJSON?: unknown }).toJSON === 'function' ? (entry as unknown as { toJSON(): JournalEntry }).toJSON() : entry) as JournalEntry
  // The pipeline's entries redact their headers already; whatever else is recorded is redacted here too.
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(rest.headers ?? {})) headers[name] = SECRET_HEADERS.test(name) ? REDACTED : value
  return `${arrival.toFixed(3)}|${JSON.stringify({ ...rest, headers })}`
}

/** The journal of a shared twin (`max`: entries kept, as `journalSize` in memory). */
export function createRedisJournal(ctx: SharedContext, { max = 1000 } = {}): JournalStore {
  const { redis, prefix } = ctx
  ctx.batch.define('twinJournal', 3, JOURNAL_APPEND)
  const listKey = (gen: number) => `${prefix}g${gen}:journal`
  const counterKey = `${prefix}journal:id`
  const wall = () => performance.timeOrigin + performance.now()
  // Entries are made into text at the flush, off the answer's path.
  const append = ctx.batch.lane<{ gen: number; entry: JournalEntry; arrival: number }>('journal', (pipeline, items) => {
    // Usually one generation; a reset between two requests of one burst makes two.
    for (const gen of new Set(items.map((i) => i.gen))) {
      ;(pipeline as Appender).twinJournal(listKey(gen), counterKey, ctx.cfg, max, GC_MS, ctx.ids.seen('journal'), ...items.filter((i) => i.gen === gen).map((i) => storedEntry(i.entry, i.arrival)))
    }
    // The ids numbered: the counter is at least the last one from now on.
    return (replies) => {
      for (const id of replies) if (typeof id === 'number') ctx.ids.saw('journal', id)
    }
  })
  // The instant it arrived: now less the time it took (an entry without a duration arrived now).
  const queue = (entry: JournalEntry) => append({ gen: ctx.generation(), entry, arrival: wall() - (entry.durationMs ?? 0) })
  return {
    record(entry) {
      const full = ('id' in entry ? entry : { id: 0, ...entry }) as JournalEntry
      // An entry made with its answer (a request no operation matched) goes now; the pipeline's once answered.
      if (full.status !== undefined) queue(full)
      return full
    },
    finished: queue,
    entries: ({ operationId, limit } = {}) =>
      ctx.guard(async () => {
        await ctx.sync()
        await ctx.batch.barrier()
        const kept = await redis.lrange(listKey(ctx.generation()), 0, -1)
        const rows = kept.map((text) => {
          const bar = text.indexOf('|')
          return { arrival: Number(text.slice(0, bar)), entry: JSON.parse(text.slice(bar + 1)) as JournalEntry }
        })
        rows.sort((a, b) => a.arrival - b.arrival || a.entry.id - b.entry.id)
        const out = rows.map((r) => r.entry).filter((e) => !operationId || e.operationId === operationId)
        return limit !== undefined ? out.slice(Math.max(0, out.length - limit)) : out
      }),
    clear: () =>
      ctx.guard(async () => {
        await ctx.sync()
        // What every replica answered before the clear goes first, so none of it lands after.
        await ctx.batch.barrier()
        await redis.del(listKey(ctx.generation()))
      }),
    size: -1,
  }
}
