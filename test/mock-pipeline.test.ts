/**
 * The mock's cross-cutting rules, in-process through MSW's setupServer + fetch.
 */
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { acceptCamelCase, createHandlers, createMockState, type AreaHandler, type MockState } from '../mock/index.ts'
import { contractProblem, syntheticOperation } from '../mock/testing.ts'
import { REDACTED } from '../mock/stores/journal.ts'

const BASE = 'https://api.example.com'
const NOW = '2026-03-10T12:00:00.000Z'

const state: MockState = createMockState({ seed: 7, now: NOW, rateLimit: false, strict: true })
const contract = state.contract
const [scaleShop, lowerShop, inactiveShop] = [
  state.world.shops.find((s) => s.plan === 'scale' && s.is_active)!,
  state.world.shops.find((s) => s.plan !== 'scale' && s.is_active)!,
  state.world.shops.find((s) => !s.is_active)!,
]
const foreignShop = state.world.foreignShops[0]
const limitedKey = state.world.apiKeys.find((k) => k.key === 'demo-limited-key')!

const echo: AreaHandler = ({ input, shop, op }) => ({ status: 200, body: { data: { input, shop_id: shop?.shop_id ?? null, operationId: op.operationId } } })
const synthetic = [
  syntheticOperation(contract, { operationId: 'testAds', method: 'POST', path: '/test/ads', planGate: 'active-paid', statuses: [200, 400, 401, 403, 429] }),
  syntheticOperation(contract, { operationId: 'testScale', method: 'POST', path: '/test/scale', planGate: 'scale', statuses: [200, 400, 401, 403, 429] }),
  syntheticOperation(contract, { operationId: 'testEnterprise', method: 'POST', path: '/test/enterprise', enterprise: true, statuses: [200, 400, 401, 403, 429] }),
  syntheticOperation(contract, {
    operationId: 'testDateRange',
    method: 'POST',
    path: '/test/date-range',
    statuses: [200, 400, 401, 403, 429],
    requestSchema: { type: 'object', required: ['date_range'], properties: { date_range: { $ref: '#/components/schemas/DateRange' }, page_size: { type: 'integer', minimum: 1, maximum: 100 } } },
  }),
  syntheticOperation(contract, {
    operationId: 'testGetForm',
    method: 'GET',
    path: '/test/get-form',
    aliasOf: 'testDateRange',
    statuses: [200, 400, 401, 403, 429],
    query: [
      { name: 'date_range', in: 'query', required: true, style: 'deepObject', schema: { $ref: '#/components/schemas/DateRange' } },
      { name: 'page_size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
      { name: 'video_ids', in: 'query', required: false, schema: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
      { name: 'statuses', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } } },
      { name: 'include_ended', in: 'query', required: false, schema: { type: 'boolean' } },
      { name: 'campaign_id', in: 'query', required: false, schema: { type: ['string', 'null'] } },
    ],
  }),
]
for (const op of synthetic) state.handlers.set(op.operationId, echo)
state.normalizers.set('testDateRange', acceptCamelCase())

const server = setupServer(...createHandlers(state, { baseUrl: BASE, operations: synthetic, log: () => {} }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterEach(() => {
  server.resetHandlers()
  state.faults.clear()
})
afterAll(() => server.close())

interface Call {
  method?: string
  key?: string | null
  shop?: string | null
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
}
async function call(path: string, { method = 'GET', key = 'demo-key', shop = scaleShop.shop_id, body, rawBody, headers = {} }: Call = {}) {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers }
  if (key !== null) h['x-api-key'] = key
  if (shop !== null) h['x-shop-id'] = shop
  const response = await fetch(`${BASE}${path}`, { method, headers: h, body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)) })
  const text = await response.text()
  return { status: response.status, text, json: JSON.parse(text) as any, headers: response.headers }
}

/** The contract's documented response for the real operations these calls hit. */
function expectContract(operationId: string, res: { status: number; text: string }) {
  expect(contractProblem(contract, contract.byId.get(operationId)!, res.status, res.text)).toBeUndefined()
}

describe('auth (spec: Authentication, Errors)', () => {
  it('auth: GET /health needs no key (spec: Authentication 2)', async () => {
    const res = await call('/health', { key: null, shop: null })
    expect(res.status).toBe(200)
    expect(res.json.status).toBe('ok')
    expectContract('getHealth', res)
  })
  it('auth: GET /account/shops needs only x-api-key (spec: Authentication 2)', async () => {
    const res = await call('/account/shops', { shop: null })
    expect(res.status).toBe(200)
    expect(res.json.data.map((s: { shop_id: string }) => s.shop_id)).toEqual(state.world.shops.map((s) => s.shop_id))
    expectContract('listAccountShops', res)
  })
  it.each([
    ['missing', null, 'Missing API key (x-api-key header)'],
    ['unknown', 'not-a-key', 'Invalid API key'],
  ])('auth: 401 for a %s API key (spec: Errors: not shown, inferred)', async (_, key, message) => {
    for (const path of ['/account/shops', '/shop/sps']) {
      const res = await call(path, { key })
      expect(res.status).toBe(401)
      expect(res.json).toEqual({ error: message })
    }
  })
  it('auth: 400 Missing X-Shop-Id header when the shop header is absent (spec: Errors)', async () => {
    const res = await call('/shop/sps', { shop: null })
    expect(res.status).toBe(400)
    expect(res.text).toBe('{"error":"Missing X-Shop-Id header"}')
    expectContract('getShopSps', res)
  })
  it('auth: 400 Invalid shop_id for a malformed shop id (spec: Errors)', async () => {
    const res = await call('/shop/sps', { shop: 'shop-1; drop table' })
    expect(res.status).toBe(400)
    expect(res.text).toBe('{"error":"Invalid shop_id"}')
  })
  it('auth: 403 Shop not found or not owned by user for another account\'s shop (spec: Errors)', async () => {
    for (const path of ['/shop/sps', '/test/ads']) {
      const res = await call(path, { shop: foreignShop.shop_id, method: path === '/shop/sps' ? 'GET' : 'POST', body: path === '/shop/sps' ? undefined : {} })
      expect(res.status).toBe(403)
      expect(res.json).toEqual({ error: 'Shop not found or not owned by user' })
    }
  })
  it('auth: 403 for a route outside the key\'s permissions (spec: Authentication 3)', async () => {
    const res = await call('/idempotency/abc', { key: limitedKey.key })
    expect(limitedKey.routes).not.toContain('GET /idempotency/{key}')
    expect(res.status).toBe(403)
    expect(res.json.error).toContain('GET /idempotency/{key}')
    expectContract('getIdempotencyRecord', res)
    const allowed = await call('/shop/sps', { key: limitedKey.key })
    expect(allowed.status).toBe(200)
  })
  it('auth: 403 for a shop outside the key\'s shops (spec: Authentication 3)', async () => {
    const other = state.world.shops.find((s) => limitedKey.shops !== '*' && !limitedKey.shops.includes(s.shop_id))!
    const res = await call('/shop/sps', { key: limitedKey.key, shop: other.shop_id })
    expect(res.status).toBe(403)
  })
  it('auth: 403 for an Enterprise endpoint with a standard key (spec: Authentication 4)', async () => {
    expect((await call('/test/enterprise', { method: 'POST', body: {} })).status).toBe(403)
    expect((await call('/test/enterprise', { method: 'POST', body: {}, key: 'demo-enterprise-key' })).status).toBe(200)
  })
  it('auth: 403 This shop is not on an active paid plan on the ads endpoints for an inactive shop (spec: Authentication 5)', async () => {
    const res = await call('/test/ads', { method: 'POST', body: {}, shop: inactiveShop.shop_id })
    expect(res.status).toBe(403)
    expect(res.text).toBe('{"error":"This shop is not on an active paid plan"}')
    expect((await call('/test/ads', { method: 'POST', body: {} })).status).toBe(200)
  })
  it('auth: 403 below the Scale plan on plan-gated operations (spec: What the service does; Authentication 5)', async () => {
    expect((await call('/test/scale', { method: 'POST', body: {}, shop: lowerShop.shop_id })).status).toBe(403)
    expect((await call('/test/scale', { method: 'POST', body: {}, shop: scaleShop.shop_id })).status).toBe(200)
  })
  it('auth: the handler sees only the shop of x-shop-id (spec: Authentication 1)', async () => {
    const res = await call('/test/ads', { method: 'POST', body: {}, shop: lowerShop.shop_id.toUpperCase() })
    expect(res.json.data.shop_id).toBe(lowerShop.shop_id)
  })
})

describe('validation (spec: Errors; Conventions)', () => {
  it('validate: 400 naming the field and the rule for an invalid enum value', async () => {
    const res = await call('/shop/products', { method: 'POST', body: { sort_by: 'bogus' } })
    expect(res.status).toBe(400)
    expect(res.json).toEqual({ error: 'sort_by must be one of "price", "units_sold"' })
    expectContract('listShopProducts', res)
  })
  it('validate: 400 for a wrong type', async () => {
    const res = await call('/shop/products', { method: 'POST', body: { is_open_plan: 'yes' } })
    expect(res.status).toBe(400)
    expect(res.json.error).toBe('is_open_plan must be boolean,null')
  })
  it('validate: 400 for malformed JSON, never a 5xx', async () => {
    const res = await call('/shop/products', { method: 'POST', rawBody: '{"search": ' })
    expect(res.status).toBe(400)
    expect(res.json.error).toMatch(/^Malformed JSON body/)
    const notObject = await call('/shop/products', { method: 'POST', rawBody: '[1,2]' })
    expect(notObject.status).toBe(400)
  })
  it('validate: an empty body is an empty object', async () => {
    const res = await call('/shop/products', { method: 'POST', rawBody: '' })
    expect(res.status).toBe(200)
  })
  it.each([
    ['absent', {}],
    ['without to', { date_range: { from: '2026-01-01' } }],
    ['without from', { date_range: { to: '2026-01-01' } }],
  ])('validate: 400 Missing date_range (from/to) when the required range is %s (spec: Errors)', async (_, body) => {
    const res = await call('/test/date-range', { method: 'POST', body })
    expect(res.status).toBe(400)
    expect(res.text).toBe('{"error":"Missing date_range (from/to)"}')
  })
  it('validate: a malformed date names the field and the format (spec: Conventions 7)', async () => {
    const res = await call('/test/date-range', { method: 'POST', body: { date_range: { from: '01/02/2026', to: '2026-02-01' } } })
    expect(res.status).toBe(400)
    expect(res.json.error).toBe('date_range.from must match format "date"')
  })
  it('validate: a GET form\'s query is parsed into the body\'s shape and reaches the canonical handler (spec: Conventions 4)', async () => {
    const q = 'date_range[from]=2026-01-01&date_range[to]=2026-01-31&page_size=25&video_ids=a&video_ids=b&statuses=X,Y&include_ended=true&campaign_id=null'
    const res = await call(`/test/get-form?${q}`)
    expect(res.status).toBe(200)
    expect(res.json.data.operationId).toBe('testDateRange')
    expect(res.json.data.input).toEqual({
      date_range: { from: '2026-01-01', to: '2026-01-31' },
      page_size: 25,
      video_ids: ['a', 'b'],
      statuses: ['X', 'Y'],
      include_ended: true,
      campaign_id: null,
    })
    const single = await call('/test/get-form?date_range[from]=2026-01-01&date_range[to]=2026-01-31&video_ids=a')
    expect(single.json.data.input.video_ids).toBe('a')
  })
  it('validate: camelCase query keys of a GET form are renamed and coerced like the canonical ones (spec: Conventions 4)', async () => {
    const res = await call('/test/get-form?dateRange[from]=2026-01-01&dateRange[to]=2026-01-31&pageSize=25&includeEnded=false')
    expect(res.status).toBe(200)
    expect(res.json.data.input).toEqual({ date_range: { from: '2026-01-01', to: '2026-01-31' }, page_size: 25, include_ended: false })
    const body = await call('/test/date-range', { method: 'POST', body: { dateRange: { from: '2026-01-01', to: '2026-01-31' }, pageSize: 3 } })
    expect(body.json.data.input).toEqual({ date_range: { from: '2026-01-01', to: '2026-01-31' }, page_size: 3 })
  })
  it('validate: a GET form refuses a partial date range and a bad number like the body would', async () => {
    expect((await call('/test/get-form?date_range[from]=2026-01-01')).json).toEqual({ error: 'Missing date_range (from/to)' })
    const res = await call('/test/get-form?date_range[from]=2026-01-01&date_range[to]=2026-01-31&page_size=500')
    expect(res.status).toBe(400)
    expect(res.json.error).toBe('page_size must be <= 100')
  })
  it.each(['bad!key', 'x'.repeat(129), 'with%20space'])('validate: 400 Invalid idempotency key format for the lookup key %s (spec: Idempotency)', async (key) => {
    const res = await call(`/idempotency/${key}`)
    expect(res.status).toBe(400)
    expect(res.text).toBe('{"error":"Invalid idempotency key format"}')
    expectContract('getIdempotencyRecord', res)
  })
})

describe('Prefer (Prism compatibility)', () => {
  it('prefer: code=429 returns the documented 429 with Retry-After', async () => {
    const res = await call('/shop/sps', { headers: { prefer: 'code=429' } })
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('1')
    expectContract('getShopSps', res)
  })
  it('prefer: code=404 on the idempotency lookup returns its documented message', async () => {
    const res = await call('/idempotency/abc', { headers: { prefer: 'code=404' } })
    expect(res.status).toBe(404)
    expect(res.json).toEqual({ error: 'No stored response for that key' })
  })
  it('prefer: an undocumented code is ignored', async () => {
    const res = await call('/shop/sps', { headers: { prefer: 'code=412' } })
    expect(res.status).toBe(200)
  })
})

describe('faults, journal and overrides (control API)', () => {
  it('faults: a 503 on a route for N requests, then normal answers', async () => {
    state.admin.addFault({ route: 'getShopSps', status: 503, count: 2 })
    expect((await call('/shop/sps')).status).toBe(503)
    expect((await call('/shop/products', { method: 'POST', body: {} })).status).toBe(200)
    expect((await call('/shop/sps')).status).toBe(503)
    expect((await call('/shop/sps')).status).toBe(200)
  })
  it('journal: records what the client sent, with the API key redacted', async () => {
    await state.admin.clearRequests()
    await call('/shop/products', { method: 'POST', body: { search: 'mug' }, headers: { 'x-trace': 't1' } })
    const [entry] = await state.admin.requests()
    expect(entry).toMatchObject({ method: 'POST', path: '/shop/products', operationId: 'listShopProducts', status: 200, body: { search: 'mug' }, time: NOW })
    expect(entry.headers['x-api-key']).toBe(REDACTED)
    expect(entry.headers['x-trace']).toBe('t1')
    expect(JSON.stringify(await state.admin.requests())).not.toContain('demo-key')
  })
  it('journal: each entry keeps its own request\'s body when bodies repeat and alternate, and serialises with every field (issue 4: GET /__admin/requests)', async () => {
    await state.admin.clearRequests()
    const bodies = [{ search: 'a' }, { search: 'a' }, { search: 'b' }, {}, { search: 'a' }]
    for (const body of bodies) await call('/shop/products', { method: 'POST', body })
    await call('/shop/sps')
    const entries = await state.admin.requests()
    expect(entries.map((e) => e.body)).toEqual([...bodies, null])
    expect(JSON.parse(JSON.stringify(entries))[0]).toMatchObject({ method: 'POST', path: '/shop/products', query: {}, body: { search: 'a' }, operationId: 'listShopProducts', status: 200 })
  })
  it('journal: the query is kept as sent, a repeated parameter as a list (issue 4: GET /__admin/requests)', async () => {
    await state.admin.clearRequests()
    await call('/shop/products?tag=a&tag=b%20c&single=%C3%A9&empty=', { method: 'POST', body: {} })
    await call('/shop/sps')
    const [withQuery, without] = await state.admin.requests()
    expect(withQuery.query).toEqual({ tag: ['a', 'b c'], single: 'é', empty: '' })
    expect(without.query).toEqual({})
  })
  it('handlers: server.use overrides a single operation', async () => {
    const { http, HttpResponse } = await import('msw')
    server.use(http.get(`${BASE}/shop/sps`, () => HttpResponse.json({ data: { sps: 1.5 } })))
    expect((await call('/shop/sps')).json).toEqual({ data: { sps: 1.5 } })
    expect((await call('/account/shops', { shop: null })).status).toBe(200)
  })
  it('errors: an unexpected exception becomes a 500 {error}', async () => {
    state.handlers.set('testScale', () => {
      throw new Error('boom')
    })
    const res = await call('/test/scale', { method: 'POST', body: {} })
    expect(res.status).toBe(500)
    expect(res.json.error).toContain('boom')
    state.handlers.set('testScale', echo)
  })
})

describe('account area (spec: Account and shop)', () => {
  it('account: products filter, search and sort as documented and match the contract', async () => {
    const all = await call('/shop/products', { method: 'POST', body: {} })
    expectContract('listShopProducts', all)
    const units = all.json.data.map((p: { units_sold: number }) => p.units_sold)
    expect(units).toEqual([...units].sort((a: number, b: number) => b - a))
    const open = await call('/shop/products', { method: 'POST', body: { is_open_plan: true, sort_by: 'price', sort_direction: 'asc' } })
    expect(open.json.data.every((p: { is_open_plan: boolean }) => p.is_open_plan)).toBe(true)
    const prices = open.json.data.map((p: { price: number }) => p.price)
    expect(prices).toEqual([...prices].sort((a: number, b: number) => a - b))
    const name = all.json.data[0].product_name as string
    const found = await call('/shop/products', { method: 'POST', body: { search: name.toUpperCase() } })
    expect(found.json.data.length).toBeGreaterThan(0)
    expect(found.json.data.every((p: { product_name: string }) => p.product_name.toLowerCase().includes(name.toLowerCase().split(' ')[0]))).toBe(true)
  })
  it('account: SKUs filter by product and sort by stock', async () => {
    const all = await call('/shop/skus', { method: 'POST', body: {} })
    expectContract('listShopSkus', all)
    expect(all.json.data.length).toBeGreaterThan(0)
    const productId = all.json.data[0].product_id as string
    const one = await call('/shop/skus', { method: 'POST', body: { product_id: productId } })
    expect(one.json.data.every((s: { product_id: string }) => s.product_id === productId)).toBe(true)
  })
  it('account: shops are isolated: another shop\'s products never show', async () => {
    const a = await call('/shop/products', { method: 'POST', body: {}, shop: scaleShop.shop_id })
    const b = await call('/shop/products', { method: 'POST', body: {}, shop: lowerShop.shop_id })
    const ids = new Set(a.json.data.map((p: { product_id: string }) => p.product_id))
    expect(b.json.data.some((p: { product_id: string }) => ids.has(p.product_id))).toBe(false)
  })
  it('account: SPS is the shop\'s', async () => {
    const res = await call('/shop/sps', { shop: lowerShop.shop_id })
    expect(res.json).toEqual({ data: { sps: lowerShop.sps } })
    expectContract('getShopSps', res)
  })
})
