/**
 * The read endpoints' figures against the world (first written as the review of issue 5). Expected
 * values are computed here from the world's records and fact rows, never through the mock's own
 * helpers (spec: Account and shop; POST /shop/stats, stat-key table).
 */
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import type { ShopData } from '../fixtures/index.ts'
import { createMockState, createOperationRoutes } from '../mock/index.ts'
import { contractProblem } from '../mock/testing.ts'
import { mockHarness } from './support/harness.ts'

const { state, mainShop, call, post } = mockHarness()
const data: ShopData = state.world.shopData[mainShop.shop_id]!

type Direction = 'asc' | 'desc'
/** Ids in the documented order: by the field, ties in either order (compared as groups below). */
const byField = <T extends Record<string, any>>(rows: readonly T[], field: string, direction: Direction) =>
  [...rows].sort((a, b) => (direction === 'asc' ? a[field] - b[field] : b[field] - a[field]))
/** The field's values, in the order the rows came: what a sort must reproduce exactly. */
const values = (rows: readonly Record<string, any>[], field: string) => rows.map((r) => r[field] as number)
const ids = (rows: readonly Record<string, any>[], field: string) => rows.map((r) => r[field] as string).sort()

describe('account and shop (spec: Account and shop)', () => {
  it('shop: GET /shop/sps is each shop\'s own score on the 0-5 scale, inactive shop included (spec: Account and shop)', async () => {
    for (const shop of state.world.shops) {
      const res = await call('GET', '/shop/sps', {}, { shop: shop.shop_id })
      expect(res.status, shop.shop_name).toBe(200)
      expect(res.json).toEqual({ data: { sps: shop.sps } })
      expect(res.json.data.sps).toBeGreaterThanOrEqual(0)
      expect(res.json.data.sps).toBeLessThanOrEqual(5)
    }
    // The world holds both sides of the 3.5 messaging threshold.
    expect(state.world.shops.some((s) => s.sps < 3.5) && state.world.shops.some((s) => s.sps >= 3.5)).toBe(true)
  })

  it.each([
    ['true: open-plan products only', true, (p: { is_open_plan: boolean }) => p.is_open_plan],
    ['false: non-open products only', false, (p: { is_open_plan: boolean }) => !p.is_open_plan],
    ['null: every product', null, () => true],
  ] as const)('products: is_open_plan %s (spec: Account and shop: POST /shop/products)', async (_, isOpenPlan, keep) => {
    const res = await post('/shop/products', { is_open_plan: isOpenPlan })
    const expected = data.products.filter(keep)
    expect(expected.length).toBeGreaterThan(0)
    expect(ids(res.json.data, 'product_id')).toEqual(ids(expected, 'product_id'))
  })

  it('products: an omitted is_open_plan is null (every product), sorted by units_sold desc (spec: Account and shop: defaults)', async () => {
    const res = await post('/shop/products', {})
    expect(res.json.data).toHaveLength(data.products.length)
    expect(values(res.json.data, 'units_sold')).toEqual(values(byField(data.products, 'units_sold', 'desc'), 'units_sold'))
  })

  it.each([
    ['price', undefined, 'price', 'desc'],
    ['price', 'asc', 'price', 'asc'],
    [undefined, 'asc', 'units_sold', 'asc'],
  ] as const)('products: sort_by %s with sort_direction %s orders by %s %s (spec: Account and shop: defaults units_sold, desc)', async (sortBy, direction, field, expected) => {
    const res = await post('/shop/products', { ...(sortBy ? { sort_by: sortBy } : {}), ...(direction ? { sort_direction: direction } : {}) })
    expect(values(res.json.data, field)).toEqual(values(byField(data.products, field, expected), field))
  })

  it('products: search is a case-insensitive match on the product name, words in any order; a word in no name matches nothing (spec: Account and shop: fuzzy search)', async () => {
    const target = data.products.find((p) => p.product_name.split(' ').length >= 2)!
    const words = target.product_name.split(' ')
    const query = [...words].reverse().join(' ').toUpperCase()
    const res = await post('/shop/products', { search: query })
    const expected = data.products.filter((p) => words.every((w) => p.product_name.toLowerCase().includes(w.toLowerCase())))
    expect(ids(res.json.data, 'product_id')).toEqual(ids(expected, 'product_id'))
    expect(ids(res.json.data, 'product_id')).toContain(target.product_id)
    expect((await post('/shop/products', { search: 'zzqx' })).json.data).toEqual([])
  })

  it('skus: no filter lists every SKU, sorted by stock desc by default (spec: Account and shop: POST /shop/skus)', async () => {
    for (const body of [{}, { product_id: null }]) {
      const res = await post('/shop/skus', body)
      expect(ids(res.json.data, 'sku_id')).toEqual(ids(data.skus, 'sku_id'))
      expect(values(res.json.data, 'stock')).toEqual(values(byField(data.skus, 'stock', 'desc'), 'stock'))
    }
  })

  it.each([
    ['price', undefined, 'desc'],
    ['price', 'asc', 'asc'],
    ['stock', 'asc', 'asc'],
  ] as const)('skus: sort_by %s with sort_direction %s (spec: Account and shop: POST /shop/skus, default desc)', async (sortBy, direction, expected) => {
    const res = await post('/shop/skus', { sort_by: sortBy, ...(direction ? { sort_direction: direction } : {}) })
    expect(values(res.json.data, sortBy)).toEqual(values(byField(data.skus, sortBy, expected), sortBy))
  })

  it('skus: search matches the SKU name or the product name, case-insensitively (spec: Account and shop: POST /shop/skus)', async () => {
    const variant = data.skus.find((s) => s.sku_name !== 'Default' && !s.product_name.toLowerCase().includes(s.sku_name.toLowerCase()))!
    const bySkuName = await post('/shop/skus', { search: variant.sku_name.toUpperCase() })
    const skuExpected = data.skus.filter((s) => `${s.sku_name} ${s.product_name}`.toLowerCase().includes(variant.sku_name.toLowerCase()))
    expect(ids(bySkuName.json.data, 'sku_id')).toEqual(ids(skuExpected, 'sku_id'))
    const product = data.products.find((p) => data.skus.filter((s) => s.product_id === p.product_id).length > 1)!
    const byProductName = await post('/shop/skus', { search: product.product_name.toLowerCase() })
    const productExpected = data.skus.filter((s) => `${s.sku_name} ${s.product_name}`.toLowerCase().includes(product.product_name.toLowerCase()))
    expect(ids(byProductName.json.data, 'sku_id')).toEqual(ids(productExpected, 'sku_id'))
    expect(productExpected.filter((s) => s.product_id === product.product_id).length).toBeGreaterThan(1)
  })

  it('skus: product_id narrows to that product\'s SKUs and combines with the sort (spec: Account and shop: POST /shop/skus)', async () => {
    const product = data.products.find((p) => data.skus.filter((s) => s.product_id === p.product_id).length > 2)!
    const res = await post('/shop/skus', { product_id: product.product_id, sort_by: 'price', sort_direction: 'asc' })
    const expected = data.skus.filter((s) => s.product_id === product.product_id)
    expect(ids(res.json.data, 'sku_id')).toEqual(ids(expected, 'sku_id'))
    expect(values(res.json.data, 'price')).toEqual(values(byField(expected, 'price', 'asc'), 'price'))
  })
})

describe('shop stats: daily_active_affiliates under a campaign filter (spec: POST /shop/stats, stat-key table)', () => {
  const LONG = { from: '2025-09-01', to: '2026-02-28' }
  const within = (date: string) => date >= LONG.from && date <= LONG.to

  it('stats: daily_active_affiliates with campaign_id counts only creators whose campaign videos sold in the period, not LIVE or showcase sales (spec: POST /shop/stats, stat-key table)', async () => {
    const campaign = [...data.affiliateCampaigns].sort((a, b) => data.videos.filter((v) => v.campaign_id === b.campaign_id).length - data.videos.filter((v) => v.campaign_id === a.campaign_id).length)[0]!
    const videos = data.videos.filter((v) => !v.is_brand && v.campaign_id === campaign.campaign_id)
    const sold = (id: string) => data.facts.videos.rows(id).some((r) => within(r.date) && r.values.gmv > 0)
    const expected = new Set(videos.filter((v) => sold(v.video_id)).map((v) => v.creator_id)).size
    expect(expected).toBeGreaterThan(0)
    const res = await post('/shop/stats', { date_range: LONG, stats: ['daily_active_affiliates'], campaign_id: campaign.campaign_id })
    expect(res.json.data.stats[0].total_count).toBe(expected)
    // Unfiltered it is attribution based: every creator with affiliate GMV counts.
    const all = new Set(data.affiliates.filter((a) => data.facts.affiliates.rows(a.creator_id).some((r) => within(r.date) && r.values.gmv > 0)).map((a) => a.creator_id)).size
    const unfiltered = await post('/shop/stats', { date_range: LONG, stats: ['daily_active_affiliates'] })
    expect(unfiltered.json.data.stats[0].total_count).toBe(all)
    expect(all).toBeGreaterThan(expected)
  })
})

describe('timeseries: affiliate GMV clamps (spec: Resources: Affiliate timeseries row)', () => {
  it('timeseries: video_gmv and new_video_gmv are clamped to gmv when the creator\'s video sales exceed the GMV reported for them (spec: Resources: Affiliate timeseries row)', async () => {
    // A state of its own whose affiliate facts report half the video GMV as the creator's GMV: the
    // world never does this, so the clamp is otherwise never exercised.
    const own = createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z', rateLimit: false, strict: true })
    const shop = own.world.shops[0]!
    const ownData = own.world.shopData[shop.shop_id]!
    const video = ownData.videos.find((v) => !v.is_brand && ownData.facts.videos.rows(v.video_id).some((r) => r.values.gmv > 0))!
    const range = { from: own.world.axis.date(video.post_day), to: own.world.axis.date(Math.min(video.post_day + 30, own.world.axis.todayIndex)) }
    const table = ownData.facts.affiliates
    const e = table.indexOf(video.creator_id)
    for (let r = table.offsets[e]!; r < table.offsets[e + 1]!; r++) table.columns.gmv[r] = Math.round((table.columns.video_gmv[r]! / 2) * 100) / 100
    const within = (date: string) => date >= range.from && date <= range.to
    const gmv = table.rows(video.creator_id).filter((r) => within(r.date)).reduce((s, r) => s + r.values.gmv, 0)
    const videoGmv = table.rows(video.creator_id).filter((r) => within(r.date)).reduce((s, r) => s + r.values.video_gmv, 0)
    expect(videoGmv).toBeGreaterThan(gmv + 0.01)
    const posted = ownData.videos.filter((v) => v.creator_id === video.creator_id && within(own.world.axis.date(v.post_day)))
    const newVideoGmv = posted.reduce((s, v) => s + ownData.facts.videos.rows(v.video_id).filter((r) => within(r.date)).reduce((t, r) => t + r.values.gmv, 0), 0)
    expect(newVideoGmv).toBeGreaterThan(gmv + 0.01)

    const route = createOperationRoutes(own, { baseUrl: 'https://review.test' }).find((r) => r.op.operationId === 'searchTimeseriesAffiliates')!
    const body = { page_size: 100, page_number: 1, search_params: { date_range: range, handle: video.handle } }
    const response = (await getResponse([route.handler], new Request('https://review.test/timeseries/affiliates', {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id }, body: JSON.stringify(body),
    })))!
    const text = await response.text()
    expect(response.status, text).toBe(200)
    expect(contractProblem(own.contract, route.op, response.status, text)).toBeUndefined()
    const row = (JSON.parse(text).data as Array<Record<string, number | string>>).find((r) => r.handle === video.handle)!
    expect(row.gmv as number).toBeCloseTo(gmv, 2)
    expect(row.video_gmv as number).toBeCloseTo(gmv, 2)
    expect(row.new_video_gmv as number).toBeLessThanOrEqual((row.gmv as number) + 1e-9)
  })
})
