/**
 * The creatives list's rows (spec: Sales-max ads: POST /ads/creatives; Resources: Ad creative): one
 * row per video over a window, summed from the creative facts in one pass, and kept per shop and
 * window with each row's JSON, as the creatives and their facts are the world's, which no request changes.
 */
import type { AdDeliveryStatus, ShopData } from '../../../fixtures/index.ts'
import type { components } from '../../../openapi/types.ts'
import { positiveRatio, round2 } from '../../lib/numbers.ts'

type Schemas = components['schemas']

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
/** The status in effect on `day` (the last change at or before it), with the day of that change. */
function statusOn(history: ReadonlyArray<{ day: number; status: AdDeliveryStatus }>, day: number): { day: number; status: AdDeliveryStatus } | null {
  let found: { day: number; status: AdDeliveryStatus } | null = null
  for (const change of history) if (change.day <= day) found = change
  return found
}

export type CreativeRow = Schemas['AdCreative']

export const creativeJson = new WeakMap<CreativeRow, string>()

/**
 * Rows of every creative of the shop by window, kept on the shop's creatives: they and their facts
 * are the world's, which never changes (a reset builds a new one; a view of it as of the clock keeps
 * the same list).
 */
const creativeRowCache = new WeakMap<ShopData['creatives'], Map<string, CreativeRow[]>>()

/** The rows of all the shop's creatives over a window, built once per shop and window (bounded). */
export function creativeRowsOf(data: ShopData, fromDay: number, toDay: number): CreativeRow[] {
  let byWindow = creativeRowCache.get(data.creatives)
  if (!byWindow) creativeRowCache.set(data.creatives, (byWindow = new Map()))
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
export function creativeRows(data: ShopData, inScope: ShopData['creatives'], fromDay: number, toDay: number): CreativeRow[] {
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
