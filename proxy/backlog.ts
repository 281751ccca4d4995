/**
 * Grading off the request's path. An exchange, once answered, waits here. It is graded in a quiet
 * spell: once no request has been in progress at the proxy for QUIET_MS (a client that pauses, the
 * end of a load). While traffic flows, even one request at a time, the proxy's CPU is left to
 * forwarding and the exchanges wait: grading in the gaps between requests took CPU from the load and
 * made a request that came meanwhile wait for its slice. The wait is
 * bounded: past MAX_WAITING exchanges or MAX_WAITING_BYTES of bodies, each new exchange grades the
 * oldest first, inline, and the work grading leaves (a closed client window's steps) runs in slices
 * beside the traffic. That is backpressure: the proxy then forwards at the pace of grading. Nothing
 * is dropped; `flush` grades what is left, before any report, in arrival order. Graded in the same
 * order as inline, the report is the same (test/proxy-backlog.test.ts).
 *
 * When a person watches the live lines (`liveMs`, the CLI on a terminal), an exchange does not wait
 * for a pause: every liveMs, what waited is graded, in slices between requests, traffic or not. The
 * lines then run at most about liveMs behind the traffic, and the grading's CPU is taken during it.
 */
import { LastAnswers, type ProxyExchange } from './exchange.ts'

/** Exchanges that may wait (about 1.5 KB each without their bodies: under 100 MB together). */
export const MAX_WAITING = 50_000
/** Body bytes the waiting exchanges may hold. A repeated answer shares the previous one's bytes and counts nothing. */
export const MAX_WAITING_BYTES = 64 * 1024 * 1024
/** A slice of grading when idle, in ms: a request arriving meanwhile waits at most about this long. */
const SLICE_MS = 5
/** How long the proxy stays without a request in progress before grading runs, in ms. */
export const QUIET_MS = 20
/** How far the live lines may run behind the traffic when a person watches them, in ms. */
export const LIVE_MS = 250

export interface GradingBacklog {
  /** An answered exchange, to grade. */
  add(x: ProxyExchange): void
  /** No request is in progress any more: grading runs if none starts within QUIET_MS. */
  idle(): void
  /** Grades every exchange still waiting. */
  flush(): void
  /** How many wait. */
  readonly waiting: number
}

/**
 * `grade` judges one exchange; `work` runs grading left over from earlier exchanges (the client
 * windows closed, proxy/client-grading.ts) until a deadline, true when some is left; `busy` says
 * whether a request is in progress.
 */
export function createBacklog({ grade, work = () => false, busy, maxWaiting = MAX_WAITING, maxBytes = MAX_WAITING_BYTES, quietMs = QUIET_MS, liveMs }: { grade(x: ProxyExchange): void; work?(until: number): boolean; busy(): boolean; maxWaiting?: number; maxBytes?: number; quietMs?: number; liveMs?: number }): GradingBacklog {
  let queue: ProxyExchange[] = []
  let next = 0
  let bytes = 0
  let scheduled = false
  /** Exchanges added and graded so far; with liveMs, those added before `due` are graded whether requests are in flight or not. */
  let added = 0
  let graded = 0
  let due = 0
  const sizes: number[] = []
  const lastRaw = new LastAnswers()

  const sizeOf = (x: ProxyExchange): number => {
    let size = x.requestBytes ?? x.requestBody.length
    // Read without `upstream` where the record offers it: reading `upstream` would unpack a waiting record.
    const packed = 'upstreamRaw' in x
    const raw = packed ? x.upstreamRaw : x.upstream?.raw
    if (raw && raw.length) {
      const status = packed ? x.upstreamStatus : x.upstream!.status
      if (lastRaw.get(x.operationId, status) !== raw) {
        size += raw.length
        lastRaw.set(x.operationId, status, raw)
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
    graded++
    grade(x)
  }

  const pending = () => queue.length - next
  /** Whether anything is left to grade: waiting exchanges, or work left over from graded ones (`work` with a deadline passed runs nothing). */
  const more = () => pending() > 0 || work(0)

  /** A slice of grading; the next one follows at once unless a request came meanwhile (then it waits for the next quiet spell). */
  function run(): void {
    scheduled = false
    const until = performance.now() + SLICE_MS
    while (!busy() && performance.now() < until) {
      if (pending()) gradeOldest()
      else if (!work(until)) break
    }
    if (!busy() && more()) schedule()
  }

  function schedule(): void {
    if (scheduled) return
    scheduled = true
    setImmediate(run)
  }

  /** One timer for the quiet spell, restarted (refresh) each time the proxy becomes idle; it does not keep the process up. */
  let quiet: NodeJS.Timeout | undefined
  const quietSpell = () => {
    if (!busy()) schedule()
  }
  function idle(): void {
    if (!more()) return
    if (quiet) quiet.refresh()
    else (quiet = setTimeout(quietSpell, quietMs)).unref()
  }

  /** The live lines' tick: what waited until now is due; graded in slices, each followed at once by the next (requests interleave). */
  let live: NodeJS.Timeout | undefined
  let catchingUp = false
  const startLive = () => {
    if (liveMs !== undefined && !live && !catchingUp && pending()) live = setTimeout(liveTick, liveMs).unref()
  }
  function liveTick(): void {
    live = undefined
    due = added
    catchingUp = true
    runDue()
  }
  function runDue(): void {
    const until = performance.now() + SLICE_MS
    while (graded < due && pending() && performance.now() < until) gradeOldest()
    // The work the graded exchanges left (a client window closed) runs in the same slices: under traffic that never
    // pauses it would otherwise pile up until a window has to be finished at once (proxy/client-grading.ts).
    const left = graded < due && pending() ? true : work(until)
    if (left) return void setImmediate(runDue)
    catchingUp = false
    startLive()
  }

  return {
    add(x) {
      const size = sizeOf(x)
      queue.push(x)
      sizes.push(size)
      bytes += size
      added++
      let bounded = false
      while (pending() > maxWaiting || (bytes > maxBytes && pending() > 0)) {
        gradeOldest()
        bounded = true
      }
      // Past the bound the traffic is graded as it comes: the work it leaves runs in slices beside it too.
      if (bounded && !catchingUp) {
        catchingUp = true
        setImmediate(runDue)
      }
      startLive()
      if (!busy()) idle()
    },
    idle,
    flush() {
      while (pending()) gradeOldest()
      work(Infinity)
    },
    get waiting() {
      return pending()
    },
  }
}
