/**
 * An open-loop load at a fixed offered rate: request i is due at `i / rate` seconds, whether or not
 * the earlier ones were answered, and its latency counts from when it was due (so a stalled server is
 * not hidden by the load generator waiting for it: no coordinated omission). Latencies to the
 * microsecond, where autocannon's are whole milliseconds.
 *
 * At full load (autocannon, 50 connections) a p50 is mostly the queue: connections ÷ req/s, so it says
 * the req/s ratio a second time. At a rate both sides sustain, the p50 difference is what one side
 * adds to a request: the figure a latency goal ("p50 at most 1 ms more") is about.
 */
import { Agent, request } from 'node:http'
import { bodyOf, headersFor, type Operation, type Target } from './targets.ts'

export interface PacedResult {
  /** The rate asked for and the rate answers came back at (req/s). */
  rate: number
  achieved: number
  p50: number
  p90: number
  p99: number
  non2xx: number
  errors: number
}

let runs = 0

export async function paced(target: Target, op: Operation, shopId: string, options: { rate: number; seconds: number; connections: number }): Promise<PacedResult> {
  const { rate, seconds, connections } = options
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const url = new URL(`${target.url}${op.path}`)
  const body = bodyOf(op)
  const total = Math.max(1, Math.round(rate * seconds))
  const run = ++runs
  const latencies: number[] = []
  let non2xx = 0
  let errors = 0
  let answered = 0
  const fire = (i: number, due: number) =>
    new Promise<void>((resolve) => {
      const headers = { ...headersFor(shopId), ...op.headers, ...(op.freshIdempotencyKey ? { 'idempotency-key': `paced-${process.pid}-${run}-${i}` } : {}) }
      const req = request(url, { method: op.method, headers, agent }, (res) => {
        if (res.statusCode! < 200 || res.statusCode! > 299) non2xx++
        res.resume()
        res.on('end', () => {
          latencies.push(performance.now() - due)
          answered++
          resolve()
        })
      })
      req.on('error', () => {
        errors++
        resolve()
      })
      req.end(body)
    })
  const started = performance.now()
  const pending: Array<Promise<void>> = []
  try {
    await new Promise<void>((resolve) => {
      // Every millisecond, send what has come due (timers are not finer than that).
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1)
        while (pending.length < due) pending.push(fire(pending.length, started + (pending.length * 1000) / rate))
        if (pending.length < total) setTimeout(tick, 1)
        else resolve()
      }
      tick()
    })
    await Promise.all(pending)
  } finally {
    agent.destroy()
  }
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(2))
  return { rate, achieved: Math.round(answered / elapsed), p50: at(0.5), p90: at(0.9), p99: at(0.99), non2xx, errors }
}
