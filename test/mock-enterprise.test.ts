/**
 * Enterprise market intelligence, in-process (msw getResponse) against the small world (spec: What the
 * service does; Authentication 4; Endpoints whose shapes are incomplete or absent: Enterprise brands,
 * products, creators). Expected rows are filtered and sorted here from `world.market[region]`.
 */
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { REGIONS, type RegionMarket } from '../fixtures/index.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { contractProblem } from '../mock/testing.ts'
import { byCodePoint } from './support/order.ts'

const BASE = 'https://enterprise.example.com'
const state = createMockState({ seed: 42, now: '2026-02-15T09:30:00.000Z', rateLimit: false, strict: true })
const handlers = createHandlers(state, { baseUrl: BASE })
const shop = state.world.shops[0]

async function call(path: string, body: unknown, key = 'demo-enterprise-key') {
  const request = new Request(`${BASE}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-shop-id': shop.shop_id },
    body: JSON.stringify(body),
  })
  const response = (await getResponse(handlers, request))!
  const text = await response.text()
  const op = state.contract.operations.find((o) => o.method === 'POST' && o.path === path)!
  expect(contractProblem(state.contract, op, response.status, text)).toBeUndefined()
  return { status: response.status, json: JSON.parse(text) }
}

type Row = Record<string, any>
interface Endpoint {
  path: string
  key: 'brands' | 'products' | 'creators'
  id: string
  text: string
  sorts: string[]
  search: (row: Row) => string[]
}
const ENDPOINTS: Endpoint[] = [
  { path: '/enterprise/brands', key: 'brands', id: 'brand_id', text: 'name', sorts: ['gmv', 'units_sold', 'growth_pct', 'name'], search: (r) => [r.name] },
  { path: '/enterprise/products', key: 'products', id: 'product_id', text: 'name', sorts: ['gmv', 'units_sold', 'price', 'growth_pct', 'name'], search: (r) => [r.name] },
  { path: '/enterprise/creators', key: 'creators', id: 'creator_id', text: 'handle', sorts: ['gmv', 'follower_cnt', 'units_sold', 'growth_pct', 'handle'], search: (r) => [r.handle, r.nickname ?? ''] },
]

const market = (region: string) => state.world.market[region as keyof typeof state.world.market] as RegionMarket
/** The expected order: numbers descending with nulls last, text ascending, ties by id. */
function sorted(e: Endpoint, rows: Row[], field: string): Row[] {
  return rows.slice().sort((a, b) => {
    const [x, y] = [a[field], b[field]]
    const order = x === null || y === null ? (x === y ? 0 : x === null ? 1 : -1) : field === e.text ? byCodePoint(String(x), String(y)) : y - x
    return order || byCodePoint(String(a[e.id]), String(b[e.id]))
  })
}

describe.each(ENDPOINTS)('enterprise $key (spec: Endpoints whose shapes are incomplete or absent: Enterprise brands, products, creators)', (e) => {
  it(`enterprise: ${e.key} of a region default to GMV descending, page 1 of 20, with total_count`, async () => {
    const reply = await call(e.path, { region: 'us' })
    const rows = market('us')[e.key] as Row[]
    expect(reply.status).toBe(200)
    expect(reply.json.data).toEqual({ region: 'us', [e.key]: sorted(e, rows, 'gmv').slice(0, 20), total_count: rows.length, page: 1, page_size: 20 })
  })

  it(`enterprise: ${e.key}: every region of the 18 is served from its own market; anything else is refused by the schema (400)`, async () => {
    for (const region of REGIONS) {
      const reply = await call(e.path, { region, page_size: 100 })
      expect(reply.json.data[e.key].map((r: Row) => r[e.id]).sort()).toEqual((market(region)[e.key] as Row[]).map((r) => r[e.id]).sort())
      expect(reply.json.data[e.key].every((r: Row) => r.region === region)).toBe(true)
    }
    for (const body of [{}, { region: 'US' }, { region: 'xx' }, { region: ['us', 'uk'] }]) expect((await call(e.path, body)).status).toBe(400)
  })

  it(`enterprise: ${e.key} refuse a standard key with 403 (spec: Authentication 4)`, async () => {
    const reply = await call(e.path, { region: 'us' }, 'demo-key')
    expect(reply.status).toBe(403)
  })

  it(`enterprise: ${e.key} page with page/page_size; page_size over 100 and depth past 10,000 rows are refused; a page past the end is empty`, async () => {
    const all = sorted(e, market('us')[e.key] as Row[], 'gmv')
    const second = await call(e.path, { region: 'us', page: 2, page_size: 3 })
    expect(second.json.data).toMatchObject({ [e.key]: all.slice(3, 6), total_count: all.length, page: 2, page_size: 3 })
    expect((await call(e.path, { region: 'us', page: 50, page_size: 3 })).json.data).toMatchObject({ [e.key]: [], total_count: all.length })
    expect(await call(e.path, { region: 'us', page_size: 101 })).toEqual({ status: 400, json: { error: expect.stringMatching(/^page_size must be/) } })
    // spec: Limits: results stop at 10,000 rows (page x page_size).
    expect((await call(e.path, { region: 'us', page: 101, page_size: 100 })).status).toBe(400)
  })

  it.each(e.sorts)(`enterprise: ${e.key} sort_by %s (numbers descending with nulls last, text ascending)`, async (field) => {
    // A region where some growth_pct is null, so nulls-last is exercised.
    const region = REGIONS.find((r) => (market(r)[e.key] as Row[]).some((row) => row.growth_pct === null)) ?? 'us'
    const reply = await call(e.path, { region, sort_by: field, page_size: 100 })
    expect(reply.json.data[e.key]).toEqual(sorted(e, market(region)[e.key] as Row[], field))
  })

  it(`enterprise: ${e.key}: an unknown sort_by falls back to gmv`, async () => {
    const reply = await call(e.path, { region: 'uk', sort_by: 'bogus', page_size: 100 })
    expect(reply.json.data[e.key]).toEqual(sorted(e, market('uk')[e.key] as Row[], 'gmv'))
  })

  it(`enterprise: ${e.key}: search is a case-insensitive substring; category an exact, case-insensitive match; total_count counts the matches`, async () => {
    const rows = market('de')[e.key] as Row[]
    const needle = e.search(rows[0])[0].slice(1, 4).toUpperCase()
    const bySearch = rows.filter((r) => e.search(r).some((t) => t.toLowerCase().includes(needle.toLowerCase())))
    const search = await call(e.path, { region: 'de', search: needle, page_size: 100 })
    expect(search.json.data).toMatchObject({ [e.key]: sorted(e, bySearch, 'gmv'), total_count: bySearch.length })
    const category = rows[0].category as string
    const byCategory = rows.filter((r) => r.category === category)
    const filtered = await call(e.path, { region: 'de', category: category.toUpperCase(), page_size: 100 })
    expect(filtered.json.data).toMatchObject({ [e.key]: sorted(e, byCategory, 'gmv'), total_count: byCategory.length })
    expect((await call(e.path, { region: 'de', search: 'zzz-no-such-thing' })).json.data).toMatchObject({ [e.key]: [], total_count: 0 })
  })
})

describe('enterprise creators search (spec: Enterprise creators)', () => {
  it('enterprise: creators search matches the nickname as well as the handle', async () => {
    const creator = market('us').creators.find((c) => c.nickname && !c.handle.toLowerCase().includes(c.nickname.toLowerCase().split(' ')[0]))!
    const word = creator.nickname!.split(' ').at(-1)!
    const reply = await call('/enterprise/creators', { region: 'us', search: word, page_size: 100 })
    expect(reply.json.data.creators.map((c: Row) => c.creator_id)).toContain(creator.creator_id)
  })
})
