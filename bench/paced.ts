/**
 * Load at a fixed offered rate (open loop), for the latency a server adds below saturation: request i
 * is due at `i / rate` seconds (a 1 ms tick sends those due), whether or not the earlier ones were
 * answered, over keep-alive connections (at most `connections`; a request finding all busy waits for
 * one). Its latency runs from when it was DUE to the end of its answer, in fractions of a millisecond:
 * a wait for a connection, or a load generator that fell behind its schedule, counts (no coordinated
 * omission).
 *
 * At full load (autocannon, 50 connections) a p50 is mostly the queue, connections ÷ req/s: it says
 * the req/s ratio a second time. At a rate both sides sustain, the p50 difference is what one side adds
 * to a request: what a latency goal ("p50 at most 1 ms more") is about.
 *
 * Not autocannon's `overallRate`: autocannon 9 gives each connection `rate ÷ connections` requests a
 * second, sent back to back when its one-second interval starts, so all of a second's requests come as
 * one burst of `connections` at a time: the p50 is the burst's queue, as at full load (and its
 * coordinated-omission correction adds made-up values 1 ms apart below each measured one).
 */
import { connect, type Socket } from 'node:net'
import { AnswerReader } from './http-answers.ts'
import { bodyOf, headersFor, type Operation } from './targets.ts'

export interface PacedLoad {
  rate: number
  /** Requests sent, and answered within the run (answers still coming at its end are waited for, up to 5 s). */
  sent: number
  answered: number
  /** Answers not 2xx, and requests that failed (no answer). */
  non2xx: number
  errors: number
  /** Latency percentiles and mean, ms. */
  p50: number
  p90: number
  p99: number
  mean: number
}

/** Distinct Idempotency-Keys across runs (`op.freshIdempotencyKey`: every write a new one). */
let keys = 0
/** The size of the reads (a 221 KB answer in one or two when the kernel has it). */
const READ_SIZE = 256 * 1024

/** A request: when it was due, and whether it counts (the warm-up's do not). */
interface Due {
  at: number
  record: boolean
}

/** A kept-alive connection carrying one request at a time (no pipelining, as node:http's agent). */
interface Connection {
  socket: Socket
  reader: AnswerReader
  current: Due | undefined
}

/**
 * The generator is lean on purpose (raw keep-alive sockets, bench/http-answers.ts counting the body's
 * bytes): at 800 req/s of a 221 KB answer, node:http's client (stream events and buffers per read) was
 * a large share of a 2-core machine, and its queue showed up in both sides' p50.
 */
/**
 * How many of `total` requests are due `elapsedMs` into a run at `rate` a second: request i (from 0)
 * is due at i / rate seconds, so at 0 ms the first is. (Counting only whole intervals past sent each
 * request one interval after the instant its latency was measured from: 2 ms more on every request
 * at 500 req/s, 20 ms at 50.)
 */
export function dueBy(elapsedMs: number, rate: number, total: number): number {
  return Math.min(total, Math.floor((elapsedMs * rate) / 1000) + 1)
}

export async function paced(baseUrl: string, op: Operation, shopId: string, { rate, seconds, connections, warmUpSeconds = 1 }: { rate: number; seconds: number; connections: number; warmUpSeconds?: number }): Promise<PacedLoad> {
  const url = new URL(`${baseUrl}${op.path}`)
  const body = bodyOf(op)
  const bodyBytes = body === undefined ? undefined : Buffer.from(body)
  let head = `${op.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`
  for (const [name, value] of Object.entries({ ...headersFor(shopId), ...op.headers })) head += `${name}: ${value}\r\n`
  if (bodyBytes) head += `content-length: ${bodyBytes.length}\r\n`
  const fixed = Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), bodyBytes ?? Buffer.alloc(0)])
  const requestBytes = () => (op.freshIdempotencyKey ? Buffer.concat([Buffer.from(`${head}idempotency-key: paced-${process.pid}-${++keys}\r\n\r\n`, 'latin1'), bodyBytes ?? Buffer.alloc(0)]) : fixed)

  const readBuffer = Buffer.allocUnsafe(READ_SIZE)
  const latencies: number[] = []
  let non2xx = 0
  let errors = 0
  let inFlight = 0
  const open = new Set<Connection>()
  const free: Connection[] = []
  /** Requests due while every connection was busy, oldest first: their wait counts. */
  const waiting: Due[] = []
  let waitingFrom = 0
  let stopped = false

  const settled = (due: Due, status: number | undefined) => {
    inFlight--
    if (!due.record) return
    if (status === undefined) errors++
    else {
      latencies.push(performance.now() - due.at)
      if (status < 200 || status >= 300) non2xx++
    }
  }
  const send = (connection: Connection, due: Due) => {
    connection.current = due
    connection.socket.write(requestBytes())
  }
  /** A connection is free: the oldest waiting request goes on it, or it waits for the next. */
  const freed = (connection: Connection) => {
    if (waitingFrom < waiting.length) {
      send(connection, waiting[waitingFrom++]!)
      if (waitingFrom > 1024 && waitingFrom * 2 > waiting.length) {
        waiting.splice(0, waitingFrom)
        waitingFrom = 0
      }
    } else free.push(connection)
  }
  const read = (connection: Connection, data: Buffer) => {
    try {
      connection.reader.feed(data)
    } catch {
      connection.socket.destroy()
    }
    return true
  }
  const dial = (): Connection => {
    // Reads land in one buffer shared by every connection (the reader keeps no byte of it): no allocation per read.
    const socket = connect({ host: url.hostname, port: Number(url.port || 80), noDelay: true, onread: { buffer: readBuffer, callback: (length) => read(connection, readBuffer.subarray(0, length)) } })
    const connection: Connection = {
      socket,
      current: undefined,
      reader: new AnswerReader((answer) => {
        const due = connection.current!
        connection.current = undefined
        settled(due, answer.status)
        if (answer.close) socket.destroy()
        else freed(connection)
      }),
    }
    open.add(connection)
    socket.on('error', () => undefined)
    socket.on('close', () => {
      open.delete(connection)
      const at = free.indexOf(connection)
      if (at >= 0) free.splice(at, 1)
      // The request on it failed (no whole answer), unless its answer was read to the close (which settles it).
      if (connection.current && !connection.reader.end()) {
        const due = connection.current
        connection.current = undefined
        settled(due, undefined)
      }
      // A request waiting for a connection gets a new one.
      if (!stopped && waitingFrom < waiting.length && open.size < connections) send(dial(), waiting[waitingFrom++]!)
    })
    return connection
  }
  const fire = (at: number, record: boolean) => {
    inFlight++
    const due = { at, record }
    const connection = free.pop() ?? (open.size < connections ? dial() : undefined)
    if (connection) send(connection, due)
    else waiting.push(due)
  }
  /** Sends `total` requests at `rate` a second; `record` says whether they count. */
  const run = (total: number, record: boolean) =>
    new Promise<void>((done) => {
      const started = performance.now()
      let sent = 0
      const tick = setInterval(() => {
        const due = dueBy(performance.now() - started, rate, total)
        while (sent < due) fire(started + (sent++ * 1000) / rate, record)
        if (sent >= total) {
          clearInterval(tick)
          done()
        }
      }, 1)
    })
  // A second's warm-up (connections opened), not counted.
  await run(Math.round(rate * warmUpSeconds), false)
  const total = Math.round(rate * seconds)
  await run(total, true)
  const waitUntil = performance.now() + 5000
  while (inFlight > 0 && performance.now() < waitUntil) await new Promise((r) => setTimeout(r, 10))
  stopped = true
  for (const connection of open) connection.socket.destroy()
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (q: number) => (sorted.length ? +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2) : NaN)
  return { rate, sent: total, answered: latencies.length, non2xx, errors, p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: +(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)).toFixed(2) }
}
