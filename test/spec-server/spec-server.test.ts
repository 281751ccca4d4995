/**
 * The spec server's own behaviour, in process (Hono's app.request) on its injected clock: what the
 * conformance suite cannot reach on a remote target (the 24-hour expiry, the 60-second in-flight
 * window, 5xx not cached, the daily limit) and the choices it makes where the spec is silent.
 */
import { describe, expect, it } from 'vitest'
import { createSpecApp, type SpecServerOptions } from './index.ts'
import { FOREIGN_SHOP, KEYS, SHOPS } from './world.ts'

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 250)

/** A spec server on a clock the test moves, with helpers that send requests as a client does. */
function setup(options: SpecServerOptions = {}) {
  let now = T0
  const { app } = createSpecApp({ now: () => now, ...options })
  const send = async (method: string, path: string, { body, key = KEYS.standard, shop = SHOPS.scale.shop_id, idempotencyKey }: { body?: unknown; key?: string | null; shop?: string | null; idempotencyKey?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (key !== null) headers['x-api-key'] = key
    if (shop !== null) headers['x-shop-id'] = shop
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
    const response = await app.request(path, { method, headers, body: method === 'GET' ? undefined : JSON.stringify(body ?? {}) })
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, json: JSON.parse(text) }
  }
  return {
    send,
    advance: (ms: number) => {
      now += ms
    },
    create: (idempotencyKey?: string, shop?: string) => send('POST', '/automations/create', { body: { title: 'Spring outreach', dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }] }, idempotencyKey, shop }),
    lookup: (key: string, shop?: string) => send('GET', `/idempotency/${key}`, { shop }),
  }
}

/** A promise the test settles, to hold a write in flight at the platform. */
function deferred() {
  let release!: () => void
  const promise = new Promise<void>((resolve) => {
    release = resolve
  })
  return { promise, release }
}

describe('spec server: Idempotency', () => {
  it('a replay is byte-identical and acts once; the record is completed with the original status and body', async () => {
    const s = setup()
    const first = await s.create('key-1')
    const replay = await s.create('key-1')
    expect(first.status).toBe(201)
    expect(replay.status).toBe(201)
    expect(replay.text).toBe(first.text)
    const other = await s.create('key-2')
    expect(other.json.data.campaign_id).not.toBe(first.json.data.campaign_id)
    expect((await s.lookup('key-1')).json).toEqual({ idempotency: { status: 'completed', response_status: 201, response_body: first.json } })
  })

  it('a concurrent request with the key in flight gets 409; the record is processing without a response; after it, the replay', async () => {
    const held = deferred()
    const entered = deferred()
    const s = setup({ platform: () => (entered.release(), held.promise) })
    const first = s.create('key-1')
    await entered.promise
    const second = await s.create('key-1')
    expect(second.status).toBe(409)
    expect(typeof second.json.error).toBe('string')
    expect((await s.lookup('key-1')).json).toEqual({ idempotency: { status: 'processing' } })
    held.release()
    const done = await first
    expect(done.status).toBe(201)
    expect((await s.create('key-1')).text).toBe(done.text)
  })

  it('the in-flight conflict lasts up to 60 seconds (Limits: in-flight conflict window 60 seconds)', async () => {
    const held = deferred()
    const entered = deferred()
    let calls = 0
    const s = setup({ platform: () => (++calls === 1 ? (entered.release(), held.promise) : Promise.resolve()) })
    const first = s.create('key-1')
    await entered.promise
    s.advance(59_999)
    expect((await s.create('key-1')).status).toBe(409)
    s.advance(1)
    expect((await s.create('key-1')).status).toBe(201)
    held.release()
    await first
  })

  it('5xx responses and uncaught exceptions are not cached, so a retry with the same key succeeds', async () => {
    let calls = 0
    const s = setup({ platform: async () => {
      if (++calls === 1) throw new Error('platform unavailable')
    } })
    const failed = await s.create('key-1')
    expect(failed.status).toBe(500)
    expect(failed.json).toEqual({ error: 'Internal server error' })
    expect((await s.lookup('key-1')).status).toBe(404)
    const retried = await s.create('key-1')
    expect(retried.status).toBe(201)
    expect((await s.lookup('key-1')).json.idempotency.status).toBe('completed')
  })

  it('4xx answers are cached like any other (only 5xx are not)', async () => {
    const s = setup()
    const refused = await s.send('POST', '/automations/create', { body: { title: '' }, idempotencyKey: 'key-1' })
    expect(refused.status).toBe(400)
    const again = await s.send('POST', '/automations/create', { body: { title: 'now valid' }, idempotencyKey: 'key-1' })
    expect(again.text).toBe(refused.text)
  })

  it('the record expires after 24 hours: lookup 404 "No stored response for that key", and the key acts again', async () => {
    const s = setup()
    const first = await s.create('key-1')
    s.advance(24 * 3600_000 - 1)
    expect((await s.create('key-1')).text).toBe(first.text)
    s.advance(1)
    expect((await s.lookup('key-1')).json).toEqual({ error: 'No stored response for that key' })
    const fresh = await s.create('key-1')
    expect(fresh.json.data.campaign_id).not.toBe(first.json.data.campaign_id)
  })

  it.each([
    ['a'.repeat(128), 201],
    ['a'.repeat(129), 400],
    ['under_score', 400],
    ['', 400],
  ])('Idempotency-Key %j answers %i (^[A-Za-z0-9-]{1,128}$)', async (key, status) => {
    const s = setup()
    const reply = await s.create(key)
    expect(reply.status).toBe(status)
    if (status === 400) expect(reply.json).toEqual({ error: 'Invalid idempotency key format' })
  })

  it('records are per shop: another shop of the account does not see the key, and its own key acts on its own', async () => {
    const s = setup()
    await s.create('key-1')
    expect((await s.lookup('key-1', SHOPS.growth.shop_id)).status).toBe(404)
    expect((await s.create('key-1', SHOPS.growth.shop_id)).status).toBe(201)
  })
})

describe('spec server: Authentication and scopes', () => {
  it.each([
    ['no key', { key: null }, 401, 'Missing x-api-key header'],
    ['an unknown key', { key: 'nobody' }, 401, 'Invalid API key'],
    ['no shop header', { shop: null }, 400, 'Missing X-Shop-Id header'],
    ['a malformed shop id', { shop: 'not a shop' }, 400, 'Invalid shop_id'],
    ['a shop of another account', { shop: FOREIGN_SHOP.shop_id }, 403, 'Shop not found or not owned by user'],
    ['the limited key on a shop outside its shops', { key: KEYS.limited, shop: SHOPS.growth.shop_id }, 403, 'Forbidden: this key is not allowed on this shop'],
  ] as const)('GET /shop/sps with %s: %i', async (_what, request, status, error) => {
    const reply = await setup().send('GET', '/shop/sps', request)
    expect([reply.status, reply.json]).toEqual([status, { error }])
  })

  it('the limited key gets 403 outside its routes, also on a route this small server does not serve (POST /shop/stats)', async () => {
    const s = setup()
    expect((await s.send('GET', '/shop/sps', { key: KEYS.limited })).status).toBe(200)
    expect((await s.send('POST', '/shop/stats', { key: KEYS.limited })).status).toBe(403)
    expect((await s.send('POST', '/shop/stats')).status).toBe(404)
    expect((await s.send('POST', '/dashboards/list', { key: KEYS.limited })).status).toBe(403)
  })

  it('the ads endpoints refuse a shop not on an active paid plan; other endpoints serve it', async () => {
    const s = setup()
    const ads = await s.send('POST', '/ads/campaigns', { shop: SHOPS.paused.shop_id, body: { date_range: { from: '2026-11-01', to: '2026-11-20' } } })
    expect([ads.status, ads.json]).toEqual([403, { error: 'This shop is not on an active paid plan' }])
    expect((await s.send('GET', '/shop/sps', { shop: SHOPS.paused.shop_id })).status).toBe(200)
  })

  it('GET /health needs no key; GET /account/shops needs only the key and lists every shop, active or not', async () => {
    const s = setup()
    expect((await s.send('GET', '/health', { key: null, shop: null })).status).toBe(200)
    const shops = await s.send('GET', '/account/shops', { shop: null })
    expect(shops.json.data.map((shop: { shop_id: string }) => shop.shop_id)).toEqual([SHOPS.scale.shop_id, SHOPS.growth.shop_id, SHOPS.paused.shop_id])
  })

  it('Enterprise endpoints (at the paths a deployment names) refuse a standard key with 403 and take exactly one listed region', async () => {
    const s = setup({ enterprisePaths: ['/market/brands'] })
    expect((await s.send('POST', '/market/brands', { body: { region: 'us' } })).status).toBe(403)
    expect((await s.send('POST', '/market/brands', { key: KEYS.enterprise, body: { region: 'jp' } })).status).toBe(200)
    expect((await s.send('POST', '/market/brands', { key: KEYS.enterprise, body: { region: 'US' } })).status).toBe(400)
  })
})

describe('spec server: rate limit (Limits: 10 per second and 1,000,000 per day per key, measured per shop)', () => {
  it('the 11th request of a second gets 429 with Retry-After; the next second, other shops and other keys are not affected', async () => {
    const s = setup()
    for (let i = 0; i < 10; i++) expect((await s.send('GET', '/shop/sps')).status).toBe(200)
    const limited = await s.send('GET', '/shop/sps')
    expect(limited.status).toBe(429)
    expect(typeof limited.json.error).toBe('string')
    expect(limited.headers.get('retry-after')).toBe('1')
    expect((await s.send('GET', '/shop/sps', { shop: SHOPS.growth.shop_id })).status).toBe(200)
    expect((await s.send('GET', '/shop/sps', { key: KEYS.enterprise })).status).toBe(200)
    s.advance(750)
    expect((await s.send('GET', '/shop/sps')).status).toBe(200)
  })

  it('over the daily limit: 429 with Retry-After until the day ends (refused requests do not count)', async () => {
    const s = setup({ perDay: 3 })
    for (let i = 0; i < 3; i++) expect((await s.send('GET', '/shop/sps')).status).toBe(200)
    const limited = await s.send('GET', '/shop/sps')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBe(12 * 3600)
    s.advance(12 * 3600_000)
    expect((await s.send('GET', '/shop/sps')).status).toBe(200)
  })
})

describe('spec server: paging caps', () => {
  it('"max N" serves a larger page_size as N; "clamp" serves 0 as 1; page_number x page_size past 1000 on the sample list is an empty last page', async () => {
    const s = setup()
    const capped = await s.send('POST', '/spark/list', { body: { page_size: 101 } })
    expect([capped.status, capped.json.data.page_size]).toEqual([200, 100])
    const clamped = await s.send('POST', '/ads/campaigns', { body: { page_size: 0, date_range: { from: '2026-11-01', to: '2026-11-20' } } })
    expect(clamped.json.data.page_size).toBe(1)
    const samples = await s.send('POST', '/affiliate/samples/list', { body: { page_size: 2, page_number: 1 } })
    expect([samples.json.data.results.length, samples.json.data.total_count, samples.json.data.has_more]).toEqual([2, 4, true])
    const beyond = await s.send('POST', '/affiliate/samples/list', { body: { page_size: 100, page_number: 11 } })
    expect(beyond.json.data).toMatchObject({ results: [], has_more: false, total_count: null })
    const count = await s.send('POST', '/affiliate/crm/list', { body: { just_count: true } })
    expect(count.json).toEqual({ total_count: 4 })
  })
})

describe('spec server: dashboards (412 with expected_updated_at)', () => {
  it('an update with the current updated_at succeeds and moves updated_at forward, even within one millisecond; an older one gets 412', async () => {
    const s = setup()
    const board = (await s.send('POST', '/dashboards/create', { body: { name: 'Weekly', widgets: [{ type: 'stat', stat_key: 'total_gmv' }] } })).json.data
    const updated = await s.send('POST', '/dashboards/update', { body: { dashboard_id: board.id, default_grain: 'week', expected_updated_at: board.updated_at } })
    expect(updated.status).toBe(200)
    expect(Date.parse(updated.json.data.updated_at)).toBeGreaterThan(Date.parse(board.updated_at))
    const stale = await s.send('POST', '/dashboards/update', { body: { dashboard_id: board.id, default_grain: 'month', expected_updated_at: board.updated_at } })
    expect(stale.status).toBe(412)
    const reread = (await s.send('POST', '/dashboards/get', { body: { dashboard_id: board.id } })).json.data
    expect(reread.default_grain).toBe('week')
    expect((await s.send('POST', '/dashboards/update', { body: { dashboard_id: board.id, default_grain: 'month', expected_updated_at: reread.updated_at } })).status).toBe(200)
  })

  it('a taken name gets 409 on create and on rename; an unknown stat key gets 400', async () => {
    const s = setup()
    await s.send('POST', '/dashboards/create', { body: { name: 'Weekly' } })
    expect((await s.send('POST', '/dashboards/create', { body: { name: 'Weekly' } })).status).toBe(409)
    const other = (await s.send('POST', '/dashboards/create', { body: { name: 'Daily' } })).json.data
    expect((await s.send('POST', '/dashboards/update', { body: { dashboard_id: other.id, name: 'Weekly' } })).status).toBe(409)
    expect((await s.send('POST', '/dashboards/create', { body: { name: 'Bad', widgets: [{ type: 'stat', stat_key: 'no_such_stat' }] } })).status).toBe(400)
  })
})
