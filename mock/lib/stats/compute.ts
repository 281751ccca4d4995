/**
 * The shop statistics engine (spec: `POST /shop/stats`): every stat key computed from the world's
 * daily facts and the service-timestamped records, with the previous-period change and optional
 * charts by day, week or month. Shared by the stats area and `POST /dashboards/data` (its widgets).
 *
 * window.ts (days, calendars, filters), sources.ts (facts, records, events), shapes.ts (sums,
 * ratios, levels, distinct counts; buckets; percent change) and keys.ts (the stat-key table).
 */
import { CHARTLESS_STAT_KEYS, STAT_KEYS, type StatKey } from '../../../openapi/index.ts'
import type { components } from '../../../openapi/types.ts'
import { messages } from '../../messages.ts'
import { apiError } from '../../respond.ts'
import type { MockState } from '../../state.ts'
import type { ShopRecord } from '../../world.ts'
import { assertRangeOrder, assertTimeZone } from '../dates.ts'
import { round2NoNegativeZero } from '../numbers.ts'
import { statShape, statTitle } from './keys.ts'
import { GRAINS, buckets, chartPoints, percentChange, summarize, type Grain } from './shapes.ts'
import { zoneCalendar, type StatWindow } from './window.ts'

export type StatEntry = components['schemas']['StatEntry']

/** The request of `POST /shop/stats` (also built by `POST /dashboards/data` from a board's widgets). */
export interface ShopStatsRequest {
  date_range: { from: string; to: string }
  stats: string[]
  include_charts?: boolean
  product_id?: string | null
  campaign_id?: string | null
  only_show_campaign_stats?: boolean
  cpm?: number
  timezone?: string | null
  grain?: 'day' | 'week' | 'month'
}

/** spec: `cpm` default 5 (used by `emv`). */
export const DEFAULT_CPM = 5
/** Longest accepted `date_range` (days): ten years, far beyond the facts, so a typo cannot ask for millennia. */
export const MAX_RANGE_DAYS = 3660

const STAT_KEY_SET: ReadonlySet<string> = new Set(STAT_KEYS)
const CHARTLESS: ReadonlySet<string> = new Set(CHARTLESS_STAT_KEYS)
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

function parseDate(value: unknown, field: string): number {
  const ms = typeof value === 'string' && ISO_DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw apiError(400, `${field} must be a calendar date (YYYY-MM-DD)`)
  return ms
}


const idFilter = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

/** The stat entries of a request, in the requested order (duplicates once); throws apiError(400) on bad input. */
export function computeShopStats(state: MockState, shop: ShopRecord, request: ShopStatsRequest): StatEntry[] {
  const range = request.date_range as Partial<ShopStatsRequest['date_range']> | undefined
  if (!range || typeof range !== 'object' || range.from === undefined || range.to === undefined) throw apiError(400, messages.missingDateRange)
  const fromMs = parseDate(range.from, 'date_range.from')
  const toMs = parseDate(range.to, 'date_range.to')
  assertRangeOrder(fromMs, toMs, 'date_range')
  const days = Math.round((toMs - fromMs) / 86_400_000) + 1
  if (days > MAX_RANGE_DAYS) throw apiError(400, `date_range must span at most ${MAX_RANGE_DAYS} days`)

  const grain = (request.grain ?? 'day') as Grain
  if (!GRAINS.includes(grain)) throw apiError(400, `grain must be one of ${GRAINS.join(', ')}`)
  const timeZone = request.timezone ?? shop.timezone
  assertTimeZone(timeZone)
  const cpm = request.cpm ?? DEFAULT_CPM
  if (typeof cpm !== 'number' || !Number.isFinite(cpm) || cpm < 0) throw apiError(400, 'cpm must be a number at least 0')
  if (!Array.isArray(request.stats)) throw apiError(400, 'stats must be an array of stat keys')
  const unknown = request.stats.find((key) => !STAT_KEY_SET.has(key))
  if (unknown !== undefined) throw apiError(400, `stats: unknown stat key ${JSON.stringify(unknown)}`)

  const world = state.world
  const data = world.shopData[shop.shop_id]
  if (!data) throw new Error(`the world has no data for shop ${shop.shop_id}`)
  const axis = world.axis
  const from = axis.dayIndex(range.from)
  const w: StatWindow = {
    state,
    data,
    axis,
    lo: from - days,
    hi: from + days - 1,
    days,
    from,
    zone: zoneCalendar(data, axis, timeZone),
    productId: idFilter(request.product_id),
    campaignId: idFilter(request.campaign_id),
    onlyCampaignStats: request.only_show_campaign_stats === true,
    cpm,
    memo: new Map(),
  }
  const previous = { start: 0, end: days - 1 }
  const current = { start: days, end: 2 * days - 1 }
  const points = request.include_charts ? buckets(axis, from, from + days - 1, days, grain) : []

  return [...new Set(request.stats as StatKey[])].map((key) => {
    const shape = statShape(w, key)
    const total = summarize(shape, current) ?? 0
    const before = summarize(shape, previous) ?? 0
    const entry: StatEntry = { key, title: statTitle(key), total_count: round2NoNegativeZero(total), percent_change: round2NoNegativeZero(percentChange(total, before)) }
    if (request.include_charts && !CHARTLESS.has(key)) entry.daily_counts = chartPoints(shape, points)
    return entry
  })
}

