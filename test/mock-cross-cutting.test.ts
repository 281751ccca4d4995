/**
 * The mock's cross-cutting rules at their edges (first written as the review of issue 4). Auth rule
 * order and the limited key's scope on the real operations, Prefer's side effects, Retry-After
 * exactness on both rate windows, the page-size rules of every paged operation against the Limits
 * table, fault latency, the loopback-only control API, journal redaction and the CLI's defaults
 * (spec: Authentication; Errors; Limits; issue 4: the mock's clock and control API).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import { readFileSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { networkInterfaces } from 'node:os'
import { fileURLToPath } from 'node:url'
import { getResponse } from 'msw'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OperationInfo } from '../openapi/index.ts'
import { createMockState, createOperationRoutes, createServer, type MockState } from '../mock/index.ts'
import { contractProblem, exampleFromSchema } from '../mock/testing.ts'
import { outreachRecords } from '../mock/lib/outreach.ts'
import { mockHarness } from './support/harness.ts'

const NOW = '2026-03-10T12:00:00.000Z'
const { state, server, baseUrl, mainShop, mutating } = mockHarness({ now: NOW })
const { contract } = state
const limitedKey = state.world.apiKeys.find((k) => k.key === 'demo-limited-key')!
const inactiveShop = state.world.shops.find((s) => !s.is_active)!
const otherActiveShop = state.world.shops.find((s) => s.is_active && s.shop_id !== mainShop.shop_id)!
const foreignShop = state.world.foreignShops[0]!
const opById = (id: string) => contract.byId.get(id)!

/** A raw call: exactly the headers given (no defaults), the answer checked against the contract. */
async function raw(op: OperationInfo, headers: Record<string, string>, body: unknown = {}) {
  const res = await fetch(`${baseUrl}${op.path.replace('{key}', 'abc')}`, {
    method: op.method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(op.method === 'GET' ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  expect(contractProblem(contract, op, res.status, text)).toBeUndefined()
  return { status: res.status, json: JSON.parse(text) as { error?: string } & Record<string, any>, headers: res.headers }
}

/** Calls an operation of another mock state in-process (msw's getResponse, no second MSW server). */
function inProcess(own: MockState) {
  const routes = new Map(createOperationRoutes(own, { baseUrl: 'https://review.test', log: () => {} }).map((r) => [r.op.operationId, r]))
  return async (operationId: string, { key = 'demo-key', shop = own.world.shops[0]!.shop_id as string | null, body = undefined as unknown } = {}) => {
    const route = routes.get(operationId)!
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': key }
    if (shop !== null) headers['x-shop-id'] = shop
    const response = (await getResponse([route.handler], new Request(`https://review.test${route.op.path}`, { method: route.op.method, headers, body: route.op.method === 'GET' ? undefined : JSON.stringify(body ?? {}) })))!
    const text = await response.text()
    expect(contractProblem(own.contract, route.op, response.status, text)).toBeUndefined()
    return { status: response.status, json: JSON.parse(text) as any, retryAfter: response.headers.get('retry-after') }
  }
}

describe('auth: the order of the rules (spec: Authentication; Errors)', () => {
  const sps = opById('getShopSps')
  const campaigns = opById('listAdCampaigns')
  const brands = opById('listEnterpriseBrands')
  const stats = opById('getShopStats')
  const cases: Array<[string, OperationInfo, Record<string, string>, number, string]> = [
    ['a missing key before a missing shop header', sps, {}, 401, 'Missing API key (x-api-key header)'],
    ['an unknown key before a malformed shop id', sps, { 'x-api-key': 'no-such-key', 'x-shop-id': 'not-a-shop' }, 401, 'Invalid API key'],
    ['a missing shop header before the route permission', stats, { 'x-api-key': 'demo-limited-key' }, 400, 'Missing X-Shop-Id header'],
    ['a malformed shop id before the route permission', stats, { 'x-api-key': 'demo-limited-key', 'x-shop-id': '12345' }, 400, 'Invalid shop_id'],
    ['a blank shop header is a missing one', sps, { 'x-api-key': 'demo-key', 'x-shop-id': '  ' }, 400, 'Missing X-Shop-Id header'],
    ['the route permission before the shop', stats, { 'x-api-key': 'demo-limited-key', 'x-shop-id': foreignShop.shop_id }, 403, 'Forbidden: this API key does not have permission for POST /shop/stats'],
    ['the Enterprise tier before the shop', brands, { 'x-api-key': 'demo-key', 'x-shop-id': foreignShop.shop_id }, 403, 'This endpoint requires an Enterprise plan'],
    ['another account\'s shop before the plan gate (ads)', campaigns, { 'x-api-key': 'demo-key', 'x-shop-id': foreignShop.shop_id }, 403, 'Shop not found or not owned by user'],
    ['a well-formed unknown shop id is not owned (ads)', campaigns, { 'x-api-key': 'demo-key', 'x-shop-id': '00000000-0000-4000-8000-000000000000' }, 403, 'Shop not found or not owned by user'],
    ['an inactive shop of the account on the ads endpoints', campaigns, { 'x-api-key': 'demo-key', 'x-shop-id': inactiveShop.shop_id }, 403, 'This shop is not on an active paid plan'],
    ['the plan gate before validation (no date_range sent)', campaigns, { 'x-api-key': 'demo-key', 'x-shop-id': inactiveShop.shop_id }, 403, 'This shop is not on an active paid plan'],
  ]
  it.each(cases)('auth: %s (spec: Authentication; Errors)', async (_, op, headers, status, message) => {
    const res = await raw(op, headers, {})
    expect(res.status).toBe(status)
    expect(res.json).toEqual({ error: message })
  })

  it('auth: the 401 for a missing or unknown key is marked x-inferred in the OpenAPI document, on every keyed operation (spec: Errors: not shown)', () => {
    const responses = (contract.doc.components as unknown as { responses: Record<string, Record<string, unknown>> }).responses
    expect(responses.Unauthorized!['x-inferred']).toBe(true)
    for (const op of contract.operations.filter((o) => o.auth !== 'none')) {
      expect((op.operation.responses['401'] as { $ref?: string }).$ref, op.operationId).toBe('#/components/responses/Unauthorized')
    }
  })

  it('auth: the shop header is read case-insensitively and trimmed; the answer is the shop\'s own (spec: Authentication 1)', async () => {
    const res = await raw(sps, { 'x-api-key': 'demo-key', 'x-shop-id': ` ${otherActiveShop.shop_id.toUpperCase()} ` })
    expect(res.json).toEqual({ data: { sps: otherActiveShop.sps } })
  })
})

describe('auth: the limited key\'s scope on the real operations (spec: Authentication 3)', () => {
  const allowed = limitedKey.routes as string[]
  const ownShop = (limitedKey.shops as string[])[0]!

  it('auth: the limited demo key holds exactly four read routes and one shop (fixtures README)', () => {
    expect([...allowed].sort()).toEqual(['GET /account/shops', 'GET /shop/sps', 'POST /shop/products', 'POST /shop/skus'])
    expect(limitedKey.shops).toEqual([state.world.shops[0]!.shop_id])
  })

  it('auth: the limited key answers on its routes with its shop (spec: Authentication 3)', async () => {
    for (const id of ['getShopSps', 'listShopProducts', 'listShopSkus']) {
      expect((await raw(opById(id), { 'x-api-key': limitedKey.key, 'x-shop-id': ownShop })).status, id).toBe(200)
    }
  })

  it('auth: GET /account/shops with the limited key lists only the shops the key may open (decision: a key limited to shops sees only those)', async () => {
    const res = await raw(opById('listAccountShops'), { 'x-api-key': limitedKey.key })
    expect(res.status).toBe(200)
    expect(res.json.data.map((s: { shop_id: string }) => s.shop_id)).toEqual([ownShop])
    const full = await raw(opById('listAccountShops'), { 'x-api-key': 'demo-key' })
    expect(full.json.data.map((s: { shop_id: string }) => s.shop_id)).toEqual(state.world.shops.map((s) => s.shop_id))
  })

  it('auth: every other operation refuses the limited key with 403 naming the permission it lacks, aliases included (spec: Authentication 3)', async () => {
    const problems: string[] = []
    for (const op of contract.operations.filter((o) => o.auth !== 'none' && !allowed.includes(o.permission))) {
      const res = await raw(op, { 'x-api-key': limitedKey.key, 'x-shop-id': ownShop })
      if (res.status !== 403 || res.json.error !== `Forbidden: this API key does not have permission for ${op.permission}`) problems.push(`${op.operationId}: ${res.status} ${JSON.stringify(res.json)}`)
    }
    expect(problems).toEqual([])
  })

  it('auth: the limited key\'s own routes refuse the account\'s other shops with 403, and another account\'s shop looks unknown (spec: Authentication 3; Errors)', async () => {
    for (const shop of state.world.shops.filter((s) => s.shop_id !== ownShop)) {
      const res = await raw(opById('getShopSps'), { 'x-api-key': limitedKey.key, 'x-shop-id': shop.shop_id })
      expect(res, shop.shop_name).toEqual(expect.objectContaining({ status: 403, json: { error: 'Forbidden: this API key does not have access to this shop' } }))
    }
    const foreign = await raw(opById('getShopSps'), { 'x-api-key': limitedKey.key, 'x-shop-id': foreignShop.shop_id })
    expect(foreign.json).toEqual({ error: 'Shop not found or not owned by user' })
  })
})

describe('Prefer (issue 4: Prism\'s Prefer header)', () => {
  it('prefer: code=429 carries Retry-After on every operation that documents 429 (spec: Limits)', async () => {
    const missing: string[] = []
    for (const op of contract.operations.filter((o) => o.statuses.includes(429))) {
      const res = await raw(op, { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': mainShop.shop_id, prefer: 'code=429' })
      if (res.status !== 429 || res.headers.get('retry-after') !== '1') missing.push(op.operationId)
    }
    expect(missing).toEqual([])
  })

  it('prefer: the preferred error does not run the operation, and the next request without Prefer is served normally (spec: Idempotency; issue 4)', async () => {
    mutating()
    const automations = () => outreachRecords(state, mainShop.shop_id).automations.length
    const before = automations()
    const body = { title: 'Prefer probe', message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }] }
    const create = opById('createAutomation')
    const headers = { 'x-api-key': 'demo-key', 'x-shop-id': mainShop.shop_id, 'idempotency-key': 'prefer-probe' }
    const preferred = await raw(create, { ...headers, prefer: 'code=409' }, body)
    expect(preferred.status).toBe(409)
    expect(automations()).toBe(before)
    // Not cached under the key either: the same key then runs the operation once.
    const real = await raw(create, headers, body)
    expect(real.status).toBe(201)
    expect(automations()).toBe(before + 1)
  })

  it('prefer: a success code or an unparsable value is ignored (issue 4: only documented error responses)', async () => {
    for (const prefer of ['code=200', 'code=201', 'code=abc', 'dynamic=true']) {
      const res = await raw(opById('getShopSps'), { 'x-api-key': 'demo-key', 'x-shop-id': mainShop.shop_id, prefer })
      expect(res.status, prefer).toBe(200)
    }
  })
})

describe('rate limit: in-process and Retry-After (spec: Limits; Errors 429)', () => {
  it('rate limit: createMockState enforces the limit by default in-process too: 50 requests at once get exactly 10 successes (spec: Limits)', async () => {
    const own = createMockState({ seed: 42, now: NOW })
    const answers = await Promise.all(Array.from({ length: 50 }, () => inProcess(own)('getShopSps')))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10)
    const limited = answers.filter((a) => a.status === 429)
    expect(limited).toHaveLength(40)
    for (const a of limited) {
      expect(a.retryAfter).toBe('1')
      expect(Object.keys(a.json)).toEqual(['error'])
    }
  })

  it('rate limit: createMockState({ rateLimit: false }) lets every request through (issue 4: an option of createMockState)', async () => {
    const own = createMockState({ seed: 42, now: NOW, rateLimit: false })
    const answers = await Promise.all(Array.from({ length: 50 }, () => inProcess(own)('getShopSps')))
    expect(answers.every((a) => a.status === 200)).toBe(true)
  })

  it('rate limit: Retry-After is the whole seconds until the window frees a slot, and waiting it is enough (spec: Limits)', async () => {
    const own = createMockState({ seed: 42, now: NOW })
    const sps = inProcess(own)
    expect((await sps('getShopSps')).status).toBe(200) // t = 0
    own.clock.advance(300)
    for (let i = 0; i < 9; i++) expect((await sps('getShopSps')).status).toBe(200) // t = 300 ms
    own.clock.advance(100)
    const refused = await sps('getShopSps') // t = 400 ms: the slot of t = 0 frees at 1000 ms
    expect(refused).toMatchObject({ status: 429, retryAfter: '1' })
    own.clock.advance(599)
    expect((await sps('getShopSps')).status).toBe(429) // t = 999 ms
    own.clock.advance(1)
    expect((await sps('getShopSps')).status).toBe(200) // t = 1000 ms: exactly one slot
    expect((await sps('getShopSps')).status).toBe(429)
    // Retry-After after the refusal at 400 ms: 1 s later every slot of t = 300 ms has left the window.
    own.clock.set(Date.parse(NOW) + 400 + 1000)
    expect((await sps('getShopSps')).status).toBe(200)
  })

  it('rate limit: the daily cap answers 429 with Retry-After = the seconds to the next UTC midnight, per key and shop (spec: Limits; decision: days are UTC days)', async () => {
    const start = '2026-03-10T23:59:50.000Z'
    const own = createMockState({ seed: 42, now: start, rateLimits: { perDay: 3 } })
    const sps = inProcess(own)
    const [shopA, shopB] = own.world.shops.filter((s) => s.is_active)
    for (let i = 0; i < 3; i++) {
      expect((await sps('getShopSps', { shop: shopA!.shop_id })).status).toBe(200)
      own.clock.advance(200)
    }
    const refused = await sps('getShopSps', { shop: shopA!.shop_id }) // 23:59:50.600: 9.4 s to midnight
    expect(refused).toMatchObject({ status: 429, retryAfter: '10' })
    expect(refused.json.error).toMatch(/per day/)
    expect((await sps('getShopSps', { shop: shopB!.shop_id })).status).toBe(200)
    expect((await sps('getShopSps', { shop: shopA!.shop_id, key: 'demo-enterprise-key' })).status).toBe(200)
    own.clock.set('2026-03-10T23:59:59.999Z')
    expect(await sps('getShopSps', { shop: shopA!.shop_id })).toMatchObject({ status: 429, retryAfter: '1' })
    own.clock.advance(1)
    expect((await sps('getShopSps', { shop: shopA!.shop_id })).status).toBe(200)
  })
})

/** spec: Limits (page sizes), Samples, Sponsored-video codes, Sales-max ads, Social-network partnership ads. */
const LIMITS: Record<string, { mode: 'clamp' | 'reject'; max: number; defaultSize?: number; depthCap: number }> = {
  listAdCampaigns: { mode: 'clamp', max: 100, defaultSize: 10, depthCap: 10_000 },
  listAdCreatives: { mode: 'clamp', max: 1000, defaultSize: 5, depthCap: 10_000 },
  listExcludedCreatives: { mode: 'reject', max: 100, defaultSize: 20, depthCap: 10_000 },
  listBoostedCreatives: { mode: 'reject', max: 100, defaultSize: 20, depthCap: 10_000 },
  listAffiliateSlideshows: { mode: 'reject', max: 100, depthCap: 10_000 },
  listSparkCodes: { mode: 'reject', max: 100, defaultSize: 10, depthCap: 10_000 },
  listSampleRequests: { mode: 'reject', max: 100, depthCap: 1000 },
  listRefundableSampleRequests: { mode: 'reject', max: 100, depthCap: 1000 },
  listSocialCampaigns: { mode: 'reject', max: 100, defaultSize: 10, depthCap: 10_000 },
  listSocialAdsets: { mode: 'reject', max: 100, depthCap: 10_000 },
  listSocialAds: { mode: 'reject', max: 1000, depthCap: 10_000 },
  listCreatorPrograms: { mode: 'reject', max: 100, depthCap: 10_000 },
  listProgramCreators: { mode: 'reject', max: 100, depthCap: 10_000 },
}

describe('pagination caps per endpoint (spec: Limits)', () => {
  const paged = contract.operations.filter((o) => o.paging && o.method === 'POST' && !o.aliasOf)

  it('paging: every operation the Limits table names has its page size, default, clamp-or-refuse and depth cap in x-paging, and the choice in its description (spec: Limits)', () => {
    for (const [id, limit] of Object.entries(LIMITS)) {
      const op = opById(id)
      expect(op.paging, id).toMatchObject({ mode: limit.mode, max: limit.max, depthCap: limit.depthCap, ...(limit.defaultSize ? { defaultSize: limit.defaultSize } : {}) })
      const description = String(op.operation.description ?? '')
      expect(description, id).toMatch(limit.mode === 'clamp' ? /clamp/i : /refused|must not exceed|max/i)
    }
    // Every other paged list is capped at the 10,000-row depth.
    for (const op of paged.filter((o) => !(o.operationId in LIMITS))) expect(op.paging!.depthCap, op.operationId).toBe(10_000)
  })

  it('paging: each paged operation serves its maximum page size and clamps or refuses one more, over HTTP (spec: Limits)', async () => {
    const problems: string[] = []
    for (const op of paged) {
      const { sizeParam, pageParam = 'page_number', max, mode, depthCap = 10_000 } = op.paging!
      const body = (exampleFromSchema(contract, op.requestSchema, state.today) ?? {}) as Record<string, unknown>
      const headers = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': mainShop.shop_id }
      const atMax = await raw(op, headers, { ...body, [sizeParam]: max })
      if (atMax.status !== 200) problems.push(`${op.operationId}: ${sizeParam}=${max} answered ${atMax.status} ${JSON.stringify(atMax.json)}`)
      const over = await raw(op, headers, { ...body, [sizeParam]: max + 1 })
      if (mode === 'clamp' ? over.status !== 200 : over.status !== 400 || !over.json.error?.startsWith(sizeParam)) problems.push(`${op.operationId}: ${sizeParam}=${max + 1} answered ${over.status} ${JSON.stringify(over.json)}`)
      const deep = await raw(op, headers, { ...body, [sizeParam]: max, [pageParam]: Math.floor(depthCap / max) + 1 })
      if (mode === 'clamp' ? deep.status !== 200 : deep.status !== 400) problems.push(`${op.operationId}: a page past ${depthCap} rows answered ${deep.status}`)
      if (mode === 'clamp' && deep.status === 200) {
        const payload = (deep.json.data ?? deep.json) as Record<string, unknown>
        const rows = Array.isArray(payload) ? payload : Object.values(payload).find(Array.isArray)
        if (rows && rows.length > 0) problems.push(`${op.operationId}: a page past ${depthCap} rows holds ${rows.length} rows`)
      }
    }
    expect(problems).toEqual([])
  })
})

describe('control API: faults, journal, loopback (issue 4: the mock\'s clock and control API)', () => {
  it('faults: latency delays the next N matching requests only, then answers normally (issue 4: POST /__admin/faults latency)', async () => {
    mutating()
    const op = opById('getShopSps')
    const headers = { 'x-api-key': 'demo-key', 'x-shop-id': mainShop.shop_id }
    const added = await fetch(`${baseUrl}/__admin/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ route: 'GET /shop/sps', latency_ms: 80, count: 1 }) })
    expect(added.status).toBe(201)
    const started = performance.now()
    expect((await raw(op, headers)).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(75)
    // The next request is not delayed: the fault was counted down to nothing (no wall-clock upper bound,
    // which a loaded machine breaks).
    expect(((await (await fetch(`${baseUrl}/__admin/faults`)).json()) as { faults: unknown[] }).faults).toEqual([])
    expect((await raw(op, headers)).status).toBe(200)
  })

  it('journal: every secret header is redacted, a mistyped key and a refused request included (issue 4: GET /__admin/requests)', async () => {
    mutating()
    await state.admin.clearRequests()
    const secret = 'sk-live-typo-4f2a9c'
    await raw(opById('getShopSps'), { 'x-api-key': secret, 'x-shop-id': mainShop.shop_id, authorization: 'Bearer tok-123', cookie: 'session=cookie-456' })
    await raw(opById('getShopSps'), { 'x-api-key': 'demo-key', 'x-shop-id': mainShop.shop_id })
    const res = await fetch(`${baseUrl}/__admin/requests`)
    const text = await res.text()
    for (const leaked of [secret, 'demo-key', 'tok-123', 'cookie-456']) expect(text).not.toContain(leaked)
    const [refused, served] = (JSON.parse(text) as { requests: Array<{ status: number; headers: Record<string, string> }> }).requests
    expect(refused).toMatchObject({ status: 401, headers: { 'x-api-key': 'REDACTED', authorization: 'REDACTED', cookie: 'REDACTED', 'x-shop-id': mainShop.shop_id } })
    expect(served).toMatchObject({ status: 200, headers: { 'x-api-key': 'REDACTED' } })
  })

})

describe('createMockState (issue 4: state the user can create, reset and inspect)', () => {
  it('state: createMockState({ seed, scale, today }) builds that world; reset with a new seed rebuilds it and inspect reports it (issue 4)', () => {
    const own = createMockState({ seed: 9, scale: 'small', today: '2026-01-15', now: NOW })
    expect(own.inspect()).toMatchObject({ seed: 9, scale: 'small', today: '2026-01-15', now: NOW, clockFrozen: true })
    expect(own.world.axis.date(own.world.axis.todayIndex)).toBe('2026-01-15')
    const firstShop = own.world.shops[0]!.shop_id
    own.reset({ seed: 10 })
    expect(own.inspect()).toMatchObject({ seed: 10, today: '2026-01-15', idempotencyRecords: 0, journalEntries: 0 })
    expect(own.world.shops[0]!.shop_id).not.toBe(firstShop)
  })

})

// Real sockets from here on: MSW's interception is lifted for these tests.
describe('standalone server and CLI (issue 4: npm start / shoptwin serve; loopback-only control API)', () => {
  beforeAll(() => server.close())
  afterAll(() => server.listen({ onUnhandledFrame: 'error' }))

  const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address
  it.runIf(external)('admin: the standalone server refuses /__admin/ to a non-loopback client unless remote admin is enabled; the API still answers (issue 4: loopback-only)', async () => {
    for (const remoteAdmin of [false, true]) {
      const mock = createServer({ stateOptions: { seed: 7, now: NOW, rateLimit: false, scale: 'small' }, remoteAdmin })
      const url = await mock.listen(0, '0.0.0.0')
      const viaNetwork = url.replace('0.0.0.0', external!)
      try {
        const admin = await request(viaNetwork).get('/__admin/world')
        expect(admin.status, `remoteAdmin ${remoteAdmin}`).toBe(remoteAdmin ? 200 : 403)
        if (!remoteAdmin) expect(admin.body.error).toMatch(/loopback/)
        expect((await request(viaNetwork).get('/health')).status).toBe(200)
        expect((await request(url.replace('0.0.0.0', '127.0.0.1')).get('/__admin/clock')).status).toBe(200)
      } finally {
        await mock.close()
      }
    }
  })

  it('admin: a page of another site is refused the control API, by its Origin or by a name rebound to 127.0.0.1 (its Host); loopback pages and clients are served', async () => {
    const mock = createServer({ stateOptions: { seed: 7, now: NOW, rateLimit: false, scale: 'small' } })
    const url = await mock.listen(0, '127.0.0.1')
    const port = new URL(url).port
    try {
      const refused = [
        ['GET', '/__admin/requests', { origin: 'https://evil.example' }, /Invalid Origin header: https:\/\/evil\.example/],
        ['POST', '/__admin/reset', { origin: 'http://127.0.0.1.evil.example:8080', 'content-type': 'application/json' }, /Invalid Origin header/],
        // A browser's preflight for a cross-site POST: refused, so the POST is never sent.
        ['OPTIONS', '/__admin/reset', { origin: 'https://evil.example', 'access-control-request-method': 'POST' }, /Invalid Origin header/],
        // DNS rebinding: the page's own origin, its name now resolving to 127.0.0.1.
        ['POST', '/__admin/faults', { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, 'content-type': 'application/json' }, /Invalid Host header: evil\.example/],
        ['GET', '/__admin/console', { host: `evil.example:${port}` }, /Invalid Host header/],
      ] as const
      // node:http, not fetch: fetch does not let a caller set Host.
      const send = (method: string, path: string, headers: Record<string, string>) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(`${url}${path}`, { method, headers }, (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (chunk: string) => (body += chunk))
            res.on('end', () => resolve({ status: res.statusCode!, body }))
          })
          req.on('error', reject)
          req.end(method === 'POST' ? '{}' : undefined)
        })
      for (const [method, path, headers, reason] of refused) {
        const answer = await send(method, path, headers)
        expect(answer.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403)
        const body = JSON.parse(answer.body) as { error: string }
        expect(body.error).toMatch(reason)
        expect(body.error).toMatch(/--remote-admin/)
      }
      // Loopback pages (another port of this machine, localhost, an opaque origin) and plain clients.
      for (const headers of [{}, { origin: 'http://localhost:5173' }, { origin: `http://127.0.0.1:${port}` }, { origin: 'http://[::1]:3000' }, { origin: 'null' }, { host: `localhost:${port}` }, { host: `[::1]:${port}` }] as Array<Record<string, string>>) {
        expect((await send('GET', '/__admin/clock', headers)).status, JSON.stringify(headers)).toBe(200)
      }
      // The API itself still answers any origin (CORS, as Prism does).
      expect((await fetch(`${url}/health`, { headers: { origin: 'https://evil.example' } })).status).toBe(200)
    } finally {
      await mock.close()
    }
    // --remote-admin: the operator allows others.
    const open = createServer({ stateOptions: { seed: 7, now: NOW, rateLimit: false, scale: 'small' }, remoteAdmin: true })
    const openUrl = await open.listen(0, '127.0.0.1')
    try {
      expect((await fetch(`${openUrl}/__admin/clock`, { headers: { origin: 'https://ops.example' } })).status).toBe(200)
    } finally {
      await open.close()
    }
  })

  const cli = fileURLToPath(new URL('../mock/cli.ts', import.meta.url))
  const root = fileURLToPath(new URL('..', import.meta.url))
  /** Resolves with the output once the server printed its banner. */
  const started = (child: ReturnType<typeof spawn>) =>
    new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout!.setEncoding('utf8')
      child.stdout!.on('data', (chunk: string) => {
        out += chunk
        if (out.includes('Control API')) resolve(out)
      })
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)))
    })
  const portFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const probe = createNetServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
    })

  it('cli: serve without flags serves the default world on 127.0.0.1:4010 and exits 0 on SIGINT (issue 4: Prism\'s default port)', async (ctx) => {
    if (!(await portFree(4010))) ctx.skip()
    const child = spawn(process.execPath, [cli, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const out = await started(child)
      expect(out).toContain('listening on http://127.0.0.1:4010  (seed 42, scale default')
      expect((await request('http://127.0.0.1:4010').get('/health')).status).toBe(200)
      child.kill('SIGINT')
      const [code] = await once(child, 'exit')
      expect(code).toBe(0)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })

  it('cli: npm start -- --port --host --seed --scale --rate-limit off passes its flags to serve, and Ctrl-C stops the server (issue 4)', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.start).toBe('node mock/cli.ts serve')
    const child = spawn('npm', ['start', '--', '--port', '0', '--host', '127.0.0.1', '--seed', '7', '--scale', 'small', '--rate-limit', 'off'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], detached: true })
    try {
      const out = await started(child)
      expect(out).toMatch(/seed 7, scale small, .*rate limit off/)
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!
      const shopId = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/.exec(out.slice(out.indexOf('Shops')))![1]!
      const answers = await Promise.all(Array.from({ length: 15 }, () => request(url).get('/shop/sps').set('x-api-key', 'demo-key').set('x-shop-id', shopId)))
      expect(answers.map((a) => a.status)).toEqual(Array(15).fill(200))
      // Ctrl-C in a terminal signals the whole foreground process group (npm and the server).
      const exited = once(child, 'exit')
      process.kill(-child.pid!, 'SIGINT')
      await exited
      await expect(request(url).get('/health')).rejects.toThrow()
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })
})
