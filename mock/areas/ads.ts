/**
 * Sales-max ads (spec: Sales-max ads; Versioning): campaigns, per-video creatives, excluded creatives
 * and boost sessions, every metric summed from the daily facts for the requested window. The `/v1`
 * aliases and GET forms reach these handlers through the registry; the plan gate is the pipeline's.
 */
import { AD_DELIVERY_STATUSES, type AdDeliveryStatus, type BoostSession, type ShopData } from '../../fixtures/index.ts'
import type { components } from '../../openapi/types.ts'
import { defineAreaState, defineHandler, type AdminAction, type DeepReadonly, type AreaModule, type InputOf } from '../context.ts'
import type { MockState } from '../state.ts'
import { acceptCamelCase } from '../normalize.ts'
import { requireDateRange } from '../pipeline/validate.ts'
import { apiError } from '../respond.ts'
import { csvExport, wantsCsv } from '../csv.ts'
import { sortRows } from '../lib/sort.ts'
import { assertNotAfter, assertRangeOrder, dayIndexes } from '../lib/dates.ts'
import { contentStats } from '../lib/figures.ts'
import { idSetOf } from '../lib/filters.ts'
import { positiveRatio, round2 } from '../lib/numbers.ts'
import { numberedPage } from '../lib/pages.ts'
import { adminShop, shopDataFor, shopStates } from '../lib/shop.ts'
import { sortKeyOr, upperDirectionOf } from '../lib/sort.ts'

type Schemas = components['schemas']

// --- Campaigns ------------------------------------------------------------------------------------

const CAMPAIGN_SORT_KEYS = ['ad_spend', 'ad_revenue', 'orders', 'campaign_name', 'operation_status', 'budget', 'roas_target'] as const

interface SpendSums {
  ad_spend: number
  ad_revenue: number
}

/** Spend and revenue of the campaigns over [fromDay, toDay], with ad_roi = revenue / spend (0 with no spend). */
function campaignTotals(data: ShopData, fromDay: number, toDay: number): SpendSums & { ad_roi: number } {
  const table = data.facts.campaigns
  let spend = 0
  let revenue = 0
  for (const c of data.campaigns) {
    spend += table.sum('ad_spend', c.campaign_id, fromDay, toDay)
    revenue += table.sum('ad_revenue', c.campaign_id, fromDay, toDay)
  }
  const ad_spend = round2(spend)
  const ad_revenue = round2(revenue)
  return { ad_spend, ad_roi: positiveRatio(ad_revenue, ad_spend), ad_revenue }
}

// spec: Sales-max ads: POST /ads/campaigns.
const listAdCampaigns = defineHandler('listAdCampaigns', (ctx) => {
  const data = shopDataFor(ctx)
  const { fromDay, toDay } = dayIndexes(data.facts.campaigns.axis, requireDateRange(ctx.input), 'date_range')
  const table = data.facts.campaigns
  const campaigns: Array<Schemas['AdCampaign']> = data.campaigns.map((c) => {
    const ad_spend = round2(table.sum('ad_spend', c.campaign_id, fromDay, toDay))
    const ad_revenue = round2(table.sum('ad_revenue', c.campaign_id, fromDay, toDay))
    const orders = Math.round(table.sum('orders', c.campaign_id, fromDay, toDay))
    return { ...c, item_group_ids: [...c.item_group_ids], ad_spend, ad_revenue, orders, ad_roi: positiveRatio(ad_revenue, ad_spend), cost_per_order: positiveRatio(ad_spend, orders) }
  })
  const sort_by = sortKeyOr(ctx.input.sort_by, CAMPAIGN_SORT_KEYS, 'ad_spend')
  const sort_direction = upperDirectionOf(ctx.input.sort_direction)
  const sorted = sortRows(campaigns, (c) => c[sort_by], sort_direction, (c) => c.campaign_id)
  // spec: prev covers the equal-length period immediately before the range.
  const length = toDay - fromDay + 1
  const { ad_spend, ad_roi, ad_revenue } = campaignTotals(data, fromDay, toDay)
  const prev = campaignTotals(data, fromDay - length, fromDay - 1)
  const { rows, page, page_size } = numberedPage(ctx, sorted)
  return {
    status: 200,
    body: {
      data: {
        totals: { ad_spend, ad_roi, ad_revenue, prev },
        campaigns: rows,
        total_count: data.campaigns.length,
        page,
        page_size,
        sort_by,
        sort_direction,
      },
    },
  }
})

// --- Creatives ------------------------------------------------------------------------------------

const CREATIVE_SORT_KEYS = [
  'date_posted', 'ad_spend', 'gross_revenue', 'roi', 'cpa', 'orders', 'cost_per_order', 'impressions', 'clicks',
  'click_rate', 'ad_click_rate', 'conversion_rate', 'view_rate_2s', 'view_rate_6s', 'view_count',
] as const

/**
 * spec: Sales-max ads: daily rates are averaged weighted by the volume they are a rate of (our choice;
 * the spec says only "weighted averages of daily values"): ad_click_rate and the view rates per
 * impression, conversion_rate per click.
 */
const WEIGHTED_RATES = [
  ['ad_click_rate', 'impressions'],
  ['conversion_rate', 'clicks'],
  ['view_rate_2s', 'impressions'],
  ['view_rate_6s', 'impressions'],
] as const

/** `date` minus calendar months, the day clamped to the target month's length (Aug 31 − 6 months = Feb 28/29). */
export function monthsBefore(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  const index = y * 12 + (m - 1) - months
  const year = Math.floor(index / 12)
  const month = index - year * 12
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  return new Date(Date.UTC(year, month, Math.min(d, lastDay))).toISOString().slice(0, 10)
}

/**
 * spec: Sales-max ads: performance_date; either bound alone, `from` defaults to 6 months ago, `to` to
 * today; omitted = trailing 6 months (spec: Limits).
 */
export function performanceWindow(input: Pick<InputOf<'listAdCreatives'>, 'performance_date'>, today: string): { from: string; to: string } {
  const given: { from?: string; to?: string } = input.performance_date ?? {}
  const from = given.from ?? monthsBefore(today, 6)
  const to = given.to ?? today
  assertNotAfter(from, to, given.from === undefined ? `performance_date.from (default: 6 months ago, ${from})` : 'performance_date.from', 'performance_date.to')
  return { from, to }
}

/** The status in effect on `day` (the last change at or before it), with the day of that change. */
function statusOn(history: ReadonlyArray<{ day: number; status: AdDeliveryStatus }>, day: number): { day: number; status: AdDeliveryStatus } | null {
  let found: { day: number; status: AdDeliveryStatus } | null = null
  for (const change of history) if (change.day <= day) found = change
  return found
}

type CreativeRow = Schemas['AdCreative']

// spec: Sales-max ads: POST /ads/creatives: one row per video (a video in several campaigns adds up).
const listAdCreatives = defineHandler('listAdCreatives', (ctx) => {
  const data = shopDataFor(ctx)
  const input = ctx.input
  const window = performanceWindow(input, ctx.today)
  const { fromDay, toDay } = dayIndexes(data.facts.campaigns.axis, window, 'performance_date')
  const posted: { from?: string; to?: string } = input.posted_date ?? {}
  const postedSet = posted.from !== undefined || posted.to !== undefined
  if (posted.from !== undefined && posted.to !== undefined) assertRangeOrder(posted.from, posted.to, 'posted_date')
  const productIds = idSetOf(input.product_ids)
  const videoIds = idSetOf(input.video_ids)
  const campaignId = typeof input.campaign_id === 'string' ? input.campaign_id : undefined

  // Filters combine; unknown post dates are excluded when posted_date is set.
  const inScope = data.creatives.filter((c) => {
    if (campaignId !== undefined && c.campaign_id !== campaignId) return false
    if (productIds && (c.product_id === null || !productIds.has(c.product_id))) return false
    if (videoIds && !videoIds.has(c.video_id)) return false
    if (postedSet) {
      if (c.date_posted === null) return false
      if (posted.from !== undefined && c.date_posted < posted.from) return false
      if (posted.to !== undefined && c.date_posted > posted.to) return false
    }
    return true
  })

  const unscoped = inScope.length === data.creatives.length
  const rows = unscoped ? creativeRowsOf(data, fromDay, toDay) : creativeRows(data, inScope, fromDay, toDay)

  // spec: available_statuses lists the statuses present before the status filter; total_count is within it.
  const present = new Set(rows.map((r) => r.status).filter((s): s is AdDeliveryStatus => s !== null))
  const available_statuses = AD_DELIVERY_STATUSES.filter((s) => present.has(s))
  const statuses = idSetOf(input.statuses)
  const filtered = statuses ? rows.filter((r) => r.status !== null && statuses.has(r.status)) : rows
  const sort_by = sortKeyOr(input.sort_by, CREATIVE_SORT_KEYS, 'ad_spend')
  const sort_direction = upperDirectionOf(input.sort_direction)
  const sorted = sortRows(filtered, (r) => r[sort_by], sort_direction, (r) => r.video_id)
  const { rows: creatives, page, page_size } = numberedPage(ctx, sorted)
  // JSON.stringify of { data: { creatives, total_count, page, page_size, available_statuses, sort_by, sort_direction } },
  // each row's JSON written once per shop and window.
  const rest = JSON.stringify({ total_count: filtered.length, page, page_size, available_statuses, sort_by, sort_direction })
  const rowJson = (row: CreativeRow) => {
    let text = creativeJson.get(row)
    if (text === undefined) creativeJson.set(row, (text = JSON.stringify(row)))
    return text
  }
  return { status: 200, rawBody: `{"data":{"creatives":[${creatives.map(rowJson).join(',')}]${rest.length > 2 ? `,${rest.slice(1)}` : '}'}}` }
})

/** Each creative row's JSON (rows are never changed once built). */
const creativeJson = new WeakMap<CreativeRow, string>()

/**
 * Rows of every creative of the shop by window, kept on the shop's world data: the creatives and
 * their facts are the world's, which never changes (a reset builds a new one).
 */
const creativeRowCache = new WeakMap<ShopData, Map<string, CreativeRow[]>>()

/** The rows of all the shop's creatives over a window, built once per shop and window (bounded). */
function creativeRowsOf(data: ShopData, fromDay: number, toDay: number): CreativeRow[] {
  let byWindow = creativeRowCache.get(data)
  if (!byWindow) creativeRowCache.set(data, (byWindow = new Map()))
  const id = `${fromDay}|${toDay}`
  let rows = byWindow.get(id)
  if (!rows) {
    rows = creativeRows(data, data.creatives, fromDay, toDay)
    // Windows are client input.
    if (byWindow.size >= 256) byWindow.clear()
    byWindow.set(id, rows)
  }
  return rows
}

/** One row per video of the creatives in scope, over the window. */
function creativeRows(data: ShopData, inScope: ShopData['creatives'], fromDay: number, toDay: number): CreativeRow[] {
  const table = data.facts.creatives
  const videoTable = data.facts.videos
  const byVideo = new Map<string, typeof inScope>()
  for (const c of inScope) {
    const parts = byVideo.get(c.video_id)
    if (parts) parts.push(c)
    else byVideo.set(c.video_id, [c])
  }

  const { spend, revenue, orders: orderCounts, impressions: impressionCounts, clicks: clickCounts } = table.columns
  const rateColumns = WEIGHTED_RATES.map(([rate, weight]) => [table.columns[rate], table.columns[weight]] as const)
  const rows: CreativeRow[] = []
  for (const [video_id, parts] of byVideo) {
    const sums = { spend: 0, revenue: 0, orders: 0, impressions: 0, clicks: 0 }
    const weighted = { ad_click_rate: [0, 0], conversion_rate: [0, 0], view_rate_2s: [0, 0], view_rate_6s: [0, 0] }
    let latest: { day: number; status: AdDeliveryStatus } | null = null
    for (const part of parts) {
      const [a, b] = table.rowRange(part.creative_id, fromDay, toDay)
      // One pass over the rows; each figure is still summed row by row in day order.
      for (let r = a; r < b; r++) {
        sums.spend += spend[r]!
        sums.revenue += revenue[r]!
        sums.orders += orderCounts[r]!
        sums.impressions += impressionCounts[r]!
        sums.clicks += clickCounts[r]!
      }
      WEIGHTED_RATES.forEach(([rate], k) => {
        const [values, weights] = rateColumns[k]!
        let total = weighted[rate][0]!
        let weight = weighted[rate][1]!
        for (let r = a; r < b; r++) {
          total += values[r]! * weights[r]!
          weight += weights[r]!
        }
        weighted[rate][0] = total
        weighted[rate][1] = weight
      })
      // spec: status is the latest value within the metrics window.
      const status = statusOn(part.status_history, toDay)
      if (status && (!latest || status.day >= latest.day)) latest = status
    }
    const first = (pick: (c: (typeof parts)[number]) => string | null) => parts.map(pick).find((v) => v !== null) ?? null
    const handle = first((c) => c.handle)
    const ad_spend = round2(sums.spend)
    const gross_revenue = round2(sums.revenue)
    const orders = Math.round(sums.orders)
    const impressions = Math.round(sums.impressions)
    const clicks = Math.round(sums.clicks)
    const cpa = positiveRatio(ad_spend, orders)
    const average = ([total, weight]: number[]) => positiveRatio(total!, weight!)
    rows.push({
      video_id,
      product_id: first((c) => c.product_id),
      status: latest?.status ?? null,
      date_posted: first((c) => c.date_posted),
      ad_spend,
      gross_revenue,
      roi: positiveRatio(gross_revenue, ad_spend),
      cpa,
      orders,
      cost_per_order: cpa,
      impressions,
      clicks,
      click_rate: positiveRatio(clicks, impressions) * 100,
      ad_click_rate: average(weighted.ad_click_rate),
      conversion_rate: average(weighted.conversion_rate),
      view_rate_2s: average(weighted.view_rate_2s),
      view_rate_6s: average(weighted.view_rate_6s),
      handle,
      // The contract's title is a string; a creative without a content row has none.
      title: first((c) => c.title) ?? '',
      // Organic views over the same window (0 without a content row).
      view_count: handle === null ? 0 : Math.round(videoTable.sum('views', video_id, fromDay, toDay)),
      url: parts[0]!.url,
      video_link: parts[0]!.url,
    })
  }
  return rows
}

// --- Excluded creatives ---------------------------------------------------------------------------

const EXCLUDED_SORT_KEYS = ['created_at', 'campaign_id', 'video_id', 'handle', 'rule_name'] as const
const EXCLUDED_COLUMNS = [
  'video_id', 'campaign_id', 'campaign_name', 'product_ids', 'handle', 'title', 'url', 'video_link', 'rule_id', 'rule_name', 'reason',
  'created_at', 'view_count', 'like_count', 'comment_count', 'video_gmv', 'units_sold', 'ctr', 'post_time',
]

const campaignNameOf = (data: ShopData, campaignId: string): string | null => data.campaigns.find((c) => c.campaign_id === campaignId)?.campaign_name ?? null

// spec: Sales-max ads: POST /ads/excluded-creatives (and GET, /v1): only active exclusions.
const listExcludedCreatives = defineHandler('listExcludedCreatives', (ctx) => {
  const data = shopDataFor(ctx)
  const { campaign_id, rule_id } = ctx.input
  const videoIds = idSetOf(ctx.input.video_ids)
  const active = data.exclusions.filter(
    (e) => e.active && (campaign_id === undefined || e.campaign_id === campaign_id) && (rule_id === undefined || e.rule_id === rule_id) && (!videoIds || videoIds.has(e.video_id)),
  )
  const sort_by = sortKeyOr(ctx.input.sort_by, EXCLUDED_SORT_KEYS, 'created_at')
  const sort_direction = upperDirectionOf(ctx.input.sort_direction)
  const sorted = sortRows(active, (e) => e[sort_by], sort_direction, (e) => `${e.campaign_id}:${e.video_id}`)
  const toRow = (e: (typeof sorted)[number]): Schemas['ExcludedCreative'] => {
    return {
      video_id: e.video_id,
      campaign_id: e.campaign_id,
      campaign_name: campaignNameOf(data, e.campaign_id),
      product_ids: [...e.product_ids],
      handle: e.handle,
      title: e.title,
      url: e.url,
      video_link: e.url,
      rule_id: e.rule_id,
      rule_name: e.rule_name,
      reason: e.reason,
      created_at: e.created_at,
      ...contentStats(data, e.video_id),
    }
  }
  if (wantsCsv(ctx)) return csvExport(ctx, sorted.map(toRow), EXCLUDED_COLUMNS)
  const { rows, page, page_size } = numberedPage(ctx, sorted)
  const exclusions = rows.map(toRow)
  return { status: 200, body: { data: { exclusions, total_count: active.length, page, page_size, sort_by, sort_direction } } }
})

// --- Boost sessions -------------------------------------------------------------------------------

const BOOSTED_SORT_KEYS = ['created_at', 'ended_at', 'budget_per_day', 'spend', 'revenue', 'orders', 'roas', 'active', 'campaign_id', 'video_id', 'handle'] as const
const BOOSTED_COLUMNS = [
  'session_id', 'rule_id', 'rule_name', 'campaign_id', 'campaign_name', 'video_id', 'product_id', 'handle', 'title', 'url', 'video_link',
  'budget_per_day', 'spend', 'revenue', 'orders', 'roas', 'active', 'created_at', 'ended_at', 'exit_reason', 'view_count', 'like_count',
  'comment_count', 'video_gmv', 'ctr', 'units_sold', 'post_time',
]

/** The shops' boost sessions: the world's, then the stops recorded by the control API (each replaces the session it ends). */
export const boostsState = defineAreaState('ads', (world) => shopStates(world, (data) => ({ sessions: data.boostSessions as readonly BoostSession[] })), {
  /** spec: States: a stopped boost is inactive from `at`, for `exitReason`; the ended session. */
  stop(shops, input: { shopId: string; sessionId: string; at: string; exitReason: string }): BoostSession {
    const shop = shops.of(input.shopId)
    const i = shop.sessions.findIndex((s) => s.session_id === input.sessionId)
    const ended: BoostSession = { ...shop.sessions[i]!, active: false, ended_at: input.at, exit_reason: input.exitReason }
    shop.sessions = shop.sessions.with(i, ended)
    return ended
  },
})

/** The shop's boost sessions as they stand now. */
const boostSessionsOf = (state: MockState, data: ShopData): DeepReadonly<BoostSession[]> => state.read(boostsState).of(data.shop.shop_id).sessions

// spec: Sales-max ads: POST /ads/boosted-creatives (and GET, /v1): active only unless include_ended.
const listBoostedCreatives = defineHandler('listBoostedCreatives', (ctx) => {
  const data = shopDataFor(ctx)
  const { campaign_id, rule_id } = ctx.input
  const include_ended = ctx.input.include_ended === true
  const videoIds = idSetOf(ctx.input.video_ids)
  const matching = boostSessionsOf(ctx.state, data).filter(
    (s) => (include_ended || s.active) && (campaign_id === undefined || s.campaign_id === campaign_id) && (rule_id === undefined || s.rule_id === rule_id) && (!videoIds || videoIds.has(s.video_id)),
  )
  const sort_by = sortKeyOr(ctx.input.sort_by, BOOSTED_SORT_KEYS, 'created_at')
  const sort_direction = upperDirectionOf(ctx.input.sort_direction)
  const sorted = sortRows(matching, (s) => s[sort_by], sort_direction, (s) => s.session_id)
  const toRow = (s: (typeof sorted)[number]): Schemas['BoostSession'] => {
    const { ctr, ...content } = contentStats(data, s.video_id)
    return {
      session_id: s.session_id,
      rule_id: s.rule_id,
      rule_name: s.rule_name,
      campaign_id: s.campaign_id,
      // The spec does not let a boost session's campaign_name be null: an unnamed campaign shows ''.
      campaign_name: campaignNameOf(data, s.campaign_id) ?? '',
      video_id: s.video_id,
      product_id: s.product_id,
      handle: s.handle,
      title: s.title,
      url: s.url,
      video_link: s.url,
      budget_per_day: s.budget_per_day,
      spend: s.spend,
      revenue: s.revenue,
      orders: s.orders,
      roas: s.roas,
      active: s.active,
      created_at: s.created_at,
      ended_at: s.ended_at,
      exit_reason: s.exit_reason,
      ...content,
      ctr: ctr ?? 0,
    }
  }
  if (wantsCsv(ctx)) return csvExport(ctx, sorted.map(toRow), BOOSTED_COLUMNS)
  const { rows, page, page_size } = numberedPage(ctx, sorted)
  const sessions = rows.map(toRow)
  return { status: 200, body: { data: { sessions, total_count: matching.length, page, page_size, include_ended, sort_by, sort_direction } } }
})

/**
 * Control API `ads/boost-stop` `{shop_id, session_id, exit_reason?}`: spec: States: a boost is active
 * until stopped or expired; `ended_at` (the clock's now) and `exit_reason` are then set.
 */
const stopBoost: AdminAction = (state, input) => {
  const data = adminShop(state, input)
  const session = boostSessionsOf(state, data).find((s) => s.session_id === input.session_id)
  if (!session) throw apiError(404, `No boost session ${String(input.session_id)}`)
  if (!session.active) throw apiError(409, `Boost session ${session.session_id} already ended`)
  const exitReason = typeof input.exit_reason === 'string' && input.exit_reason ? input.exit_reason : 'stopped_manually'
  return { ...state.write(boostsState, 'stop', { shopId: data.shop.shop_id, sessionId: session.session_id, at: state.clock.now().toISOString(), exitReason }) }
}

const sortDir = { sortDir: 'sort_direction' }

export const ads: AreaModule = {
  handlers: { listAdCampaigns, listAdCreatives, listExcludedCreatives, listBoostedCreatives },
  normalizers: {
    // spec: Sales-max ads: camelCase pageSize, sortBy, dateRange, sortDir.
    listAdCampaigns: acceptCamelCase(sortDir),
    // spec: camelCase campaignId, pageSize, productIds, videoIds/video_id, sortBy, sortDir; Versioning: date_range is posted_date.
    listAdCreatives: acceptCamelCase({ ...sortDir, video_id: 'video_ids', date_range: 'posted_date' }),
    // spec: Conventions 4: endpoints callable with GET accept snake_case and camelCase keys.
    listExcludedCreatives: acceptCamelCase(sortDir),
    listBoostedCreatives: acceptCamelCase(sortDir),
  },
  adminActions: { 'ads/boost-stop': stopBoost },
  // Facts and records of the world, the request and ctx.today: nothing else.
  cacheable: ['listAdCampaigns', 'listAdCreatives'],
}
