/**
 * Idempotency (spec: Idempotency; States and transitions), in-process. The contract's idempotent
 * writes are being written by the area authors, so these tests use a synthetic idempotent write
 * with a test-only handler that counts its side effects.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHandlers, createMockState, type AreaHandler } from '../mock/index.ts'
import { syntheticOperation } from '../mock/testing.ts'
import { createClock } from '../mock/clock.ts'
import { createIdempotencyStore } from '../mock/stores/idempotency.ts'

const BASE = 'https://idem.example.com'
const state = createMockState({ seed: 3, now: '2026-05-01T08:00:00.000Z', rateLimit: false, strict: true })
const [shopA, shopB] = state.world.shops.filter((s) => s.is_active)
const write = syntheticOperation(state.contract, { operationId: 'testCreateThing', method: 'POST', path: '/test/things/create', idempotent: true, statuses: [201, 400, 401, 403, 409, 429] })

/** What the test handler does next: answer, fail, or wait for a release. */
let behaviour: 'create' | 'fail-500' | 'throw' | 'reject-400' | 'wait' = 'create'
let release: () => void = () => {}
let entered: Promise<void> = Promise.resolve()
let signalEntered: () => void = () => {}
const armWait = () => {
  behaviour = 'wait'
  entered = new Promise<void>((resolve) => (signalEntered = resolve))
}
let created = 0
const createThing: AreaHandler = async ({ input, now }) => {
  if (behaviour === 'fail-500') {
    behaviour = 'create'
    return { status: 500, body: { error: 'temporary failure' } }
  }
  if (behaviour === 'throw') {
    behaviour = 'create'
    throw new Error('database exploded')
  }
  if (behaviour === 'reject-400') return { status: 400, body: { error: 'name is required' } }
  if (behaviour === 'wait') {
    const gate = new Promise<void>((resolve) => (release = resolve))
    signalEntered()
    await gate
  }
  created++
  // A fresh id and a float with many digits: a re-run would differ from the first answer.
  return { status: 201, body: { data: { thing_id: `thing-${created}`, name: input.name ?? null, at: now.toISOString(), score: Math.random() } } }
}
state.handlers.set(write.operationId, createThing)

const server = setupServer(...createHandlers(state, { baseUrl: BASE, operations: [write], log: () => {} }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  behaviour = 'create'
  created = 0
  state.idempotency.clear()
})

async function post(key: string | undefined, { shop = shopA.shop_id, body = { name: 'first' } as unknown } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop }
  if (key !== undefined) headers['idempotency-key'] = key
  const response = await fetch(`${BASE}/test/things/create`, { method: 'POST', headers, body: JSON.stringify(body) })
  return { status: response.status, text: await response.text(), headers: response.headers }
}
async function lookup(key: string, shop = shopA.shop_id) {
  const response = await fetch(`${BASE}/idempotency/${key}`, { headers: { 'x-api-key': 'demo-key', 'x-shop-id': shop } })
  return { status: response.status, json: (await response.json()) as any }
}

describe('idempotency (spec: Idempotency)', () => {
  it('idempotency: without the header the write runs every time, nothing cached', async () => {
    await post(undefined)
    await post(undefined)
    expect(created).toBe(2)
    expect(state.idempotency.size).toBe(0)
  })

  it('idempotency: a replay returns the original status and body byte for byte and does not run again (spec: States and transitions)', async () => {
    const first = await post('key-1')
    expect(first.status).toBe(201)
    const replay = await post('key-1', { body: { name: 'different body' } })
    expect(replay.status).toBe(201)
    expect(replay.text).toBe(first.text)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(created).toBe(1)
  })

  it('idempotency: GET /idempotency/{key} returns the completed record, scoped to the shop', async () => {
    const first = await post('key-lookup')
    const record = await lookup('key-lookup')
    expect(record.status).toBe(200)
    expect(record.json).toEqual({ idempotency: { status: 'completed', response_status: 201, response_body: JSON.parse(first.text) } })
    const other = await lookup('key-lookup', shopB.shop_id)
    expect(other.status).toBe(404)
    expect(other.json).toEqual({ error: 'No stored response for that key' })
  })

  it('idempotency: records are per (shop, key): the same key on another shop is a new request', async () => {
    await post('shared-key', { shop: shopA.shop_id })
    const b = await post('shared-key', { shop: shopB.shop_id })
    expect(b.status).toBe(201)
    expect(created).toBe(2)
  })

  it('idempotency: 409 while the first request with the key is in flight, for up to 60 seconds (spec: Errors)', async () => {
    armWait()
    const first = post('key-busy')
    await entered
    const concurrent = await post('key-busy')
    expect(concurrent.status).toBe(409)
    expect(JSON.parse(concurrent.text)).toEqual({ error: 'A request with this Idempotency-Key is still in flight' })
    expect((await lookup('key-busy')).json).toEqual({ idempotency: { status: 'processing' } })
    state.clock.advance(59_000)
    expect((await post('key-busy')).status).toBe(409)
    release()
    const done = await first
    expect(done.status).toBe(201)
    expect((await post('key-busy')).text).toBe(done.text)
  })

  it('idempotency: after 60 seconds in flight the key is no longer blocked (spec: Limits)', async () => {
    armWait()
    const first = post('key-stuck')
    await entered
    state.clock.advance(60_000)
    behaviour = 'create'
    const retry = await post('key-stuck')
    expect(retry.status).toBe(201)
    release()
    await first
  })

  it('idempotency: a 5xx is not cached; the retry runs and succeeds (spec: Idempotency)', async () => {
    behaviour = 'fail-500'
    expect((await post('key-5xx')).status).toBe(500)
    expect((await lookup('key-5xx')).status).toBe(404)
    const retry = await post('key-5xx')
    expect(retry.status).toBe(201)
    expect(created).toBe(1)
  })

  it('idempotency: an uncaught exception is not cached; the key is released (spec: States and transitions)', async () => {
    behaviour = 'throw'
    const failed = await post('key-throw')
    expect(failed.status).toBe(500)
    expect((await post('key-throw')).status).toBe(201)
  })

  it('idempotency: a 4xx answer is cached like any other response', async () => {
    behaviour = 'reject-400'
    const first = await post('key-400')
    behaviour = 'create'
    const replay = await post('key-400')
    expect(replay.status).toBe(400)
    expect(replay.text).toBe(first.text)
    expect(created).toBe(0)
  })

  it('idempotency: records expire after 24 hours; then the lookup is 404 and the key runs again (spec: Limits)', async () => {
    await post('key-ttl')
    state.clock.advance(24 * 60 * 60 * 1000 - 1)
    expect((await lookup('key-ttl')).status).toBe(200)
    state.clock.advance(1)
    const gone = await lookup('key-ttl')
    expect(gone.status).toBe(404)
    expect(gone.json).toEqual({ error: 'No stored response for that key' })
    expect((await post('key-ttl')).status).toBe(201)
    expect(created).toBe(2)
  })

  it.each(['bad key', 'x'.repeat(129), 'key_underscore', ''])('idempotency: 400 Invalid idempotency key format for the header %j (spec: Errors)', async (key) => {
    const res = await post(key)
    expect(res.status).toBe(400)
    expect(res.text).toBe('{"error":"Invalid idempotency key format"}')
    expect(created).toBe(0)
  })
})

describe('idempotency store (spec: Limits)', () => {
  it('idempotency store: memory stays bounded: the oldest records are evicted beyond the cap', () => {
    const clock = createClock({ start: '2026-01-01T00:00:00Z' })
    const store = createIdempotencyStore(clock, { maxRecords: 100 })
    for (let i = 0; i < 1000; i++) {
      store.claim('shop', `k${i}`)
      store.complete('shop', `k${i}`, { status: 201, rawBody: '{}' })
    }
    expect(store.size).toBe(100)
    expect(store.lookup('shop', 'k0')).toBeUndefined()
    expect(store.lookup('shop', 'k999')?.status).toBe('completed')
  })
  it('idempotency store: expired records are dropped as new ones arrive', () => {
    const clock = createClock({ start: '2026-01-01T00:00:00Z' })
    const store = createIdempotencyStore(clock)
    for (let i = 0; i < 50; i++) {
      store.claim('shop', `old${i}`)
      store.complete('shop', `old${i}`, { status: 201, rawBody: '{}' })
    }
    clock.advance(24 * 60 * 60 * 1000)
    store.claim('shop', 'new')
    expect(store.size).toBe(1)
  })
})
