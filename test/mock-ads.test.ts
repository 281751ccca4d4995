/**
 * Sales-max ads (spec: Sales-max ads; Resources: Sales-max ad campaign, creative, Excluded creative,
 * Boost session; States: Boost; Limits; Versioning; Authentication 5), in-process through MSW.
 * Expectations are computed here from the world's records and daily facts (day by day through
 * `series`), not read back from the mock.
 */
import { describe, expect, it } from 'vitest'
import type { ShopData } from '../fixtures/types.ts'
import { editableWorldMock } from './support/editable-world.ts'
import { mockHarness } from './support/harness.ts'

const BASE = 'https://ads.example.com'
const NOW = '2026-03-10T12:00:00.000Z'
const TODAY = '2026-03-10'
const SIX_MONTHS_AGO = '2025-09-10'
const DAY = 86_400_000
const { state, call, admin } = mockHarness({ baseUrl: BASE, now: NOW })
const [mainShop, growthShop] = state.world.shops.filter((s) => s.is_active) as [(typeof state.world.shops)[number], (typeof state.world.shops)[number]]
const inactiveShop = state.world.shops.find((s) => !s.is_active)!
const foreignShop = state.world.foreignShops[0]!

type Method = 'GET' | 'POST'
type Params = Record<string, unknown>

async function ok(method: Method, path: string, params: Params = {}, options?: Parameters<typeof call>[3]) {
  const res = await call(method, path, params, options)
  expect(res.status, res.text).toBe(200)
  return res.json.data
}

const dataOf = (shopId = mainShop.shop_id): ShopData => state.world.shopData[shopId]!
const axis = () => state.world.axis
const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10)
const round2 = (n: number) => Math.round(n * 100) / 100
const div = (a: number, b: number) => (b > 0 ? a / b : 0)
const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`

/** Sum of a metric over [from, to] added up day by day from the table's daily series. */
function daySum(table: { series(m: any, e: string, f: number, t: number): Array<number | null> }, metric: string, entity: string, from: string, to: string): number {
  return table.series(metric, entity, axis().dayIndex(from), axis().dayIndex(to)).reduce<number>((total, v) => total + (v ?? 0), 0)
}

/** Asserts rows are ordered by `value` in `direction`, nulls last. */
function expectSorted<T>(rows: T[], value: (row: T) => unknown, direction: 'ASC' | 'DESC') {
  const values = rows.map(value)
  const firstNull = values.findIndex((v) => v === null || v === undefined)
  if (firstNull >= 0) expect(values.slice(firstNull).every((v) => v === null || v === undefined), 'nulls sort last').toBe(true)
  const present = firstNull >= 0 ? values.slice(0, firstNull) : values
  for (let i = 1; i < present.length; i++) {
    const [a, b] = [present[i - 1] as any, present[i] as any]
    const inOrder = direction === 'ASC' ? a <= b : a >= b
    expect(inOrder, `${JSON.stringify(a)} then ${JSON.stringify(b)} is ${direction}`).toBe(true)
  }
}

// --- Campaigns ------------------------------------------------------------------------------------

const RANGE = { from: '2026-02-01', to: TODAY }

/** Spend, revenue and orders of a campaign over a range, from the daily facts. */
function campaignSums(campaignId: string, from: string, to: string, data = dataOf()) {
  const table = data.facts.campaigns
  return {
    ad_spend: round2(daySum(table, 'ad_spend', campaignId, from, to)),
    ad_revenue: round2(daySum(table, 'ad_revenue', campaignId, from, to)),
    orders: Math.round(daySum(table, 'orders', campaignId, from, to)),
  }
}

describe('campaigns (spec: Sales-max ads: POST /ads/campaigns)', () => {
  it.each([
    ['absent', {}],
    ['missing to', { date_range: { from: '2026-02-01' } }],
    ['missing from', { date_range: { to: '2026-02-01' } }],
  ])('campaigns: 400 Missing date_range (from/to) when date_range is %s (spec: Sales-max ads; Errors)', async (_, body) => {
    for (const path of ['/ads/campaigns', '/v1/ads/campaigns']) {
      const res = await call('POST', path, body)
      expect(res.status).toBe(400)
      expect(res.json).toEqual({ error: 'Missing date_range (from/to)' })
    }
  })

  it('campaigns: metrics are sums over the range, ad_roi = revenue / spend, cost_per_order = spend / orders (spec: Resources: Sales-max ad campaign)', async () => {
    const data = await ok('POST', '/ads/campaigns', { date_range: RANGE, page_size: 100 })
    expect(data.campaigns).toHaveLength(dataOf().campaigns.length)
    for (const row of data.campaigns) {
      const record = dataOf().campaigns.find((c) => c.campaign_id === row.campaign_id)!
      const sums = campaignSums(row.campaign_id, RANGE.from, RANGE.to)
      expect(row).toEqual({ ...record, ...sums, ad_roi: div(sums.ad_revenue, sums.ad_spend), cost_per_order: div(sums.ad_spend, sums.orders) })
    }
    expect(data.campaigns.some((c: any) => c.ad_spend > 0)).toBe(true)
  })

  it('campaigns: campaigns with no spend still appear with zero metrics, ad_roi and cost_per_order 0 (spec: Sales-max ads)', async () => {
    const data = await ok('POST', '/ads/campaigns', { date_range: { from: '2024-01-01', to: '2024-01-31' }, page_size: 100 })
    expect(data.campaigns).toHaveLength(dataOf().campaigns.length)
    for (const c of data.campaigns) expect([c.ad_spend, c.ad_revenue, c.orders, c.ad_roi, c.cost_per_order]).toEqual([0, 0, 0, 0, 0])
    // Over the whole axis, the never-spending campaign is still listed with zeros.
    const all = await ok('POST', '/ads/campaigns', { date_range: { from: axis().start, to: TODAY }, page_size: 100 })
    const silent = all.campaigns.filter((c: any) => c.ad_spend === 0)
    expect(silent.length).toBeGreaterThan(0)
    for (const c of silent) expect([c.ad_roi, c.cost_per_order]).toEqual([0, 0])
  })

  it('campaigns: total_count counts all the shop\'s campaigns regardless of dates (spec: Sales-max ads)', async () => {
    for (const date_range of [RANGE, { from: '2020-01-01', to: '2020-01-02' }]) {
      const data = await ok('POST', '/ads/campaigns', { date_range, page_size: 1 })
      expect(data.total_count).toBe(dataOf().campaigns.length)
      expect(data.campaigns).toHaveLength(1)
    }
  })

  it('campaigns: totals sum the range and prev covers the equal-length period immediately before it (spec: Sales-max ads)', async () => {
    const length = (Date.parse(RANGE.to) - Date.parse(RANGE.from)) / DAY + 1
    const prevRange = { from: addDays(RANGE.from, -length), to: addDays(RANGE.from, -1) }
    const totalsOf = (from: string, to: string) => {
      let spend = 0
      let revenue = 0
      for (const c of dataOf().campaigns) {
        spend += daySum(dataOf().facts.campaigns, 'ad_spend', c.campaign_id, from, to)
        revenue += daySum(dataOf().facts.campaigns, 'ad_revenue', c.campaign_id, from, to)
      }
      const ad_spend = round2(spend)
      const ad_revenue = round2(revenue)
      return { ad_spend, ad_roi: div(ad_revenue, ad_spend), ad_revenue }
    }
    const data = await ok('POST', '/ads/campaigns', { date_range: RANGE })
    expect(data.totals).toEqual({ ...totalsOf(RANGE.from, RANGE.to), prev: totalsOf(prevRange.from, prevRange.to) })
    expect(data.totals.prev.ad_spend).toBeGreaterThan(0)
    // A one-day range: prev is the day before.
    const oneDay = await ok('POST', '/ads/campaigns', { date_range: { from: '2026-03-01', to: '2026-03-01' } })
    expect(oneDay.totals.prev).toEqual(totalsOf('2026-02-28', '2026-02-28'))
  })

  it('campaigns: page_size defaults to 10 and is clamped to 1-100, page defaults to 1 (spec: Sales-max ads; Limits)', async () => {
    const cases: Array<[Params, number]> = [[{}, 10], [{ page_size: 0 }, 1], [{ page_size: -4 }, 1], [{ page_size: 3 }, 3], [{ page_size: 500 }, 100]]
    for (const [extra, size] of cases) {
      const data = await ok('POST', '/ads/campaigns', { date_range: RANGE, ...extra })
      expect([data.page, data.page_size]).toEqual([1, size])
      expect(data.campaigns).toHaveLength(Math.min(size, dataOf().campaigns.length))
    }
    const all = await ok('POST', '/ads/campaigns', { date_range: RANGE })
    const second = await ok('POST', '/ads/campaigns', { date_range: RANGE, page: 2, page_size: 1 })
    expect(second.page).toBe(2)
    expect(second.campaigns).toEqual([all.campaigns[1]])
    const beyond = await ok('POST', '/ads/campaigns', { date_range: RANGE, page: 9 })
    expect(beyond.campaigns).toEqual([])
    expect(beyond.total_count).toBe(dataOf().campaigns.length)
  })

  const CAMPAIGN_SORT_KEYS = ['ad_spend', 'ad_revenue', 'orders', 'campaign_name', 'operation_status', 'budget', 'roas_target']
  it.each(CAMPAIGN_SORT_KEYS.flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))(
    'campaigns: sort_by %s %s, nulls last (spec: Sales-max ads)',
    async (sort_by, sort_direction) => {
      const data = await ok('POST', '/ads/campaigns', { date_range: { from: axis().start, to: TODAY }, sort_by, sort_direction, page_size: 100 })
      expect([data.sort_by, data.sort_direction]).toEqual([sort_by, sort_direction])
      expectSorted(data.campaigns, (c: any) => c[sort_by], sort_direction)
    },
  )

  it('campaigns: null campaign_name and operation_status sort last in both directions (spec: Sales-max ads: nulls last)', async () => {
    for (const sort_by of ['campaign_name', 'operation_status']) {
      expect(dataOf().campaigns.some((c) => (c as any)[sort_by] === null)).toBe(true)
      for (const sort_direction of ['ASC', 'DESC']) {
        const data = await ok('POST', '/ads/campaigns', { date_range: RANGE, sort_by, sort_direction })
        expect(data.campaigns.at(-1)[sort_by]).toBeNull()
      }
    }
  })

  it('campaigns: an invalid sort_by falls back to ad_spend; sort_direction defaults to DESC (spec: Sales-max ads)', async () => {
    const data = await ok('POST', '/ads/campaigns', { date_range: RANGE, sort_by: 'not_a_key' })
    expect([data.sort_by, data.sort_direction]).toEqual(['ad_spend', 'DESC'])
    expectSorted(data.campaigns, (c: any) => c.ad_spend, 'DESC')
  })

  it('campaigns: camelCase pageSize, sortBy, dateRange, sortDir are accepted (spec: Sales-max ads)', async () => {
    const snake = await ok('POST', '/ads/campaigns', { date_range: RANGE, page_size: 2, sort_by: 'budget', sort_direction: 'ASC' })
    const camel = await ok('POST', '/ads/campaigns', { dateRange: RANGE, pageSize: 2, sortBy: 'budget', sortDir: 'ASC' })
    expect(camel).toEqual(snake)
    expect([camel.page_size, camel.sort_by, camel.sort_direction]).toEqual([2, 'budget', 'ASC'])
  })

  it('campaigns: 400 when date_range.from is after date_range.to (our choice: a reversed range is refused)', async () => {
    const res = await call('POST', '/ads/campaigns', { date_range: { from: '2026-03-01', to: '2026-02-01' } })
    expect(res.status).toBe(400)
    expect(res.json.error).toBe('date_range.from must not be after date_range.to')
  })
})

// --- Creatives ------------------------------------------------------------------------------------

interface ExpectedCreative {
  video_id: string
  ad_spend: number
  gross_revenue: number
  orders: number
  impressions: number
  clicks: number
  roi: number
  cpa: number
  cost_per_order: number
  click_rate: number
  ad_click_rate: number
  conversion_rate: number
  view_rate_2s: number
  view_rate_6s: number
  view_count: number
  status: string | null
}

/** One video's creative row over [from, to], computed day by day from the facts and status histories. */
function expectedCreative(videoId: string, from: string, to: string, data = dataOf()): ExpectedCreative {
  const parts = data.creatives.filter((c) => c.video_id === videoId)
  const table = data.facts.creatives
  const sum = (metric: string) => parts.reduce((t, c) => t + daySum(table, metric, c.creative_id, from, to), 0)
  const weighted = (rate: string, weight: string) => {
    let total = 0
    let weights = 0
    for (const c of parts) {
      const rates = table.series(rate as any, c.creative_id, axis().dayIndex(from), axis().dayIndex(to))
      const ws = table.series(weight as any, c.creative_id, axis().dayIndex(from), axis().dayIndex(to))
      rates.forEach((r, i) => {
        if (r === null) return
        total += r * ws[i]!
        weights += ws[i]!
      })
    }
    return div(total, weights)
  }
  const ad_spend = round2(sum('spend'))
  const gross_revenue = round2(sum('revenue'))
  const orders = Math.round(sum('orders'))
  const impressions = Math.round(sum('impressions'))
  const clicks = Math.round(sum('clicks'))
  const toDay = axis().dayIndex(to)
  let status: { day: number; status: string } | null = null
  for (const c of parts) {
    const inEffect = c.status_history.filter((h) => h.day <= toDay).at(-1)
    if (inEffect && (!status || inEffect.day >= status.day)) status = inEffect
  }
  const hasContent = parts.some((c) => c.handle !== null)
  return {
    video_id: videoId,
    ad_spend,
    gross_revenue,
    orders,
    impressions,
    clicks,
    roi: div(gross_revenue, ad_spend),
    cpa: div(ad_spend, orders),
    cost_per_order: div(ad_spend, orders),
    click_rate: div(clicks, impressions) * 100,
    ad_click_rate: weighted('ad_click_rate', 'impressions'),
    conversion_rate: weighted('conversion_rate', 'clicks'),
    view_rate_2s: weighted('view_rate_2s', 'impressions'),
    view_rate_6s: weighted('view_rate_6s', 'impressions'),
    view_count: hasContent ? Math.round(daySum(data.facts.videos, 'views', videoId, from, to)) : 0,
    status: status?.status ?? null,
  }
}

const pick = (row: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, row[k]]))
const videosOf = (rows: any[]) => rows.map((r) => r.video_id).sort()
const allCreatives = async (body: Params = {}, shop = mainShop.shop_id) => (await ok('POST', '/ads/creatives', { page_size: 1000, ...body }, { shop })).creatives as any[]

describe('creatives (spec: Sales-max ads: POST /ads/creatives)', () => {
  it('creatives: the metrics window defaults to the trailing 6 months (spec: Sales-max ads; Limits)', async () => {
    const defaulted = await ok('POST', '/ads/creatives', { page_size: 1000 })
    const explicit = await ok('POST', '/ads/creatives', { page_size: 1000, performance_date: { from: SIX_MONTHS_AGO, to: TODAY } })
    expect(defaulted).toEqual(explicit)
  })

  it('creatives: either performance_date bound alone; from defaults to 6 months ago, to to today (spec: Sales-max ads)', async () => {
    const fromOnly = await ok('POST', '/ads/creatives', { page_size: 1000, performance_date: { from: '2026-01-01' } })
    expect(fromOnly).toEqual(await ok('POST', '/ads/creatives', { page_size: 1000, performance_date: { from: '2026-01-01', to: TODAY } }))
    const toOnly = await ok('POST', '/ads/creatives', { page_size: 1000, performance_date: { to: '2026-02-15' } })
    expect(toOnly).toEqual(await ok('POST', '/ads/creatives', { page_size: 1000, performance_date: { from: SIX_MONTHS_AGO, to: '2026-02-15' } }))
    // "today" is the mock clock's: a month later the default window moves with it.
    state.clock.advance(31 * DAY)
    const later = await ok('POST', '/ads/creatives', { page_size: 1000 })
    expect(later).toEqual(await ok('POST', '/ads/creatives', { page_size: 1000, performance_date: { from: '2025-10-10', to: '2026-04-10' } }))
  })

  it('creatives: 400 when performance_date.from (given or defaulted) is after performance_date.to (our choice)', async () => {
    const reversed = await call('POST', '/ads/creatives', { performance_date: { from: '2026-03-01', to: '2026-02-01' } })
    expect([reversed.status, reversed.json.error]).toEqual([400, 'performance_date.from must not be after performance_date.to'])
    const early = await call('POST', '/ads/creatives', { performance_date: { to: '2025-01-01' } })
    expect(early.status).toBe(400)
    expect(early.json.error).toBe(`performance_date.from (default: 6 months ago, ${SIX_MONTHS_AGO}) must not be after performance_date.to`)
  })

  it('creatives: sums over the window; roi, cpa, click_rate ratio of sums; rates weighted averages of daily values (spec: Sales-max ads)', async () => {
    const window = { from: '2025-12-01', to: TODAY }
    const rows = await allCreatives({ performance_date: window })
    expect(videosOf(rows)).toEqual([...new Set(dataOf().creatives.map((c) => c.video_id))].sort())
    const keys = Object.keys(expectedCreative(rows[0].video_id, window.from, window.to))
    for (const row of rows) {
      expect(pick(row, keys)).toEqual(expectedCreative(row.video_id, window.from, window.to))
      expect(row.cost_per_order).toBe(row.cpa)
      expect(row.video_link).toBe(row.url)
    }
    expect(rows.some((r) => r.ad_spend > 0 && r.ad_click_rate > 0 && r.view_rate_6s > 0)).toBe(true)
  })

  it('creatives: a video in two campaigns is one row whose metrics add up both (spec: Resources: Sales-max creative, per video)', async () => {
    const data = dataOf(growthShop.shop_id)
    const counts = new Map<string, number>()
    for (const c of data.creatives) counts.set(c.video_id, (counts.get(c.video_id) ?? 0) + 1)
    const shared = [...counts].find(([, n]) => n > 1)![0]
    const rows = await allCreatives({ performance_date: { from: axis().start, to: TODAY } }, growthShop.shop_id)
    expect(rows.filter((r) => r.video_id === shared)).toHaveLength(1)
    const expected = expectedCreative(shared, axis().start, TODAY, data)
    expect(pick(rows.find((r) => r.video_id === shared), Object.keys(expected))).toEqual(expected)
  })

  it('creatives: status is the latest value within the metrics window, null before the first one (spec: Resources: Sales-max creative)', async () => {
    const creative = dataOf().creatives.find((c) => c.status_history.length >= 3)!
    const [first, second] = creative.status_history as [{ day: number; status: string }, { day: number; status: string }]
    const statusAt = async (to: string) => (await allCreatives({ video_ids: creative.video_id, performance_date: { from: axis().start, to } }))[0].status
    expect(await statusAt(axis().date(second.day - 1))).toBe(first.status)
    expect(await statusAt(axis().date(second.day))).toBe(second.status)
    expect(await statusAt(axis().date(first.day - 1))).toBeNull()
    expect(await statusAt(TODAY)).toBe(creative.status_history.at(-1)!.status)
  })

  it('creatives: available_statuses lists statuses before the status filter; total_count is within it (spec: Sales-max ads)', async () => {
    const window = { from: axis().start, to: TODAY }
    const unfiltered = await ok('POST', '/ads/creatives', { page_size: 1000, performance_date: window })
    const present = new Set(unfiltered.creatives.map((r: any) => r.status).filter((s: unknown) => s !== null))
    expect(present.size).toBeGreaterThan(1)
    expect([...unfiltered.available_statuses].sort()).toEqual([...present].sort())
    const status = unfiltered.creatives.find((r: any) => r.status !== null).status
    for (const statuses of [status, [status]]) {
      const filtered = await ok('POST', '/ads/creatives', { page_size: 1, performance_date: window, statuses })
      const matching = unfiltered.creatives.filter((r: any) => r.status === status)
      expect(filtered.total_count).toBe(matching.length)
      expect(filtered.creatives.every((r: any) => r.status === status)).toBe(true)
      expect(filtered.available_statuses).toEqual(unfiltered.available_statuses)
    }
  })

  it('creatives: campaign_id, product_ids, video_ids filters combine, each a string or an array (spec: Sales-max ads)', async () => {
    const window = { from: axis().start, to: TODAY }
    const [a, b] = dataOf().creatives
    const matches = (f: (c: ShopData['creatives'][number]) => boolean) => [...new Set(dataOf().creatives.filter(f).map((c) => c.video_id))].sort()
    expect(videosOf(await allCreatives({ performance_date: window, campaign_id: a!.campaign_id }))).toEqual(matches((c) => c.campaign_id === a!.campaign_id))
    for (const product_ids of [a!.product_id!, [a!.product_id!]]) {
      expect(videosOf(await allCreatives({ performance_date: window, product_ids }))).toEqual(matches((c) => c.product_id === a!.product_id))
    }
    for (const video_ids of [a!.video_id, [a!.video_id, b!.video_id]]) {
      const ids = new Set([video_ids].flat())
      expect(videosOf(await allCreatives({ performance_date: window, video_ids }))).toEqual(matches((c) => ids.has(c.video_id)))
    }
    const combined = await allCreatives({ performance_date: window, campaign_id: b!.campaign_id, video_ids: [a!.video_id, b!.video_id] })
    expect(videosOf(combined)).toEqual(matches((c) => c.campaign_id === b!.campaign_id && (c.video_id === a!.video_id || c.video_id === b!.video_id)))
    expect(await allCreatives({ performance_date: window, campaign_id: 'no-such-campaign' })).toEqual([])
  })

  it('creatives: camelCase campaignId, pageSize, productIds, videoIds/video_id, sortBy, sortDir are accepted (spec: Sales-max ads)', async () => {
    const c = dataOf().creatives[0]!
    const snake = await ok('POST', '/ads/creatives', { campaign_id: c.campaign_id, page_size: 2, product_ids: [c.product_id], video_ids: [c.video_id], sort_by: 'clicks', sort_direction: 'ASC' })
    expect(snake.creatives).toHaveLength(1)
    for (const videoKey of ['videoIds', 'video_id']) {
      const camel = await ok('POST', '/ads/creatives', { campaignId: c.campaign_id, pageSize: 2, productIds: [c.product_id], [videoKey]: [c.video_id], sortBy: 'clicks', sortDir: 'ASC' })
      expect(camel).toEqual(snake)
    }
  })

  it('creatives: posted_date filters by post date, either bound alone; legacy date_range is its alias (spec: Sales-max ads; Versioning)', async () => {
    const window = { from: axis().start, to: TODAY }
    const posted = { from: '2026-01-01', to: '2026-02-28' }
    const expectIds = (f: (d: string) => boolean) => [...new Set(dataOf().creatives.filter((c) => c.date_posted !== null && f(c.date_posted)).map((c) => c.video_id))].sort()
    const both = videosOf(await allCreatives({ performance_date: window, posted_date: posted }))
    expect(both).toEqual(expectIds((d) => d >= posted.from && d <= posted.to))
    expect(both.length).toBeGreaterThan(0)
    expect(videosOf(await allCreatives({ performance_date: window, posted_date: { from: posted.from } }))).toEqual(expectIds((d) => d >= posted.from))
    expect(videosOf(await allCreatives({ performance_date: window, posted_date: { to: posted.to } }))).toEqual(expectIds((d) => d <= posted.to))
    expect(await allCreatives({ performance_date: window, date_range: posted })).toEqual(await allCreatives({ performance_date: window, posted_date: posted }))
    // posted_date wins over the legacy alias.
    expect(await allCreatives({ performance_date: window, posted_date: posted, date_range: { from: '2020-01-01', to: '2020-01-02' } })).toEqual(
      await allCreatives({ performance_date: window, posted_date: posted }),
    )
  })

  it('creatives: page_size defaults to 5 and is clamped to 1-1000 (spec: Sales-max ads; Limits)', async () => {
    const count = new Set(dataOf().creatives.map((c) => c.video_id)).size
    const cases: Array<[Params, number]> = [[{}, 5], [{ page_size: 0 }, 1], [{ page_size: 7 }, 7], [{ page_size: 5000 }, 1000]]
    for (const [extra, size] of cases) {
      const data = await ok('POST', '/ads/creatives', extra)
      expect([data.page, data.page_size, data.total_count]).toEqual([1, size, count])
      expect(data.creatives).toHaveLength(Math.min(size, count))
    }
    const all = await allCreatives()
    const page2 = await ok('POST', '/ads/creatives', { page: 2 })
    expect(page2.creatives).toEqual(all.slice(5, 10))
  })

  const CREATIVE_SORT_KEYS = [
    'date_posted', 'ad_spend', 'gross_revenue', 'roi', 'cpa', 'orders', 'cost_per_order', 'impressions', 'clicks',
    'click_rate', 'ad_click_rate', 'conversion_rate', 'view_rate_2s', 'view_rate_6s', 'view_count',
  ]
  it.each(CREATIVE_SORT_KEYS.flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))('creatives: sort_by %s %s (spec: Sales-max ads)', async (sort_by, sort_direction) => {
    const data = await ok('POST', '/ads/creatives', { page_size: 1000, sort_by, sort_direction, performance_date: { from: axis().start, to: TODAY } })
    expect([data.sort_by, data.sort_direction]).toEqual([sort_by, sort_direction])
    expectSorted(data.creatives, (r: any) => r[sort_by], sort_direction)
  })

  it('creatives: an invalid sort_by falls back to ad_spend; sort_direction defaults to DESC (spec: Sales-max ads)', async () => {
    const data = await ok('POST', '/ads/creatives', { page_size: 1000, sort_by: 'title' })
    expect([data.sort_by, data.sort_direction]).toEqual(['ad_spend', 'DESC'])
    expectSorted(data.creatives, (r: any) => r.ad_spend, 'DESC')
  })

  it('creatives: a creative without a content row has handle null, no title and no organic views (spec: Resources: Sales-max creative)', async () => {
    const bare = dataOf().creatives.find((c) => c.handle === null)!
    const [row] = await allCreatives({ video_ids: bare.video_id })
    expect([row.handle, row.title, row.view_count]).toEqual([null, '', 0])
    expect(row.url).toBe(bare.url)
  })

  it('creatives: unknown post dates are excluded when posted_date is set, kept otherwise; null product_id never matches product_ids (spec: Sales-max ads)', async () => {
    // The small world has no creative with an unknown post date or product: give one to the world of a mock of its own.
    const own = editableWorldMock({ now: NOW })
    const creatives = own.state.world.shopData[mainShop.shop_id]!.creatives
    const ownCreatives = async (body: Params = {}) => (await own.post('/ads/creatives', { page_size: 1000, ...body })).json.data.creatives as any[]
    const creative = creatives[0]!
    const product = creative.product_id!
    creative.date_posted = null
    creative.product_id = null
    const others = creatives.filter((c) => c.video_id !== creative.video_id)
    expect(videosOf(await ownCreatives())).toContain(creative.video_id)
    const row = (await ownCreatives({ video_ids: creative.video_id }))[0]
    expect([row.date_posted, row.product_id]).toEqual([null, null])
    expect(videosOf(await ownCreatives({ posted_date: { from: '2000-01-01' } }))).not.toContain(creative.video_id)
    expect(videosOf(await ownCreatives({ date_range: { to: TODAY } }))).not.toContain(creative.video_id)
    expect(videosOf(await ownCreatives({ product_ids: product }))).toEqual([...new Set(others.filter((c) => c.product_id === product).map((c) => c.video_id))].sort())
  })
})

// --- Excluded creatives ---------------------------------------------------------------------------

/** The content row's lifetime numbers of a video, from the video facts. */
function content(videoId: string, data = dataOf()) {
  const video = data.videos.find((v) => v.video_id === videoId)!
  const lifetime = (metric: string) => daySum(data.facts.videos, metric, videoId, axis().start, TODAY)
  const views = Math.round(lifetime('views'))
  return {
    view_count: views,
    like_count: Math.round(lifetime('likes')),
    comment_count: Math.round(lifetime('comments')),
    video_gmv: round2(lifetime('gmv')),
    units_sold: Math.round(lifetime('units_sold')),
    ctr: views > 0 ? (Math.round(lifetime('clicks')) / views) * 100 : null,
    post_time: usDate(axis().date(video.post_day)),
  }
}

const campaignName = (campaignId: string) => dataOf().campaigns.find((c) => c.campaign_id === campaignId)?.campaign_name ?? null

describe('excluded creatives (spec: Sales-max ads: POST /ads/excluded-creatives)', () => {
  const active = () => dataOf().exclusions.filter((e) => e.active)

  it('excluded: only active exclusions are listed, with the joined content row and a best-effort campaign_name (spec: Sales-max ads; Resources: Excluded creative)', async () => {
    expect(dataOf().exclusions.some((e) => !e.active)).toBe(true)
    const data = await ok('POST', '/ads/excluded-creatives', { page_size: 100 })
    expect(data.total_count).toBe(active().length)
    for (const row of data.exclusions) {
      const e = active().find((x) => x.video_id === row.video_id && x.campaign_id === row.campaign_id)!
      const { active: _active, ...fields } = e
      expect(row).toEqual({ ...fields, campaign_name: campaignName(e.campaign_id), video_link: e.url, ...content(e.video_id) })
    }
    expect(data.exclusions.some((r: any) => r.campaign_name === null)).toBe(true)
    const inactive = dataOf().exclusions.find((e) => !e.active)!
    const filtered = await ok('POST', '/ads/excluded-creatives', { video_ids: inactive.video_id, campaign_id: inactive.campaign_id })
    expect(filtered.exclusions).toEqual([])
  })

  it('excluded: campaign_id, video_ids (id or array) and rule_id filter (spec: Sales-max ads)', async () => {
    const [a, b] = active() as [ShopData['exclusions'][number], ShopData['exclusions'][number]]
    const keys = (rows: any[]) => rows.map((r) => `${r.campaign_id}:${r.video_id}`).sort()
    const expectKeys = (f: (e: ShopData['exclusions'][number]) => boolean) => active().filter(f).map((e) => `${e.campaign_id}:${e.video_id}`).sort()
    expect(keys((await ok('POST', '/ads/excluded-creatives', { campaign_id: a.campaign_id })).exclusions)).toEqual(expectKeys((e) => e.campaign_id === a.campaign_id))
    expect(keys((await ok('POST', '/ads/excluded-creatives', { video_ids: a.video_id })).exclusions)).toEqual(expectKeys((e) => e.video_id === a.video_id))
    expect(keys((await ok('POST', '/ads/excluded-creatives', { video_ids: [a.video_id, b.video_id] })).exclusions)).toEqual(expectKeys((e) => e.video_id === a.video_id || e.video_id === b.video_id))
    const manual = await ok('POST', '/ads/excluded-creatives', { rule_id: 'manual' })
    expect(keys(manual.exclusions)).toEqual(expectKeys((e) => e.rule_id === 'manual'))
    expect(manual.total_count).toBeGreaterThan(0)
  })

  it('excluded: page_size defaults to 20, max 100 (larger refused) (spec: Sales-max ads; Limits)', async () => {
    const data = await ok('POST', '/ads/excluded-creatives', {})
    expect([data.page, data.page_size]).toEqual([1, 20])
    const tooBig = await call('POST', '/ads/excluded-creatives', { page_size: 101 })
    expect(tooBig.status).toBe(400)
    expect(tooBig.json.error).toMatch(/^page_size must be <= 100/)
    const all = data.exclusions
    const second = await ok('POST', '/ads/excluded-creatives', { page: 2, page_size: 1 })
    expect(second.exclusions).toEqual([all[1]])
  })

  it('excluded: sort defaults to created_at DESC (spec: Sales-max ads)', async () => {
    const data = await ok('POST', '/ads/excluded-creatives', {})
    expect([data.sort_by, data.sort_direction]).toEqual(['created_at', 'DESC'])
    expect(data.exclusions.map((r: any) => r.created_at)).toEqual(active().map((e) => e.created_at).sort().reverse())
  })

  it.each(['created_at', 'campaign_id', 'video_id', 'handle', 'rule_name'].flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))(
    'excluded: sort_by %s %s (spec: Sales-max ads)',
    async (sort_by, sort_direction) => {
      const data = await ok('POST', '/ads/excluded-creatives', { sort_by, sort_direction })
      expect([data.sort_by, data.sort_direction]).toEqual([sort_by, sort_direction])
      expectSorted(data.exclusions, (r: any) => r[sort_by], sort_direction)
    },
  )

  it('excluded: GET form with query parameters and the /v1 aliases answer like POST (spec: Sales-max ads; Versioning)', async () => {
    const a = active()[0]!
    const post = await ok('POST', '/ads/excluded-creatives', { campaign_id: a.campaign_id, sort_by: 'video_id', sort_direction: 'ASC', page_size: 5 })
    for (const [method, path] of [['GET', '/ads/excluded-creatives'], ['GET', '/v1/ads/excluded-creatives'], ['POST', '/v1/ads/excluded-creatives']] as const) {
      expect(await ok(method, path, { campaign_id: a.campaign_id, sort_by: 'video_id', sort_direction: 'ASC', page_size: 5 })).toEqual(post)
    }
    const twoVideos = active().slice(0, 2).map((e) => e.video_id)
    expect((await ok('GET', '/ads/excluded-creatives', { video_ids: twoVideos })).total_count).toBe(active().filter((e) => twoVideos.includes(e.video_id)).length)
  })
})

// --- Boost sessions -------------------------------------------------------------------------------

describe('boosted creatives (spec: Sales-max ads: POST /ads/boosted-creatives)', () => {
  const sessions = () => dataOf().boostSessions

  it('boosted: include_ended defaults to false (active only); true lists ended sessions too (spec: Sales-max ads)', async () => {
    const activeOnly = await ok('POST', '/ads/boosted-creatives', {})
    expect(activeOnly.include_ended).toBe(false)
    expect(activeOnly.sessions.map((s: any) => s.session_id).sort()).toEqual(sessions().filter((s) => s.active).map((s) => s.session_id).sort())
    const all = await ok('POST', '/ads/boosted-creatives', { include_ended: true })
    expect(all.include_ended).toBe(true)
    expect(all.total_count).toBe(sessions().length)
    expect(sessions().some((s) => !s.active)).toBe(true)
  })

  it('boosted: rows carry the session, its campaign_name and the content row (spec: Resources: Boost session)', async () => {
    const all = await ok('POST', '/ads/boosted-creatives', { include_ended: true })
    for (const row of all.sessions) {
      const s = sessions().find((x) => x.session_id === row.session_id)!
      const { baseline_spend: _s, baseline_revenue: _r, ...fields } = s
      const { ctr, ...rest } = content(s.video_id)
      // Our choice: the spec never lets a boost session's campaign_name be null, so an unnamed campaign shows ''.
      expect(row).toEqual({ ...fields, campaign_name: campaignName(s.campaign_id) ?? '', video_link: s.url, ...rest, ctr: ctr ?? 0 })
      expect(row.roas).toBeCloseTo(s.baseline_revenue / s.baseline_spend, 12)
      expect(row.active ? [row.ended_at, row.exit_reason] : []).toEqual(row.active ? [null, null] : [])
    }
    expect(all.sessions.some((r: any) => r.campaign_name === '')).toBe(true)
  })

  it('boosted: campaign_id, video_ids and rule_id filter (spec: Sales-max ads)', async () => {
    const s = sessions()[1]!
    const ids = (rows: any[]) => rows.map((r) => r.session_id).sort()
    const expectIds = (f: (x: (typeof sessions extends () => infer R ? R : never)[number]) => boolean) => sessions().filter(f).map((x) => x.session_id).sort()
    expect(ids((await ok('POST', '/ads/boosted-creatives', { include_ended: true, campaign_id: s.campaign_id })).sessions)).toEqual(expectIds((x) => x.campaign_id === s.campaign_id))
    expect(ids((await ok('POST', '/ads/boosted-creatives', { include_ended: true, video_ids: [s.video_id] })).sessions)).toEqual(expectIds((x) => x.video_id === s.video_id))
    expect(ids((await ok('POST', '/ads/boosted-creatives', { include_ended: true, rule_id: 'manual' })).sessions)).toEqual(expectIds((x) => x.rule_id === 'manual'))
  })

  it('boosted: page_size defaults to 20, max 100; sort defaults to created_at DESC (spec: Sales-max ads; Limits)', async () => {
    const data = await ok('POST', '/ads/boosted-creatives', { include_ended: true })
    expect([data.page, data.page_size, data.sort_by, data.sort_direction]).toEqual([1, 20, 'created_at', 'DESC'])
    expect(data.sessions.map((s: any) => s.created_at)).toEqual(sessions().map((s) => s.created_at).sort().reverse())
    const tooBig = await call('POST', '/ads/boosted-creatives', { page_size: 101 })
    expect(tooBig.status).toBe(400)
    expect(tooBig.json.error).toMatch(/^page_size must be <= 100/)
  })

  const BOOSTED_SORT_KEYS = ['created_at', 'ended_at', 'budget_per_day', 'spend', 'revenue', 'orders', 'roas', 'active', 'campaign_id', 'video_id', 'handle']
  it.each(BOOSTED_SORT_KEYS.flatMap((key) => [[key, 'ASC'], [key, 'DESC']] as const))('boosted: sort_by %s %s, nulls last (spec: Sales-max ads)', async (sort_by, sort_direction) => {
    const data = await ok('POST', '/ads/boosted-creatives', { include_ended: true, sort_by, sort_direction })
    expect([data.sort_by, data.sort_direction]).toEqual([sort_by, sort_direction])
    expectSorted(data.sessions, (r: any) => r[sort_by], sort_direction)
    if (sort_by === 'ended_at') expect(data.sessions.at(-1).ended_at).toBeNull()
  })

  it('boosted: GET form and /v1 aliases answer like POST (spec: Sales-max ads; Versioning)', async () => {
    const post = await ok('POST', '/ads/boosted-creatives', { include_ended: true, sort_by: 'spend', sort_direction: 'ASC' })
    for (const [method, path] of [['GET', '/ads/boosted-creatives'], ['GET', '/v1/ads/boosted-creatives'], ['POST', '/v1/ads/boosted-creatives']] as const) {
      expect(await ok(method, path, { include_ended: true, sort_by: 'spend', sort_direction: 'ASC' })).toEqual(post)
    }
  })

  it('boosted: stopping a boost sets active false, ended_at from the clock and exit_reason (spec: States: Boost active)', async () => {
    const session = sessions().find((s) => s.active)!
    state.clock.advance(3_600_000)
    const stopped = await admin('ads/boost-stop', { shop_id: mainShop.shop_id, session_id: session.session_id, exit_reason: 'expired' })
    expect(stopped.status).toBe(200)
    expect([stopped.json.session_id, stopped.json.active]).toEqual([session.session_id, false])
    const activeOnly = await ok('POST', '/ads/boosted-creatives', {})
    expect(activeOnly.sessions.map((s: any) => s.session_id)).not.toContain(session.session_id)
    const row = (await ok('POST', '/ads/boosted-creatives', { include_ended: true, video_ids: session.video_id })).sessions.find((s: any) => s.session_id === session.session_id)
    expect([row.active, row.ended_at, row.exit_reason]).toEqual([false, '2026-03-10T13:00:00.000Z', 'expired'])
    expect((await admin('ads/boost-stop', { shop_id: mainShop.shop_id, session_id: session.session_id })).status).toBe(409)
    expect((await admin('ads/boost-stop', { shop_id: mainShop.shop_id, session_id: 'nope' })).status).toBe(404)
    state.reset()
    expect((await ok('POST', '/ads/boosted-creatives', {})).sessions.map((s: any) => s.session_id)).toContain(session.session_id)
  })
})

// --- CSV ------------------------------------------------------------------------------------------

describe('CSV exports of the excluded and boosted lists (spec: Sales-max ads; Conventions 5)', () => {
  it.each([
    ['/ads/excluded-creatives', () => dataOf().exclusions.filter((e) => e.active).length],
    ['/ads/boosted-creatives', () => dataOf().boostSessions.filter((s) => s.active).length],
  ])('csv: format csv on %s returns a link to the CSV of every matching row, expiring an hour after the clock, row_count capped by csv_limit', async (path, rows) => {
    const csv = await ok('POST', path, { format: 'csv' })
    expect(csv.expires_at).toBe('2026-03-10T13:00:00.000Z')
    expect(csv.row_count).toBe(rows())
    const text = await (await fetch(csv.url)).text()
    expect(text.split('\n')).toHaveLength(rows() + 1)
    expect((await ok('POST', path, { format: 'csv' })).url).toBe(csv.url)
    expect((await ok('POST', path, { format: 'csv', csv_limit: 1 })).row_count).toBe(1)
    const picked = await ok('GET', path, { format: 'csv', columns: ['video_id', 'handle'] })
    expect(picked.row_count).toBe(rows())
    expect((await (await fetch(picked.url)).text()).split('\n')[0]).toBe('video_id,handle')
    state.clock.advance(60_000)
    const later = await ok('POST', path, { format: 'csv' })
    expect(later.expires_at).toBe('2026-03-10T13:01:00.000Z')
    const unknown = await call('POST', path, { format: 'csv', columns: ['video_id', 'nope'] })
    expect(unknown.status).toBe(400)
    expect(unknown.json.error).toMatch(/^columns\[1\] must be one of "/)
  })
})

// --- Versioning and the plan gate ---------------------------------------------------------------

const ADS_CALLS: Array<[Method, string, Params]> = [
  ['POST', '/ads/campaigns', { date_range: RANGE }],
  ['POST', '/v1/ads/campaigns', { date_range: RANGE }],
  ['POST', '/ads/creatives', {}],
  ['POST', '/v1/ads/creatives', {}],
  ['POST', '/ads/excluded-creatives', {}],
  ['POST', '/v1/ads/excluded-creatives', {}],
  ['GET', '/ads/excluded-creatives', {}],
  ['GET', '/v1/ads/excluded-creatives', {}],
  ['POST', '/ads/boosted-creatives', {}],
  ['POST', '/v1/ads/boosted-creatives', {}],
  ['GET', '/ads/boosted-creatives', {}],
  ['GET', '/v1/ads/boosted-creatives', {}],
]

describe('versioning and access (spec: Versioning; Authentication 5; Errors)', () => {
  it.each(ADS_CALLS.filter(([, path]) => path.startsWith('/v1/')))('versioning: %s %s answers like the unprefixed path', async (method, path, params) => {
    expect(await ok(method, path, params)).toEqual(await ok(method, path.slice(3), params))
  })

  it.each(ADS_CALLS)('plan gate: %s %s refuses an inactive shop and another account\'s shop with 403 (spec: Authentication 5; Errors)', async (method, path, params) => {
    const inactive = await call(method, path, params, { shop: inactiveShop.shop_id })
    expect([inactive.status, inactive.json]).toEqual([403, { error: 'This shop is not on an active paid plan' }])
    const foreign = await call(method, path, params, { shop: foreignShop.shop_id })
    expect([foreign.status, foreign.json]).toEqual([403, { error: 'Shop not found or not owned by user' }])
  })

  it.each(ADS_CALLS)('shop header: %s %s answers 400 Missing X-Shop-Id header / Invalid shop_id (spec: Sales-max ads: common errors)', async (method, path, params) => {
    const missing = await call(method, path, params, { shop: null })
    expect([missing.status, missing.json]).toEqual([400, { error: 'Missing X-Shop-Id header' }])
    const invalid = await call(method, path, params, { shop: 'not a shop id' })
    expect([invalid.status, invalid.json]).toEqual([400, { error: 'Invalid shop_id' }])
  })
})
