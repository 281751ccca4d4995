/**
 * Grading off the request's path. An exchange, once answered, waits here. It is graded when no request
 * is in progress at the proxy: between a sequential client's requests, which is at once. While traffic
 * keeps requests in flight, the proxy's CPU is left to forwarding, and the exchanges wait. The wait is
 * bounded: past MAX_WAITING exchanges or MAX_WAITING_BYTES of bodies, each new exchange grades the
 * oldest first, inline. That is backpressure: the proxy then forwards at the pace of grading. Nothing
 * is dropped; `flush` grades what is left, before any report, in arrival order. Graded in the same
 * order as inline, the report is the same (test/proxy-backlog.test.ts).
 */
import type { ProxyExchange } from './exchange.ts'

/** Exchanges that may wait (about 1.5 KB each without their bodies: under 100 MB together). */
export const MAX_WAITING = 50_000
/** Body bytes the waiting exchanges may hold. A repeated answer shares the previous one's bytes and counts nothing. */
export const MAX_WAITING_BYTES = 64 * 1024 * 1024
/** A slice of grading when idle, in ms: a request arriving meanwhile waits at most about this long. */
const SLICE_MS = 5

export interface GradingBacklog {
  /** An answered exchange, to grade. */
  add(x: ProxyExchange): void
  /** No request is in progress any more: grading may run. */
  idle(): void
  /** Grades every exchange still waiting. */
  flush(): void
  /** How many wait. */
  readonly waiting: number
}

export function createBacklog({ grade, busy, maxWaiting = MAX_WAITING, maxBytes = MAX_WAITING_BYTES }: { grade(x: ProxyExchange): void; busy(): boolean; maxWaiting?: number; maxBytes?: number }): GradingBacklog {
  let queue: ProxyExchange[] = []
  let next = 0
  let bytes = 0
  let scheduled = false
  const sizes: number[] = []
  /** The last answer of each operation and status: a repeat shares its bytes (proxy/server.ts Capture). */
  const lastRaw = new Map<string, Buffer>()

  const sizeOf = (x: ProxyExchange): number => {
    let size = x.requestBody.length
    const raw = x.upstream?.raw
    if (raw && raw.length) {
      const key = `${x.operationId} ${x.upstream!.status}`
      if (lastRaw.get(key) !== raw) {
        size += raw.length
        lastRaw.set(key, raw)
      }
    }
    return size
  }

  function gradeOldest(): void {
    const x = queue[next]!
    queue[next] = undefined as never
    bytes -= sizes[next]!
    next++
    if (next === queue.length) {
      queue = []
      sizes.length = 0
      next = 0
    } else if (next > 4096 && next * 2 > queue.length) {
      queue = queue.slice(next)
      sizes.splice(0, next)
      next = 0
    }
    grade(x)
  }

  const pending = () => queue.length - next

  function run(): void {
    scheduled = false
    const until = performance.now() + SLICE_MS
    while (pending() && !busy() && performance.now() < until) gradeOldest()
    if (pending() && !busy()) schedule()
  }

  function schedule(): void {
    if (scheduled || !pending()) return
    scheduled = true
    setImmediate(run)
  }

  return {
    add(x) {
      const size = sizeOf(x)
      queue.push(x)
      sizes.push(size)
      bytes += size
      while (pending() > maxWaiting || (bytes > maxBytes && pending() > 0)) gradeOldest()
      if (!busy()) schedule()
    },
    idle: schedule,
    flush() {
      while (pending()) gradeOldest()
    },
    get waiting() {
      return pending()
    },
  }
}
