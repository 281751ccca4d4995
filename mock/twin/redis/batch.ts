/**
 * What a replica appends to the shared store on the side of its requests: the activity log, the request
 * journal and the traces. None of it is part of an answer, so a request does not wait for it: entries
 * wait up to BATCH_DELAY_MS and go to the store together, one pipeline (one round trip) for a burst of
 * requests, whatever their kinds, on a connection of their own: a request's round trip (its catch-up)
 * never waits behind a burst's traces.
 *
 * The flush barrier makes what every replica has answered readable on any one of them: a reader of the
 * journal, the traces or the activity log asks every replica (pub/sub) to send what it holds, and waits until each says
 * it has (or for a bound, when one does not answer: a stopped replica). Only reads of the control API
 * pay for it; the request path never does.
 *
 * The same channel carries an ask: a replica about to restore the twin the store lost asks every other
 * what it knows (ids.ts: the highest ids it saw or gave out), and waits for each to answer, as long.
 */
import { randomUUID } from 'node:crypto'
import type { ChainableCommander, Redis } from 'ioredis'
import { duplicateOf, READY_WAIT_MS, readyWithin, SUBSCRIBER, subscribed } from './connect.ts'

/**
 * How long entries wait for others before they go (ms). Each flush is a write to the store and a reply
 * back, and on a machine where waking another process is dear (a virtual machine's CPUs) two wake-ups
 * cost more than the flush's commands: a longer window sends fewer flushes at any rate below a full
 * batch. Nothing reads the entries before they are sent: every reader asks each replica to flush
 * first (the barrier below).
 */
export const BATCH_DELAY_MS = 50
/** A batch this large goes at once (its window not waited out): bounds a flush's size and the memory held. */
export const BATCH_MAX_ENTRIES = 256
/** How long a reader waits for the other replicas' flushes (ms). */
export const BARRIER_WAIT_MS = 1000
/** How often an ask not yet answered by every replica is sent again (ms): a replica whose subscription is back after the store restarted hears a later one. */
export const ASK_AGAIN_MS = 100

export type AppendKind = 'activity' | 'journal' | 'traces' | 'heads'

/** What a flush that failed lost, by kind (the replica's head reports are not counted: the next one replaces them). */
export type Lost = Partial<Record<Exclude<AppendKind, 'heads'>, number>>

export interface AppendBatchOptions {
  /** A flush the store refused, whole or in part: the entries are lost (they are the record of requests, not the twin's state). */
  onError?: (error: unknown, lost: Lost) => void
  /** A flush the store took whole. */
  onFlushed?: () => void
  /** How long entries wait for others (ms; BATCH_DELAY_MS). A test makes it long to hold entries until a barrier asks for them. */
  delayMs?: number
  /** How long a reader waits for the other replicas' flushes (ms; BARRIER_WAIT_MS). A test on a loaded machine makes it long: its proofs are the acks, not the bound. */
  barrierWaitMs?: number
  /** This replica's answer to another's ask (`ask`): its id, a space, then what it says (no line break). */
  answer?: () => string
  /** Called with what another replica (or this one) asked with, after the answer is sent. */
  onAsked?: (question: string) => void
}

/**
 * Adds a lane's items to the pipeline; may return what to do with the replies of the commands it
 * added (in order; an error is an Error).
 */
export type LaneWrite<T> = (pipeline: ChainableCommander, items: T[]) => void | ((replies: unknown[]) => void)

export interface AppendBatch {
  /**
   * A lane of appends of one kind: the function it returns queues an item; at the flush, `write` adds
   * the lane's items, in the order they came, to the pipeline that carries every lane's.
   */
  lane<T>(kind: AppendKind, write: LaneWrite<T>): (item: T) => void
  /** A Lua script the lanes call (defined on the appends' connection). */
  define(name: string, numberOfKeys: number, lua: string): void
  /** Both connections are up. */
  ready(): Promise<void>
  /** Sends what waits now. */
  flush(): Promise<void>
  /** Every replica of the twin has sent what it held when this resolves (or its bound, BARRIER_WAIT_MS, passed). */
  barrier(): Promise<void>
  /**
   * Every replica's answer (`answer`), by its id: once every subscriber of the channel and every
   * replica in `expected` (those heard from lately) answered, or the barrier's bound passed.
   * `question`: what the others' `onAsked` is told (one word).
   */
  ask(expected: Iterable<string>, question?: string): Promise<Map<string, string>>
  metrics(): Record<string, number>
  close(): Promise<void>
}

/** `redis`: the replica's connection; `channel`: the twin's (inside its hash tag). */
export function createAppendBatch(redis: Redis, channel: string, { onError = () => {}, onFlushed = () => {}, delayMs = BATCH_DELAY_MS, barrierWaitMs = BARRIER_WAIT_MS, answer, onAsked = () => {} }: AppendBatchOptions = {}): AppendBatch {
  const lanes: Array<{ kind: AppendKind; items: unknown[]; write: LaneWrite<unknown> }> = []
  const appender = duplicateOf(redis, { lazyConnect: true })
  appender.on('error', () => {
    // The main connection reports the store's state; a flush meanwhile fails and is counted.
  })
  const connected = appender.connect().catch(() => {})
  let queued = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  let rttMs = 0
  const counts = { append_flushes: 0, append_commands: 0, activity_entries: 0, journal_entries: 0, trace_entries: 0, head_reports: 0, append_failures: 0, append_entries_lost: 0, barriers: 0, barrier_timeouts: 0 }
  const field = { activity: 'activity_entries', journal: 'journal_entries', traces: 'trace_entries', heads: 'head_reports' } as const

  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (queued === 0) return
    queued = 0
    counts.append_flushes++
    const pipeline = appender.pipeline()
    const sent: Array<{ kind: AppendKind; items: number; from: number; to: number; handle: void | ((replies: unknown[]) => void) }> = []
    for (const lane of lanes) {
      if (!lane.items.length) continue
      const items = lane.items
      lane.items = []
      const from = pipeline.length
      const handle = lane.write(pipeline, items)
      sent.push({ kind: lane.kind, items: items.length, from, to: pipeline.length, handle })
    }
    counts.append_commands += pipeline.length
    // What a failed flush lost: the items of every lane one of whose commands failed (all, when the flush did).
    const failed = (error: unknown, lanes: typeof sent) => {
      counts.append_failures++
      const lost: Lost = {}
      for (const { kind, items } of lanes) {
        if (kind === 'heads') continue
        lost[kind] = (lost[kind] ?? 0) + items
        counts.append_entries_lost += items
      }
      onError(error, lost)
    }
    const started = performance.now()
    let results: Array<[Error | null, unknown]>
    try {
      results = (await pipeline.exec()) ?? []
    } catch (error) {
      return failed(error, sent)
    }
    rttMs = rttMs === 0 ? performance.now() - started : rttMs * 0.9 + (performance.now() - started) * 0.1
    const error = results.find(([e]) => e)?.[0]
    if (error) failed(error, sent.filter(({ from, to }) => results.slice(from, to).some(([e]) => e)))
    else onFlushed()
    for (const { from, to, handle } of sent) if (handle) handle(results.slice(from, to).map(([e, reply]) => e ?? reply))
  }

  // The barrier: `f <token>` asks every replica to flush, each answers `a <token>` once it has.
  const subscriber = duplicateOf(redis, SUBSCRIBER)
  const waiting = new Map<string, { acks: number; expected: number; done: () => void }>()
  // Asks: `q <token>` asks every replica, each answers `r <token> <its answer>`.
  const asking = new Map<string, (answer: string) => void>()
  subscriber.on('error', () => {
    // The main connection reports the store's state; a barrier then waits its bound.
  })
  subscriber.on('smessage', (_channel: string, message: string) => {
    const token = message.slice(2)
    if (message.startsWith('f ')) {
      void flush().then(() => redis.spublish(channel, `a ${token}`).catch(() => {}))
      return
    }
    if (message.startsWith('q ')) {
      const space = token.indexOf(' ')
      if (answer) void redis.spublish(channel, `r ${space < 0 ? token : token.slice(0, space)} ${answer()}`).catch(() => {})
      onAsked(space < 0 ? '' : token.slice(space + 1))
      return
    }
    if (message.startsWith('r ')) {
      const space = message.indexOf(' ', 2)
      asking.get(message.slice(2, space))?.(message.slice(space + 1))
      return
    }
    const waiter = waiting.get(token)
    if (waiter && ++waiter.acks >= waiter.expected) waiter.done()
  })
  // Subscribed in the background (a barrier meanwhile counts the replicas that are; the client
  // subscribes again after a reconnection).
  void subscribed(subscriber, channel)

  return {
    define(name, numberOfKeys, lua) {
      appender.defineCommand(name, { numberOfKeys, lua })
    },
    async ready() {
      await connected
      // A first try that failed (say the replica's thread was busy building its state) is tried again.
      await readyWithin(appender, READY_WAIT_MS, "the appends' connection")
    },
    lane<T>(kind: AppendKind, write: LaneWrite<T>) {
      const lane = { kind, items: [] as unknown[], write: write as LaneWrite<unknown> }
      lanes.push(lane)
      const counter = field[kind]
      return (item: T) => {
        lane.items.push(item)
        counts[counter]++
        if (++queued === 1) {
          timer = setTimeout(() => void flush(), delayMs)
          timer.unref()
        } else if (queued >= BATCH_MAX_ENTRIES) void flush()
      }
    },
    flush,
    async barrier() {
      counts.barriers++
      const token = randomUUID()
      let timeout: ReturnType<typeof setTimeout> | undefined
      const all = new Promise<void>((resolve) => {
        waiting.set(token, { acks: 0, expected: Number.POSITIVE_INFINITY, done: resolve })
        timeout = setTimeout(() => {
          counts.barrier_timeouts++
          resolve()
        }, barrierWaitMs)
      })
      try {
        // This replica's own first (its subscriber may not be there yet), then every subscriber of the
        // channel, this replica's own included when it is, answers.
        await flush()
        const receivers = Number(await redis.spublish(channel, `f ${token}`))
        const waiter = waiting.get(token)!
        waiter.expected = receivers
        if (waiter.acks >= receivers) waiter.done()
        await all
      } finally {
        clearTimeout(timeout)
        waiting.delete(token)
      }
    },
    async ask(expected, question = '') {
      const token = randomUUID()
      const answers = new Map<string, string>()
      const waitFor = new Set(expected)
      let subscribers = 0
      let settle!: () => void
      const all = new Promise<void>((resolve) => (settle = resolve))
      const complete = () => answers.size >= subscribers && [...waitFor].every((id) => answers.has(id))
      asking.set(token, (text) => {
        const space = text.indexOf(' ')
        answers.set(space < 0 ? text : text.slice(0, space), space < 0 ? '' : text.slice(space + 1))
        if (subscribers > 0 && complete()) settle()
      })
      const bound = setTimeout(settle, barrierWaitMs)
      let again: ReturnType<typeof setInterval> | undefined
      try {
        const send = async () => {
          subscribers = Math.max(subscribers, Number(await redis.spublish(channel, `q ${token}${question ? ` ${question}` : ''}`)))
          if (complete()) settle()
        }
        await send()
        again = setInterval(() => void send().catch(() => {}), ASK_AGAIN_MS)
        await all
        return answers
      } finally {
        clearTimeout(bound)
        clearInterval(again)
        asking.delete(token)
      }
    },
    // What waits for the next flush now, and a flush's round trip (a moving average).
    metrics: () => ({ ...counts, append_pending: queued, append_rtt_ewma_ms: Number(rttMs.toFixed(3)) }),
    async close() {
      await flush()
      await subscriber.quit().catch(() => subscriber.disconnect())
      await appender.quit().catch(() => appender.disconnect())
    },
  }
}
