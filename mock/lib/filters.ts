/** Filters shared by the lists: id sets, record snapshots and the CRM's performance bounds. */
import type { Creator } from '../../fixtures/index.ts'

/** A "string or array" id filter as a set (ads, social); absent or empty means no filter. */
export function idSetOf(...values: unknown[]): Set<string> | undefined {
  const ids = values.flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []))
  return ids.length ? new Set(ids) : undefined
}

/** An array id filter as a set (samples); an empty or absent array filters nothing. */
export const idArraySet = (ids: unknown): Set<string> | null => (Array.isArray(ids) && ids.length > 0 ? new Set(ids as string[]) : null)

/** True while `records` still holds exactly the records a cache was built from. */
export const sameRecords = <T>(snapshot: readonly T[], records: readonly T[]): boolean =>
  snapshot.length === records.length && snapshot.every((record, i) => record === records[i])

/** Inclusive bounds: unset (non-number) bounds match everything. */
export const inBounds = (value: number, min: unknown, max: unknown): boolean =>
  (typeof min !== 'number' || value >= min) && (typeof max !== 'number' || value <= max)

/** `min_<name>`/`max_<name>` bounds of a performance filter object. */
export type Bounds = Record<string, number | undefined> | undefined

/** Inclusive `min_<name>`/`max_<name>` bounds of a performance filter (unset bounds match everything). */
export const withinBounds = (value: number, bounds: Bounds, name: string): boolean => inBounds(value, bounds?.[`min_${name}`], bounds?.[`max_${name}`])

/** A performance filter object of a request (non-numeric bounds are ignored where bounds are read). */
export const boundsOf = (value: unknown): Bounds => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Bounds) : undefined)

/** True when a performance filter sets at least one bound. */
export const hasBounds = (bounds: Bounds): boolean => !!bounds && Object.values(bounds).some((v) => typeof v === 'number')

// spec: affiliate_performance: platform-wide 30-day GMV across all brands and followers.
export const matchesAffiliatePerformance = (creator: Creator, bounds: Bounds): boolean =>
  withinBounds(creator.med_gmv_revenue, bounds, 'gmv') && withinBounds(creator.follower_cnt, bounds, 'followers')

/** A creator's lifetime figures for the shop (spec: shop_performance: shop lifetime). */
export interface ShopLifetime {
  gmv: number
  video_gmv: number
  live_gmv: number
  units_sold: number
}

export const matchesShopPerformance = (lifetime: ShopLifetime, bounds: Bounds): boolean =>
  withinBounds(lifetime.gmv, bounds, 'gmv') && withinBounds(lifetime.video_gmv, bounds, 'video_gmv') && withinBounds(lifetime.live_gmv, bounds, 'live_gmv') && withinBounds(lifetime.units_sold, bounds, 'units_sold')

/** Case-insensitive fuzzy match: every word of the query appears in the text (product and SKU searches). */
export function fuzzyMatch(text: string, query: string | undefined): boolean {
  if (!query?.trim()) return true
  const hay = text.toLowerCase()
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((word) => hay.includes(word))
}
