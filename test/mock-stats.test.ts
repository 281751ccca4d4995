/**
 * `POST /shop/stats` against the mock, in-process (spec: `POST /shop/stats`, its three rules and the
 * stat-key table). Expected values are recomputed here from the world: fact rows through
 * `FactTable.rows` (not the mock's prefix sums), records and the raw event log, local days through
 * Intl (not the world's ShopCalendar).
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventKind, FactTable, SampleRequest, ShopData, Video } from '../fixtures/index.ts'
import { CHARTLESS_STAT_KEYS, STAT_KEYS, type StatKey } from '../openapi/index.ts'
import { computeShopStats, type StatEntry } from '../mock/lib/stats/compute.ts'
import { recordEvent } from '../mock/events.ts'
import { sampleRequestsOf, samplesState } from '../mock/lib/sample-requests.ts'
import { ApiError, createHandlers, createMockState } from '../mock/index.ts'
import { contractProblem } from '../mock/testing.ts'

const BASE = 'https://api.example.com'
const state = createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z', rateLimit: false, strict: true })
const shop = state.world.shops[0]!
const data: ShopData = state.world.shopData[shop.shop_id]!
const server = setupServer(...createHandlers(state, { baseUrl: BASE }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

interface Range {
  from: string
  to: string
}
/** 30 days from a Wednesday to a Thursday, holding the shop's missing report of 2026-01-28. */
const RANGE: Range = { from: '2026-01-14', to: '2026-02-12' }
/** Long enough for LIVEs, slideshows, samples and campaigns to show up in the small world. */
const LONG: Range = { from: '2025-09-01', to: '2026-02-28' }
const MISSING_DAY = '2026-01-28'

async function post(body: unknown, shopId = shop.shop_id) {
  const response = await fetch(`${BASE}/shop/stats`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId }, body: JSON.stringify(body) })
  const text = await response.text()
  expect(contractProblem(state.contract, state.contract.byId.get('getShopStats')!, response.status, text)).toBeUndefined()
  return { status: response.status, json: JSON.parse(text) as any }
}

/** The entries of a successful request, by key. */
async function stats(body: Record<string, unknown>): Promise<Record<string, StatEntry>> {
  const res = await post(body)
  expect(res.status).toBe(200)
  return Object.fromEntries((res.json.data.stats as StatEntry[]).map((e) => [e.key, e]))
}
const totals = async (body: Record<string, unknown>) => Object.fromEntries(Object.entries(await stats(body)).map(([k, e]) => [k, e.total_count]))

const close = (actual: number | null | undefined, expected: number, what = '') => expect(Math.abs((actual ?? NaN) - expected), what).toBeLessThan(0.011)
const round2 = (x: number) => Math.round(x * 100) / 100

// ---- independent views of the world ----

const dateFormats = new Map<string, Intl.DateTimeFormat>()
/** The calendar date of an instant in a timezone (en-CA formats YYYY-MM-DD). */
function localDate(at: string | number, timeZone = shop.timezone): string {
  let format = dateFormats.get(timeZone)
  if (!format) dateFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })))
  return format.format(typeof at === 'number' ? at : Date.parse(at))
}
const within = (date: string, range: Range) => date >= range.from && date <= range.to
const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
/** The equal-length period just before. */
function previous(range: Range): Range {
  const days = (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000 + 1
  return { from: addDays(range.from, -days), to: addDays(range.from, -1) }
}
function datesOf(range: Range): string[] {
  const out: string[] = []
  for (let d = range.from; d <= range.to; d = addDays(d, 1)) out.push(d)
  return out
}

/** metric by date for the given entities (dates with no row absent). */
function factByDate(table: FactTable, ids: readonly string[], metric: string, range: Range): Map<string, number> {
  const out = new Map<string, number>()
  for (const id of ids) {
    for (const row of table.rows(id)) {
      if (within(row.date, range)) out.set(row.date, (out.get(row.date) ?? 0) + (row.values as Record<string, number>)[metric]!)
    }
  }
  return out
}
const sumOf = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0)
const productIds = () => data.products.map((p) => p.product_id)
const productSum = (metric: string, range: Range, ids = productIds()) => sumOf(factByDate(data.facts.products, ids, metric, range).values())
const shopSum = (metric: string, range: Range) => sumOf(factByDate(data.facts.shop, [shop.shop_id], metric, range).values())
const postSum = (table: FactTable, posts: readonly Video[], metric: string, range: Range) =>
  sumOf(factByDate(table, posts.map((p) => p.video_id), metric, range).values())

/** Records whose timestamp falls on a local date within the range. */
const countIn = <T>(records: readonly T[], at: (r: T) => string | null, range: Range, timeZone = shop.timezone) =>
  records.filter((r) => at(r) !== null && within(localDate(at(r)!, timeZone), range)).length

/** The raw event log (plus nothing recorded: this state records none before the runtime tests). */
function eventsOf(kinds: readonly EventKind[]): Array<{ kind: EventKind; at: number; creator: number; campaign: number }> {
  const log = data.events
  const out = []
  for (let i = 0; i < log.count; i++) {
    const kind = log.kinds[log.kind[i]!]!
    if (kinds.includes(kind)) out.push({ kind, at: log.at[i]!, creator: log.creator[i]!, campaign: log.campaign[i]! })
  }
  return out
}
const eventCount = (kinds: readonly EventKind[], range: Range, timeZone = shop.timezone) => eventsOf(kinds).filter((e) => within(localDate(e.at, timeZone), range)).length

/** spec: sample_spend cost basis: SKU custom COGS, else product sample cost, else SKU price, else product price. */
function costOf(sample: SampleRequest): number {
  const sku = data.skus.find((s) => s.sku_id === sample.sku_id)
  const product = data.products.find((p) => p.product_id === sample.sampled_product)
  if (sku && sku.custom_cogs !== null) return sku.custom_cogs
  if (product && product.sample_cost !== null) return product.sample_cost
  return sku?.price ?? product?.price ?? 0
}

const percent = (now: number, before: number) => (before === 0 ? (now === 0 ? 0 : 100) : ((now - before) / before) * 100)

// ---- the stat-key table's filter columns, as the spec states them ----

const SUBSCRIPTION_KEYS: StatKey[] = [
  'subscription_revenue', 'one_time_purchase_gmv', 'recurrent_order_gmv', 'first_subscription_order_gmv', 'non_recurring_gmv', 'new_subscriptions',
  'active_subscribers', 'active_subscriptions', 'subscription_aov', 'subscription_retention_rate', 'subscription_take_rate',
]
const SHOP_WIDE_ZERO_FOR_PRODUCT: StatKey[] = ['refund_amount', 'items_refunded', 'gmv_with_cofunding', 'platform_orders']
/** Reported per shop or product with no campaign dimension: whole-shop unless product_id (spec table: customer_count...; shop tab; aov). */
const NO_CAMPAIGN_DIMENSION: StatKey[] = ['shop_tab_gmv', 'shop_tab_impressions', 'customer_count', 'add_to_cart_count', 'shipping_fees', 'product_impressions', 'aov']
const IGNORES_CAMPAIGN = new Set<StatKey>([...SUBSCRIPTION_KEYS, ...SHOP_WIDE_ZERO_FOR_PRODUCT, ...NO_CAMPAIGN_DIMENSION])
/** spec rule 3: only subscription_revenue, new_subscriptions, active_subscriptions respond to product_id; events carry no product. */
const IGNORES_PRODUCT = new Set<StatKey>([
  ...SUBSCRIPTION_KEYS.filter((k) => !['subscription_revenue', 'new_subscriptions', 'active_subscriptions'].includes(k)),
  'dms_sent', 'open_plan_cards_sent', 'followup_dms_sent', 'replies', 'tc_invites_sent', 'emails_sent', 'reply_ratio',
])
const productBehaviour = (key: StatKey) => (SHOP_WIDE_ZERO_FOR_PRODUCT.includes(key) ? 'gives 0' : IGNORES_PRODUCT.has(key) ? 'ignored' : 'narrows')
const campaignBehaviour = (key: StatKey) => (IGNORES_CAMPAIGN.has(key) ? 'ignored' : 'narrows')

describe('shop stats: the response (spec: POST /shop/stats)', () => {
  it('stats: every stat key of the table answers with a title, a total and a percent_change, in the requested order (spec: POST /shop/stats, stat keys)', async () => {
    const res = await post({ date_range: RANGE, stats: [...STAT_KEYS] })
    expect(res.status).toBe(200)
    const entries = res.json.data.stats as StatEntry[]
    expect(entries.map((e) => e.key)).toEqual([...STAT_KEYS])
    for (const entry of entries) {
      expect(entry.title.length).toBeGreaterThan(0)
      expect(entry.title).not.toBe(entry.key)
      expect(Number.isFinite(entry.total_count) && Number.isFinite(entry.percent_change)).toBe(true)
      expect(entry.daily_counts).toBeUndefined()
    }
    expect(new Set(entries.map((e) => e.title)).size).toBe(entries.length)
  })

  it('stats: daily_counts only with include_charts, and never for the chart-No keys (spec: POST /shop/stats, response)', async () => {
    const entries = await stats({ date_range: RANGE, stats: [...STAT_KEYS], include_charts: true })
    for (const key of STAT_KEYS) {
      if ((CHARTLESS_STAT_KEYS as readonly string[]).includes(key)) expect(entries[key]!.daily_counts, key).toBeUndefined()
      else expect(entries[key]!.daily_counts, key).toBeInstanceOf(Array)
    }
    expect(CHARTLESS_STAT_KEYS).toEqual(['avg_videos_per_creator', 'avg_gmv_per_video', 'sample_ratio', 'reply_ratio'])
  })

  it('stats: a repeated key answers once; an empty stats list answers an empty list (spec: POST /shop/stats)', async () => {
    expect((await post({ date_range: RANGE, stats: ['total_gmv', 'dms_sent', 'total_gmv'] })).json.data.stats.map((e: StatEntry) => e.key)).toEqual(['total_gmv', 'dms_sent'])
    expect((await post({ date_range: RANGE, stats: [] })).json).toEqual({ data: { stats: [] } })
  })

  it('stats: computeShopStats (used by POST /dashboards/data) gives the same entries as the endpoint (spec: POST /shop/stats)', async () => {
    const request = { date_range: RANGE, stats: ['total_gmv', 'aov', 'active_subscribers', 'dms_sent'], include_charts: true, grain: 'week' as const }
    const res = await post(request)
    expect(computeShopStats(state, shop, request)).toEqual(res.json.data.stats)
  })
})

describe('shop stats: totals computed from the world (spec: POST /shop/stats, stat keys)', () => {
  it.each([
    ['affiliate_gmv', 'affiliate_gmv'],
    ['total_gmv', 'total_gmv'],
    ['affiliate_units_sold', 'affiliate_units_sold'],
    ['total_units_sold', 'units_sold'],
    ['video_gmv', 'video_gmv'],
    ['live_gmv', 'live_gmv'],
    ['shop_tab_gmv', 'shop_tab_gmv'],
    ['shop_tab_impressions', 'shop_tab_impressions'],
    ['customer_count', 'customers'],
    ['add_to_cart_count', 'add_to_cart'],
    ['shipping_fees', 'shipping_fees'],
    ['product_impressions', 'impressions'],
    ['new_subscriptions', 'new_subscriptions'],
  ] as const)('stats: %s is the sum of the products\' daily %s over date_range (spec: POST /shop/stats, stat keys)', async (key, metric) => {
    const expected = productSum(metric, LONG)
    expect(expected).toBeGreaterThan(0)
    const entry = (await stats({ date_range: LONG, stats: [key] }))[key]!
    close(entry.total_count, expected)
    close(entry.percent_change, round2(percent(round2(expected), round2(productSum(metric, previous(LONG))))))
  })

  it.each([
    ['refund_amount', 'refund_amount'],
    ['items_refunded', 'items_refunded'],
    ['gmv_with_cofunding', 'gmv_with_cofunding'],
    ['platform_orders', 'platform_orders'],
    ['subscription_revenue', 'subscription_revenue'],
    ['one_time_purchase_gmv', 'one_time_purchase_gmv'],
    ['recurrent_order_gmv', 'recurrent_order_gmv'],
    ['first_subscription_order_gmv', 'first_subscription_order_gmv'],
  ] as const)('stats: %s is the sum of the shop report\'s daily %s (missing days skipped) (spec: POST /shop/stats, stat keys)', async (key, metric) => {
    const expected = shopSum(metric, RANGE)
    expect(expected).toBeGreaterThan(0)
    close((await totals({ date_range: RANGE, stats: [key] }))[key], expected)
  })

  it('stats: non_recurring_gmv = one-time purchase GMV + first-subscription-order GMV (spec: POST /shop/stats, stat keys)', async () => {
    const t = await totals({ date_range: RANGE, stats: ['non_recurring_gmv', 'one_time_purchase_gmv', 'first_subscription_order_gmv'] })
    close(t.non_recurring_gmv, shopSum('one_time_purchase_gmv', RANGE) + shopSum('first_subscription_order_gmv', RANGE))
    close(t.non_recurring_gmv, t.one_time_purchase_gmv! + t.first_subscription_order_gmv!)
  })

  it('stats: video_views, likes and comments (affiliate videos), slideshow GMV and views, commission come from the content facts (spec: POST /shop/stats, stat keys)', async () => {
    const affiliateVideos = data.videos.filter((v) => !v.is_brand)
    const t = await totals({ date_range: LONG, stats: ['video_views', 'likes', 'comments', 'slideshow_gmv', 'slideshow_views', 'commission'] })
    close(t.video_views, postSum(data.facts.videos, data.videos, 'views', LONG))
    close(t.likes, postSum(data.facts.videos, affiliateVideos, 'likes', LONG))
    close(t.comments, postSum(data.facts.videos, affiliateVideos, 'comments', LONG))
    close(t.slideshow_gmv, postSum(data.facts.slideshows, data.slideshows, 'gmv', LONG))
    close(t.slideshow_views, postSum(data.facts.slideshows, data.slideshows, 'views', LONG))
    close(t.commission, sumOf(factByDate(data.facts.affiliates, data.affiliates.map((a) => a.creator_id), 'commission', LONG).values()))
    expect(t.slideshow_gmv).toBeGreaterThan(0)
  })

  it('stats: slideshow_gmv is separate from video_gmv, with no overlap (spec: POST /shop/stats, stat keys)', async () => {
    const t = await totals({ date_range: LONG, stats: ['video_gmv', 'slideshow_gmv'] })
    close(t.video_gmv, postSum(data.facts.videos, data.videos, 'gmv', LONG))
    close(t.slideshow_gmv, postSum(data.facts.slideshows, data.slideshows, 'gmv', LONG))
    expect(data.slideshows.some((s) => data.videos.some((v) => v.video_id === s.video_id))).toBe(false)
  })

  it('stats: gpm = video GMV per 1,000 views, a ratio of sums (spec: POST /shop/stats, stat keys)', async () => {
    const t = await totals({ date_range: LONG, stats: ['gpm'] })
    close(t.gpm, (productSum('video_gmv', LONG) / postSum(data.facts.videos, data.videos, 'views', LONG)) * 1000)
  })

  it.each([[undefined, 5], [12, 12], [0, 0]] as const)('stats: emv = views / 1000 x cpm (cpm %s → %s; default 5) (spec: POST /shop/stats, cpm)', async (cpm, used) => {
    const t = await totals({ date_range: RANGE, stats: ['emv'], ...(cpm === undefined ? {} : { cpm }) })
    close(t.emv, (postSum(data.facts.videos, data.videos, 'views', RANGE) / 1000) * used)
  })

  it('stats: videos_posted counts every video, affiliate_videos_posted only affiliates\', slideshow_posts on the publish day (spec: POST /shop/stats, stat keys)', async () => {
    const t = await totals({ date_range: LONG, stats: ['videos_posted', 'affiliate_videos_posted', 'slideshow_posts', 'lives_posted'] })
    expect(t.videos_posted).toBe(countIn(data.videos, (v) => v.posted_at, LONG))
    expect(t.affiliate_videos_posted).toBe(countIn(data.videos.filter((v) => !v.is_brand), (v) => v.posted_at, LONG))
    expect(t.slideshow_posts).toBe(countIn(data.slideshows, (v) => v.posted_at, LONG))
    expect(t.lives_posted).toBe(countIn(data.lives, (l) => l.started_at, LONG))
    expect(t.lives_posted).toBeGreaterThan(0)
  })

  it('stats: distinct_creators counts unique posting affiliates; first_time_posters those whose first video with the shop is in the period (spec: POST /shop/stats, stat keys)', async () => {
    const affiliateVideos = data.videos.filter((v) => !v.is_brand)
    const posters = new Set(affiliateVideos.filter((v) => within(localDate(v.posted_at), LONG)).map((v) => v.creator_id))
    const firstPost = new Map<string, string>()
    for (const v of affiliateVideos) if (!firstPost.has(v.creator_id) || v.posted_at < firstPost.get(v.creator_id)!) firstPost.set(v.creator_id, v.posted_at)
    const firstTimers = [...firstPost.values()].filter((at) => within(localDate(at), LONG)).length
    const t = await totals({ date_range: LONG, stats: ['distinct_creators', 'first_time_posters', 'avg_videos_per_creator'] })
    expect(t.distinct_creators).toBe(posters.size)
    expect(t.first_time_posters).toBe(firstTimers)
    expect(firstTimers).toBeLessThan(posters.size)
    close(t.avg_videos_per_creator, countIn(affiliateVideos, (v) => v.posted_at, LONG) / posters.size)
  })

  it('stats: daily_active_affiliates unfiltered counts creators with nonzero attributed GMV (LIVEs included), recounted per bucket (spec: POST /shop/stats, stat keys)', async () => {
    const active = (range: Range) => new Set(data.affiliates.filter((a) => data.facts.affiliates.rows(a.creator_id).some((r) => within(r.date, range) && r.values.gmv > 0)).map((a) => a.creator_id))
    const entry = (await stats({ date_range: RANGE, stats: ['daily_active_affiliates'], include_charts: true }))['daily_active_affiliates']!
    expect(entry.total_count).toBe(active(RANGE).size)
    const perDay = factByDate(data.facts.contentTotals, [shop.shop_id], 'active_affiliates', RANGE)
    for (const point of entry.daily_counts!) expect(point.count, point.date).toBe(perDay.get(point.date))
    expect(sumOf(perDay.values())).toBeGreaterThan(entry.total_count)
  })

  it('stats: dms_sent includes open plan cards, followup_dms_sent is not in dms_sent, replies, invites and emails count service events on the shop\'s days (spec: POST /shop/stats, stat keys)', async () => {
    const t = await totals({ date_range: RANGE, stats: ['dms_sent', 'open_plan_cards_sent', 'followup_dms_sent', 'replies', 'tc_invites_sent', 'emails_sent', 'reply_ratio', 'sample_ratio'] })
    expect(t.dms_sent).toBe(eventCount(['dm_sent', 'open_plan_card'], RANGE))
    expect(t.open_plan_cards_sent).toBe(eventCount(['open_plan_card'], RANGE))
    expect(t.open_plan_cards_sent).toBeLessThan(t.dms_sent!)
    expect(t.followup_dms_sent).toBe(eventCount(['followup_dm'], RANGE))
    expect(t.followup_dms_sent).toBeGreaterThan(0)
    expect(t.replies).toBe(eventCount(['reply'], RANGE))
    expect(t.tc_invites_sent).toBe(eventCount(['tc_invite'], RANGE))
    expect(t.emails_sent).toBe(eventCount(['email_sent'], RANGE))
    close(t.reply_ratio, eventCount(['reply'], RANGE) / eventCount(['dm_sent', 'open_plan_card'], RANGE))
    close(t.sample_ratio, countIn(data.sampleRequests, (s) => s.timestamp, RANGE) / eventCount(['tc_invite'], RANGE))
  })

  it('stats: sample counts follow each request\'s own timestamp: requested (TC and open subsets), approved, shipped, delivered (spec: POST /shop/stats, stat keys)', async () => {
    const t = await totals({
      date_range: LONG,
      stats: ['sample_requests', 'tc_sample_requests', 'open_sample_requests', 'samples_approved', 'samples_shipped', 'samples_delivered'],
    })
    const s = data.sampleRequests
    expect(t.sample_requests).toBe(countIn(s, (r) => r.timestamp, LONG))
    expect(t.tc_sample_requests).toBe(countIn(s.filter((r) => r.source === 'TC'), (r) => r.timestamp, LONG))
    expect(t.open_sample_requests).toBe(countIn(s.filter((r) => r.source === 'Open'), (r) => r.timestamp, LONG))
    expect(t.tc_sample_requests! + t.open_sample_requests!).toBe(t.sample_requests)
    expect(t.samples_approved).toBe(countIn(s, (r) => r.sample_approved, LONG))
    expect(t.samples_shipped).toBe(countIn(s, (r) => r.sample_shipped, LONG))
    expect(t.samples_delivered).toBe(countIn(s, (r) => r.sample_received, LONG))
    expect(t.samples_delivered).toBeGreaterThan(0)
  })

  it('stats: refundable requests, shipments and deliveries by their timestamps; samples_refunded and sample_refund_amount by refund date (spec: POST /shop/stats, stat keys)', async () => {
    const r = data.refundableSamples
    const t = await totals({
      date_range: LONG,
      stats: ['refundable_sample_requests', 'refundable_samples_shipped', 'refundable_samples_delivered', 'samples_refunded', 'sample_refund_amount'],
    })
    expect(t.refundable_sample_requests).toBe(countIn(r, (x) => x.timestamp, LONG))
    expect(t.refundable_samples_shipped).toBe(countIn(r, (x) => x.sample_shipped, LONG))
    expect(t.refundable_samples_delivered).toBe(countIn(r, (x) => x.sample_received, LONG))
    const refunded = r.filter((x) => x.refund_time !== null && within(localDate(x.refund_time), LONG))
    expect(refunded.length).toBeGreaterThan(0)
    expect(t.samples_refunded).toBe(refunded.length)
    close(t.sample_refund_amount, sumOf(refunded.map((x) => x.refund_amount!)))
  })

  it('stats: sample_spend costs samples shipped in the period, wasted_sample_spend the unposted part, gmv_per_sample_dollar = affiliate GMV / spend (spec: POST /shop/stats, stat keys)', async () => {
    const shipped = data.sampleRequests.filter((s) => s.sample_shipped !== null && within(localDate(s.sample_shipped), LONG))
    const spend = sumOf(shipped.map(costOf))
    const wasted = sumOf(shipped.filter((s) => s.sample_posted === null).map(costOf))
    expect(wasted).toBeGreaterThan(0)
    expect(wasted).toBeLessThan(spend)
    const t = await totals({ date_range: LONG, stats: ['sample_spend', 'wasted_sample_spend', 'gmv_per_sample_dollar', 'gmv_per_sample_delivered'] })
    close(t.sample_spend, spend)
    close(t.wasted_sample_spend, wasted)
    close(t.gmv_per_sample_dollar, productSum('affiliate_gmv', LONG) / spend)
    close(t.gmv_per_sample_delivered, productSum('affiliate_gmv', LONG) / countIn(data.sampleRequests, (s) => s.sample_received, LONG))
  })

  it('stats: gmv_per_sample_dollar is 0 when there is no sample spend (spec: POST /shop/stats, stat keys)', async () => {
    const day = datesOf(LONG).find((d) => productSum('affiliate_gmv', { from: d, to: d }) > 0 && !data.sampleRequests.some((s) => s.sample_shipped && localDate(s.sample_shipped) === d))!
    const t = await totals({ date_range: { from: day, to: day }, stats: ['gmv_per_sample_dollar', 'sample_spend', 'affiliate_gmv'] })
    expect(t.sample_spend).toBe(0)
    expect(t.affiliate_gmv).toBeGreaterThan(0)
    expect(t.gmv_per_sample_dollar).toBe(0)
  })

  it('stats: sample_post_rate is the percent of samples delivered in the period that were posted, cohorted on delivery date (spec: POST /shop/stats, stat keys)', async () => {
    const delivered = data.sampleRequests.filter((s) => s.sample_received !== null && within(localDate(s.sample_received), LONG))
    const posted = delivered.filter((s) => s.sample_posted !== null)
    expect(posted.length).toBeGreaterThan(0)
    // Cohorted on delivery: a sample delivered in the period counts as posted even when its post falls after the period.
    const t = await totals({ date_range: LONG, stats: ['sample_post_rate'] })
    close(t.sample_post_rate, (posted.length / delivered.length) * 100)
    expect(t.sample_post_rate).toBeGreaterThanOrEqual(0)
    expect(t.sample_post_rate).toBeLessThanOrEqual(100)
  })

  it('stats: avg_gmv_per_video = video GMV / videos posted (chart No) (spec: POST /shop/stats, stat keys)', async () => {
    const t = await totals({ date_range: LONG, stats: ['avg_gmv_per_video'] })
    close(t.avg_gmv_per_video, productSum('video_gmv', LONG) / countIn(data.videos, (v) => v.posted_at, LONG))
  })

  it('stats: ad_spend sums the sales-max campaigns\' spend; ad_roi = GMV / ad spend (spec: POST /shop/stats, stat keys)', async () => {
    const spend = sumOf(factByDate(data.facts.campaigns, data.campaigns.map((c) => c.campaign_id), 'ad_spend', RANGE).values())
    expect(spend).toBeGreaterThan(0)
    const t = await totals({ date_range: RANGE, stats: ['ad_spend', 'ad_roi'] })
    close(t.ad_spend, spend)
    close(t.ad_roi, productSum('total_gmv', RANGE) / spend)
  })

  it('stats: new_content_gmv is the GMV, within the period, of the videos posted in the period (spec: POST /shop/stats, stat keys)', async () => {
    const fresh = data.videos.filter((v) => within(localDate(v.posted_at), LONG))
    const t = await totals({ date_range: LONG, stats: ['new_content_gmv', 'video_gmv'] })
    close(t.new_content_gmv, postSum(data.facts.videos, fresh, 'gmv', LONG))
    expect(t.new_content_gmv).toBeLessThan(t.video_gmv!)
  })

  it('stats: aov total is the average of the nonzero daily AOVs (platform GMV / orders), not a ratio of sums (spec: POST /shop/stats, stat keys)', async () => {
    const gmv = factByDate(data.facts.shop, [shop.shop_id], 'platform_gmv', RANGE)
    const orders = factByDate(data.facts.shop, [shop.shop_id], 'platform_orders', RANGE)
    const daily = [...gmv.keys()].map((d) => (orders.get(d)! > 0 ? gmv.get(d)! / orders.get(d)! : 0)).filter((v) => v > 0)
    const t = await totals({ date_range: RANGE, stats: ['aov'] })
    close(t.aov, sumOf(daily) / daily.length)
    expect(Math.abs(t.aov! - sumOf(gmv.values()) / sumOf(orders.values()))).toBeGreaterThan(0.001)
  })

  it('stats: subscription_aov = revenue / orders; retention weighted by daily active subscribers; take rate weighted by daily subscription revenue (spec: POST /shop/stats, stat keys)', async () => {
    const rows = data.facts.shop.rows(shop.shop_id).filter((r) => within(r.date, RANGE)).map((r) => r.values)
    const weightedBy = (rate: 'subscription_retention_rate' | 'subscription_take_rate', weight: 'active_subscribers' | 'subscription_revenue') =>
      sumOf(rows.map((v) => v[rate] * v[weight])) / sumOf(rows.map((v) => v[weight]))
    const t = await totals({ date_range: RANGE, stats: ['subscription_aov', 'subscription_retention_rate', 'subscription_take_rate'] })
    close(t.subscription_aov, sumOf(rows.map((v) => v.subscription_revenue)) / sumOf(rows.map((v) => v.subscription_orders)))
    close(t.subscription_retention_rate, weightedBy('subscription_retention_rate', 'active_subscribers'))
    close(t.subscription_take_rate, weightedBy('subscription_take_rate', 'subscription_revenue'))
    for (const key of ['subscription_retention_rate', 'subscription_take_rate'] as const) {
      expect(t[key]).toBeGreaterThan(0)
      expect(t[key]).toBeLessThanOrEqual(100)
    }
  })

  it('stats: active_subscribers and active_subscriptions are point-in-time: the level on the last day, compared with the level ending the previous period (spec: POST /shop/stats, rule 3)', async () => {
    const levelOn = (date: string) => data.facts.shop.rows(shop.shop_id).filter((r) => r.date <= date).at(-1)!.values.active_subscribers
    const productLevel = (id: string, date: string) => data.facts.products.rows(id).filter((r) => r.date <= date).at(-1)?.values.active_subscriptions ?? 0
    const e = await stats({ date_range: RANGE, stats: ['active_subscribers', 'active_subscriptions'] })
    expect(e.active_subscribers!.total_count).toBe(levelOn(RANGE.to))
    expect(e.active_subscriptions!.total_count).toBe(sumOf(productIds().map((id) => productLevel(id, RANGE.to))))
    close(e.active_subscribers!.percent_change, round2(percent(levelOn(RANGE.to), levelOn(previous(RANGE).to))))
  })
})

describe('shop stats: sample_spend cost basis (spec: POST /shop/stats, sample_spend)', () => {
  // A state of its own, its world left editable: the cases rewrite one sample, its SKU and its product in place.
  const own = createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z', rateLimit: false, freezeWorld: false })
  const ownData = own.world.shopData[shop.shop_id]!
  const sample = ownData.sampleRequests.find((s) => s.sample_shipped !== null)!
  const sku = ownData.skus.find((s) => s.sku_id === sample.sku_id)!
  const product = ownData.products.find((p) => p.product_id === sample.sampled_product)!
  // Shipped on a day after the world's facts, when nothing else ships.
  sample.sample_shipped = '2026-03-25T20:00:00.000Z'
  const day = { from: '2026-03-25', to: '2026-03-25' }
  const spend = () => Object.fromEntries(computeShopStats(own, shop, { date_range: day, stats: ['sample_spend', 'wasted_sample_spend'] }).map((e) => [e.key, e.total_count]))

  it.each([
    ['the SKU custom COGS first', (): number => ((sku.custom_cogs = 4.5), (product.sample_cost = 6.25), 4.5)],
    ['else the product sample cost', (): number => ((sku.custom_cogs = null), (product.sample_cost = 6.25), 6.25)],
    ['else the SKU price', (): number => ((sku.custom_cogs = null), (product.sample_cost = null), sku.price)],
    ['else the product price', (): number => ((sample.sku_id = 'no-such-sku'), (product.sample_cost = null), product.price)],
  ] as const)('stats: sample_spend costs a shipped sample at %s (spec: POST /shop/stats, sample_spend)', (_, arrange) => {
    const expected = arrange()
    sample.sample_posted = null
    expect(spend()).toEqual({ sample_spend: round2(expected), wasted_sample_spend: round2(expected) })
    sample.sample_posted = '2026-03-30T20:00:00.000Z'
    expect(spend()).toEqual({ sample_spend: round2(expected), wasted_sample_spend: 0 })
  })
})

describe('shop stats: filters, table-driven over every stat key (spec: POST /shop/stats, rule 3 and the stat-key table)', () => {
  const body = { date_range: LONG, stats: [...STAT_KEYS] }
  let unfiltered: Record<string, StatEntry>
  let unknownCampaign: Record<string, StatEntry>
  let unknownProduct: Record<string, StatEntry>
  beforeAll(async () => {
    unfiltered = await stats(body)
    unknownCampaign = await stats({ ...body, campaign_id: 'no-such-campaign' })
    unknownProduct = await stats({ ...body, product_id: 'no-such-product' })
  })

  it.each(STAT_KEYS.map((key) => [key, campaignBehaviour(key)] as const))('stats: %s: campaign_id %s (spec: POST /shop/stats, stat-key table)', (key, behaviour) => {
    if (behaviour === 'ignored') expect(unknownCampaign[key]).toEqual(unfiltered[key])
    else expect(unknownCampaign[key]!.total_count).toBe(0)
  })

  it.each(STAT_KEYS.map((key) => [key, productBehaviour(key)] as const))('stats: %s: product_id %s (spec: POST /shop/stats, stat-key table)', (key, behaviour) => {
    if (behaviour === 'ignored') expect(unknownProduct[key]).toEqual(unfiltered[key])
    else expect(unknownProduct[key]!.total_count).toBe(0)
  })

  it('stats: the keys that ignore a filter have something to ignore (the unfiltered values are nonzero) (spec: POST /shop/stats, stat-key table)', () => {
    for (const key of [...IGNORES_CAMPAIGN, ...IGNORES_PRODUCT]) expect(unfiltered[key]!.total_count, key).not.toBe(0)
  })

  it('stats: refund_amount, items_refunded, gmv_with_cofunding, platform_orders are shop-wide and give 0 with a real product_id (spec: POST /shop/stats, stat-key table)', async () => {
    const t = await totals({ date_range: LONG, stats: SHOP_WIDE_ZERO_FOR_PRODUCT, product_id: data.products[0]!.product_id })
    for (const key of SHOP_WIDE_ZERO_FOR_PRODUCT) {
      expect(unfiltered[key]!.total_count).toBeGreaterThan(0)
      expect(t[key], key).toBe(0)
    }
  })
})

describe('shop stats: product_id narrows to the product (spec: POST /shop/stats, stat-key table)', () => {
  const product = data.products.find((p) => p.subscription_enabled)!
  const id = product.product_id
  let t: Record<string, number>
  let all: Record<string, number>
  beforeAll(async () => {
    t = await totals({ date_range: LONG, stats: [...STAT_KEYS], product_id: id })
    all = await totals({ date_range: LONG, stats: [...STAT_KEYS] })
  })

  it.each([
    ['affiliate_gmv', 'affiliate_gmv'],
    ['total_gmv', 'total_gmv'],
    ['total_units_sold', 'units_sold'],
    ['video_gmv', 'video_gmv'],
    ['shop_tab_gmv', 'shop_tab_gmv'],
    ['customer_count', 'customers'],
    ['add_to_cart_count', 'add_to_cart'],
    ['shipping_fees', 'shipping_fees'],
    ['product_impressions', 'impressions'],
    ['subscription_revenue', 'subscription_gmv'],
    ['new_subscriptions', 'new_subscriptions'],
  ] as const)('stats: %s with product_id is the product\'s daily %s (spec: POST /shop/stats, stat-key table)', (key, metric) => {
    close(t[key], productSum(metric, LONG, [id]))
    expect(t[key]).toBeLessThan(all[key]!)
  })

  it('stats: subscription stats: only subscription_revenue, new_subscriptions and active_subscriptions respond to product_id (spec: POST /shop/stats, rule 3)', () => {
    const level = data.facts.products.rows(id).filter((r) => r.date <= LONG.to).at(-1)!.values.active_subscriptions
    expect(t.active_subscriptions).toBe(level)
    expect(t.active_subscriptions).toBeLessThan(all.active_subscriptions!)
    for (const key of ['active_subscribers', 'subscription_aov', 'subscription_retention_rate', 'subscription_take_rate', 'one_time_purchase_gmv', 'non_recurring_gmv'] as const) {
      expect(t[key], key).toBe(all[key])
    }
  })

  it('stats: aov with product_id averages the product\'s nonzero daily AOVs (spec: POST /shop/stats, stat-key table)', () => {
    const gmv = factByDate(data.facts.products, [id], 'total_gmv', LONG)
    const orders = factByDate(data.facts.products, [id], 'orders', LONG)
    const daily = [...gmv.keys()].map((d) => (orders.get(d)! > 0 ? gmv.get(d)! / orders.get(d)! : 0)).filter((v) => v > 0)
    close(t.aov, sumOf(daily) / daily.length)
  })

  it('stats: content, LIVE and sample stats with product_id keep the product\'s posts, LIVEs and samples (spec: POST /shop/stats, stat-key table)', () => {
    const features = data.videos.filter((v) => v.products.includes(id))
    expect(t.videos_posted).toBe(countIn(features, (v) => v.posted_at, LONG))
    const primary = data.videos.filter((v) => v.product === id)
    close(t.video_views, postSum(data.facts.videos, primary, 'views', LONG))
    const samples = data.sampleRequests.filter((s) => s.sampled_product === id)
    expect(t.sample_requests).toBe(countIn(samples, (s) => s.timestamp, LONG))
    expect(t.samples_shipped).toBe(countIn(samples, (s) => s.sample_shipped, LONG))
    close(t.sample_spend, sumOf(samples.filter((s) => s.sample_shipped && within(localDate(s.sample_shipped), LONG)).map(costOf)))
    const liveGmv = sumOf(data.lives.filter((l) => within(localDate(l.started_at), LONG)).flatMap((l) => l.products_stats.filter((s) => s.product_id === id).map((s) => s.gmv)))
    close(t.live_gmv, liveGmv)
    expect(t.lives_posted).toBe(countIn(data.lives.filter((l) => l.products.includes(id)), (l) => l.started_at, LONG))
    // The product's affiliate GMV at its commission rate, in cents day by day.
    const gmvByDay = factByDate(data.facts.products, [id], 'affiliate_gmv', LONG)
    close(t.commission, sumOf([...gmvByDay.values()].map((gmv) => round2(gmv * (product.commission_rate / 10_000)))))
  })

  it('stats: ad_spend with product_id sums the spend of the creatives of that product (spec: POST /shop/stats, stat-key table)', () => {
    const creatives = data.creatives.filter((c) => c.product_id === id).map((c) => c.creative_id)
    close(t.ad_spend, sumOf(factByDate(data.facts.creatives, creatives, 'spend', LONG).values()))
  })

  it('stats: daily_active_affiliates with product_id counts only video-attributed sales (spec: POST /shop/stats, stat-key table)', () => {
    const videos = data.videos.filter((v) => !v.is_brand && v.product === id)
    const creators = new Set(videos.filter((v) => data.facts.videos.rows(v.video_id).some((r) => within(r.date, LONG) && r.values.gmv > 0)).map((v) => v.creator_id))
    expect(t.daily_active_affiliates).toBe(creators.size)
  })
})

describe('shop stats: campaign_id narrows to the campaign (spec: POST /shop/stats, stat-key table)', () => {
  const campaign = data.affiliateCampaigns.find((c) => data.lives.some((l) => l.campaign_id === c.campaign_id))!
  const of = <T extends { campaign_id: string | null }>(records: readonly T[]) => records.filter((r) => r.campaign_id === campaign.campaign_id)
  let t: Record<string, number>
  let all: Record<string, number>
  beforeAll(async () => {
    t = await totals({ date_range: LONG, stats: [...STAT_KEYS], campaign_id: campaign.campaign_id })
    all = await totals({ date_range: LONG, stats: [...STAT_KEYS] })
  })

  it('stats: content stats with campaign_id cover the campaign\'s posts and tracked LIVEs (spec: POST /shop/stats, stat-key table)', () => {
    const videos = of(data.videos)
    const lives = of(data.lives).filter((l) => within(localDate(l.started_at), LONG))
    expect(lives.length).toBeGreaterThan(0)
    expect(t.videos_posted).toBe(countIn(videos, (v) => v.posted_at, LONG))
    close(t.video_gmv, postSum(data.facts.videos, videos, 'gmv', LONG))
    close(t.live_gmv, sumOf(lives.map((l) => l.gmv)))
    expect(t.lives_posted).toBe(lives.length)
    const gmv = postSum(data.facts.videos, videos.filter((v) => !v.is_brand), 'gmv', LONG) + postSum(data.facts.slideshows, of(data.slideshows), 'gmv', LONG) + sumOf(lives.map((l) => l.gmv))
    close(t.affiliate_gmv, gmv)
    expect(t.affiliate_gmv).toBeLessThan(all.affiliate_gmv!)
    const fresh = videos.filter((v) => within(localDate(v.posted_at), LONG))
    close(t.new_content_gmv, postSum(data.facts.videos, fresh, 'gmv', LONG))
  })

  it('stats: sample and refundable-sample stats with campaign_id keep the campaign\'s requests (spec: POST /shop/stats, stat-key table)', () => {
    const samples = of(data.sampleRequests)
    expect(t.sample_requests).toBe(countIn(samples, (s) => s.timestamp, LONG))
    expect(t.samples_shipped).toBe(countIn(samples, (s) => s.sample_shipped, LONG))
    expect(t.refundable_sample_requests).toBe(countIn(of(data.refundableSamples), (s) => s.timestamp, LONG))
    expect(t.sample_requests).toBeLessThan(all.sample_requests!)
  })

  it('stats: emails_sent with campaign_id counts that email campaign\'s sends (spec: POST /shop/stats, stat-key table)', async () => {
    const email = data.emailCampaigns[0]!
    const sent = eventsOf(['email_sent']).filter((e) => e.campaign === 0 && within(localDate(e.at), RANGE)).length
    expect(sent).toBeGreaterThan(0)
    const e = await totals({ date_range: RANGE, stats: ['emails_sent'], campaign_id: email.campaign_id })
    expect(e.emails_sent).toBe(sent)
    expect(e.emails_sent).toBeLessThan(eventCount(['email_sent'], RANGE))
  })

  it('stats: DMs and invites with campaign_id count that automation\'s; a reply counts for the campaign of the last DM to the same creator (spec: POST /shop/stats, stat-key table)', async () => {
    const automation = data.automations[0]!
    const dms = eventsOf(['dm_sent', 'open_plan_card'])
    const inRange = (at: number) => within(localDate(at), RANGE)
    const replies = eventsOf(['reply']).filter((r) => {
      const last = dms.filter((d) => d.creator === r.creator && d.at <= r.at).at(-1)
      return last?.campaign === 0 && inRange(r.at)
    }).length
    const e = await totals({ date_range: RANGE, stats: ['dms_sent', 'tc_invites_sent', 'replies'], campaign_id: automation.campaign_id })
    expect(e.dms_sent).toBe(dms.filter((d) => d.campaign === 0 && inRange(d.at)).length)
    expect(e.tc_invites_sent).toBe(0)
    expect(e.replies).toBe(replies)
    const invites = await totals({ date_range: RANGE, stats: ['tc_invites_sent'], campaign_id: data.automations[2]!.campaign_id })
    expect(invites.tc_invites_sent).toBe(eventCount(['tc_invite'], RANGE))
  })

  it('stats: samples_shipped with only_show_campaign_stats keeps only samples that came through a campaign (spec: POST /shop/stats, stat-key table)', async () => {
    const shipped = data.sampleRequests.filter((s) => s.sample_shipped && within(localDate(s.sample_shipped), LONG))
    const viaCampaign = shipped.filter((s) => s.campaign_id !== null).length
    expect(viaCampaign).toBeGreaterThan(0)
    expect(viaCampaign).toBeLessThan(shipped.length)
    const e = await totals({ date_range: LONG, stats: ['samples_shipped', 'sample_requests'], only_show_campaign_stats: true })
    expect(e.samples_shipped).toBe(viaCampaign)
    expect(e.sample_requests).toBe(all.sample_requests)
  })

  it('stats: ad_spend with the id of a sales-max campaign is that campaign\'s spend, and ad_roi its ad revenue / spend (spec: POST /shop/stats, stat-key table)', async () => {
    const spending = data.campaigns.find((c) => sumOf(factByDate(data.facts.campaigns, [c.campaign_id], 'ad_spend', RANGE).values()) > 0)!
    const spend = sumOf(factByDate(data.facts.campaigns, [spending.campaign_id], 'ad_spend', RANGE).values())
    const revenue = sumOf(factByDate(data.facts.campaigns, [spending.campaign_id], 'ad_revenue', RANGE).values())
    const e = await totals({ date_range: RANGE, stats: ['ad_spend', 'ad_roi'], campaign_id: spending.campaign_id })
    close(e.ad_spend, spend)
    close(e.ad_roi, revenue / spend)
  })

  it('stats: subscription stats and the shop-wide keys ignore campaign_id (spec: POST /shop/stats, rule 3)', () => {
    for (const key of IGNORES_CAMPAIGN) expect(t[key], key).toBe(all[key])
  })
})

describe('shop stats: percent_change (spec: POST /shop/stats)', () => {
  it('stats: percent_change compares with the equal-length period just before (spec: POST /shop/stats)', async () => {
    const e = await stats({ date_range: RANGE, stats: ['total_gmv', 'dms_sent'] })
    close(e.total_gmv!.percent_change, round2(percent(round2(productSum('total_gmv', RANGE)), round2(productSum('total_gmv', previous(RANGE))))))
    close(e.dms_sent!.percent_change, round2(percent(eventCount(['dm_sent', 'open_plan_card'], RANGE), eventCount(['dm_sent', 'open_plan_card'], previous(RANGE)))))
  })

  it('stats: with nothing in the previous period percent_change is 0 when nothing now either, else 100 (spec: POST /shop/stats)', async () => {
    // A day after the world's facts: nothing before it, nothing on it, until a DM is recorded on it.
    const future = { from: '2026-04-02', to: '2026-04-02' }
    const before = await stats({ date_range: future, stats: ['dms_sent', 'total_gmv'] })
    expect(before.dms_sent).toMatchObject({ total_count: 0, percent_change: 0 })
    expect(before.total_gmv).toMatchObject({ total_count: 0, percent_change: 0 })
    recordEvent(state, shop.shop_id, { kind: 'dm_sent', at: Date.parse('2026-04-02T19:00:00Z'), creator: 1, campaign: -1 })
    const after = await stats({ date_range: future, stats: ['dms_sent'] })
    expect(after.dms_sent).toMatchObject({ total_count: 1, percent_change: 100 })
  })
})

describe('shop stats: charts and grain (spec: POST /shop/stats, rule 2)', () => {
  it('stats: grain day gives one point per day dated by the day; summed stats add up to the total (spec: POST /shop/stats, rule 2)', async () => {
    const e = (await stats({ date_range: RANGE, stats: ['total_gmv'], include_charts: true }))['total_gmv']!
    const daily = factByDate(data.facts.products, productIds(), 'total_gmv', RANGE)
    expect(e.daily_counts!.map((p) => p.date)).toEqual(datesOf(RANGE))
    for (const p of e.daily_counts!) close(p.count, daily.get(p.date)!, p.date)
    close(sumOf(e.daily_counts!.map((p) => p.count!)), e.total_count)
  })

  it('stats: grain week: weeks start Monday, the first point is dated from, partial first and last weeks; sums per bucket (spec: POST /shop/stats, rule 2)', async () => {
    const e = await stats({ date_range: RANGE, stats: ['total_gmv', 'dms_sent'], include_charts: true, grain: 'week' })
    const weeks = [
      { from: '2026-01-14', to: '2026-01-18' },
      { from: '2026-01-19', to: '2026-01-25' },
      { from: '2026-01-26', to: '2026-02-01' },
      { from: '2026-02-02', to: '2026-02-08' },
      { from: '2026-02-09', to: '2026-02-12' },
    ]
    expect(e.total_gmv!.daily_counts!.map((p) => p.date)).toEqual(weeks.map((w) => w.from))
    weeks.forEach((week, i) => {
      close(e.total_gmv!.daily_counts![i]!.count, productSum('total_gmv', week))
      expect(e.dms_sent!.daily_counts![i]!.count).toBe(eventCount(['dm_sent', 'open_plan_card'], week))
    })
    close(e.total_gmv!.total_count, productSum('total_gmv', RANGE))
  })

  it('stats: grain month: calendar months, first point dated from (spec: POST /shop/stats, rule 2)', async () => {
    const e = (await stats({ date_range: LONG, stats: ['total_gmv'], include_charts: true, grain: 'month' }))['total_gmv']!
    expect(e.daily_counts!.map((p) => p.date)).toEqual(['2025-09-01', '2025-10-01', '2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01'])
    close(e.daily_counts![3]!.count, productSum('total_gmv', { from: '2025-12-01', to: '2025-12-31' }))
    const partial = (await stats({ date_range: RANGE, stats: ['total_gmv'], include_charts: true, grain: 'month' }))['total_gmv']!
    expect(partial.daily_counts!.map((p) => p.date)).toEqual(['2026-01-14', '2026-02-01'])
    close(partial.daily_counts![0]!.count, productSum('total_gmv', { from: '2026-01-14', to: '2026-01-31' }))
  })

  it('stats: ratios are recomputed per bucket (gpm of a week = its GMV / its views x 1000), not averaged (spec: POST /shop/stats, rule 2)', async () => {
    const e = (await stats({ date_range: RANGE, stats: ['gpm'], include_charts: true, grain: 'week' }))['gpm']!
    const week = { from: '2026-01-19', to: '2026-01-25' }
    close(e.daily_counts![1]!.count, (productSum('video_gmv', week) / postSum(data.facts.videos, data.videos, 'views', week)) * 1000)
  })

  it('stats: distinct counts are recounted per bucket (distinct_creators by month) (spec: POST /shop/stats, rule 2)', async () => {
    const e = (await stats({ date_range: LONG, stats: ['distinct_creators'], include_charts: true, grain: 'month' }))['distinct_creators']!
    const months = ['2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02']
    const posters = (month: string) => new Set(data.videos.filter((v) => !v.is_brand && localDate(v.posted_at).startsWith(month)).map((v) => v.creator_id)).size
    expect(e.daily_counts!.map((p) => p.count)).toEqual(months.map(posters))
  })

  it('stats: point-in-time subscription counts show each bucket\'s last level (spec: POST /shop/stats, rule 2)', async () => {
    const e = (await stats({ date_range: RANGE, stats: ['active_subscribers'], include_charts: true, grain: 'week' }))['active_subscribers']!
    const levelOn = (date: string) => data.facts.shop.rows(shop.shop_id).filter((r) => r.date <= date).at(-1)!.values.active_subscribers
    expect(e.daily_counts!.map((p) => p.count)).toEqual(['2026-01-18', '2026-01-25', '2026-02-01', '2026-02-08', '2026-02-12'].map(levelOn))
  })

  it('stats: aov per bucket averages that bucket\'s nonzero daily AOVs (spec: POST /shop/stats, rule 2)', async () => {
    const e = (await stats({ date_range: RANGE, stats: ['aov'], include_charts: true, grain: 'week' }))['aov']!
    const week = { from: '2026-01-26', to: '2026-02-01' }
    const rows = data.facts.shop.rows(shop.shop_id).filter((r) => within(r.date, week))
    expect(rows.length).toBe(6) // the missing day is skipped
    const daily = rows.map((r) => r.values.platform_gmv / r.values.platform_orders).filter((v) => v > 0)
    close(e.daily_counts![2]!.count, sumOf(daily) / daily.length)
  })
})

describe('shop stats: days with no report (spec: POST /shop/stats, rule 3)', () => {
  let e: Record<string, StatEntry>
  beforeAll(async () => {
    expect(data.facts.shop.rows(shop.shop_id).some((r) => r.date === MISSING_DAY)).toBe(false)
    e = await stats({ date_range: RANGE, stats: ['refund_amount', 'subscription_revenue', 'subscription_aov', 'aov', 'subscription_retention_rate', 'active_subscribers', 'active_subscriptions'], include_charts: true })
  })
  const point = (key: string, date = MISSING_DAY) => e[key]!.daily_counts!.find((p) => p.date === date)

  it('stats: summed stats skip a day with no report: no point for it, not a zero (spec: POST /shop/stats, rule 3)', () => {
    for (const key of ['refund_amount', 'subscription_revenue']) {
      expect(point(key), key).toBeUndefined()
      expect(e[key]!.daily_counts!.length).toBe(datesOf(RANGE).length - 1)
    }
  })

  it('stats: rate and AOV stats give null for a day with no report (spec: POST /shop/stats, rule 3)', () => {
    for (const key of ['subscription_aov', 'aov', 'subscription_retention_rate']) {
      expect(point(key), key).toEqual({ date: MISSING_DAY, count: null })
      expect(e[key]!.daily_counts!.length).toBe(datesOf(RANGE).length)
    }
  })

  it('stats: the two point-in-time counts carry the previous level forward, so their daily counts do not sum to the total (spec: POST /shop/stats, rule 3)', () => {
    const dayBefore = addDays(MISSING_DAY, -1)
    expect(point('active_subscribers')!.count).toBe(point('active_subscribers', dayBefore)!.count)
    expect(point('active_subscribers')!.count).toBe(data.facts.shop.rows(shop.shop_id).find((r) => r.date === dayBefore)!.values.active_subscribers)
    for (const key of ['active_subscribers', 'active_subscriptions']) {
      const counts = e[key]!.daily_counts!.map((p) => p.count!)
      expect(counts.length).toBe(datesOf(RANGE).length)
      expect(sumOf(counts)).toBeGreaterThan(e[key]!.total_count)
      expect(counts.at(-1)).toBe(e[key]!.total_count)
    }
  })

  it('stats: a range of only the missing day: total 0, no point for sums, null for rates, the carried level for point-in-time counts (spec: POST /shop/stats, rule 3)', async () => {
    const one = await stats({ date_range: { from: MISSING_DAY, to: MISSING_DAY }, stats: ['refund_amount', 'subscription_aov', 'active_subscribers'], include_charts: true })
    expect(one.refund_amount).toMatchObject({ total_count: 0, daily_counts: [] })
    expect(one.subscription_aov).toMatchObject({ total_count: 0, daily_counts: [{ date: MISSING_DAY, count: null }] })
    expect(one.active_subscribers!.daily_counts).toEqual([{ date: MISSING_DAY, count: point('active_subscribers', addDays(MISSING_DAY, -1))!.count }])
  })
})

describe('shop stats: timezone (spec: POST /shop/stats, rule 1)', () => {
  const TOKYO = 'Asia/Tokyo'

  it('stats: without timezone the days are the shop\'s registered timezone (spec: POST /shop/stats, rule 1)', async () => {
    const body = { date_range: RANGE, stats: ['dms_sent', 'videos_posted', 'total_gmv'], include_charts: true }
    expect(await stats(body)).toEqual(await stats({ ...body, timezone: shop.timezone }))
  })

  it('stats: an unrecognised timezone returns 400 (spec: POST /shop/stats, rule 1)', async () => {
    for (const timezone of ['Mars/Olympus_Mons', 'PST8PDT-nope', '']) {
      const res = await post({ date_range: RANGE, stats: ['dms_sent'], timezone })
      expect(res.status, timezone).toBe(400)
      // The same words as POST /dashboards/data's (one rule, one message: mock/messages.ts).
      expect(res.json.error).toBe(`timezone: unrecognised IANA timezone ${JSON.stringify(timezone)}`)
    }
    expect(() => computeShopStats(state, shop, { date_range: RANGE, stats: ['dms_sent'], timezone: 'Nowhere/Land' })).toThrow(ApiError)
  })

  it('stats: a timezone re-cuts service-timestamped events (DMs, replies, invites, emails) into its calendar days, and the comparison window with them (spec: POST /shop/stats, rule 1)', async () => {
    const e = await stats({ date_range: RANGE, stats: ['dms_sent', 'replies', 'tc_invites_sent', 'emails_sent'], include_charts: true, timezone: TOKYO })
    const dms = ['dm_sent', 'open_plan_card'] as const
    expect(e.dms_sent!.total_count).toBe(eventCount(dms, RANGE, TOKYO))
    expect(e.dms_sent!.total_count).not.toBe(eventCount(dms, RANGE))
    for (const p of e.dms_sent!.daily_counts!) expect(p.count, p.date).toBe(eventCount(dms, { from: p.date, to: p.date }, TOKYO))
    expect(e.replies!.total_count).toBe(eventCount(['reply'], RANGE, TOKYO))
    expect(e.tc_invites_sent!.total_count).toBe(eventCount(['tc_invite'], RANGE, TOKYO))
    expect(e.emails_sent!.total_count).toBe(eventCount(['email_sent'], RANGE, TOKYO))
    close(e.dms_sent!.percent_change, round2(percent(eventCount(dms, RANGE, TOKYO), eventCount(dms, previous(RANGE), TOKYO))))
  })

  it('stats: a timezone re-cuts videos posted, sample requests/approvals/shipments/deliveries and LIVEs (spec: POST /shop/stats, rule 1)', async () => {
    const t = await totals({ date_range: LONG, stats: ['videos_posted', 'sample_requests', 'samples_approved', 'samples_shipped', 'samples_delivered', 'lives_posted', 'refundable_sample_requests'], timezone: TOKYO })
    expect(t.videos_posted).toBe(countIn(data.videos, (v) => v.posted_at, LONG, TOKYO))
    expect(t.sample_requests).toBe(countIn(data.sampleRequests, (s) => s.timestamp, LONG, TOKYO))
    expect(t.samples_approved).toBe(countIn(data.sampleRequests, (s) => s.sample_approved, LONG, TOKYO))
    expect(t.samples_shipped).toBe(countIn(data.sampleRequests, (s) => s.sample_shipped, LONG, TOKYO))
    expect(t.samples_delivered).toBe(countIn(data.sampleRequests, (s) => s.sample_received, LONG, TOKYO))
    expect(t.lives_posted).toBe(countIn(data.lives, (l) => l.started_at, LONG, TOKYO))
    expect(t.refundable_sample_requests).toBe(countIn(data.refundableSamples, (s) => s.timestamp, LONG, TOKYO))
  })

  it('stats: pre-summarised daily metrics keep the platform\'s days under any timezone (spec: POST /shop/stats, rule 1)', async () => {
    const keys = ['total_gmv', 'affiliate_gmv', 'total_units_sold', 'commission', 'ad_spend', 'shop_tab_gmv', 'aov', 'refund_amount', 'subscription_revenue', 'active_subscribers', 'subscription_take_rate']
    const body = { date_range: RANGE, stats: keys, include_charts: true }
    expect(await stats({ ...body, timezone: TOKYO })).toEqual(await stats(body))
  })
})

describe('shop stats: records changed at run time count at once (spec: POST /shop/stats; Samples)', () => {
  it('stats: a sample approved and a DM recorded now count in samples_approved and dms_sent (spec: POST /shop/stats)', async () => {
    const today = { from: '2026-03-10', to: '2026-03-10' }
    const before = await totals({ date_range: today, stats: ['samples_approved', 'dms_sent'] })
    const request = sampleRequestsOf(state, shop.shop_id).find((s) => s.status === 'To Review')!
    state.write(samplesState, 'approve', { shopId: shop.shop_id, applyIds: [request.apply_id], at: '2026-03-10T19:00:00.000Z' })
    recordEvent(state, shop.shop_id, { kind: 'dm_sent', at: Date.parse('2026-03-10T19:30:00Z'), creator: 3, campaign: -1 })
    const after = await totals({ date_range: today, stats: ['samples_approved', 'dms_sent'] })
    expect(after.samples_approved).toBe(before.samples_approved! + 1)
    expect(after.dms_sent).toBe(before.dms_sent! + 1)
  })
})

describe('shop stats: what is worked out once is still exact (spec: POST /shop/stats)', () => {
  it('stats: a sample request added or approved counts at once, though each list\'s days are kept between requests (spec: POST /shop/stats)', async () => {
    const keys = ['sample_requests', 'samples_approved', 'sample_spend']
    const before = await totals({ date_range: LONG, stats: keys })
    expect(await totals({ date_range: LONG, stats: keys })).toEqual(before)
    const { product_id, sku_id } = data.skus[0]!
    const creator = state.world.creators[0]!
    const arrival = { shopId: shop.shop_id, creatorId: creator.creator_id, handle: creator.handle, productId: product_id, skuId: sku_id, source: 'Open' as const, expireDate: '2026-03-17' }
    const added = state.write(samplesState, 'arrive', { ...arrival, at: `${LONG.from}T12:00:00.000Z` })
    state.write(samplesState, 'arrive', { ...arrival, at: '2020-01-01T00:00:00.000Z' })
    state.write(samplesState, 'approve', { shopId: shop.shop_id, applyIds: [added.apply_id], at: `${LONG.to}T12:00:00.000Z` })
    const list = sampleRequestsOf(state, shop.shop_id)
    const after = await totals({ date_range: LONG, stats: keys })
    expect(after.sample_requests).toBe(before.sample_requests! + 1)
    expect(after.samples_approved).toBe(before.samples_approved! + 1)
    expect(after.sample_requests).toBe(countIn(list, (r) => r.timestamp, LONG))
    expect(after.samples_approved).toBe(countIn(list, (r) => r.sample_approved, LONG))
    expect(await totals({ date_range: LONG, stats: keys })).toEqual(after)
    // An arrival after the stats read the list (arrivals join it on the next read): counted at once too.
    state.write(samplesState, 'arrive', { ...arrival, at: `${LONG.from}T13:00:00.000Z` })
    expect((await totals({ date_range: LONG, stats: keys })).sample_requests).toBe(after.sample_requests! + 1)
  })

  it('stats: series kept per window and filters (new content GMV, first-time posters) answer each window as if computed afresh (spec: POST /shop/stats)', async () => {
    const keys = ['new_content_gmv', 'first_time_posters', 'distinct_creators', 'total_gmv']
    const productId = data.videos[0]!.product
    const bodies = [
      { date_range: RANGE, stats: keys, include_charts: true },
      { date_range: LONG, stats: keys, include_charts: true, grain: 'week' },
      { date_range: RANGE, stats: keys, include_charts: true, product_id: productId },
      { date_range: RANGE, stats: keys, include_charts: true, timezone: 'Asia/Tokyo' },
    ]
    const first = []
    for (const body of bodies) first.push(await stats(body))
    // Each window differs from the others, so a series served for the wrong key would show.
    expect(new Set(first.map((e) => JSON.stringify([e.new_content_gmv, e.first_time_posters]))).size).toBe(bodies.length)
    for (const [i, body] of [...bodies.entries()].reverse()) expect(await stats(body)).toEqual(first[i])
  })
})

describe('shop stats: invalid input (spec: POST /shop/stats; Errors)', () => {
  it.each([
    ['a grain other than day, week, month', { grain: 'year' }],
    ['an unknown stat key', { stats: ['not_a_stat'] }],
    ['from after to', { date_range: { from: '2026-02-12', to: '2026-01-14' } }],
    ['a date that is not a calendar date', { date_range: { from: '2026-02-30', to: '2026-03-01' } }],
    ['a negative cpm', { cpm: -1 }],
    ['a range longer than ten years', { date_range: { from: '2000-01-01', to: '2026-01-01' } }],
  ])('stats: 400 for %s (spec: POST /shop/stats; Errors)', async (_, override) => {
    const res = await post({ date_range: RANGE, stats: ['total_gmv'], ...override })
    expect(res.status).toBe(400)
    expect(typeof res.json.error).toBe('string')
  })

  it('stats: 400 Missing date_range (from/to) without a date range (spec: Errors)', async () => {
    const res = await post({ stats: ['total_gmv'] })
    expect(res).toMatchObject({ status: 400, json: { error: 'Missing date_range (from/to)' } })
  })

  it('stats: computeShopStats refuses a bad grain with a 400 too (for POST /dashboards/data) (spec: POST /shop/stats, rule 2)', () => {
    expect(() => computeShopStats(state, shop, { date_range: RANGE, stats: ['total_gmv'], grain: 'year' as 'day' })).toThrow(/grain/)
  })

  it('stats: a range outside the world\'s facts answers zeros: no points for reported sums, zero counts for the service\'s own records (spec: POST /shop/stats, rule 3)', async () => {
    const e = await stats({ date_range: { from: '2030-01-01', to: '2030-01-03' }, stats: ['total_gmv', 'sample_requests'], include_charts: true })
    expect(e.total_gmv).toMatchObject({ total_count: 0, percent_change: 0, daily_counts: [] })
    expect(e.sample_requests!.daily_counts!.map((p) => p.count)).toEqual([0, 0, 0])
  })

  it('stats: every shop of the account answers, the cancelled one included (spec: POST /shop/stats)', async () => {
    for (const s of state.world.shops) {
      const res = await post({ date_range: RANGE, stats: [...STAT_KEYS], include_charts: true, grain: 'week' }, s.shop_id)
      expect(res.status, s.shop_name).toBe(200)
    }
  })
})
