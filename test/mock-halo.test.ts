/**
 * The halo report and its platform state machine, in-process (msw getResponse) against the small
 * world (spec: Off-platform sales correlation; States and transitions: Halo; Limits: halo date range).
 * Expected numbers are computed here straight from the world's fact tables.
 */
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { addDays, type ShopData } from '../fixtures/index.ts'
import { createHandlers, createMockState, type MockState } from '../mock/index.ts'
import { contractProblem } from '../mock/testing.ts'
import { byCodePoint } from './support/order.ts'

const BASE = 'https://halo.example.com'
const NOW = '2026-02-15T09:30:00.000Z'
const TODAY = NOW.slice(0, 10)
const HOUR = 3_600_000

interface Reply {
  status: number
  json: any
}

/**
 * A mock with a frozen clock and a caller that checks every answer against the contract;
 * `editableWorld` for a test that edits the world in place (an edge case the generator does not make).
 */
function harness(now = NOW, { editableWorld = false } = {}) {
  const state = createMockState({ seed: 42, now, rateLimit: false, strict: true, ...(editableWorld ? { freezeWorld: false } : {}) })
  const handlers = createHandlers(state, { baseUrl: BASE })
  const [main, second, unconnected] = state.world.shops
  async function call(method: 'GET' | 'POST', path: string, options: { body?: unknown; query?: string; shop?: string; key?: string } = {}): Promise<Reply> {
    const url = `${BASE}${path}${options.query ? `?${options.query}` : ''}`
    const headers = { 'content-type': 'application/json', 'x-api-key': options.key ?? 'demo-key', 'x-shop-id': options.shop ?? main.shop_id }
    const response = (await getResponse(handlers, new Request(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) })))!
    const text = await response.text()
    const op = state.contract.operations.find((o) => o.method === method && o.path === path)!
    expect(contractProblem(state.contract, op, response.status, text)).toBeUndefined()
    return { status: response.status, json: JSON.parse(text) }
  }
  const report = async (body: Record<string, unknown>, shop = main.shop_id) => {
    const reply = await call('POST', '/halo-effect', { body, shop })
    expect(reply.status, JSON.stringify(reply.json)).toBe(200)
    return reply.json.data
  }
  return { state, call, report, main, second, unconnected }
}

const range = (from: string, to: string) => ({ date_range: { from, to } })
const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits

/** The world's daily numbers of a range, computed directly from the fact tables. */
function worldDays(state: MockState, shopId: string, from: string, to: string, options: { product?: string; excluded?: string[] } = {}) {
  const data: ShopData = state.world.shopData[shopId]
  const axis = state.world.axis
  const stores = Object.fromEntries(data.stores.map((s) => [s.platform, s]))
  const days = []
  for (let d = axis.dayIndex(from); d <= axis.dayIndex(to); d++) {
    const views = options.product
      ? data.videos.filter((v) => v.products.includes(options.product!)).reduce((s, v) => s + (data.facts.videos.value('views', v.video_id, d) ?? 0), 0)
      : (data.facts.contentTotals.value('video_views', 0, d) ?? 0)
    const gmv = options.product ? data.facts.products.value('total_gmv', options.product, d) : data.facts.shop.value('platform_gmv', 0, d)
    const revenue = (platform: string) => {
      const gross = stores[platform] ? data.facts.stores.value('revenue', stores[platform].store_id, d) : null
      return gross !== null && options.excluded?.includes(platform) ? Math.max(0, gross - (gmv ?? 0)) : gross
    }
    days.push({ day: d, date: axis.date(d), views, gmv, storefront: revenue('storefront'), marketplace: revenue('marketplace') })
  }
  return days
}

/** Pearson r and the least-squares slope, written out independently of the mock. */
function pearson(xs: number[], ys: number[]) {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  const cov = xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0)
  const vx = xs.reduce((s, x) => s + (x - mx) ** 2, 0)
  const vy = ys.reduce((s, y) => s + (y - my) ** 2, 0)
  return { r: cov / Math.sqrt(vx * vy), slope: cov / vx }
}

const FROM = addDays(TODAY, -120)
const TO = addDays(TODAY, -1)

describe('halo report: range and request forms (spec: Off-platform sales correlation; Limits: halo date range)', () => {
  const h = harness()

  it.each([
    ['366 days (inclusive) is served', addDays(TO, -365), TO, 200, undefined],
    ['367 days is refused', addDays(TO, -366), TO, 400, 'date_range must span at most 366 days'],
    ['from after to is refused', TO, addDays(TO, -1), 400, 'date_range.from must not be after date_range.to'],
    ['a single day is served', TO, TO, 200, undefined],
  ])('halo: %s (spec: Limits: halo date range at most 366 days)', async (_title, from, to, status, error) => {
    const reply = await h.call('POST', '/halo-effect', { body: range(from, to) })
    expect(reply.status).toBe(status)
    if (error) expect(reply.json).toEqual({ error })
    else expect(reply.json.data.series).toHaveLength(h.state.world.axis.dayIndex(to) - h.state.world.axis.dayIndex(from) + 1)
  })

  it('halo: a request without a date range is refused with Missing date_range (from/to) (spec: Errors)', async () => {
    expect(await h.call('POST', '/halo-effect', { body: {} })).toEqual({ status: 400, json: { error: 'Missing date_range (from/to)' } })
    expect(await h.call('GET', '/halo-effect', { query: 'date_from=2026-01-01' })).toEqual({ status: 400, json: { error: 'Missing date_range (from/to)' } })
  })

  it('halo: the GET form takes date_from/date_to instead of date_range and answers as the POST does (spec: Off-platform sales correlation)', async () => {
    const post = await h.call('POST', '/halo-effect', { body: { ...range('2026-01-01', '2026-01-31'), exclude_platform_gmv: ['storefront', 'marketplace'], granularity: 'week' } })
    const flat = await h.call('GET', '/halo-effect', { query: 'date_from=2026-01-01&date_to=2026-01-31&exclude_platform_gmv=storefront,marketplace&granularity=week' })
    const deep = await h.call('GET', '/halo-effect', { query: 'date_range[from]=2026-01-01&date_range[to]=2026-01-31&exclude_platform_gmv=true&granularity=week' })
    expect(flat).toEqual(post)
    expect(deep).toEqual(post)
  })

  it('halo: an unknown platform_product_id is refused with 400 naming the field', async () => {
    expect(await h.call('POST', '/halo-effect', { body: { ...range(FROM, TO), platform_product_id: 'no-such-product' } })).toEqual({
      status: 400,
      json: { error: 'platform_product_id: no product no-such-product in this shop' },
    })
  })
})

describe('halo report: series, statistics and totals from the daily facts (spec: Off-platform sales correlation)', () => {
  const h = harness()

  it('halo: series has one row per day: views, platform GMV, each platform\'s revenue and their sum; missing data is null, never 0', async () => {
    const data = await h.report(range(FROM, TO))
    const days = worldDays(h.state, h.main.shop_id, FROM, TO)
    expect(data).toMatchObject({ date_from: FROM, date_to: TO, granularity: 'day', platform_product_id: null, platform_product_name: null })
    expect(data.series).toEqual(
      days.map((d) => ({
        date: d.date,
        platform_views: d.views,
        platform_gmv: d.gmv === null ? null : round(d.gmv),
        storefront_revenue: d.storefront === null ? null : round(d.storefront),
        marketplace_revenue: d.marketplace === null ? null : round(d.marketplace),
        off_platform_revenue: d.storefront === null || d.marketplace === null ? null : round(d.storefront + d.marketplace),
      })),
    )
    // The range holds days without a shop report and days a platform did not report: they are null.
    expect(data.series.some((r: any) => r.storefront_revenue === null && r.marketplace_revenue !== null)).toBe(true)
    expect(data.series.some((r: any) => r.off_platform_revenue === null)).toBe(true)
    expect(data.platform).toEqual({
      gmv: round(days.reduce((s, d) => s + (d.gmv ?? 0), 0)),
      views: days.reduce((s, d) => s + d.views, 0),
      gmv_source: 'shop_performance.platform_gmv',
    })
  })

  it('halo: a platform is null on every day before its data begins; off_platform_revenue is then null too (spec: Missing data is null, never 0)', async () => {
    const marketplace = h.state.world.shopData[h.main.shop_id].stores[1]
    const before = h.state.world.axis.date(marketplace.data_from_day - 1)
    const data = await h.report(range(addDays(before, -9), before))
    expect(data.series.every((r: any) => r.marketplace_revenue === null && r.off_platform_revenue === null)).toBe(true)
    expect(data.series.filter((r: any) => r.storefront_revenue !== null).length).toBeGreaterThan(0)
    expect(data.platforms.marketplace.totals).toEqual({ revenue: null, orders: null, units: null, aov: null, revenue_change_pct: null, orders_change_pct: null, units_change_pct: null })
    expect(data.halo).toMatchObject({ correlation: null, est_halo_revenue: null, revenue_per_1k_views: null, multiplier: null, total_off_platform_revenue: null, sample_size: 0, days_excluded_no_platform_data: 10 })
  })

  it('halo: statistics use the days where every reporting platform has data: Pearson, slope x views, revenue per 1k views, multiplier, sample size, excluded days', async () => {
    const data = await h.report(range(FROM, TO))
    const days = worldDays(h.state, h.main.shop_id, FROM, TO)
    const sample = days.filter((d) => d.storefront !== null && d.marketplace !== null)
    const xs = sample.map((d) => d.views)
    const ys = sample.map((d) => d.storefront! + d.marketplace!)
    const { r, slope } = pearson(xs, ys)
    const views = xs.reduce((a, b) => a + b, 0)
    const revenue = ys.reduce((a, b) => a + b, 0)
    const gmv = sample.reduce((s, d) => s + (d.gmv ?? 0), 0)
    expect(sample.length).toBeLessThan(days.length)
    expect(data.halo.correlation).toBeCloseTo(Math.max(0, r), 4)
    expect(data.halo.est_halo_revenue).toBeCloseTo(slope > 0 ? slope * views : 0, 1)
    expect(data.halo).toMatchObject({
      total_views: views,
      total_off_platform_revenue: round(revenue),
      total_platform_gmv: round(gmv),
      revenue_per_1k_views: round((revenue / views) * 1000),
      multiplier: round(revenue / gmv, 4),
      sample_size: sample.length,
      days_excluded_no_platform_data: days.length - sample.length,
    })
    expect(data.platforms.storefront.halo_revenue).toBe(round(sample.reduce((s, d) => s + d.storefront!, 0)))
    expect(data.platforms.marketplace.halo_revenue).toBe(round(sample.reduce((s, d) => s + d.marketplace!, 0)))
  })

  it('halo: the correlation is floored at 0 and est_halo_revenue is 0 when the slope is not positive', async () => {
    // Find a week of the world whose raw correlation is negative.
    const days = worldDays(h.state, h.main.shop_id, addDays(TODAY, -180), TO)
    let window: typeof days | undefined
    for (let i = 0; i + 7 <= days.length && !window; i++) {
      const w = days.slice(i, i + 7)
      if (w.some((d) => d.storefront === null || d.marketplace === null)) continue
      if (pearson(w.map((d) => d.views), w.map((d) => d.storefront! + d.marketplace!)).r < -0.05) window = w
    }
    expect(window).toBeDefined()
    const data = await h.report(range(window![0].date, window![6].date))
    expect(data.halo).toMatchObject({ correlation: 0, est_halo_revenue: 0, sample_size: 7 })
  })

  it.each([
    [1, null],
    [2, null],
    [3, 'number'],
  ])('halo: with %i active days the correlation is %s (null under 3 active days)', async (length, expected) => {
    const days = worldDays(h.state, h.main.shop_id, addDays(TODAY, -60), TO)
    const start = days.findIndex((_, i) => days.slice(i, i + 3).every((d) => d.storefront !== null && d.marketplace !== null && d.views > 0))
    const data = await h.report(range(days[start].date, days[start + length - 1].date))
    expect(data.halo.sample_size).toBe(length)
    if (expected === null) expect(data.halo.correlation).toBeNull()
    else expect(typeof data.halo.correlation).toBe('number')
  })

  it('halo: totals sum revenue, orders and units over the range (aov = revenue / orders) and compare the average day of the second half with the first', async () => {
    const data = await h.report(range(FROM, TO))
    const world = h.state.world
    const store = world.shopData[h.main.shop_id].stores[0]
    const values = (metric: 'revenue' | 'orders' | 'units') => {
      const out: Array<number | null> = []
      for (let d = world.axis.dayIndex(FROM); d <= world.axis.dayIndex(TO); d++) out.push(world.shopData[h.main.shop_id].facts.stores.value(metric, store.store_id, d))
      return out
    }
    const avg = (v: Array<number | null>) => {
      const known = v.filter((x): x is number => x !== null)
      return known.reduce((a, b) => a + b, 0) / known.length
    }
    const change = (v: Array<number | null>) => {
      const half = Math.floor(v.length / 2)
      return round((avg(v.slice(v.length - half)) / avg(v.slice(0, half)) - 1) * 100)
    }
    const sum = (v: Array<number | null>) => v.reduce<number>((a, b) => a + (b ?? 0), 0)
    const [revenue, orders, units] = [values('revenue'), values('orders'), values('units')]
    expect(data.platforms.storefront.totals).toEqual({
      revenue: round(sum(revenue)),
      orders: sum(orders),
      units: sum(units),
      aov: round(sum(revenue) / sum(orders)),
      revenue_change_pct: change(revenue),
      orders_change_pct: change(orders),
      units_change_pct: change(units),
    })
    expect(data.platforms.storefront.warnings).toEqual([`No storefront data for ${revenue.filter((v) => v === null).length} of ${revenue.length} days in the range`])
  })

  it('halo: warnings are present only when a platform\'s numbers are partial (days of the range without its data)', async () => {
    const days = worldDays(h.state, h.main.shop_id, addDays(TODAY, -60), TO)
    const start = days.findIndex((_, i) => i + 7 <= days.length && days.slice(i, i + 7).every((d) => d.storefront !== null && d.marketplace !== null))
    const complete = await h.report(range(days[start].date, days[start + 6].date))
    expect(complete.platforms.storefront.warnings).toBeUndefined()
    expect(complete.platforms.marketplace.warnings).toBeUndefined()
    const withToday = await h.report(range(addDays(TODAY, -6), TODAY)) // neither platform has today yet
    expect(withToday.platforms.marketplace.warnings).toEqual([expect.stringMatching(/^No marketplace data for \d+ of 7 days in the range$/)])
  })

  it('halo: top_videos_per_day lists each day\'s 4 most viewed videos and sums the rest in other; absent unless asked', async () => {
    const from = addDays(TODAY, -30)
    const data = await h.report({ ...range(from, TO), include_top_videos: true })
    const world = h.state.world
    const shop = world.shopData[h.main.shop_id]
    expect(data.top_videos_per_day).toHaveLength(30)
    let sawOther = false
    for (const entry of data.top_videos_per_day) {
      const day = world.axis.dayIndex(entry.date)
      const rows = shop.videos
        .filter((v) => shop.facts.videos.has(v.video_id, day))
        .map((v) => ({ video_id: v.video_id, handle: v.handle, views: shop.facts.videos.value('views', v.video_id, day)!, gmv: shop.facts.videos.value('gmv', v.video_id, day)! }))
        .sort((a, b) => b.views - a.views || byCodePoint(a.video_id, b.video_id))
      expect(entry.top_videos).toEqual(rows.slice(0, 4).map((v) => ({ ...v, gmv: round(v.gmv) })))
      if (rows.length > 4) {
        sawOther = true
        const rest = rows.slice(4)
        expect(entry.other).toEqual({ count: rest.length, views: rest.reduce((s, v) => s + v.views, 0), gmv: round(rest.reduce((s, v) => s + v.gmv, 0)) })
      } else expect(entry.other).toBeUndefined()
    }
    expect(sawOther).toBe(true)
    expect((await h.report(range(from, TO))).top_videos_per_day).toBeUndefined()
  })
})

describe('halo report: platform_product_id narrowing (spec: Off-platform sales correlation; States and transitions: not_linked)', () => {
  const h = harness()
  const shop = () => h.state.world.shopData[h.main.shop_id]

  it('halo: a product narrows platform numbers to daily_product_stats.total_gmv and its videos\' views; the linked platform keeps its link rows', async () => {
    const product = shop().products[0]
    const data = await h.report({ ...range(FROM, TO), platform_product_id: product.product_id })
    const days = worldDays(h.state, h.main.shop_id, FROM, TO, { product: product.product_id })
    expect(data).toMatchObject({ platform_product_id: product.product_id, platform_product_name: product.product_name })
    expect(data.platform).toEqual({
      gmv: round(days.reduce((s, d) => s + (d.gmv ?? 0), 0)),
      views: days.reduce((s, d) => s + d.views, 0),
      gmv_source: 'daily_product_stats.total_gmv',
    })
    expect(data.series.map((r: any) => r.platform_views)).toEqual(days.map((d) => d.views))
    expect(data.platforms.storefront).toMatchObject({ status: 'ok', linked_products: shop().stores[0].links })
    expect(data.series.map((r: any) => r.storefront_revenue)).toEqual(days.map((d) => (d.storefront === null ? null : round(d.storefront))))
  })

  it('halo: a platform without a link to the product answers not_linked with null numbers; off-platform revenue then comes from the linked platform alone', async () => {
    const product = shop().products[0] // linked on the storefront only
    const data = await h.report({ ...range(FROM, TO), platform_product_id: product.product_id })
    expect(data.platforms.marketplace).toMatchObject({ connected: true, status: 'not_linked', linked_products: [], halo_revenue: null, campaign_impact: [] })
    expect(data.platforms.marketplace.totals.revenue).toBeNull()
    expect(data.series.every((r: any) => r.marketplace_revenue === null)).toBe(true)
    expect(data.series.map((r: any) => r.off_platform_revenue)).toEqual(data.series.map((r: any) => r.storefront_revenue))
    const other = shop().products[1] // linked on the marketplace only
    const viaMarketplace = await h.report({ ...range(FROM, TO), platform_product_id: other.product_id })
    expect(viaMarketplace.platforms.storefront.status).toBe('not_linked')
    expect(viaMarketplace.platforms.marketplace).toMatchObject({ status: 'ok', linked_products: shop().stores[1].links })
  })

  it('halo: a product linked nowhere: both blocks not_linked, no off-platform revenue, no statistics', async () => {
    const data = await h.report({ ...range(FROM, TO), platform_product_id: shop().products[2].product_id })
    expect([data.platforms.storefront.status, data.platforms.marketplace.status]).toEqual(['not_linked', 'not_linked'])
    expect(data.series.every((r: any) => r.off_platform_revenue === null)).toBe(true)
    expect(data.halo).toMatchObject({ correlation: null, total_off_platform_revenue: null, sample_size: 0 })
    expect(data.halo.days_excluded_no_platform_data).toBeUndefined()
  })

  it('halo: multiplier is null when the platform had no GMV (a product linked before its launch)', async () => {
    // The world links no product before its launch: a mock of its own, whose world this test edits.
    const h = harness(NOW, { editableWorld: true })
    const shop = () => h.state.world.shopData[h.main.shop_id]
    const late = shop().products.find((p) => (shop().facts.products.span(p.product_id)?.first ?? 0) > 60)!
    shop().stores[0].links.push({ platform: 'storefront', platform_product_id: late.product_id, external_product_id: 'gid://test', external_variant_id: null, title: late.product_name })
    try {
      const launch = h.state.world.axis.date(shop().facts.products.span(late.product_id)!.first)
      const data = await h.report({ ...range(addDays(launch, -20), addDays(launch, -1)), platform_product_id: late.product_id })
      expect(data.series.every((r: any) => r.platform_gmv === null)).toBe(true)
      expect(data.halo.sample_size).toBeGreaterThan(0)
      expect(data.halo).toMatchObject({ multiplier: null, total_platform_gmv: 0 })
    } finally {
      shop().stores[0].links.pop()
    }
  })
})

describe('halo report: exclude_platform_gmv (spec: Off-platform sales correlation)', () => {
  const h = harness()

  it.each([
    [true, ['storefront', 'marketplace']],
    [['storefront'], ['storefront']],
    ['marketplace', ['marketplace']],
    [' storefront , marketplace ', ['storefront', 'marketplace']],
    [false, []],
    [[], []],
  ])('halo: exclude_platform_gmv %j nets %j of the day\'s platform GMV, floored at 0; totals stay gross', async (exclude, excluded) => {
    const data = await h.report({ ...range(FROM, TO), exclude_platform_gmv: exclude })
    const days = worldDays(h.state, h.main.shop_id, FROM, TO, { excluded })
    const gross = await h.report(range(FROM, TO))
    expect(data.series.map((r: any) => [r.storefront_revenue, r.marketplace_revenue])).toEqual(
      days.map((d) => [d.storefront === null ? null : round(d.storefront), d.marketplace === null ? null : round(d.marketplace)]),
    )
    for (const platform of ['storefront', 'marketplace']) {
      expect(data.platforms[platform].net_of_platform_gmv).toBe(excluded.includes(platform))
      expect(data.platforms[platform].totals).toEqual(gross.platforms[platform].totals)
    }
    if (excluded.length) expect(data.series.some((r: any) => excluded.some((p) => r[`${p}_revenue`] === 0))).toBe(true)
  })
})

describe('halo report: granularity (spec: Off-platform sales correlation)', () => {
  const h = harness()

  it.each(['week', 'month'] as const)('halo: granularity %s groups the series (weeks from Monday, calendar months, first period dated from); statistics stay daily', async (granularity) => {
    const from = '2025-12-10' // a Wednesday
    const to = '2026-02-14'
    const daily = await h.report(range(from, to))
    const grouped = await h.report({ ...range(from, to), granularity })
    const keyOf = (date: string) => (granularity === 'month' ? date.slice(0, 7) : addDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7)))
    const groups = new Map<string, any[]>()
    for (const row of daily.series) groups.set(keyOf(row.date), [...(groups.get(keyOf(row.date)) ?? []), row])
    const whole = (rows: any[], field: string) => (rows.some((r) => r[field] === null) ? null : round(rows.reduce((s, r) => s + r[field], 0)))
    expect(grouped.series).toEqual(
      [...groups.values()].map((rows) => ({
        date: rows[0].date,
        platform_views: rows.reduce((s, r) => s + r.platform_views, 0),
        platform_gmv: rows.every((r) => r.platform_gmv === null) ? null : round(rows.reduce((s, r) => s + (r.platform_gmv ?? 0), 0)),
        storefront_revenue: whole(rows, 'storefront_revenue'),
        marketplace_revenue: whole(rows, 'marketplace_revenue'),
        off_platform_revenue: whole(rows, 'off_platform_revenue'),
      })),
    )
    expect(grouped.series[0].date).toBe(from)
    if (granularity === 'week') expect(grouped.series.slice(1).every((r: any) => new Date(`${r.date}T00:00:00Z`).getUTCDay() === 1)).toBe(true)
    // A platform missing one day of a period is null for the whole period.
    expect(grouped.series.some((r: any) => r.storefront_revenue === null || r.marketplace_revenue === null)).toBe(true)
    expect(grouped.halo).toEqual(daily.halo)
    expect(grouped.granularity).toBe(granularity)
  })
})

describe('halo report: campaign impact (spec: Off-platform sales correlation)', () => {
  const h = harness()
  const shop = () => h.state.world.shopData[h.main.shop_id]

  it('halo: each affiliate campaign overlapping the range gets its lift vs the 14 days before, its revenue and active days', async () => {
    const from = addDays(TODAY, -90)
    const data = await h.report(range(from, TO))
    const axis = h.state.world.axis
    const campaigns = shop().affiliateCampaigns.filter((c) => c.start_date <= TO && (c.end_date ?? TO) >= from)
    expect(campaigns.length).toBeGreaterThan(0)
    for (const [index, platform] of (['storefront', 'marketplace'] as const).entries()) {
      const store = shop().stores[index]
      const revenueOn = (d: number) => (d >= store.data_from_day ? shop().facts.stores.value('revenue', store.store_id, d) : null)
      const avg = (a: number, b: number) => {
        const v = []
        for (let d = a; d <= b; d++) if (revenueOn(d) !== null) v.push(revenueOn(d)!)
        return { sum: v.reduce((x, y) => x + y, 0), mean: v.reduce((x, y) => x + y, 0) / v.length }
      }
      const impact = data.platforms[platform].campaign_impact
      expect(impact.map((c: any) => c.campaign_id).sort()).toEqual(campaigns.map((c) => c.campaign_id).sort())
      for (const c of campaigns) {
        const row = impact.find((i: any) => i.campaign_id === c.campaign_id)
        const start = axis.dayIndex(c.start_date)
        const a = Math.max(start, axis.dayIndex(from))
        const b = Math.min(c.end_date ? axis.dayIndex(c.end_date) : axis.dayIndex(TO), axis.dayIndex(TO))
        const complete = start - 14 >= store.data_from_day
        const during = avg(a, b)
        const baseline = avg(start - 14, start - 1)
        expect(row).toEqual({
          campaign_id: c.campaign_id,
          campaign_name: c.name,
          campaign_type: c.type,
          start_date: c.start_date,
          end_date: c.end_date ?? TO,
          campaign_revenue: round(during.sum),
          days_active: b - a + 1,
          baseline_complete: complete,
          baseline_daily_revenue: complete ? round(baseline.mean) : null,
          lift_pct: complete ? round((during.mean / baseline.mean - 1) * 100) : null,
        })
      }
    }
    // The world holds both cases: a complete baseline, and one reaching before the marketplace's data.
    const all = [...data.platforms.storefront.campaign_impact, ...data.platforms.marketplace.campaign_impact]
    expect(all.some((c: any) => c.baseline_complete && c.lift_pct !== null)).toBe(true)
    expect(all.some((c: any) => !c.baseline_complete && c.lift_pct === null && c.baseline_daily_revenue === null)).toBe(true)
  })

  it('halo: with a product selected only the campaigns including that product are listed', async () => {
    const product = shop().products[0]
    const data = await h.report({ ...range(addDays(TODAY, -90), TO), platform_product_id: product.product_id })
    const expected = shop().affiliateCampaigns.filter((c) => c.product_ids.includes(product.product_id) && c.start_date <= TO && (c.end_date ?? TO) >= addDays(TODAY, -90))
    expect(data.platforms.storefront.campaign_impact.map((c: any) => c.campaign_id).sort()).toEqual(expected.map((c) => c.campaign_id).sort())
  })
})

describe('halo report: CSV (spec: Off-platform sales correlation; Conventions 5)', () => {
  const h = harness()
  const csvOf = (url: string) => decodeURIComponent(url.slice(url.indexOf(',') + 1)).split('\n').map((line) => line.split(','))

  it('halo: format csv returns a download link of the series rows (null as an empty cell), honouring columns and csv_limit', async () => {
    const json = await h.report({ ...range(FROM, TO), granularity: 'week' })
    const csv = await h.call('POST', '/halo-effect', { body: { ...range(FROM, TO), granularity: 'week', format: 'csv' } })
    expect(csv.status).toBe(200)
    expect(csv.json.data).toMatchObject({ row_count: json.series.length, expires_at: new Date(Date.parse(NOW) + HOUR).toISOString() })
    const rows = csvOf(csv.json.data.url)
    expect(rows[0]).toEqual(['date', 'platform_views', 'platform_gmv', 'storefront_revenue', 'marketplace_revenue', 'off_platform_revenue'])
    expect(rows.slice(1)).toEqual(json.series.map((r: any) => Object.values(r).map((v) => (v === null ? '' : String(v)))))
    const limited = await h.call('POST', '/halo-effect', { body: { ...range(FROM, TO), format: 'csv', columns: ['date', 'off_platform_revenue'], csv_limit: 3 } })
    expect(limited.json.data.row_count).toBe(3)
    expect(csvOf(limited.json.data.url)[0]).toEqual(['date', 'off_platform_revenue'])
    expect(csvOf(limited.json.data.url)).toHaveLength(4)
  })

  it('halo: an unknown CSV column is refused with 400 naming the field and the columns (the contract enumerates them)', async () => {
    const reply = await h.call('POST', '/halo-effect', { body: { ...range(FROM, TO), format: 'csv', columns: ['date', 'nope'] } })
    expect(reply.status).toBe(400)
    expect(reply.json.error).toMatch(/^columns\[1\] must be one of "date", /)
  })
})

describe('halo platform states (spec: States and transitions: Halo; Limits: storefront snapshot 6 h, marketplace cache 12 h)', () => {
  it('halo: a storefront without a snapshot answers refreshing with refresh_started_at, then ok once the build completes on the mock clock (default 30 s)', async () => {
    const h = harness()
    const body = range(addDays(TODAY, -30), TO)
    const first = await h.report(body, h.second.shop_id)
    expect(first.platforms.storefront).toMatchObject({ connected: true, status: 'refreshing', refresh_started_at: NOW, snapshot_from: null, snapshot_to: null, refreshed_at: null, halo_revenue: null })
    expect(first.series.every((r: any) => r.storefront_revenue === null)).toBe(true)
    h.state.clock.advance(29_999)
    const still = await h.report(body, h.second.shop_id)
    expect(still.platforms.storefront).toMatchObject({ status: 'refreshing', refresh_started_at: NOW })
    h.state.clock.advance(1)
    const built = await h.report(body, h.second.shop_id)
    const store = h.state.world.shopData[h.second.shop_id].stores[0]
    expect(built.platforms.storefront).toMatchObject({
      status: 'ok',
      snapshot_from: h.state.world.axis.date(store.data_from_day),
      snapshot_to: addDays(TODAY, -1),
      refreshed_at: new Date(Date.parse(NOW) + 30_000).toISOString(),
    })
    expect(built.platforms.storefront.refresh_started_at).toBeUndefined()
    expect(built.series.map((r: any) => r.storefront_revenue)).toEqual(worldDays(h.state, h.second.shop_id, body.date_range.from, TO).map((d) => (d.storefront === null ? null : round(d.storefront))))
  })

  it('halo: POST /__admin/halo/config {refresh_ms} sets how long a build takes', async () => {
    const h = harness()
    expect(await h.state.admin.run('halo/config', { refresh_ms: 5 * 60_000 })).toEqual({ refresh_ms: 300_000 })
    const body = range(addDays(TODAY, -7), TO)
    expect((await h.report(body, h.second.shop_id)).platforms.storefront.status).toBe('refreshing')
    h.state.clock.advance(5 * 60_000 - 1)
    expect((await h.report(body, h.second.shop_id)).platforms.storefront.status).toBe('refreshing')
    h.state.clock.advance(1)
    expect((await h.report(body, h.second.shop_id)).platforms.storefront.status).toBe('ok')
    await expect(h.state.admin.run('halo/config', { refresh_ms: -1 })).rejects.toMatchObject({ status: 400 })
  })

  it('halo: a snapshot older than 6 hours is served as is while a refresh runs in the background, then replaced', async () => {
    // The main storefront's snapshot was built at 02:24 UTC today.
    const h = harness(`${TODAY}T05:00:00.000Z`)
    const body = range(addDays(TODAY, -7), TO)
    const fresh = await h.report(body)
    expect(fresh.platforms.storefront).toMatchObject({ status: 'ok', refreshed_at: `${TODAY}T02:24:00.000Z`, snapshot_to: addDays(TODAY, -1) })
    expect(fresh.platforms.storefront.refresh_started_at).toBeUndefined()
    h.state.clock.advance(3 * HOUR + 24 * 60_000) // 08:24: exactly 6 hours old, not older
    expect((await h.report(body)).platforms.storefront.refresh_started_at).toBeUndefined()
    h.state.clock.advance(1)
    const stale = await h.report(body)
    const startedAt = new Date(Date.parse(`${TODAY}T08:24:00.001Z`)).toISOString()
    expect(stale.platforms.storefront).toMatchObject({ status: 'ok', refreshed_at: `${TODAY}T02:24:00.000Z`, refresh_started_at: startedAt })
    expect(stale.series).toEqual(fresh.series)
    h.state.clock.advance(30_000)
    const refreshed = await h.report(body)
    expect(refreshed.platforms.storefront).toMatchObject({ status: 'ok', refreshed_at: new Date(Date.parse(startedAt) + 30_000).toISOString(), snapshot_to: addDays(TODAY, -1) })
    expect(refreshed.platforms.storefront.refresh_started_at).toBeUndefined()
  })

  it('halo: built snapshots are rebuilt nightly (02:24 UTC): a day later the snapshot ends the day before', async () => {
    const h = harness(`${TODAY}T05:00:00.000Z`)
    const body = range(addDays(TODAY, -7), TO)
    await h.report(body)
    h.state.clock.advance(24 * HOUR)
    const next = await h.report(body)
    expect(next.platforms.storefront).toMatchObject({ refreshed_at: `${addDays(TODAY, 1)}T02:24:00.000Z`, snapshot_to: TODAY })
    expect(next.platforms.storefront.refresh_started_at).toBeUndefined()
  })

  it('halo: an expired marketplace authorization is status error with auth_error true; the rest of the report still returns', async () => {
    const h = harness()
    await h.state.admin.run('halo/config', { refresh_ms: 0 })
    const body = range(addDays(TODAY, -30), TO)
    await h.report(body, h.second.shop_id) // starts the storefront build
    h.state.clock.advance(1)
    const data = await h.report(body, h.second.shop_id)
    expect(data.platforms.marketplace).toMatchObject({ connected: true, status: 'error', auth_error: true, account_type: 'vendor', halo_revenue: null })
    expect(data.platforms.marketplace.totals.revenue).toBeNull()
    expect(data.platforms.storefront.status).toBe('ok')
    expect(data.series.some((r: any) => r.off_platform_revenue !== null)).toBe(true)
    expect(data.series.map((r: any) => r.off_platform_revenue)).toEqual(data.series.map((r: any) => r.storefront_revenue))
    expect((await h.report(body)).platforms.marketplace.auth_error).toBe(false)
  })

  it('halo: POST /__admin/halo/availability makes a platform unavailable (status error, numbers null) and available again', async () => {
    const h = harness()
    const body = range(addDays(TODAY, -30), TO)
    expect(await h.state.admin.run('halo/availability', { shop_id: h.main.shop_id, platform: 'storefront', available: false })).toEqual({ shop_id: h.main.shop_id, platform: 'storefront', available: false })
    const down = await h.report(body)
    expect(down.platforms.storefront).toMatchObject({ status: 'error', halo_revenue: null })
    expect(down.series.every((r: any) => r.storefront_revenue === null)).toBe(true)
    expect(down.platforms.marketplace.status).toBe('ok')
    expect(down.series.map((r: any) => r.off_platform_revenue)).toEqual(down.series.map((r: any) => r.marketplace_revenue))
    await h.state.admin.run('halo/availability', { shop_id: h.main.shop_id, platform: 'storefront', available: true })
    expect((await h.report(body)).platforms.storefront.status).toBe('ok')
    await expect(h.state.admin.run('halo/availability', { shop_id: h.main.shop_id, platform: 'tiktok', available: false })).rejects.toMatchObject({ status: 400 })
    await expect(h.state.admin.run('halo/availability', { shop_id: 'nope', platform: 'storefront', available: false })).rejects.toMatchObject({ status: 400 })
  })

  it('halo: marketplace numbers are cached up to 12 hours: served through an outage until the cache expires, then error', async () => {
    const h = harness()
    const body = range(addDays(TODAY, -30), TO)
    const live = await h.report(body) // fetches the marketplace at NOW
    await h.state.admin.run('halo/availability', { shop_id: h.main.shop_id, platform: 'marketplace', available: false })
    h.state.clock.advance(12 * HOUR - 1)
    const cached = await h.report(body)
    expect(cached.platforms.marketplace.status).toBe('ok')
    expect(cached.platforms.marketplace.warnings).toContain(`The marketplace is unavailable; numbers are cached from ${NOW}`)
    expect(cached.series.map((r: any) => r.marketplace_revenue)).toEqual(live.series.map((r: any) => r.marketplace_revenue))
    h.state.clock.advance(1)
    expect((await h.report(body)).platforms.marketplace.status).toBe('error')
  })

  it('halo: a shop with no connected store has connected false and no status on both blocks; off-platform revenue is null', async () => {
    const h = harness()
    const data = await h.report(range(addDays(TODAY, -30), TO), h.unconnected.shop_id)
    for (const platform of ['storefront', 'marketplace']) {
      expect(data.platforms[platform]).toEqual({
        connected: false,
        linked_product_count: 0,
        totals: { revenue: null, orders: null, units: null, aov: null, revenue_change_pct: null, orders_change_pct: null, units_change_pct: null },
        campaign_impact: [],
        net_of_platform_gmv: false,
        halo_revenue: null,
      })
    }
    expect(data.series.every((r: any) => r.off_platform_revenue === null && r.storefront_revenue === null)).toBe(true)
    expect(data.halo).toMatchObject({ sample_size: 0, correlation: null, total_off_platform_revenue: null })
    expect(data.halo.days_excluded_no_platform_data).toBeUndefined()
  })

  it('halo: reset drops the platform states: the second shop\'s storefront is refreshing again', async () => {
    const h = harness()
    await h.state.admin.run('halo/config', { refresh_ms: 0 })
    const body = range(addDays(TODAY, -7), TO)
    await h.report(body, h.second.shop_id)
    h.state.clock.advance(1)
    expect((await h.report(body, h.second.shop_id)).platforms.storefront.status).toBe('ok')
    h.state.reset()
    expect((await h.report(body, h.second.shop_id)).platforms.storefront.status).toBe('refreshing')
  })
})

describe('halo product links (spec: Endpoints whose shapes are incomplete or absent: Halo product links)', () => {
  it('halo: GET /halo-effect/product-links lists the connected stores and their links, and starts no build', async () => {
    const h = harness()
    const stores = h.state.world.shopData[h.main.shop_id].stores
    const main = await h.call('GET', '/halo-effect/product-links')
    expect(main.json.data).toEqual({
      stores: stores.map((s) => ({ platform: s.platform, connected: true, store: s.store, status: 'ok', linked_product_count: s.links.length })),
      links: stores.flatMap((s) => s.links),
    })
    const second = async () => (await h.call('GET', '/halo-effect/product-links', { shop: h.second.shop_id })).json.data.stores
    expect((await second()).map((s: any) => s.status)).toEqual([undefined, 'error'])
    h.state.clock.advance(60_000)
    expect((await second())[0].status).toBeUndefined()
    await h.report(range(addDays(TODAY, -7), TO), h.second.shop_id)
    expect((await second())[0].status).toBe('refreshing')
    h.state.clock.advance(30_000)
    expect((await second())[0].status).toBe('ok')
    expect((await h.call('GET', '/halo-effect/product-links', { shop: h.unconnected.shop_id })).json.data).toEqual({ stores: [], links: [] })
  })
})
