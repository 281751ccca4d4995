/**
 * Where the stats read from: the daily fact tables (platform days), the content, LIVE and sample
 * records, and the service-timestamped events (requested timezone). Each source returns a Daily over
 * the request window, NaN on days with no report.
 */
import type { EventKind, FactTable } from '../../../fixtures/facts.ts'
import { cents } from '../../../fixtures/random.ts'
import type { Affiliate, ContentMetric, ContentTotalMetric, LiveStream, ProductMetric, SampleRequest, ShopMetric, Video } from '../../../fixtures/types.ts'
import { campaignIdOf, forEachShopEvent, recordedEvents, type RecordedEvent } from '../../events.ts'
import type { ShopCalendar } from '../../../fixtures/days.ts'
import { addTo, memo, noReports, stampDays, windowMs, zeros, zerosOnAxis, zoneDay, zoneIndex, platformIndex, type Daily, type StatWindow } from './window.ts'
import { outreachRecords } from '../outreach.ts'

/** Sum of a metric over some entities of a fact table; days where none of them reported stay NaN. */
export function factDaily<M extends string>(w: StatWindow, table: FactTable<M>, metric: M, entities: Iterable<number>, out: Daily = noReports(w)): Daily {
  for (const e of entities) table.addDays(metric, e, w.lo, w.hi, out, w.lo)
  return out
}

/**
 * Sum of a metric over every entity of a fact table, as factDaily over all of them would give it (the
 * same additions in the same order), read from the table's daily totals.
 */
export function tableDaily<M extends string>(w: StatWindow, table: FactTable<M>, metric: M, out: Daily = noReports(w)): Daily {
  const totals = table.dailyTotals(metric)
  const first = Math.max(w.lo, 0)
  const last = Math.min(w.hi, totals.length - 1)
  for (let d = first; d <= last; d++) if (!Number.isNaN(totals[d]!)) addTo(out, d - w.lo, totals[d]!)
  return out
}

/** The product facts, whole shop or the `product_id` filter. */
export function productDaily(w: StatWindow, metric: ProductMetric): Daily {
  return memo(w, `product:${metric}`, () => {
    const table = w.data.facts.products
    return w.productId ? factDaily(w, table, metric, [table.indexOf(w.productId)]) : tableDaily(w, table, metric)
  })
}

/** The shop's own daily report (days it misses stay NaN). */
export function shopDaily(w: StatWindow, metric: ShopMetric): Daily {
  return memo(w, `shop:${metric}`, () => factDaily(w, w.data.facts.shop, metric, [0]))
}

/** The shop's daily content totals (present every day of the axis). */
export function contentTotalsDaily(w: StatWindow, metric: ContentTotalMetric): Daily {
  return memo(w, `totals:${metric}`, () => factDaily(w, w.data.facts.contentTotals, metric, [0]))
}

/**
 * Point-in-time level summed over entities, each carrying its last report forward (spec: POST
 * /shop/stats rule 3); NaN until any of them has reported.
 */
export function carriedDaily<M extends string>(w: StatWindow, table: FactTable<M>, metric: M, entities: Iterable<number>): Daily {
  const out = noReports(w)
  const column = table.columns[metric]
  for (const e of entities) {
    if (e < 0) continue
    let level = table.latest(metric, e, w.lo - 1)?.value ?? NaN
    let [r] = table.rowRange(e, w.lo, w.hi)
    const [, end] = table.rowRange(e, w.lo, w.hi)
    for (let i = 0; i < out.length; i++) {
      if (r < end && table.days[r] === w.lo + i) level = column[r++]!
      if (!Number.isNaN(level)) addTo(out, i, level)
    }
  }
  return out
}

/** carriedDaily over every entity of the table, read from its carried totals (days past the axis keep its last day's level). */
export function carriedTotalDaily<M extends string>(w: StatWindow, table: FactTable<M>, metric: M): Daily {
  const totals = table.carriedTotals(metric)
  const out = noReports(w)
  if (totals.length === 0) return out
  for (let i = 0; i < out.length; i++) {
    const day = w.lo + i
    if (day >= 0) out[i] = totals[Math.min(day, totals.length - 1)]!
  }
  return out
}

// ---- content records (videos, slideshows, LIVEs) ----

export interface ContentScope {
  /** Brand posts excluded (affiliate stats). */
  affiliateOnly?: boolean
}

/** A post matches the filters: its campaign, and its primary product (where its GMV is attributed). */
export function postMatches(w: StatWindow, post: Video, scope: ContentScope = {}): boolean {
  if (scope.affiliateOnly && post.is_brand) return false
  if (w.campaignId !== null && post.campaign_id !== w.campaignId) return false
  return w.productId === null || post.product === w.productId
}

/** A post counts for the filters when it is of the campaign and features the product (any of its products). */
export function postFeatures(w: StatWindow, post: Video): boolean {
  if (w.campaignId !== null && post.campaign_id !== w.campaignId) return false
  return w.productId === null || post.products.includes(w.productId)
}

/** A metric of the matching videos or slideshows, from their own fact rows (platform days). */
export function postFactsDaily(w: StatWindow, kind: 'videos' | 'slideshows', metric: ContentMetric, scope: ContentScope = {}, out: Daily = zerosOnAxis(w)): Daily {
  const table = w.data.facts[kind]
  const posts = kind === 'videos' ? w.data.videos : w.data.slideshows
  const entities = posts.filter((p) => postMatches(w, p, scope)).map((p) => table.indexOf(p.video_id))
  return factDaily(w, table, metric, entities, out)
}

export type LiveMetric = 'gmv' | 'units_sold' | 'commission'

/** What one tracked LIVE contributes for the filters: its product's stats with `product_id`, else its totals. */
function liveAmount(w: StatWindow, live: LiveStream, metric: LiveMetric, rates: Map<string, number>): number {
  const stats = w.productId === null ? live.products_stats : live.products_stats.filter((s) => s.product_id === w.productId)
  if (metric === 'commission') return stats.reduce((sum, s) => sum + cents(s.gmv * (rates.get(s.product_id) ?? 0)), 0)
  if (w.productId === null) return live[metric]
  return stats.reduce((sum, s) => sum + s[metric], 0)
}

/** A metric of the tracked LIVEs matching the filters, on the LIVE's platform day. */
export function liveFactsDaily(w: StatWindow, metric: LiveMetric, out: Daily = zerosOnAxis(w)): Daily {
  const rates = new Map(w.data.products.map((p) => [p.product_id, p.commission_rate / 10_000]))
  for (const live of w.data.lives) {
    if (w.campaignId !== null && live.campaign_id !== w.campaignId) continue
    addTo(out, platformIndex(w, live.started_at), liveAmount(w, live, metric, rates))
  }
  return out
}

/**
 * Content-attributed part of a metric under the campaign and product filters: the matching videos,
 * slideshows and tracked LIVEs.
 */
export function attributedDaily(w: StatWindow, metric: 'gmv' | 'units_sold' | 'commission', scope: ContentScope = {}): Daily {
  return memo(w, `attributed:${metric}:${scope.affiliateOnly ? 'affiliate' : 'all'}`, () => {
    const out = postFactsDaily(w, 'videos', metric, scope)
    postFactsDaily(w, 'slideshows', metric, scope, out)
    return liveFactsDaily(w, metric, out)
  })
}

// ---- service-timestamped records ----

// The world's videos never change (the world is read-only; writes go to the areas' states), so what
// is derived from them alone is worked out once per shop (and timezone) of a world, not per request.
interface VideoCache {
  /** Post time (epoch ms) per video. */
  postMs: Float64Array
  /** Entity index in the video facts per video (-1 without facts). */
  entities: Int32Array
  /** The creator key (creatorKey) per video. */
  creatorKeys: Int32Array
  /** Post day (axis index, maybe outside it) per video, per timezone calendar. */
  postDays: Map<ShopCalendar, Int32Array>
  /** Series that depend on the videos, their facts and the request window only, by window and filters. */
  windows: Map<string, Daily>
  /** What depends on the videos alone, per day of any window, by timezone and filters. */
  byDay: Map<string, unknown>
}

/** Most window series kept per shop (a dashboard asks a few windows over and over). */
const MAX_WINDOW_SERIES = 64
const videoCaches = new WeakMap<readonly Video[], VideoCache>()
/** The post day of a video without a valid post time: outside every window. */
const NO_DAY = -0x40000000

function videoCache(w: StatWindow): VideoCache {
  return memo(w, 'video-cache', () => shopVideoCache(w))
}

function shopVideoCache(w: StatWindow): VideoCache {
  const videos = w.data.videos
  let cache = videoCaches.get(videos)
  if (!cache) {
    cache = {
      postMs: Float64Array.from(videos, (v) => Date.parse(v.posted_at)),
      entities: Int32Array.from(videos, (v) => w.data.facts.videos.indexOf(v.video_id)),
      creatorKeys: Int32Array.from(videos, (v) => creatorKey(w, v.creator_id)),
      postDays: new Map(),
      windows: new Map(),
      byDay: new Map(),
    }
    videoCaches.set(videos, cache)
  }
  return cache
}

/** Each video's post time (epoch ms). */
export function videoPostMs(w: StatWindow): Float64Array {
  return videoCache(w).postMs
}

/** Each video's entity index in the video facts (-1 without facts). */
export function videoEntities(w: StatWindow): Int32Array {
  return videoCache(w).entities
}

/** Each video's creator key (creatorKey). */
export function videoCreatorKeys(w: StatWindow): Int32Array {
  return videoCache(w).creatorKeys
}

/**
 * A series worked out from the videos and their facts alone (never written at run time) for this
 * window, timezone and filters: built once, then copied out.
 */
export function videoWindowSeries(w: StatWindow, name: string, build: () => Daily): Daily {
  const cache = videoCache(w)
  const key = [name, w.zone.timeZone, w.lo, w.from, w.hi, w.campaignId, w.productId].join('\u0000')
  let series = cache.windows.get(key)
  if (!series) {
    series = build()
    if (cache.windows.size >= MAX_WINDOW_SERIES) cache.windows.delete(cache.windows.keys().next().value!)
    cache.windows.set(key, series)
  }
  return series.slice()
}

/** Each video's post day (axis index, maybe outside it; far outside without a valid post time) in the requested timezone. */
function videoPostDays(w: StatWindow): Int32Array {
  const cache = videoCache(w)
  let days = cache.postDays.get(w.zone)
  if (!days) cache.postDays.set(w.zone, (days = Int32Array.from(cache.postMs, (ms) => (Number.isNaN(ms) ? NO_DAY : zoneDay(w, ms)))))
  return days
}

/** Each video's post day as a window index in the requested timezone (-1 outside the window). */
export function videoPostIndex(w: StatWindow): Int32Array {
  return memo(w, 'video-post-index', () => {
    const days = videoPostDays(w)
    const out = new Int32Array(days.length)
    const last = w.hi - w.lo
    for (let k = 0; k < days.length; k++) {
      const i = days[k]! - w.lo
      out[k] = i >= 0 && i <= last ? i : -1
    }
    return out
  })
}

/**
 * Something worked out from the videos alone (never written at run time) per local day of the
 * requested timezone, for every day at once: built once per timezone and filters, whatever the window.
 * `build` gets each video's post day.
 */
export function videoDays<T>(w: StatWindow, name: string, build: (postDays: Int32Array) => T): T {
  const cache = videoCache(w)
  const key = [name, w.zone.timeZone, w.campaignId, w.productId].join('\u0000')
  let value = cache.byDay.get(key) as T | undefined
  if (value === undefined) {
    value = build(videoPostDays(w))
    if (cache.byDay.size >= MAX_WINDOW_SERIES) cache.byDay.delete(cache.byDay.keys().next().value!)
    cache.byDay.set(key, value)
  }
  return value
}

/** A count per day (days absent count 0) read over the window. */
export function countsOverWindow(w: StatWindow, perDay: ReadonlyMap<number, number>): Daily {
  const out = zeros(w)
  for (let i = 0; i < out.length; i++) out[i] = perDay.get(w.lo + i) ?? 0
  return out
}

/** Keys per day (days absent have none) read over the window. */
export function keysOverWindow(w: StatWindow, perDay: ReadonlyMap<number, readonly number[]>, universe: number): DailyKeys {
  const none: readonly number[] = []
  return dailyKeys(Array.from({ length: w.hi - w.lo + 1 }, (_, i) => perDay.get(w.lo + i) ?? none), universe)
}

/**
 * Counts (or weights) records on the day of a timestamp field, in the requested timezone (or on the
 * platform's days); every day of the window is known (zero).
 */
export function recordDaily<T extends object>(
  w: StatWindow,
  records: readonly T[],
  field: keyof T & string,
  options: { where?: (record: T) => boolean; weight?: (record: T) => number; platformDays?: boolean } = {},
): Daily {
  const out = zeros(w)
  const { where, weight } = options
  const { index, day } = recordsInWindow(w, records, field, options.platformDays ? w.data.calendar : w.zone)
  for (let j = 0; j < index.length; j++) {
    const record = records[index[j]!]!
    if (where && !where(record)) continue
    out[day[j]!]! += weight ? weight(record) : 1
  }
  return out
}

/**
 * `recordDaily` for a list that the request's filters and `name` alone select and weigh (the sample
 * keys): the records' counts (or weights) per day of the calendar, every day at once, kept per list
 * (64 at most per list), so a new window only reads them. The samples state replaces its list on every
 * write that changes a request, and views of the world share the refundable samples until one of them
 * moves: the list's identity says the days still hold. Each day adds its records in the list's order,
 * as the plain computation does, so the sums are the same numbers.
 */
export function keptRecordDaily<T extends object>(
  w: StatWindow,
  records: readonly T[],
  field: keyof T & string,
  name: string,
  options: { where?: (record: T) => boolean; weight?: (record: T) => number; platformDays?: boolean } = {},
): Daily {
  const calendar = options.platformDays ? w.data.calendar : w.zone
  let byKey = keptDays.get(records)
  if (!byKey) keptDays.set(records, (byKey = new Map()))
  const key = [name, field, options.platformDays ? 'platform' : calendar.timeZone, w.campaignId, w.productId, w.onlyCampaignStats].join('\u0000')
  let days = byKey.get(key)
  if (!days) {
    days = recordDays(records, stampDays(w, records, field, calendar), options)
    if (byKey.size >= MAX_WINDOW_SERIES) byKey.delete(byKey.keys().next().value!)
    byKey.set(key, days)
  }
  const out = zeros(w)
  const from = Math.max(w.lo, days.first)
  const to = Math.min(w.hi, days.first + days.totals.length - 1)
  for (let d = from; d <= to; d++) out[d - w.lo]! += days.totals[d - days.first]!
  return out
}

interface RecordDays {
  /** The day of `totals[0]`. */
  first: number
  totals: Float64Array
}
const keptDays = new WeakMap<readonly object[], Map<string, RecordDays>>()

function recordDays<T extends object>(records: readonly T[], days: Int32Array, { where, weight }: { where?: (record: T) => boolean; weight?: (record: T) => number }): RecordDays {
  let first = Infinity
  let last = -Infinity
  for (const d of days) {
    if (d === NO_DAY) continue
    if (d < first) first = d
    if (d > last) last = d
  }
  if (first > last) return { first: 0, totals: new Float64Array(0) }
  const totals = new Float64Array(last - first + 1)
  for (let k = 0; k < records.length; k++) {
    const d = days[k]!
    if (d === NO_DAY) continue
    const record = records[k]!
    if (where && !where(record)) continue
    totals[d - first]! += weight ? weight(record) : 1
  }
  return { first, totals }
}

/**
 * The records whose timestamp falls in the window (their indexes, in order) and its window index;
 * worked out once per request for each list, field and calendar (a stats request writes nothing).
 */
function recordsInWindow<T extends object>(w: StatWindow, records: readonly T[], field: keyof T & string, calendar: ShopCalendar): { index: Int32Array; day: Int32Array } {
  const byList = memo(w, 'records-in-window', () => new Map<readonly object[], Map<string, { index: Int32Array; day: Int32Array }>>())
  let byField = byList.get(records)
  if (!byField) byList.set(records, (byField = new Map()))
  const key = `${field}\u0000${calendar.timeZone}`
  let found = byField.get(key)
  if (!found) {
    const days = stampDays(w, records, field, calendar)
    const last = w.hi - w.lo
    const index = new Int32Array(records.length)
    const day = new Int32Array(records.length)
    let j = 0
    for (let k = 0; k < records.length; k++) {
      const i = days[k]! - w.lo
      if (i < 0 || i > last) continue
      index[j] = k
      day[j++] = i
    }
    byField.set(key, (found = { index: index.subarray(0, j), day: day.subarray(0, j) }))
  }
  return found
}

/** Sample filters: the campaign and the sampled product. */
export function sampleMatches(w: StatWindow, sample: { campaign_id: string | null; sampled_product: string }): boolean {
  if (w.campaignId !== null && sample.campaign_id !== w.campaignId) return false
  return w.productId === null || sample.sampled_product === w.productId
}

/** spec: sample_spend cost basis: SKU custom COGS, else product sample cost, else SKU price, else product price. */
export function sampleCost(w: StatWindow): (sample: SampleRequest) => number {
  return memo(w, 'sample-cost', () => sampleCostOf(w))
}

function sampleCostOf(w: StatWindow): (sample: SampleRequest) => number {
  const skus = new Map(w.data.skus.map((s) => [s.sku_id, s]))
  const products = new Map(w.data.products.map((p) => [p.product_id, p]))
  return (sample) => {
    const sku = skus.get(sample.sku_id)
    const product = products.get(sample.sampled_product)
    return sku?.custom_cogs ?? product?.sample_cost ?? sku?.price ?? product?.price ?? 0
  }
}

/**
 * The campaign id an event points to: its automation (DMs, invites) or email campaign (emails), by
 * the stable ordinal it carries (a deleted campaign's events do not pass to the next one).
 */
function eventCampaignId(w: StatWindow, event: RecordedEvent): string | null {
  if (event.campaign < 0) return null
  const emails = event.kind === 'email_sent'
  const records = outreachRecords(w.state, w.data.shop.shop_id)
  return campaignIdOf(w.state, w.data.shop.shop_id, emails ? 'emails' : 'automations', emails ? records.emailCampaigns : records.automations, event.campaign)
}

const DM_KINDS: readonly EventKind[] = ['dm_sent', 'open_plan_card']

/**
 * Events of some kinds per day of the requested timezone, seeded and recorded at run time. With
 * `campaign_id`, events of that automation or email campaign; a reply (which names no campaign) counts
 * for the campaign of the last DM sent to the same creator before it.
 */
export function eventDaily(w: StatWindow, kinds: readonly EventKind[]): Daily {
  const out = zeros(w)
  const [fromMs, toMs] = windowMs(w)
  const place = (event: RecordedEvent) => {
    const i = zoneIndex(w, event.at)
    if (i >= 0) out[i]! += 1
  }
  if (w.campaignId === null) {
    // The seeded log never changes: its counts per local day are kept per shop and timezone. The
    // events recorded at run time are placed one by one.
    const seeded = seededEventDays(w)
    for (const kind of kinds) {
      const counts = seeded.counts[w.data.events.kinds.indexOf(kind)]
      if (!counts) continue
      for (let i = 0; i < out.length; i++) {
        const d = w.lo + i - seeded.firstDay
        if (d >= 0 && d < counts.length) out[i]! += counts[d]!
      }
    }
    for (const event of recordedEvents(w.state, w.data.shop.shop_id)) {
      if (kinds.includes(event.kind) && event.at >= fromMs && event.at < toMs) place(event)
    }
    return out
  }
  const attributeReplies = kinds.includes('reply')
  const events: RecordedEvent[] = []
  const lookBack = attributeReplies ? 7 * 86_400_000 : 0
  const scanned = attributeReplies ? [...new Set([...kinds, ...DM_KINDS])] : kinds
  forEachShopEvent(w.state, w.data.shop.shop_id, scanned, fromMs - lookBack, toMs, (e) => events.push(e))
  events.sort((a, b) => a.at - b.at)
  const lastDmCampaign = new Map<number, string | null>()
  for (const event of events) {
    const own = eventCampaignId(w, event)
    const campaign = event.kind === 'reply' && own === null ? (lastDmCampaign.get(event.creator) ?? null) : own
    if (DM_KINDS.includes(event.kind)) lastDmCampaign.set(event.creator, own)
    if (kinds.includes(event.kind) && campaign === w.campaignId && event.at >= fromMs) place(event)
  }
  return out
}

const seededByLog = new WeakMap<object, Map<ShopCalendar, { firstDay: number; counts: Int32Array[] }>>()

/** The shop's seeded events counted per kind and local day of the requested timezone (days from `firstDay`). */
function seededEventDays(w: StatWindow): { firstDay: number; counts: Int32Array[] } {
  let byZone = seededByLog.get(w.data.events)
  if (!byZone) seededByLog.set(w.data.events, (byZone = new Map()))
  let seeded = byZone.get(w.zone)
  if (!seeded) {
    const log = w.data.events
    const days = Int32Array.from(log.at.subarray(0, log.count), (ms) => zoneDay(w, ms))
    let firstDay = 0
    let lastDay = -1
    if (days.length) {
      firstDay = days.reduce((a, b) => Math.min(a, b))
      lastDay = days.reduce((a, b) => Math.max(a, b))
    }
    const counts = log.kinds.map(() => new Int32Array(lastDay - firstDay + 1))
    for (let i = 0; i < days.length; i++) counts[log.kind[i]!]![days[i]! - firstDay]!++
    byZone.set(w.zone, (seeded = { firstDay, counts }))
  }
  return seeded
}

/**
 * Keys (creators, as small integers) per day of the window, for distinct counts recomputed per bucket:
 * `count(start, end)` is the number of distinct keys over those window days.
 */
export interface DailyKeys {
  count(start: number, end: number): number
}

/**
 * Distinct counts over per-day key lists; keys are integers in [0, universe). Each occurrence of a key
 * remembers the day the key last occurred before it, so a run of days counts the occurrences in it whose
 * previous one falls before the run (each key's first in the run): one pass over the run, nothing written.
 */
export function dailyKeys(days: ReadonlyArray<ArrayLike<number>>, universe: number): DailyKeys {
  let occurrences = 0
  for (const keys of days) occurrences += keys.length
  const offsets = new Int32Array(days.length + 1)
  const previous = new Int32Array(occurrences)
  const last = new Int32Array(universe).fill(-1)
  let r = 0
  for (let d = 0; d < days.length; d++) {
    const keys = days[d]!
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!
      previous[r++] = last[key]!
      last[key] = d
    }
    offsets[d + 1] = r
  }
  return {
    count(start, end) {
      let distinct = 0
      for (let i = offsets[start]!, stop = offsets[end + 1]!; i < stop; i++) if (previous[i]! < start) distinct++
      return distinct
    },
  }
}

/** The window's part (window index 0 = day `first`) of a DailyKeys over `count` days (none outside them). */
export function keysFrom(keys: DailyKeys, first: number, count: number): DailyKeys {
  return {
    count(start, end) {
      const a = Math.max(first + start, 0)
      const b = Math.min(first + end, count - 1)
      return a <= b ? keys.count(a, b) : 0
    },
  }
}

/**
 * By the shop's affiliates, which every view of the world shares (fixtures/as-of.ts): the keys stay
 * the same across views, as the caches holding them (the video cache) outlive a view.
 */
const creatorKeysByShop = new WeakMap<readonly Affiliate[], Map<string, number>>()

/** A small integer per creator id of the shop (its CRM row index; others numbered after), for DailyKeys. */
export function creatorKey(w: StatWindow, creatorId: string): number {
  let keys = creatorKeysByShop.get(w.data.affiliates)
  if (!keys) creatorKeysByShop.set(w.data.affiliates, (keys = new Map(w.data.affiliates.map((a, i) => [a.creator_id, i]))))
  let key = keys.get(creatorId)
  if (key === undefined) keys.set(creatorId, (key = keys.size))
  return key
}

/** How many creator keys the shop has handed out so far (the universe of its DailyKeys). */
export function creatorKeyCount(w: StatWindow): number {
  return creatorKeysByShop.get(w.data.affiliates)?.size ?? w.data.affiliates.length
}
