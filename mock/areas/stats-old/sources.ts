/**
 * Where the stats read from: the daily fact tables (platform days), the content, LIVE and sample
 * records, and the service-timestamped events (requested timezone). Each source returns a Daily over
 * the request window, NaN on days with no report.
 */
import type { EventKind, FactTable } from '../../../fixtures/facts.ts'
import { cents } from '../../../fixtures/random.ts'
import type { ContentMetric, ContentTotalMetric, LiveStream, ProductMetric, SampleRequest, ShopMetric, Video } from '../../../fixtures/types.ts'
import { forEachShopEvent, type RecordedEvent } from '../../events.ts'
import { addTo, memo, noReports, windowMs, zeros, zerosOnAxis, zoneIndex, platformIndex, type Daily, type StatWindow } from './window.ts'

/** Sum of a metric over some entities of a fact table; days where none of them reported stay NaN. */
export function factDaily<M extends string>(w: StatWindow, table: FactTable<M>, metric: M, entities: Iterable<number>, out: Daily = noReports(w)): Daily {
  const column = table.columns[metric]
  for (const e of entities) {
    if (e < 0) continue
    const [a, b] = table.rowRange(e, w.lo, w.hi)
    for (let r = a; r < b; r++) addTo(out, table.days[r]! - w.lo, column[r]!)
  }
  return out
}

const allEntities = (table: FactTable): number[] => table.entityIds.map((_, i) => i)

/** The product facts, whole shop or the `product_id` filter. */
export function productDaily(w: StatWindow, metric: ProductMetric): Daily {
  return memo(w, `product:${metric}`, () => {
    const table = w.data.facts.products
    return factDaily(w, table, metric, w.productId ? [table.indexOf(w.productId)] : allEntities(table))
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

/** Each video's post time (epoch ms), parsed once per request; records are read as they are now. */
export function videoPostMs(w: StatWindow): Float64Array {
  return memo(w, 'video-post-ms', () => Float64Array.from(w.data.videos, (v) => Date.parse(v.posted_at)))
}

/** Each video's post day as a window index in the requested timezone (-1 outside the window). */
export function videoPostIndex(w: StatWindow): Int32Array {
  return memo(w, 'video-post-index', () => Int32Array.from(videoPostMs(w), (ms) => zoneIndex(w, ms)))
}

/** Counts (or weights) records on the day of a timestamp; every day of the window is known (zero). */
export function recordDaily<T>(
  w: StatWindow,
  records: readonly T[],
  timestampOf: (record: T) => string | number | null | undefined,
  options: { where?: (record: T) => boolean; weight?: (record: T) => number; platformDays?: boolean } = {},
): Daily {
  const out = zeros(w)
  const place = options.platformDays ? platformIndex : zoneIndex
  for (const record of records) {
    if (options.where && !options.where(record)) continue
    const i = place(w, timestampOf(record))
    if (i >= 0) out[i]! += options.weight ? options.weight(record) : 1
  }
  return out
}

/** Sample filters: the campaign and the sampled product. */
export function sampleMatches(w: StatWindow, sample: { campaign_id: string | null; sampled_product: string }): boolean {
  if (w.campaignId !== null && sample.campaign_id !== w.campaignId) return false
  return w.productId === null || sample.sampled_product === w.productId
}

/** spec: sample_spend cost basis: SKU custom COGS, else product sample cost, else SKU price, else product price. */
export function sampleCost(w: StatWindow): (sample: SampleRequest) => number {
  const skus = new Map(w.data.skus.map((s) => [s.sku_id, s]))
  const products = new Map(w.data.products.map((p) => [p.product_id, p]))
  return (sample) => {
    const sku = skus.get(sample.sku_id)
    const product = products.get(sample.sampled_product)
    return sku?.custom_cogs ?? product?.sample_cost ?? sku?.price ?? product?.price ?? 0
  }
}

/** The campaign id an event points to: its automation (DMs, invites) or email campaign (emails). */
function eventCampaignId(w: StatWindow, event: RecordedEvent): string | null {
  if (event.campaign < 0) return null
  const records = event.kind === 'email_sent' ? w.data.emailCampaigns : w.data.automations
  return records[event.campaign]?.campaign_id ?? null
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
    forEachShopEvent(w.state, w.data.shop.shop_id, kinds, fromMs, toMs, place)
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

/** Keys (creators) per day, for distinct counts recomputed per bucket. */
export type DailyKeys = Array<Set<string>>

export function emptyKeys(w: StatWindow): DailyKeys {
  return Array.from({ length: w.hi - w.lo + 1 }, () => new Set<string>())
}
