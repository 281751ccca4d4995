/**
 * The response cache (mock/stores/response-cache.ts; on in the standalone server started by the CLI):
 * an identical cacheable read is answered again byte for byte, and anything that could change an
 * answer empties it first: a write of any operation, a control-API call, a move of the clock, a reset.
 * The answers with the cache are the answers without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type MockServer } from '../mock/index.ts'
import { createResponseCache } from '../mock/stores/response-cache.ts'
import { STAT_KEYS } from '../openapi/index.ts'

const NOW = '2026-03-10T12:00:00.000Z'
let cached: MockServer
let plain: MockServer
let shopId: string

beforeAll(async () => {
  cached = createServer({ stateOptions: { seed: 42, now: NOW, rateLimit: false, strict: true, responseCache: true } })
  plain = createServer({ stateOptions: { seed: 42, now: NOW, rateLimit: false, strict: true } })
  await Promise.all([cached.listen(0), plain.listen(0)])
  shopId = cached.state.world.shops[0]!.shop_id
})
afterAll(async () => {
  await Promise.all([cached.close(), plain.close()])
})

async function call(server: MockServer, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, text: await res.text() }
}
const both = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const [a, b] = await Promise.all([call(cached, method, path, body), call(plain, method, path, body)])
  expect(a.status).toBe(b.status)
  expect(a.text).toBe(b.text)
  return a
}
const hits = () => cached.state.inspect().responseCache!.hits
const crmBody = { page_size: 20, filters: { include_tags: ['cache-test'] } }
const statsBody = { date_range: { from: '2026-01-01', to: '2026-03-09' }, stats: [...STAT_KEYS], include_charts: true }

describe('response cache (decision: identical reads are served again until anything could change them)', () => {
  it('cache: off unless asked for; the CLI turns it on', () => {
    expect(plain.state.responseCache).toBeUndefined()
    expect(cached.state.inspect().responseCache).toEqual({ entries: 0, hits: 0, misses: 0 })
  })

  it('cache: an identical read is answered again, byte for byte the uncached answer (stats, CRM, creatives, campaigns)', async () => {
    for (const [path, body] of [
      ['/shop/stats', statsBody],
      ['/affiliate/crm/list', { page_size: 50, filters: { min_videos: 1 } }],
      ['/ads/creatives', { page_size: 100 }],
      ['/ads/campaigns', { date_range: { from: '2026-01-01', to: '2026-03-09' } }],
    ] as const) {
      const before = hits()
      await both('POST', path, body)
      await both('POST', path, body)
      expect(hits(), path).toBe(before + 1)
    }
  })

  it('cache: a different body, key or shop is another entry', async () => {
    await both('POST', '/ads/creatives', { page_size: 10 })
    const before = hits()
    await both('POST', '/ads/creatives', { page_size: 11 })
    expect(hits()).toBe(before)
  })

  it('cache: a write empties it: a tag added is in the next CRM list (spec: Tags)', async () => {
    const first = await both('POST', '/affiliate/crm/list', crmBody)
    expect(JSON.parse(first.text).results).toEqual([])
    const handle = cached.state.world.shopData[shopId]!.affiliates[5]!.handle
    await both('POST', '/tags/add', { tag: 'cache-test', handles: [handle] })
    const second = await both('POST', '/affiliate/crm/list', crmBody)
    expect(JSON.parse(second.text).results.map((r: { handle: string }) => r.handle)).toEqual([handle])
    await both('POST', '/tags/remove', { tag: 'cache-test', handles: [handle] })
    expect(JSON.parse((await both('POST', '/affiliate/crm/list', crmBody)).text).results).toEqual([])
  })

  it('cache: a refused request does not reach a handler and changes nothing; any other request empties it', async () => {
    await both('POST', '/ads/creatives', { page_size: 12 })
    expect(cached.state.responseCache!.size).toBeGreaterThan(0)
    expect((await both('POST', '/tags/add', { tag: '', handles: [] })).status).toBe(400)
    expect(cached.state.responseCache!.size).toBeGreaterThan(0)
    await call(cached, 'GET', '/health')
    expect(cached.state.responseCache!.size).toBe(0)
  })

  it('cache: every request of a cacheable read is still validated and rate limited: only an identical 200 is served again', async () => {
    await both('POST', '/shop/stats', statsBody)
    expect((await both('POST', '/shop/stats', { ...statsBody, stats: ['no_such_key'] })).status).toBe(400)
    expect((await both('POST', '/shop/stats', { ...statsBody, date_range: { from: '2026-01-01' } })).status).toBe(400)
    const res = await fetch(`${cached.url}/shop/stats`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key' }, body: JSON.stringify(statsBody) })
    expect(res.status).toBe(400)
  })

  it('cache: a control-API call, a clock move and a reset empty it', async () => {
    const fill = () => call(cached, 'POST', '/ads/creatives', { page_size: 13 })
    await fill()
    await fetch(`${cached.url}/__admin/clock`)
    expect(cached.state.responseCache!.size).toBe(0)
    await fill()
    cached.state.clock.advance(1000)
    expect(cached.state.responseCache!.size).toBe(0)
    await fill()
    cached.state.admin.setClock({ now: NOW })
    expect(cached.state.responseCache!.size).toBe(0)
    await fill()
    cached.state.reset()
    expect(cached.state.responseCache!.size).toBe(0)
    plain.state.reset()
  })

  it('cache: the clock’s date is part of the key (default windows follow today)', async () => {
    const at = (iso: string) => {
      cached.state.clock.set(iso)
      plain.state.clock.set(iso)
    }
    at('2026-03-10T23:59:59.000Z')
    await both('POST', '/ads/creatives', { page_size: 5 })
    at('2026-03-11T00:00:01.000Z')
    await both('POST', '/ads/creatives', { page_size: 5 })
    at(NOW)
  })

  it('cache: a handler replaced at run time is not served from it', async () => {
    const original = cached.state.handlers.get('listAdCreatives')!
    let calls = 0
    cached.state.handlers.set('listAdCreatives', (ctx) => {
      calls++
      return original(ctx)
    })
    try {
      await call(cached, 'POST', '/ads/creatives', { page_size: 14 })
      await call(cached, 'POST', '/ads/creatives', { page_size: 14 })
      expect(calls).toBe(2)
    } finally {
      cached.state.handlers.set('listAdCreatives', original)
    }
  })

  it('cache: the journal records every request, served from the cache or not', async () => {
    await cached.state.journal.clear()
    await call(cached, 'POST', '/ads/creatives', { page_size: 15 })
    await call(cached, 'POST', '/ads/creatives', { page_size: 15 })
    const entries = await cached.state.journal.entries({ operationId: 'listAdCreatives' })
    expect(entries).toHaveLength(2)
    expect(entries.map((e) => [e.status, e.body])).toEqual([
      [200, { page_size: 15 }],
      [200, { page_size: 15 }],
    ])
  })
})

describe('response cache store: bounds and order (mock/stores/response-cache.ts)', () => {
  const answer = (text: string) => ({ status: 200, rawBody: text })

  it('store: an answer is found by its request and body, not by either alone', () => {
    const cache = createResponseCache()
    cache.set('op\u0000shop-a', '{"a":1}', answer('A'), 0)
    expect(cache.get('op\u0000shop-a', '{"a":1}')?.rawBody).toBe('A')
    expect(cache.get('op\u0000shop-a', '{"a":2}')).toBeUndefined()
    expect(cache.get('op\u0000shop-b', '{"a":1}')).toBeUndefined()
    // The parts are not run together: the same characters split differently are another request.
    expect(cache.get('op\u0000shop-a{"a":1}', '')).toBeUndefined()
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 3 })
  })

  it('store: past maxEntries the oldest answers go first, across requests and bodies; a replaced answer counts as new', () => {
    const cache = createResponseCache({ maxEntries: 3 })
    cache.set('r1', 'x', answer('1x'), 0)
    cache.set('r1', 'y', answer('1y'), 0)
    cache.set('r2', 'x', answer('2x'), 0)
    cache.set('r1', 'x', answer('1x again'), 0) // replaced: now the newest
    cache.set('r3', 'x', answer('3x'), 0) // evicts r1/y, the oldest left
    expect(cache.size).toBe(3)
    expect(cache.get('r1', 'y')).toBeUndefined()
    expect(cache.get('r1', 'x')?.rawBody).toBe('1x again')
    expect(cache.get('r2', 'x')?.rawBody).toBe('2x')
    expect(cache.get('r3', 'x')?.rawBody).toBe('3x')
  })

  it('store: the answer found last is never served once replaced or evicted', () => {
    const cache = createResponseCache({ maxEntries: 2 })
    cache.set('r', 'x', answer('old'), 0)
    expect(cache.get('r', 'x')?.rawBody).toBe('old')
    cache.set('r', 'x', answer('new'), 0)
    expect(cache.get('r', 'x')?.rawBody).toBe('new')
    expect(cache.get('r', 'x')?.rawBody).toBe('new')
    cache.set('r', 'y', answer('y'), 0)
    cache.set('q', 'z', answer('z'), 0) // evicts r/x, the one found last
    expect(cache.get('r', 'x')).toBeUndefined()
    expect(cache.get('r', 'y')?.rawBody).toBe('y')
    // An equal body read from another request (another string) is the same entry.
    expect(cache.get('r', ['y'].join(''))?.rawBody).toBe('y')
  })

  it('store: past maxBytes (text and UTF-8 together) the oldest go; an answer bigger than the limit is returned but not kept', () => {
    // 'é' is 2 bytes of text (UTF-16) and 2 of UTF-8: 10 of them weigh 40 bytes.
    const cache = createResponseCache({ maxBytes: 100 })
    cache.set('r', 'a', answer('é'.repeat(10)), 0)
    cache.set('r', 'b', answer('é'.repeat(10)), 0)
    expect(cache.size).toBe(2)
    cache.set('r', 'c', answer('é'.repeat(10)), 0)
    expect(cache.size).toBe(2)
    expect(cache.get('r', 'a')).toBeUndefined()
    const big = cache.set('r', 'd', answer('x'.repeat(40)), 0)
    expect(new TextDecoder().decode(big.rawBytes)).toBe('x'.repeat(40))
    expect(cache.get('r', 'd')).toBeUndefined()
    expect(cache.size).toBe(2)
  })

  it('store: answers are kept per state version: none of an earlier version is served or kept, a new version starts empty and bounded', () => {
    let version = 0
    const cache = createResponseCache({ maxEntries: 2, version: () => version })
    cache.set('r', 'a', answer('A'), 0)
    expect(cache.get('r', 'a')?.rawBody).toBe('A')
    version = 1
    expect(cache.size).toBe(0)
    expect(cache.get('r', 'a')).toBeUndefined()
    // An answer computed at version 0 arriving late is not kept.
    cache.set('r', 'c', answer('stale'), 0)
    expect(cache.get('r', 'c')).toBeUndefined()
    for (const body of ['1', '2', '3']) cache.set('r', body, answer(body), 1)
    expect(cache.size).toBe(2)
    expect(cache.get('r', '1')).toBeUndefined()
    expect(cache.get('r', '3')?.rawBody).toBe('3')
  })
})

describe('state version (mock/state.ts: what the response cache keys on)', () => {
  it('version: moves on a write, a move of the clock, a reset and a control-API change; not on a cacheable read or a read of the control API', async () => {
    const v = () => cached.state.version
    const moved = async (what: () => unknown) => {
      const before = v()
      await what()
      return v() > before
    }
    expect(await moved(() => call(cached, 'POST', '/affiliate/crm/list', crmBody))).toBe(false)
    expect(await moved(() => cached.state.admin.clock())).toBe(false)
    expect(await moved(() => cached.state.admin.faults())).toBe(false)
    expect(await moved(() => call(cached, 'POST', '/lists/create', { title: `version-${v()}`, handles: ['someone'] }))).toBe(true)
    expect(await moved(() => cached.state.clock.advance(1000))).toBe(true)
    expect(await moved(() => cached.state.admin.setClock({ now: NOW }))).toBe(true)
    expect(await moved(() => cached.state.admin.addFault({ route: 'getHealth', status: 503, count: 1 }))).toBe(true)
    expect(await moved(() => cached.state.admin.clearFaults())).toBe(true)
    expect(await moved(() => cached.state.admin.run('samples/arrive', {}))).toBe(true)
    expect(await moved(() => cached.state.reset())).toBe(true)
    shopId = cached.state.world.shops[0]!.shop_id
  })
})
