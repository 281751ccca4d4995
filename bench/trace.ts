/**
 * `npm run bench:trace`: the cost of tracing on a cached read, in-process (no sockets, so the
 * machine's noise is smaller than the HTTP bench's `trace` section): a mock of the default world with
 * the response cache, traced (the default) or with `trace: false`, each in a process of its own as a
 * server runs (two mocks in one heap would share the collector's work), answers the same cached
 * `POST /affiliate/crm/list`; µs per request, best round of each, the two modes in turn, twice.
 * Goal (issue 28): tracing costs at most 10% of the throughput of cached reads. Over HTTP the
 * server's own work per request is larger, so the share is smaller there (`BENCH_SECTIONS=trace npm run bench`).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createOperationRoutes } from '../mock/handlers.ts'
import type { RequestHeaders } from '../mock/pipeline/index.ts'
import { createMockState } from '../mock/state.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50_000)

function cachedRead(trace: boolean): () => Promise<unknown> {
  const state = createMockState({ seed: 42, scale: 'default', rateLimit: false, responseCache: true, trace, freezeWorld: false })
  const route = createOperationRoutes(state, { baseUrl: 'http://bench.internal' }).find((r) => r.op.operationId === 'listCrmAffiliates')!
  const values: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': state.world.shops[0]!.shop_id }
  const headers: RequestHeaders = { get: (n) => values[n.toLowerCase()] ?? null, forEach: (fn) => Object.keys(values).forEach((k) => fn(values[k]!, k)) }
  const bodyText = JSON.stringify({ page_size: 50, page_number: 1, filters: { min_videos: 1 } })
  const url = new URL('http://bench.internal/affiliate/crm/list')
  return () => route.run({ method: 'POST', url, headers, bodyText })
}

/** µs per request of the best of ROUNDS rounds, in this process (one mock, as a server runs it). */
async function measure(trace: boolean): Promise<number> {
  const run = cachedRead(trace)
  for (let i = 0; i < 20_000; i++) await run()
  let best = Infinity
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now()
    for (let i = 0; i < REQUESTS; i++) await run()
    best = Math.min(best, ((performance.now() - started) * 1000) / REQUESTS)
  }
  return best
}

if (process.argv[2] === '--child') {
  console.log(JSON.stringify(await measure(process.argv[3] === 'on')))
} else {
  // Each mock in a process of its own, as `shoptwin serve` runs (one heap per mode), in turn, twice.
  const child = (mode: 'on' | 'off') => Number(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode], { encoding: 'utf8' }).trim())
  const runs = { traced: [] as number[], untraced: [] as number[] }
  for (let i = 0; i < 2; i++) {
    runs.traced.push(child('on'))
    runs.untraced.push(child('off'))
  }
  const best = { traced: Math.min(...runs.traced), untraced: Math.min(...runs.untraced) }
  const ratio = best.untraced / best.traced
  console.log(`cached POST /affiliate/crm/list in-process, one mock per process, best of 2 processes x ${ROUNDS} rounds of ${REQUESTS}: traced ${best.traced.toFixed(1)} µs/request, untraced ${best.untraced.toFixed(1)} µs/request`)
  console.log(`${ratio >= 0.9 ? '✓' : '✗'} throughput traced / untraced: ${ratio.toFixed(2)} (goal >= 0.9)`)
}
