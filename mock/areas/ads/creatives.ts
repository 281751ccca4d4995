/**
 * Sales-max creatives (spec: Sales-max ads: POST /ads/creatives): the request's rules (scope, windows,
 * statuses, sort, page) and the envelope; the rows are computed in creative-rows.ts.
 */
import { AD_DELIVERY_STATUSES, type AdDeliveryStatus } from '../../../fixtures/index.ts'
import { defineHandler, type InputOf } from '../../context.ts'
import { assertNotAfter, assertRangeOrder, dayIndexes } from '../../lib/dates.ts'
import { idSetOf } from '../../lib/filters.ts'
import { numberedPage } from '../../lib/pages.ts'
import { shopDataFor } from '../../lib/shop.ts'
import { sortKeyOr, sortRows, upperDirectionOf } from '../../lib/sort.ts'
import { creativeJson, creativeRows, creativeRowsOf, type CreativeRow } from './creative-rows.ts'

const CREATIVE_SORT_KEYS = [
  'date_posted', 'ad_spend', 'gross_revenue', 'roi', 'cpa', 'orders', 'cost_per_order', 'impressions', 'clicks',
  'click_rate', 'ad_click_rate', 'conversion_rate', 'view_rate_2s', 'view_rate_6s', 'view_count',
] as const


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


// spec: Sales-max ads: POST /ads/creatives: one row per video (a video in several campaigns adds up).
export const listAdCreatives = defineHandler('listAdCreatives', (ctx) => {
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
