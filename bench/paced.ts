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
import { Agent, request } from 'node:http'
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

export async function paced(baseUrl: string, op: Operation, shopId: string, { rate, seconds, connections }: { rate: number; seconds: number; connections: number }): Promise<PacedLoad> {
  const url = new URL(`${baseUrl}${op.path}`)
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const body = bodyOf(op)
  const headers = { ...headersFor(shopId), ...op.headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) }
  const latencies: number[] = []
  let non2xx = 0
  let errors = 0
  let inFlight = 0
  const fire = (due: number, record: boolean) => {
    inFlight++
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: op.method, headers: op.freshIdempotencyKey ? { ...headers, 'idempotency-key': `paced-${process.pid}-${++keys}` } : headers, agent },
      (res) => {
        res.resume()
        res.on('end', () => {
          inFlight--
          if (!record) return
          latencies.push(performance.now() - due)
          if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++
        })
      },
    )
    req.on('error', () => {
      inFlight--
      if (record) errors++
    })
    req.end(body)
  }
  /** Sends `total` requests at `rate` a second; `record` says whether they count. */
  const run = (total: number, record: boolean) =>
    new Promise<void>((done) => {
      const started = performance.now()
      let sent = 0
      const tick = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000))
        while (sent < due) fire(started + (sent++ * 1000) / rate, record)
        if (sent >= total) {
          clearInterval(tick)
          done()
        }
      }, 1)
    })
  // A second's warm-up (connections opened), not counted.
  await run(rate, false)
  const total = Math.round(rate * seconds)
  await run(total, true)
  const waitUntil = performance.now() + 5000
  while (inFlight > 0 && performance.now() < waitUntil) await new Promise((r) => setTimeout(r, 10))
  agent.destroy()
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (q: number) => (sorted.length ? +sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2) : NaN)
  return { rate, sent: total, answered: latencies.length, non2xx, errors, p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: +(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)).toFixed(2) }
}
