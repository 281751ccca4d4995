/**
 * Soak (issue 8, Robustness): 200,000 idempotent writes with distinct keys keep the mock's memory
 * bounded. The bound is the idempotency store's cap (DEFAULT_MAX_RECORDS = 10,000 records, the
 * oldest evicted first; mock/stores/idempotency.ts), plus the 24-hour expiry on the mock clock
 * (spec: Limits: cache 24 hours). Asserted on the store's size, which is deterministic; the heap is
 * printed as extra evidence only.
 *
 * The writes run in-process on the operation's pipeline (`route.run`, what the standalone server
 * calls), the cheapest real idempotent write: `POST /affiliate/samples/approve` with no apply ids.
 */
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { describe, expect, it } from 'vitest'
import { createMockState } from '../mock/index.ts'
import { createOperationRoutes } from '../mock/handlers.ts'
import { DEFAULT_MAX_RECORDS } from '../mock/stores/idempotency.ts'

const NOW = '2026-03-10T12:00:00.000Z'
const WRITES = 200_000
const DAY_MS = 24 * 60 * 60 * 1000
const ORIGIN = 'https://soak.test'

const state = createMockState({ seed: 42, now: NOW, rateLimit: false })
const routes = createOperationRoutes(state, { baseUrl: ORIGIN, log: () => {} })
const approve = routes.find((r) => r.op.operationId === 'approveSampleRequests')!
const lookup = routes.find((r) => r.op.operationId === 'getIdempotencyRecord')!
const shops = state.world.shops.filter((s) => s.is_active).slice(0, 2).map((s) => s.shop_id)
const approveUrl = new URL(`${ORIGIN}${approve.op.path}`)
const EXPECTED = JSON.stringify({ data: { message: '0 of 0 sample requests approved', success_count: 0 } })

/** One approve with this key on this shop (headers as a plain lookup, as node hands them over). */
function write(key: string, shop: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop, 'idempotency-key': key }
  return approve.run({ method: 'POST', url: approveUrl, bodyText: '{"apply_ids":[]}', headers: { get: (name) => headers[name.toLowerCase()] ?? null, forEach: (fn) => Object.entries(headers).forEach(([n, v]) => fn(v, n)) } })
}
function recordOf(key: string, shop: string) {
  const headers: Record<string, string> = { 'x-api-key': 'demo-key', 'x-shop-id': shop }
  return lookup.run({ method: 'GET', url: new URL(`${ORIGIN}/idempotency/${key}`), bodyText: '', params: { key }, headers: { get: (name) => headers[name.toLowerCase()] ?? null, forEach: (fn) => Object.entries(headers).forEach(([n, v]) => fn(v, n)) } })
}

/** Heap after a full collection, in MB (extra evidence, never asserted). */
function heapMb(): number {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  gc()
  gc()
  return Math.round(process.memoryUsage().heapUsed / 1024 / 1024)
}

describe('soak: 200,000 idempotent writes with distinct keys (issue 8: Robustness; spec: Limits)', () => {
  it(`soak: the idempotency store never holds more than ${DEFAULT_MAX_RECORDS} records, and the clock past 24 h empties it`, { timeout: 120_000 }, async () => {
    const heapBefore = heapMb()
    const started = performance.now()
    let maxSize = 0
    let unexpected = 0
    for (let i = 0; i < WRITES; i++) {
      const result = await write(`soak-${i}`, shops[i % shops.length])
      if (result.status !== 200 || result.rawBody !== EXPECTED) unexpected++
      const size = state.idempotency.size
      if (size > maxSize) maxSize = size
    }
    const seconds = (performance.now() - started) / 1000
    const heapAfter = heapMb()
    console.log(`robustness soak: ${WRITES} writes in ${seconds.toFixed(1)} s; idempotency records max ${maxSize} (cap ${DEFAULT_MAX_RECORDS}); journal ${state.journal.size}; heap ${heapBefore} MB before, ${heapAfter} MB after`)

    expect(unexpected).toBe(0)
    expect(maxSize).toBe(DEFAULT_MAX_RECORDS)
    expect(state.idempotency.size).toBe(DEFAULT_MAX_RECORDS)
    expect(state.journal.size).toBeLessThanOrEqual(1000)
    // The newest keys are kept and replay; the oldest were evicted.
    const newest = `soak-${WRITES - 1}`
    const newestShop = shops[(WRITES - 1) % shops.length]
    expect((await write(newest, newestShop)).headers?.['idempotent-replayed']).toBe('true')
    expect((await recordOf('soak-0', shops[0])).status).toBe(404)

    // spec: Limits / States and transitions: cached 24 hours, then lookup returns 404.
    state.clock.advance(DAY_MS - 1)
    expect((await recordOf(newest, newestShop)).status).toBe(200)
    state.clock.advance(2)
    expect((await recordOf(newest, newestShop)).status).toBe(404)
    // The next write sweeps every expired record: the store holds only that one.
    await write('soak-after-expiry', shops[0])
    expect(state.idempotency.size).toBe(1)
  })

  it('soak: with the clock moving 10 s per write, the 24-hour expiry alone keeps the store at one day of keys (8,640), below the cap', { timeout: 60_000 }, async () => {
    state.reset()
    state.clock.set(NOW)
    const perDay = DAY_MS / 10_000
    let maxSize = 0
    for (let i = 0; i < 30_000; i++) {
      state.clock.advance(10_000)
      await write(`tick-${i}`, shops[0])
      maxSize = Math.max(maxSize, state.idempotency.size)
    }
    expect(maxSize).toBeLessThanOrEqual(perDay + 1)
    expect(maxSize).toBeGreaterThanOrEqual(perDay - 1)
    expect(maxSize).toBeLessThan(DEFAULT_MAX_RECORDS)
  })
})
