/**
 * What a replica appends to the shared store on the side of its requests: the activity log, the request
 * journal and the traces. None of it is part of an answer, so a request does not wait for it: entries
 * wait a few milliseconds and go to the store together, one pipeline (one round trip) for a burst of
 * requests, whatever their kinds, on a connection of their own: a request's round trip (its catch-up)
 * never waits behind a burst's traces.
 *
 * The flush barrier makes what every replica has answered readable on any one of them: a reader of the
 * journal or the traces asks every replica (pub/sub) to send what it holds, and waits until each says
 * it has (or for a bound, when one does not answer: a stopped replica). Only reads of the control API
 * pay for it; the request path never does.
 */
import { randomUUID } from 'node:crypto'
import type { ChainableCommander, Redis } from 'ioredis'
import { duplicateOf, READY_WAIT_MS, readyWithin, SUBSCRIBER, subscribed } from './connect.ts'

/** How long entries wait for others before they go (ms). */
export const BATCH_DELAY_MS = 5
/** How long a reader waits for the other replicas' flushes (ms). */
export const BARRIER_WAIT_MS = 1000

export type AppendKind = 'activity' | 'journal' | 'traces'

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
  /** Every replica of the twin has sent what it held when this resolves (or BARRIER_WAIT_MS passed). */
  barrier(): Promise<void>
  metrics(): Record<string, number>
  close(): Promise<void>
}

/**
 * `redis`: the replica's connection; `channel`: the twin's (inside its hash tag); `onError`: a flush
 * the store refused (the entries are lost: they are the record of requests, not the twin's state).
 */
export function createAppendBatch(redis: Redis, channel: string, onError: (error: unknown) => void = () => {}): AppendBatch {
  const lanes: Array<{ items: unknown[]; write: LaneWrite<unknown> }> = []
  const appender = duplicateOf(redis, { lazyConnect: true })
  appender.on('error', () => {
    // The main connection reports the store's state; a flush meanwhile fails and is counted.
  })
  const connected = appender.connect().catch(() => {})
  let queued = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const counts = { append_flushes: 0, append_commands: 0, activity_entries: 0, journal_entries: 0, trace_entries: 0, barriers: 0, barrier_timeouts: 0 }
  const field = { activity: 'activity_entries', journal: 'journal_entries', traces: 'trace_entries' } as const

  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (queued === 0) return
    queued = 0
    counts.append_flushes++
    const pipeline = appender.pipeline()
    const handlers: Array<[from: number, to: number, handle: (replies: unknown[]) => void]> = []
    for (const lane of lanes) {
      if (!lane.items.length) continue
      const items = lane.items
      lane.items = []
      const from = pipeline.length
      const handle = lane.write(pipeline, items)
      if (handle) handlers.push([from, pipeline.length, handle])
    }
    counts.append_commands += pipeline.length
    try {
      const results = (await pipeline.exec()) ?? []
      const failed = results.find(([error]) => error)
      if (failed) onError(failed[0])
      for (const [from, to, handle] of handlers) handle(results.slice(from, to).map(([error, reply]) => error ?? reply))
    } catch (error) {
      onError(error)
    }
  }

  // The barrier: `f <token>` asks every replica to flush, each answers `a <token>` once it has.
  const subscriber = duplicateOf(redis, SUBSCRIBER)
  const waiting = new Map<string, { acks: number; expected: number; done: () => void }>()
  subscriber.on('error', () => {
    // The main connection reports the store's state; a barrier then waits its bound.
  })
  subscriber.on('smessage', (_channel: string, message: string) => {
    const token = message.slice(2)
    if (message.startsWith('f ')) {
      void flush().then(() => redis.spublish(channel, `a ${token}`).catch(() => {}))
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
      const lane = { items: [] as unknown[], write: write as LaneWrite<unknown> }
      lanes.push(lane)
      const counter = field[kind]
      return (item: T) => {
        lane.items.push(item)
        counts[counter]++
        if (++queued === 1) {
          timer = setTimeout(() => void flush(), BATCH_DELAY_MS)
          timer.unref()
        }
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
        }, BARRIER_WAIT_MS)
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
    metrics: () => ({ ...counts }),
    async close() {
      await flush()
      await subscriber.quit().catch(() => subscriber.disconnect())
      await appender.quit().catch(() => appender.disconnect())
    },
  }
}
