/**
 * `npm run bench:trace`: the cost of tracing on a cached read, in-process (no sockets, so the
 * machine's noise is smaller than the HTTP bench's `trace` section): two mocks of the default world
 * with the response cache, one traced (the default) and one with `trace: false`, answer the same
 * cached `POST /affiliate/crm/list` in alternating rounds; µs per request, best round of each.
 * Goal (issue 28): tracing costs at most 10% of the throughput of cached reads. Over HTTP the
 * server's own work per request is larger, so the share is smaller there (`BENCH_SECTIONS=trace npm run bench`).
 */
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

const targets = { traced: cachedRead(true), untraced: cachedRead(false) }
for (const run of Object.values(targets)) for (let i = 0; i < 20_000; i++) await run()
const best: Record<string, number> = { traced: Infinity, untraced: Infinity }
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(targets)) {
    const started = performance.now()
    for (let i = 0; i < REQUESTS; i++) await run()
    best[name] = Math.min(best[name]!, ((performance.now() - started) * 1000) / REQUESTS)
  }
}
const ratio = best.untraced! / best.traced!
console.log(`cached POST /affiliate/crm/list in-process, best of ${ROUNDS} rounds of ${REQUESTS}: traced ${best.traced!.toFixed(1)} µs/request, untraced ${best.untraced!.toFixed(1)} µs/request`)
console.log(`${ratio >= 0.9 ? '✓' : '✗'} throughput traced / untraced: ${ratio.toFixed(2)} (goal >= 0.9)`)
