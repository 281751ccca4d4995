/**
 * Traces (mock/trace): every answer names its trace in `x-shoptwin-trace`, and the trace holds each
 * decision a step made on that request, with the spec section behind it. One test per kind of
 * decision, each on a request that made it; in-process through MSW (the failing-test scenario:
 * `explain(response)`), and over HTTP where the transport matters (no operation matched, the
 * control API). Keys and tokens never appear in a trace.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHandlers, createMockState, createServer, explain, formatTrace, type AreaHandler, type Trace, type TraceDecision } from '../mock/index.ts'
import { createAdminHandlers } from '../mock/admin.ts'
import { syntheticOperation } from '../mock/testing.ts'
import { createMcpEndpoint } from '../mock/connector/mcp.ts'

const BASE = 'https://trace.example.com'
const state = createMockState({ seed: 7, now: '2026-06-01T09:00:00.000Z', responseCache: true, strict: true })
const [scaleShop, growthShop, , cancelledShop] = state.world.shops
const KEY = 'demo-key'

// A write that waits until released: the second request with its key finds it in flight.
const slowWrite = syntheticOperation(state.contract, { operationId: 'testSlowWrite', method: 'POST', path: '/test/slow/create', idempotent: true, statuses: [201, 400, 401, 403, 409, 429] })
let release: () => void = () => {}
let entered: () => void = () => {}
const slowHandler: AreaHandler = async () => {
  entered()
  await new Promise<void>((resolve) => (release = resolve))
  return { status: 201, body: { data: { ok: true } } }
}
state.handlers.set(slowWrite.operationId, slowHandler)

const server = setupServer(...createHandlers(state, { baseUrl: BASE, operations: [slowWrite] }), ...createAdminHandlers(state, { baseUrl: BASE }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
// Each test in a fresh second of the mock's clock: the rate counters of one test do not reach the next.
beforeEach(() => state.clock.advance(5_000))

const headers = (shopId = scaleShop!.shop_id, key = KEY) => ({ 'content-type': 'application/json', 'x-api-key': key, 'x-shop-id': shopId })
const post = (path: string, body: unknown, extra: Record<string, string> = {}, shopId?: string) => fetch(`${BASE}${path}`, { method: 'POST', headers: { ...headers(shopId), ...extra }, body: JSON.stringify(body) })

/** The trace of an answer, failing with the trace's text when it lacks a decision. */
function decision(trace: Trace | undefined, step: TraceDecision['step'], outcome?: string): TraceDecision {
  const found = trace?.decisions.find((d) => d.step === step && (outcome === undefined || d.outcome === outcome))
  expect(found, formatTrace(trace)).toBeDefined()
  expect(found!.spec.length, `${step} has its spec section`).toBeGreaterThan(0)
  return found!
}

describe('traces: every answer names its trace', () => {
  it('explain(response) and state.traces.last() give the same trace; the header names it', async () => {
    const res = await fetch(`${BASE}/shop/sps`, { headers: headers() })
    expect(res.status).toBe(200)
    const id = res.headers.get('x-shoptwin-trace')
    expect(id).toMatch(/^\d+$/)
    const trace = explain(res)
    expect(trace).toEqual(state.traces.last())
    expect(trace).toEqual(state.traces.explain(res))
    expect(trace!.id).toBe(id)
    expect(trace!.status).toBe(200)
    expect(trace!.decisions.map((d) => d.step)).toEqual(['operation', 'auth', 'rate-limit', 'validation', 'handler', 'answer'])
    expect(trace!.response.body).toEqual(await res.json())
  })

  it('GET /__admin/traces/<id> answers the trace as data; an unknown id is 404', async () => {
    const res = await fetch(`${BASE}/shop/sps`, { headers: headers() })
    const id = res.headers.get('x-shoptwin-trace')!
    const admin = await fetch(`${BASE}/__admin/traces/${id}`)
    expect(admin.status).toBe(200)
    expect(await admin.json()).toEqual(JSON.parse(JSON.stringify(explain(res))))
    expect((await fetch(`${BASE}/__admin/traces/999999999`)).status).toBe(404)
    const list = (await (await fetch(`${BASE}/__admin/traces?limit=1`)).json()) as { traces: Array<{ id: string }> }
    expect(list.traces.map((t) => t.id)).toEqual([id])
  })

  it('formatTrace prints one line per decision with its spec section', async () => {
    const res = await post('/affiliate/crm/list', { page_size: 'ten', sort_direction: 'sideways' })
    const text = formatTrace(explain(res))
    expect(text).toMatch(/^shoptwin trace \d+: POST \/affiliate\/crm\/list -> 400/)
    expect(text).toMatch(/validation\s+failed .*\[spec: Errors/)
    expect(text).toContain('- sort_direction must be one of "asc", "desc"')
    expect(formatTrace(undefined)).toMatch(/no trace/)
  })
})

describe('traces: each kind of decision appears in the trace of a request that made it', () => {
  it('operation: matched, with the alias it was called by', async () => {
    const res = await post('/v1/ads/campaigns', { date_range: { from: '2026-05-01', to: '2026-05-31' } })
    const d = decision(explain(res), 'operation', 'matched')
    expect(d.detail).toMatchObject({ operationId: 'listAdCampaignsV1', aliasOf: 'listAdCampaigns' })
  })

  it('auth: passed names the key by its redacted id, the permission and the plan gate; the key itself is nowhere', async () => {
    const res = await post('/ads/campaigns', { date_range: { from: '2026-05-01', to: '2026-05-31' } })
    const trace = explain(res)!
    const d = decision(trace, 'auth', 'passed')
    expect(d.detail).toMatchObject({ key: expect.stringMatching(/^key_[0-9a-f]{8}$/), permission: 'POST /ads/campaigns', planGate: 'active-paid' })
    expect(JSON.stringify(trace)).not.toContain(KEY)
    expect(trace.request.headers['x-api-key']).toBe('REDACTED')
  })

  it.each([
    ['key', () => fetch(`${BASE}/shop/sps`, { headers: { 'x-shop-id': scaleShop!.shop_id } }), 401, 'Authentication 1'],
    ['shop-header', () => fetch(`${BASE}/shop/sps`, { headers: { 'x-api-key': KEY } }), 400, 'Authentication 1'],
    ['route', () => fetch(`${BASE}/affiliate/crm/list`, { method: 'POST', headers: headers(scaleShop!.shop_id, 'demo-limited-key'), body: '{}' }), 403, 'Authentication 3'],
    ['plan-paid', () => post('/ads/campaigns', { date_range: { from: '2026-05-01', to: '2026-05-31' } }, {}, cancelledShop!.shop_id), 403, 'Authentication 5'],
  ] as const)('auth: the %s check that refused the request, with its section', async (check, send, status, spec) => {
    const res = await send()
    expect(res.status).toBe(status)
    const trace = explain(res)!
    const d = decision(trace, 'auth', 'refused')
    expect(d.detail!.check).toBe(check)
    expect(d.spec).toContain(spec)
    expect(JSON.stringify(trace)).not.toContain('demo-limited-key')
  })

  it('rate limit: the counter of the (key, shop) pair, its window and limit; the 429 names the full window', async () => {
    let last: Response | undefined
    for (let i = 0; i < 11; i++) last = await fetch(`${BASE}/shop/sps`, { headers: headers(growthShop!.shop_id) })
    expect(last!.status).toBe(429)
    const limited = decision(explain(last!), 'rate-limit', 'limited')
    expect(limited.detail).toMatchObject({ second: { count: 10, limit: 10, windowStart: state.clock.now().toISOString() }, day: { limit: 1_000_000 } })
    expect(limited.summary).toMatch(/full for the second \(10\/10 since/)
    state.clock.advance(1000)
    const next = await fetch(`${BASE}/shop/sps`, { headers: headers(growthShop!.shop_id) })
    expect(decision(explain(next), 'rate-limit', 'allowed').detail).toMatchObject({ second: { count: 1 }, day: { count: 11 } })
  })

  it('idempotency: claimed, then replayed from the trace that claimed it; the handler does not run again', async () => {
    const body = { title: 'Traced list', handles: ['nobody-here'] }
    const first = await post('/lists/create', body, { 'idempotency-key': 'trace-claim-1' })
    expect(first.status).toBe(201)
    const firstTrace = explain(first)!
    decision(firstTrace, 'idempotency', 'claimed')
    decision(firstTrace, 'idempotency', 'completed')
    const replay = await post('/lists/create', body, { 'idempotency-key': 'trace-claim-1' })
    const replayTrace = explain(replay)!
    expect(decision(replayTrace, 'idempotency', 'replayed').detail).toMatchObject({ replayedFrom: firstTrace.id, status: 201 })
    expect(replayTrace.decisions.some((d) => d.step === 'handler')).toBe(false)
  })

  it('idempotency: 409 names the trace that holds the key', async () => {
    const running = new Promise<void>((resolve) => (entered = resolve))
    const first = post('/test/slow/create', {}, { 'idempotency-key': 'trace-held-1' })
    await running
    const second = await post('/test/slow/create', {}, { 'idempotency-key': 'trace-held-1' })
    expect(second.status).toBe(409)
    release()
    const holder = explain(await first)!
    const d = decision(explain(second), 'idempotency', 'in-flight')
    expect(d.detail!.holder).toBe(holder.id)
    expect(d.summary).toContain(`trace ${holder.id}`)
  })

  it('validation: every failing field, while the answer names only the first', async () => {
    const res = await post('/affiliate/crm/list', { page_size: 'ten', sort_direction: 'sideways', page_number: -1 })
    expect(res.status).toBe(400)
    const answered = ((await res.json()) as { error: string }).error
    const d = decision(explain(res), 'validation', 'failed')
    const failures = d.detail!.failures as string[]
    expect(failures.length).toBeGreaterThanOrEqual(2)
    expect(failures).toContain(answered)
    expect(failures).toContain('sort_direction must be one of "asc", "desc"')
  })

  it('validation: a big body is summarised in the trace (bounded memory) and not validated twice', async () => {
    const res = await post('/affiliate/crm/list', { page_size: 'ten', search: 'x'.repeat(200_000) })
    expect(res.status).toBe(400)
    const trace = explain(res)!
    expect(trace.request.body).toMatchObject({ truncated: true, length: expect.any(Number) })
    expect(((trace.request.body as { start: string }).start).length).toBeLessThanOrEqual(1024)
    expect(decision(trace, 'validation', 'failed').detail!.failures).toEqual([((await res.json()) as { error: string }).error])
  })

  it('fault: the injected fault, its route and what is left of it', async () => {
    state.admin.addFault({ route: 'getShopSps', status: 503, count: 2 })
    const res = await fetch(`${BASE}/shop/sps`, { headers: headers() })
    expect(res.status).toBe(503)
    expect(decision(explain(res), 'fault', 'injected').detail).toMatchObject({ route: 'getShopSps', status: 503, remaining: 1 })
    state.admin.clearFaults()
  })

  it('cache: a miss computes, the same request again is a hit and skips validation and the handler', async () => {
    const body = { page_size: 7, filters: { min_videos: 1 } }
    const miss = await post('/affiliate/crm/list', body)
    decision(explain(miss), 'cache', 'miss')
    const hit = await post('/affiliate/crm/list', body)
    const trace = explain(hit)!
    decision(trace, 'cache', 'hit')
    expect(trace.decisions.map((d) => d.step)).not.toContain('handler')
    expect(await hit.text()).toBe(await miss.text())
  })

  it('paging: a clamped page size says what was asked', async () => {
    const res = await post('/ads/campaigns', { date_range: { from: '2026-05-01', to: '2026-05-31' }, page_size: 500 })
    expect(decision(explain(res), 'paging', 'clamped').detail).toMatchObject({ pageSize: 100 })
  })

  it('prefer: a simulated answer says the operation did not run', async () => {
    const res = await fetch(`${BASE}/shop/sps`, { headers: { ...headers(), prefer: 'code=429' } })
    expect(res.status).toBe(429)
    decision(explain(res), 'prefer', 'simulated')
  })

  it('handler and the named writes it made, in order', async () => {
    const res = await post('/lists/create', { title: 'Written list', handles: ['nobody-here'] })
    expect(res.status).toBe(201)
    const trace = explain(res)!
    const steps = trace.decisions.map((d) => d.step)
    expect(steps.indexOf('write')).toBeGreaterThan(steps.indexOf('handler'))
    const write = decision(trace, 'write', 'applied')
    expect(write.detail).toMatchObject({ area: expect.any(String), name: expect.any(String), version: expect.any(Number) })
  })

  it('a connector tool call: traced like a REST call, named in _meta and the connection stands for the key', async () => {
    const user = state.connector.data.users[0]!
    const connection = { connection_id: 'conn_trace', user_id: user.user_id, account_id: 'acc', client_id: 'client_trace', client_name: 'Trace assistant', shops: [scaleShop!.shop_id], tools: ['getShopSps'], created_at: '', updated_at: '', last_used_at: null, revoked_at: null }
    const traces: string[] = []
    const result = await createMcpEndpoint(state).callTool({ connection, user, authInfo: { token: 'secret-token', clientId: 'client_trace', scopes: [] } }, 'getShopSps', { shop_id: scaleShop!.shop_id }, traces)
    expect(traces).toHaveLength(1)
    expect(result._meta?.['shoptwin/trace']).toBe(traces[0])
    const trace = state.traces.get(traces[0]!)!
    expect(trace).toMatchObject({ via: 'mcp', key: 'conn_trace', status: 200 })
    expect(JSON.stringify(trace)).not.toContain('secret-token')
  })
})
