/**
 * Timeseries searches against the mock, in-process (spec: Timeseries searches; Resources: Product,
 * SKU, Affiliate and Video timeseries rows; Limits). Expected values are recomputed here from the
 * world's fact rows (`FactTable.rows`, not the mock's prefix sums).
 */
import { describe, expect, it } from 'vitest'
import type { FactTable, ShopData } from '../fixtures/index.ts'
import { mockHarness } from './support/harness.ts'
import { editableWorldMock } from './support/editable-world.ts'

const { state, mainShop: shop, post } = mockHarness()
const data: ShopData = state.world.shopData[shop.shop_id]!
const { axis } = state.world

const RANGE = { from: '2026-01-01', to: '2026-02-28' }
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(0.011)

/** Σ metric over the entity's fact rows dated within [from, to] (all rows without a range). */
function factSum(table: FactTable, id: string, metric: string, range?: { from: string; to: string }): number {
  return table.rows(id).filter((r) => !range || (r.date >= range.from && r.date <= range.to)).reduce((s, r) => s + (r.values as Record<string, number>)[metric]!, 0)
}
/** The level on the entity's latest reporting day within the range, or 0. */
function latestIn(table: FactTable, id: string, metric: string, range: { from: string; to: string }): number {
  const rows = table.rows(id).filter((r) => r.date >= range.from && r.date <= range.to)
  return rows.length ? (rows[rows.length - 1]!.values as Record<string, number>)[metric]! : 0
}
const inRange = (day: number, range: { from: string; to: string }) => axis.date(day) >= range.from && axis.date(day) <= range.to
const isSorted = (values: number[], direction: 'ASC' | 'DESC') => values.every((v, i) => i === 0 || (direction === 'ASC' ? values[i - 1]! <= v : values[i - 1]! >= v))

async function allRows(path: string, searchParams: Record<string, unknown>) {
  const res = await post(path, { page_size: 10_000, page_number: 1, search_params: searchParams })
  expect(res.status).toBe(200)
  return res.json.data as any[]
}

describe('timeseries: products (spec: Timeseries searches)', () => {
  it('timeseries: product rows sum the daily facts over date_range (spec: Timeseries searches)', async () => {
    const rows = await allRows('/timeseries/products', { date_range: RANGE })
    expect(rows.map((r) => r.product_id).sort()).toEqual(data.products.map((p) => p.product_id).sort())
    for (const row of rows) {
      const product = data.products.find((p) => p.product_id === row.product_id)!
      expect(row).toMatchObject({ product_name: product.product_name, price: product.price, status: product.status, is_open_plan: product.is_open_plan })
      for (const metric of ['total_gmv', 'affiliate_gmv', 'video_gmv', 'live_gmv', 'shop_tab_gmv', 'shop_tab_impressions', 'units_sold', 'subscription_gmv', 'new_subscriptions']) {
        close(row[metric], factSum(data.facts.products, row.product_id, metric, RANGE))
      }
    }
  })

  it('timeseries: without date_range the product rows are all-time (units_sold = the product lifetime units) (spec: Timeseries searches)', async () => {
    const rows = await allRows('/timeseries/products', {})
    for (const row of rows) {
      close(row.total_gmv, factSum(data.facts.products, row.product_id, 'total_gmv'))
      expect(row.units_sold).toBe(data.products.find((p) => p.product_id === row.product_id)!.units_sold)
    }
  })

  it('timeseries: subscription_gmv and new_subscriptions are period totals; active and recurring subscriptions are the level at each product\'s latest reporting day in the window (spec: Timeseries searches, subscription notes)', async () => {
    const subscribed = data.products.filter((p) => p.subscription_enabled)
    expect(subscribed.length).toBeGreaterThan(0)
    const rows = await allRows('/timeseries/products', { date_range: RANGE })
    for (const product of subscribed) {
      const row = rows.find((r) => r.product_id === product.product_id)!
      close(row.subscription_gmv, factSum(data.facts.products, product.product_id, 'subscription_gmv', RANGE))
      expect(row.new_subscriptions).toBe(factSum(data.facts.products, product.product_id, 'new_subscriptions', RANGE))
      for (const metric of ['active_subscriptions', 'recurring_subscriptions']) {
        expect(row[metric]).toBe(latestIn(data.facts.products, product.product_id, metric, RANGE))
      }
    }
    // Point-in-time, never summed: the level is far below the sum of the window's daily levels.
    const busiest = subscribed.map((p) => rows.find((r) => r.product_id === p.product_id)!).sort((a, b) => b.active_subscriptions - a.active_subscriptions)[0]!
    expect(busiest.active_subscriptions).toBeGreaterThan(0)
    expect(busiest.active_subscriptions).toBeLessThan(factSum(data.facts.products, busiest.product_id, 'active_subscriptions', RANGE))
  })

  it('timeseries: a window before a product reported gives 0 point-in-time counts, not a level carried from outside the window (spec: Timeseries searches)', async () => {
    const product = data.products.find((p) => p.subscription_enabled && data.facts.products.span(p.product_id)!.first > 0)!
    expect(product).toBeDefined()
    const first = data.facts.products.span(product.product_id)!.first
    const before = { from: axis.date(0), to: axis.date(first - 1) }
    const [row] = await allRows('/timeseries/products', { date_range: before, product_id: product.product_id })
    expect(row).toMatchObject({ total_gmv: 0, active_subscriptions: 0, recurring_subscriptions: 0 })
  })

  it('timeseries: product_id narrows to one product; an unknown id gives no rows (spec: Timeseries searches)', async () => {
    const id = data.products[1]!.product_id
    const one = await post('/timeseries/products', { search_params: { product_id: id } })
    expect(one.json.data.map((r: any) => r.product_id)).toEqual([id])
    expect(one.json).toMatchObject({ has_more: false, total_count: 1 })
    const none = await post('/timeseries/products', { search_params: { product_id: 'no-such-product' } })
    expect(none.json).toEqual({ data: [], has_more: false, total_count: 0 })
  })

  it.each([
    'total_gmv', 'affiliate_gmv', 'video_gmv', 'live_gmv', 'shop_tab_gmv', 'shop_tab_impressions', 'units_sold',
    'subscription_gmv', 'new_subscriptions', 'active_subscriptions', 'recurring_subscriptions',
  ])('timeseries: products sort by %s ASC and DESC (spec: Timeseries searches)', async (sortBy) => {
    for (const direction of ['ASC', 'DESC'] as const) {
      const rows = await allRows('/timeseries/products', { date_range: RANGE, sort_by: sortBy, sort_direction: direction })
      expect(isSorted(rows.map((r) => r[sortBy]), direction)).toBe(true)
    }
  })

  it('timeseries: sort_by outside the listed values is 400 (spec: Timeseries searches)', async () => {
    const res = await post('/timeseries/products', { search_params: { sort_by: 'orders' } })
    expect(res.status).toBe(400)
    expect(res.json.error).toMatch(/sort_by/)
  })

  it('timeseries: pages carry has_more and total_count; the pages together are the whole result (spec: Timeseries searches; Conventions 2)', async () => {
    const all = await allRows('/timeseries/products', { date_range: RANGE })
    const seen: string[] = []
    for (let page = 1; page <= 3; page++) {
      const res = await post('/timeseries/products', { page_size: 3, page_number: page, search_params: { date_range: RANGE } })
      expect(res.json.total_count).toBe(all.length)
      expect(res.json.has_more).toBe(page * 3 < all.length)
      seen.push(...res.json.data.map((r: any) => r.product_id))
    }
    expect(seen).toEqual(all.map((r) => r.product_id))
  })

  it('timeseries: date_range with from after to is 400 naming the field (decision: a reversed range is refused, not read as empty)', async () => {
    const res = await post('/timeseries/products', { search_params: { date_range: { from: '2026-02-01', to: '2026-01-01' } } })
    expect(res.status).toBe(400)
    expect(res.json.error).toBe('search_params.date_range.from must not be after search_params.date_range.to')
  })
})

describe('timeseries: SKUs (spec: Timeseries searches)', () => {
  it('timeseries: SKU rows sum gmv, units_sold, orders and gross_sales over the window (spec: Timeseries searches)', async () => {
    const rows = await allRows('/timeseries/skus', { date_range: RANGE })
    expect(rows).toHaveLength(data.skus.length)
    for (const row of rows) {
      const sku = data.skus.find((s) => s.sku_id === row.sku_id)!
      expect(row).toMatchObject({ sku_name: sku.sku_name, product_id: sku.product_id, product_name: sku.product_name, price: sku.price })
      for (const metric of ['gmv', 'units_sold', 'orders', 'gross_sales']) close(row[metric], factSum(data.facts.skus, sku.sku_id, metric, RANGE))
    }
  })

  it('timeseries: SKU filters product_id and sku_id; sort by each listed key (spec: Timeseries searches)', async () => {
    const productId = data.skus[0]!.product_id
    const byProduct = await allRows('/timeseries/skus', { product_id: productId })
    expect(byProduct.map((r) => r.sku_id).sort()).toEqual(data.skus.filter((s) => s.product_id === productId).map((s) => s.sku_id).sort())
    const bySku = await allRows('/timeseries/skus', { sku_id: data.skus[2]!.sku_id })
    expect(bySku.map((r) => r.sku_id)).toEqual([data.skus[2]!.sku_id])
    for (const sortBy of ['gmv', 'units_sold', 'orders', 'gross_sales']) {
      for (const direction of ['ASC', 'DESC'] as const) {
        const rows = await allRows('/timeseries/skus', { date_range: RANGE, sort_by: sortBy, sort_direction: direction })
        expect(isSorted(rows.map((r) => r[sortBy]), direction)).toBe(true)
      }
    }
    const res = await post('/timeseries/skus', { page_size: 100, search_params: {} })
    expect(res.json).toMatchObject({ has_more: false, total_count: data.skus.length })
  })
})

describe('timeseries: affiliates (spec: Timeseries searches; Resources: Affiliate timeseries row)', () => {
  /** The creator's expected window figures, from the fact rows and the records. */
  function expected(creatorId: string, range?: { from: string; to: string }) {
    const f = data.facts.affiliates
    const videos = data.videos.filter((v) => v.creator_id === creatorId && (!range || inRange(v.post_day, range)))
    const newVideoGmv = videos.reduce((s, v) => s + factSum(data.facts.videos, v.video_id, 'gmv', range), 0)
    const lives = data.lives.filter((l) => l.creator_id === creatorId && (!range || inRange(l.start_day, range)))
    return {
      gmv: factSum(f, creatorId, 'gmv', range),
      video_gmv: factSum(f, creatorId, 'video_gmv', range),
      new_video_gmv: newVideoGmv,
      live_gmv: lives.reduce((s, l) => s + l.gmv, 0),
      commission: factSum(f, creatorId, 'commission', range),
      units_sold: factSum(f, creatorId, 'units_sold', range),
      views: factSum(f, creatorId, 'views', range),
      likes: factSum(f, creatorId, 'likes', range),
      comments: factSum(f, creatorId, 'comments', range),
      video_count: videos.length,
      live_count: lives.length,
    }
  }
  const creatorIdOf = (handle: string) => data.affiliates.find((a) => a.handle === handle)!.creator_id

  it('timeseries: affiliate rows carry the creator\'s window metrics: gmv, video_gmv, new_video_gmv (videos posted in the range), live_gmv from LIVE sessions, counts (spec: Resources: Affiliate timeseries row)', async () => {
    const rows = await allRows('/timeseries/affiliates', { date_range: RANGE })
    expect(rows.length).toBeGreaterThan(3)
    for (const row of rows) {
      const e = expected(creatorIdOf(row.handle), RANGE)
      for (const key of ['gmv', 'video_gmv', 'commission', 'units_sold', 'views', 'likes', 'comments', 'live_gmv']) close(row[key], (e as Record<string, number>)[key]!)
      close(row.new_video_gmv, Math.min(e.new_video_gmv, e.video_gmv))
      expect(row.video_count).toBe(e.video_count)
      expect(row.live_count).toBe(e.live_count)
      // spec: video_gmv clamped to gmv; new_video_gmv a subset of video_gmv.
      expect(row.new_video_gmv).toBeLessThanOrEqual(row.video_gmv)
      expect(row.video_gmv).toBeLessThanOrEqual(row.gmv)
    }
  })

  it('timeseries: GMV in the window from a video posted before it counts in video_gmv but not in new_video_gmv (spec: Resources: Affiliate timeseries row)', async () => {
    // A creator video still selling after its post day; the window starts the day after it was posted.
    const video = data.videos.find((v) => !v.is_brand && data.facts.videos.sum('gmv', v.video_id, v.post_day + 1, v.post_day + 30) > 0)!
    const range = { from: axis.date(video.post_day + 1), to: axis.date(video.post_day + 30) }
    const row = (await allRows('/timeseries/affiliates', { date_range: range, handle: video.handle })).find((r) => r.handle === video.handle)!
    const e = expected(video.creator_id, range)
    close(row.new_video_gmv, e.new_video_gmv)
    expect(row.video_gmv - row.new_video_gmv).toBeGreaterThanOrEqual(factSum(data.facts.videos, video.video_id, 'gmv', range) - 0.01)
  })

  it('timeseries: without a range new_video_gmv equals video_gmv and figures are all-time (spec: Resources: Affiliate timeseries row)', async () => {
    const rows = await allRows('/timeseries/affiliates', {})
    for (const row of rows) {
      expect(row.new_video_gmv).toBe(row.video_gmv)
      close(row.gmv, expected(creatorIdOf(row.handle)).gmv)
    }
  })

  it('timeseries: only creators with activity for the shop in the window are rows (decision: no all-zero rows)', async () => {
    const rows = await allRows('/timeseries/affiliates', { date_range: RANGE })
    const active = data.affiliates.filter((a) => {
      const e = expected(a.creator_id, RANGE)
      return e.gmv > 0 || e.views > 0 || e.units_sold > 0 || e.commission > 0 || e.video_count > 0 || e.live_count > 0
    })
    expect(rows.map((r) => r.handle).sort()).toEqual(active.map((a) => a.handle).sort())
  })

  it('timeseries: derived rates: engagement_rate and conversion_rate in percent, avg_gmv_per_view, avg_order_value; 0 on a zero denominator (decision: the contract types them as non-null numbers) (spec: Resources: Affiliate timeseries row)', async () => {
    const rows = await allRows('/timeseries/affiliates', { date_range: RANGE })
    const rate = (n: number, d: number, scale = 1) => (d > 0 ? (n / d) * scale : 0)
    for (const r of rows) {
      expect(r.engagement_rate).toBeCloseTo(rate(r.likes + r.comments, r.views, 100), 3)
      expect(r.conversion_rate).toBeCloseTo(rate(r.units_sold, r.views, 100), 3)
      expect(r.avg_gmv_per_view).toBeCloseTo(rate(r.gmv, r.views), 3)
      expect(r.avg_order_value).toBeCloseTo(rate(r.gmv, r.units_sold), 3)
    }
    // Creators selling only through LIVEs or showcases in the window have no views.
    const noViews = rows.find((r) => r.views === 0)!
    expect(noViews).toBeDefined()
    expect(noViews).toMatchObject({ engagement_rate: 0, conversion_rate: 0, avg_gmv_per_view: 0 })
  })

  it('timeseries: creator_oecuid is the creator\'s stable id and the profile is the platform-wide creator\'s (spec: Resources: Affiliate timeseries row)', async () => {
    const rows = await allRows('/timeseries/affiliates', {})
    for (const row of rows) {
      const affiliate = data.affiliates.find((a) => a.handle === row.handle)!
      const creator = state.world.creators[affiliate.creator_index]!
      expect(row).toMatchObject({
        creator_oecuid: creator.creator_oecuid, nickname: creator.nickname, follower_cnt: creator.follower_cnt, video_avg_view_cnt: creator.video_avg_view_cnt,
        med_gmv_revenue: creator.med_gmv_revenue, post_rate: creator.post_rate ?? 'N/A', face_visibility: creator.face_visibility, tags: affiliate.tags,
      })
      expect(row.creator_oecuid).not.toBe(row.handle)
    }
    const again = await allRows('/timeseries/affiliates', {})
    expect(again.map((r) => r.creator_oecuid)).toEqual(rows.map((r) => r.creator_oecuid))
  })

  it('timeseries: sort_by live_gmv is 400: live_gmv is joined after ranking (spec: Timeseries searches)', async () => {
    const res = await post('/timeseries/affiliates', { search_params: { sort_by: 'live_gmv' } })
    expect(res.status).toBe(400)
    expect(res.json.error).toMatch(/live_gmv is not sortable/)
  })

  it.each(['gmv', 'video_gmv', 'new_video_gmv', 'commission', 'units_sold', 'video_count', 'live_count', 'views', 'likes', 'comments'])(
    'timeseries: affiliates sort by %s ASC and DESC (spec: Timeseries searches)',
    async (sortBy) => {
      for (const direction of ['ASC', 'DESC'] as const) {
        const rows = await allRows('/timeseries/affiliates', { sort_by: sortBy, sort_direction: direction })
        expect(isSorted(rows.map((r) => r[sortBy]), direction)).toBe(true)
      }
    },
  )

  it('timeseries: the affiliate handle filter is a case-insensitive substring (decision: as the spark handle filter)', async () => {
    const rows = await allRows('/timeseries/affiliates', {})
    const handle = rows[0]!.handle as string
    const part = handle.slice(1, 5).toUpperCase()
    const filtered = await allRows('/timeseries/affiliates', { handle: part })
    expect(filtered.map((r) => r.handle)).toEqual(rows.filter((r) => r.handle.includes(part.toLowerCase())).map((r) => r.handle))
    expect(filtered.map((r) => r.handle)).toContain(handle)
  })

  it('timeseries: campaign_id narrows each creator to the posts and LIVEs of that campaign (spec: Timeseries searches)', async () => {
    const campaignId = data.videos.find((v) => v.campaign_id && !v.is_brand)!.campaign_id!
    const rows = await allRows('/timeseries/affiliates', { campaign_id: campaignId })
    const creators = new Set([...data.videos, ...data.slideshows, ...data.lives].filter((c) => c.campaign_id === campaignId && c.creator_id).map((c) => c.creator_id))
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      const creatorId = creatorIdOf(row.handle)
      expect(creators.has(creatorId)).toBe(true)
      const posts = [...data.videos, ...data.slideshows].filter((v) => v.creator_id === creatorId && v.campaign_id === campaignId)
      const lives = data.lives.filter((l) => l.creator_id === creatorId && l.campaign_id === campaignId)
      const postGmv = posts.reduce((s, v) => s + factSum(data.videos.includes(v) ? data.facts.videos : data.facts.slideshows, v.video_id, 'gmv'), 0)
      close(row.gmv, postGmv + lives.reduce((s, l) => s + l.gmv, 0))
      expect(row.video_count).toBe(posts.filter((v) => data.videos.includes(v)).length)
      expect(row.live_count).toBe(lives.length)
    }
  })

  it('timeseries: product_id narrows each creator to the posts attributed to it and that product\'s share of LIVEs (spec: Timeseries searches)', async () => {
    const productId = data.products[0]!.product_id
    const rows = await allRows('/timeseries/affiliates', { product_id: productId, sort_by: 'gmv' })
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      const creatorId = creatorIdOf(row.handle)
      const videos = data.videos.filter((v) => v.creator_id === creatorId && v.product === productId)
      const liveGmv = data.lives.filter((l) => l.creator_id === creatorId).flatMap((l) => l.products_stats).filter((s) => s.product_id === productId).reduce((s, x) => s + x.gmv, 0)
      close(row.video_gmv, videos.reduce((s, v) => s + factSum(data.facts.videos, v.video_id, 'gmv'), 0))
      close(row.live_gmv, liveGmv)
    }
  })
})

describe('timeseries: videos and slideshows (spec: Timeseries searches; Resources: Video timeseries row)', () => {
  it('timeseries: one row per video that reported in the window, with its own metrics and post_time MM/DD/YYYY (spec: Resources: Video timeseries row)', async () => {
    const rows = await allRows('/timeseries/videos', { date_range: RANGE })
    const reporting = data.videos.filter((v) => data.facts.videos.rows(v.video_id).some((r) => r.date >= RANGE.from && r.date <= RANGE.to))
    expect(rows.map((r) => r.video_id).sort()).toEqual(reporting.map((v) => v.video_id).sort())
    for (const row of rows) {
      const video = data.videos.find((v) => v.video_id === row.video_id)!
      const d = axis.date(video.post_day)
      expect(row).toMatchObject({ handle: video.handle, title: video.title, product_id: video.product, post_time: `${d.slice(5, 7)}/${d.slice(8, 10)}/${d.slice(0, 4)}` })
      for (const metric of ['gmv', 'commission', 'views', 'likes', 'comments', 'units_sold']) close(row[metric], factSum(data.facts.videos, video.video_id, metric, RANGE))
      expect(row.engagement_rate).toBeCloseTo(row.views ? ((row.likes + row.comments) / row.views) * 100 : 0, 3)
      expect(row.avg_order_value).toBeCloseTo(row.units_sold ? row.gmv / row.units_sold : 0, 3)
    }
  })

  it('timeseries: videos filter by handle and product_id and sort by views (spec: Timeseries searches)', async () => {
    const video = data.videos.find((v) => !v.is_brand)!
    const byHandle = await allRows('/timeseries/videos', { handle: video.handle })
    expect(byHandle.every((r) => r.handle.includes(video.handle))).toBe(true)
    expect(byHandle.map((r) => r.video_id)).toContain(video.video_id)
    const byProduct = await allRows('/timeseries/videos', { product_id: video.product, sort_by: 'views', sort_direction: 'ASC' })
    expect(byProduct.every((r) => r.product_id === video.product)).toBe(true)
    expect(isSorted(byProduct.map((r) => r.views), 'ASC')).toBe(true)
    // campaign_id is a filter of the slideshow search only: on the videos search it narrows nothing.
    const withCampaign = data.videos.find((v) => v.campaign_id)!
    const all = await allRows('/timeseries/videos', { date_range: RANGE })
    const campaignAsked = await post('/timeseries/videos', { page_size: 100, page_number: 1, search_params: { date_range: RANGE, campaign_id: withCampaign.campaign_id } })
    expect(campaignAsked.status).toBe(200)
    expect(campaignAsked.json.total_count).toBe(all.length)
    const bad = await post('/timeseries/videos', { search_params: { sort_by: 'nonsense' } })
    expect(bad.status).toBe(400)
    expect(bad.json.error).toMatch(/^search_params.sort_by must be one of "gmv", /)
  })

  it('timeseries: slideshows require date_range: 400 Missing date_range (from/to) without it (spec: Timeseries searches)', async () => {
    for (const body of [{ search_params: { sort_by: 'gmv' } }, { search_params: { date_range: { from: RANGE.from } } }]) {
      const res = await post('/timeseries/slideshows', body)
      expect(res.status).toBe(400)
      expect(res.json.error).toBe('Missing date_range (from/to)')
    }
  })

  it('timeseries: slideshow rows add slideshow_link and filter by campaign_id (spec: Resources: Slideshow)', async () => {
    const range = { from: axis.date(0), to: axis.today }
    const rows = await allRows('/timeseries/slideshows', { date_range: range })
    expect(rows.length).toBe(data.slideshows.length)
    for (const row of rows) {
      const slideshow = data.slideshows.find((s) => s.video_id === row.video_id)!
      expect(row.slideshow_link).toBe(slideshow.slideshow_url)
      close(row.gmv, factSum(data.facts.slideshows, slideshow.video_id, 'gmv', range))
    }
    const withCampaign = data.slideshows.find((s) => s.campaign_id)
    if (withCampaign) {
      const filtered = await allRows('/timeseries/slideshows', { date_range: range, campaign_id: withCampaign.campaign_id })
      expect(filtered.map((r) => r.video_id).sort()).toEqual(data.slideshows.filter((s) => s.campaign_id === withCampaign.campaign_id).map((s) => s.video_id).sort())
    }
  })
})

describe('timeseries: every search pages with has_more and total_count (spec: Conventions 2; Timeseries searches)', () => {
  const searches: Array<[string, Record<string, unknown>, string, string]> = [
    ['/timeseries/products', {}, 'total_gmv', 'product_id'],
    ['/timeseries/skus', {}, 'gmv', 'sku_id'],
    ['/timeseries/affiliates', {}, 'gmv', 'handle'],
    ['/timeseries/videos', {}, 'gmv', 'video_id'],
    ['/timeseries/slideshows', { date_range: { from: axis.date(0), to: axis.today } }, 'gmv', 'video_id'],
  ]
  it.each(searches)('timeseries: %s pages of 2 add up to the whole result, sorted by default on the first metric DESC (decision: defaults total_gmv or gmv, DESC)', async (path, searchParams, metric, id) => {
    const all = await allRows(path, searchParams)
    expect(all.length).toBeGreaterThan(2)
    expect(isSorted(all.map((r) => r[metric]), 'DESC')).toBe(true)
    const seen: string[] = []
    for (let page = 1; (page - 1) * 2 < all.length; page++) {
      const res = await post(path, { page_size: 2, page_number: page, search_params: searchParams })
      expect(res.json).toMatchObject({ has_more: page * 2 < all.length, total_count: all.length })
      seen.push(...res.json.data.map((r: any) => r[id]))
    }
    expect(seen).toEqual(all.map((r) => r[id]))
  })
})

describe('timeseries: pagination depth (spec: Limits)', () => {
  it('timeseries: results stop at 10,000 rows: the page ending at row 10,000 has no more, the next is empty; total_count still counts every row (spec: Limits)', async () => {
    // A world of more than 10,000 SKUs: this test's own mock, whose world it may enlarge.
    const big = editableWorldMock()
    const skus = big.state.world.shopData[big.state.world.shops[0]!.shop_id]!.skus
    skus.push(...Array.from({ length: 10_050 }, (_, i) => ({ ...skus[0]!, sku_id: `depth-${String(i).padStart(5, '0')}` })))
    const last = await big.post('/timeseries/skus', { page_size: 100, page_number: 100 })
    expect(last.json.data).toHaveLength(100)
    expect(last.json).toMatchObject({ has_more: false, total_count: skus.length })
    const beyond = await big.post('/timeseries/skus', { page_size: 100, page_number: 101 })
    expect(beyond.json).toMatchObject({ data: [], has_more: false })
    const before = await big.post('/timeseries/skus', { page_size: 100, page_number: 99 })
    expect(before.json.has_more).toBe(true)
  })
})
