/**
 * The CRM query (spec: POST /affiliate/crm/list; Resources: Affiliate (CRM row)): the shop's
 * affiliates filtered, sorted and shaped as CRM rows, with the per-shop index and the byte assembly
 * that keep it fast. The CRM list (areas/content.ts) answers with it, and outreach re-resolves saved
 * groups with `filterCrmAffiliates`.
 */
import type { Affiliate, Creator, LiveStream, ShopData, Video } from '../../fixtures/index.ts'
import type { components } from '../../openapi/types.ts'
import type { MockState } from '../state.ts'
import type { World } from '../world.ts'
import { dayWindow, inWindow, usDateOf, type DayWindow } from './dates.ts'
import { boundsOf, hasBounds, matchesAffiliatePerformance, matchesShopPerformance } from './filters.ts'
import { postRateOf, shopLifetime } from './figures.ts'
import { handleContains } from './handles.ts'
import { creatorContent, creatorOf } from './lookups.ts'
import { round2 } from './numbers.ts'
import { shopDataOf } from './shop.ts'
import { compareText, type SortDirection } from './sort.ts'
import { affiliateTags, affiliateTagsVersion } from './tags.ts'

/** A CRM row as the contract returns it (spec: Resources: Affiliate (CRM row)). */
export type CrmRow = components['schemas']['Affiliate']

/** The tags of the shop's affiliates as they are now (mock/lib/tags.ts): the one part of a CRM row requests change. */
type TagsOf = (affiliate: Affiliate) => readonly string[]

/**
 * What the CRM reads of each affiliate that no request changes (the world is read-only; tags live in
 * the tag state and are read at request time): its creator, fact-table entity, posts, LIVEs, last
 * post and LIVE days, and its handle's rank in sort order. Built once per shop of a world, on the
 * first CRM request (a reset builds a new world, so a new index).
 */
interface CrmIndex {
  creators: Creator[]
  /** Entity index in `facts.affiliates` (-1 without facts). */
  entities: Int32Array
  videos: Video[][]
  lives: LiveStream[][]
  /** Day of the last video or slideshow, -1 for none. */
  lastPost: Int32Array
  /** Day of the last LIVE, -1 for none. */
  lastLive: Int32Array
  /** Position of the handle in code-point order (the tie-break of every CRM sort). */
  handleRank: Int32Array
  /** Each affiliate's post days (videos), ascending: a window's video count is two binary searches. */
  videoDays: Int32Array[]
  /** Sort values of every affiliate for a key of FIXED_SORT_KEYS by window (`key|from|to`), computed on first use (bounded). */
  sortValues: Map<string, Float64Array>
  /** Every affiliate in sort order by key, direction and window, built when a sort repeats (bounded). */
  sortOrders: Map<string, { uses: number; order?: Int32Array }>
  /** The UTF-8 bytes of each row's fixed parts, built on first use (see crmRowsBytes). */
  rowParts: (CrmRowParts | undefined)[]
  /** How many affiliates a `filters` object matches, by window and filters, with the tags' version they were counted at (bounded; see countCrmAffiliates). */
  matchCounts: Map<string, { tags: object; count: number }>
}

/** The fixed parts of a CRM row, encoded once: they come from the world alone. */
interface CrmRowParts {
  /** `{"shop_id":…,"showcasing":…,"units_sold":` */
  head: Uint8Array
  /** `,"last_post":…,"last_live":…,"email":…,"bio":…,"tags":` */
  tail: Uint8Array
}

// TextEncoder, not Buffer: the CRM list also answers in the browser (shoptwin/mock under MSW's setupWorker).
const utf8 = new TextEncoder()

/** Most sort values / orders kept per shop (windows are client input). */
const MAX_SORT_CACHE = 256

/**
 * By the shop's affiliates, with the content lists each index was built from: the world the mock
 * serves is a view as of its clock (fixtures/as-of.ts), and a new view keeps the lists it does not
 * change, so the index outlives a view unless a post or LIVE of the day appeared.
 */
const crmIndexes = new WeakMap<readonly Affiliate[], { sources: readonly unknown[]; index: CrmIndex }>()
const contentSources = (data: ShopData): readonly unknown[] => [data.videos, data.slideshows, data.lives, data.facts.affiliates]

export function crmIndexOf(world: World, data: ShopData): CrmIndex {
  const known = crmIndexes.get(data.affiliates)
  const sources = contentSources(data)
  if (known && known.sources.every((source, k) => source === sources[k])) return known.index
  let index: CrmIndex
  const n = data.affiliates.length
  const lastDayOf = (days: number[]) => (days.length ? Math.max(...days) : -1)
  index = {
    creators: data.affiliates.map((a) => creatorOf(world, a)),
    entities: Int32Array.from(data.affiliates, (a) => data.facts.affiliates.indexOf(a.creator_id)),
    videos: [],
    lives: [],
    lastPost: new Int32Array(n),
    lastLive: new Int32Array(n),
    handleRank: new Int32Array(n),
    videoDays: [],
    sortValues: new Map(),
    sortOrders: new Map(),
    rowParts: new Array<CrmRowParts | undefined>(n),
    matchCounts: new Map(),
  }
  data.affiliates.forEach((affiliate, i) => {
    const { videos, slideshows, lives } = creatorContent(data, affiliate.creator_id)
    index!.videos.push(videos)
    index!.videoDays.push(Int32Array.from(videos, (v) => v.post_day).sort())
    index!.lives.push(lives)
    index!.lastPost[i] = lastDayOf([...videos, ...slideshows].map((p) => p.post_day))
    index!.lastLive[i] = lastDayOf(lives.map((l) => l.start_day))
  })
  const byHandle = data.affiliates.map((a, i) => ({ handle: a.handle, i })).sort((a, b) => compareText(a.handle, b.handle))
  byHandle.forEach(({ handle, i }, k) => {
    // Equal handles share a rank, as they tie.
    index!.handleRank[i] = k > 0 && byHandle[k - 1]!.handle === handle ? index!.handleRank[byHandle[k - 1]!.i]! : k
  })
  crmIndexes.set(data.affiliates, { sources, index })
  return index
}

type CrmMetric = 'gmv' | 'video_gmv' | 'live_gmv' | 'commission' | 'units_sold'

const crmSum = (data: ShopData, index: CrmIndex, i: number, metric: CrmMetric, w: DayWindow): number => {
  const entity = index.entities[i]!
  return entity < 0 ? 0 : round2(data.facts.affiliates.sum(metric, entity, w.from, w.to))
}

/** The first position in ascending `days` whose day is at least `day`. */
function lowerBound(days: Int32Array, day: number): number {
  let lo = 0
  let hi = days.length
  // Terminates: binary search, hi - lo halves each turn.
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (days[mid]! < day) lo = mid + 1
    else hi = mid
  }
  return lo
}

const videoCount = (index: CrmIndex, i: number, w: DayWindow): number => {
  const days = index.videoDays[i]!
  if (days.length === 0 || w.to < w.from) return 0
  return lowerBound(days, w.to + 1) - lowerBound(days, w.from)
}

const windowLivesOf = (index: CrmIndex, i: number, w: DayWindow): LiveStream[] => index.lives[i]!.filter((l) => inWindow(l.start_day, w))

const lastDayText = (world: World, day: number): string | null => (day < 0 ? null : usDateOf(world, day))

/** spec: Affiliate (CRM row): shop metrics all-time or within the window, the public profile, the shop's tags. */
function crmRow(world: World, data: ShopData, index: CrmIndex, i: number, w: DayWindow, tags: readonly string[]): CrmRow {
  const affiliate = data.affiliates[i]!
  const creator = index.creators[i]!
  return {
    shop_id: data.shop.shop_id,
    handle: affiliate.handle,
    creator_id: affiliate.creator_id,
    nickname: creator.nickname,
    showcasing: affiliate.showcasing,
    ...windowMetrics(data, index, i, w),
    // Most recent post (video or slideshow) and LIVE, whatever the window.
    last_post: lastDayText(world, index.lastPost[i]!),
    last_live: lastDayText(world, index.lastLive[i]!),
    // spec: email falls back to the public profile email; null when unknown.
    email: affiliate.email ?? creator.email,
    phone_number: affiliate.phone_number ?? creator.phone_number,
    med_gmv_revenue: creator.med_gmv_revenue,
    follower_cnt: creator.follower_cnt,
    brand_collaborations: creator.brand_collaborations,
    post_rate: postRateOf(creator),
    video_engagement: creator.video_engagement,
    video_avg_view_cnt: creator.video_avg_view_cnt,
    category: creator.category,
    category_splits: { ...creator.category_splits },
    regional_geography: [...creator.regional_geography],
    gender: creator.gender,
    age: creator.age,
    race: creator.race,
    body_type: creator.body_type,
    economic_status: creator.economic_status,
    top_follower_gender: creator.top_follower_gender,
    top_follower_ages: creator.top_follower_ages,
    bio: creator.bio,
    // The tag state's, at request time: POST /tags/add and /tags/remove change them.
    tags: [...tags],
  }
}

/** The metrics of a CRM row that depend on the window, in the row's order (spread into crmRow, encoded alone by crmRowsBytes). */
function windowMetrics(data: ShopData, index: CrmIndex, i: number, w: DayWindow) {
  const sum = (metric: CrmMetric) => crmSum(data, index, i, metric, w)
  const windowLives = windowLivesOf(index, i, w)
  return {
    units_sold: sum('units_sold'),
    video_count: videoCount(index, i, w),
    live_count: windowLives.length,
    live_duration: windowLives.reduce((total, l) => total + l.duration, 0),
    gmv: sum('gmv'),
    video_gmv: sum('video_gmv'),
    live_gmv: sum('live_gmv'),
    commission: sum('commission'),
  }
}

/**
 * The encoded fixed parts of affiliate `i`'s row: everything before the window's metrics, and
 * everything after them but the tags (read at request time). Taken from crmRow itself, so the bytes
 * stay those of its JSON; built once, as the records they come from are the world's, which no
 * request changes.
 */
function crmRowParts(world: World, data: ShopData, index: CrmIndex, i: number): CrmRowParts {
  const known = index.rowParts[i]
  if (known) return known
  const window: DayWindow = { from: 0, to: -1, ranged: true }
  const metricKeys = Object.keys(windowMetrics(data, index, i, window))
  const entries = Object.entries(crmRow(world, data, index, i, window, []))
  const first = entries.findIndex(([key]) => key === metricKeys[0])
  const fixed = first >= 0 && entries[entries.length - 1]![0] === 'tags' && metricKeys.every((key, k) => entries[first + k]?.[0] === key)
  if (!fixed) throw new Error('crmRow no longer lists its window metrics together before its tags')
  const head = JSON.stringify(Object.fromEntries(entries.slice(0, first)))
  const tail = JSON.stringify(Object.fromEntries(entries.slice(first + metricKeys.length, -1)))
  const parts: CrmRowParts = {
    head: utf8.encode(head.length > 2 ? `${head.slice(0, -1)},` : '{'),
    tail: utf8.encode(`${tail.length > 2 ? `,${tail.slice(1, -1)}` : ''},"tags":`),
  }
  index.rowParts[i] = parts
  return parts
}

/**
 * `JSON.stringify(crmRow(…))` of each row, joined by commas, as UTF-8: the fixed parts are encoded
 * once per affiliate, only the window's metrics (windowMetrics, as crmRow has them) and the tags per request.
 */
export function crmRowsBytes(world: World, data: ShopData, index: CrmIndex, tagsOf: TagsOf, rows: readonly number[], w: DayWindow, before: string, after: string): Uint8Array {
  const pieces: Array<Uint8Array | string> = []
  let text = before
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k]!
    const parts = crmRowParts(world, data, index, i)
    const metrics = JSON.stringify(windowMetrics(data, index, i, w))
    pieces.push(k === 0 ? text : `${text},`, parts.head, metrics.slice(1, -1), parts.tail)
    text = `${JSON.stringify(tagsOf(data.affiliates[i]!))}}`
  }
  pieces.push(rows.length ? `${text}${after}` : `${before}${after}`)
  let size = 0
  for (const piece of pieces) size += typeof piece === 'string' ? piece.length * 3 : piece.length
  const bytes = new Uint8Array(size)
  let at = 0
  for (const piece of pieces) {
    if (typeof piece === 'string') at += utf8.encodeInto(piece, bytes.subarray(at)).written
    else {
      bytes.set(piece, at)
      at += piece.length
    }
  }
  return bytes.subarray(0, at)
}

const tagList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [])

/** Indexes of the shop's affiliates matching a CRM `filters` object, in record order (see filterCrmAffiliates). */
export function matchingAffiliates(world: World, data: ShopData, index: CrmIndex, tagsOf: TagsOf, filters: Record<string, unknown>, window: DayWindow): number[] {
  const f = filters ?? {}
  const include = tagList(f.include_tags)
  const exclude = tagList(f.exclude_tags)
  // Without a numeric bound every creator is within the performance filters.
  const affiliatePerformance = boundsOf(f.affiliate_performance)
  const shopPerformance = boundsOf(f.shop_performance)
  const wantsAffiliatePerformance = hasBounds(affiliatePerformance)
  const wantsShopPerformance = hasBounds(shopPerformance)
  const minVideos = typeof f.min_videos === 'number' ? f.min_videos : undefined
  const wantsHandle = typeof f.handle === 'string' && f.handle.trim() !== ''
  const videoCounts = minVideos === undefined ? undefined : sortValuesOf(data, index, 'video_count', window)
  const out: number[] = []
  const affiliates = data.affiliates
  for (let i = 0; i < affiliates.length; i++) {
    const affiliate = affiliates[i]!
    if (wantsHandle && !handleContains(affiliate.handle, f.handle)) continue
    if (include.length || exclude.length) {
      const tags = tagsOf(affiliate)
      if (include.length && !tags.some((t) => include.includes(t))) continue
      if (exclude.length && tags.some((t) => exclude.includes(t))) continue
    }
    if (wantsAffiliatePerformance && !matchesAffiliatePerformance(index.creators[i]!, affiliatePerformance)) continue
    if (wantsShopPerformance && !matchesShopPerformance(shopLifetime(world, data, affiliate.creator_id), shopPerformance)) continue
    if (videoCounts && videoCounts[i]! < minVideos!) continue
    out.push(i)
  }
  return out
}

export const CRM_SORT_KEYS = [
  'gmv', 'video_gmv', 'live_gmv', 'commission', 'units_sold', 'video_count', 'live_count', 'live_duration',
  'follower_cnt', 'med_gmv_revenue', 'brand_collaborations', 'video_engagement', 'video_avg_view_cnt', 'post_rate',
  'last_post', 'last_live', 'handle',
] as const
export type CrmSortKey = (typeof CRM_SORT_KEYS)[number]

/**
 * The value a CRM row sorts by, as a number (NaN for null, sorted last): the row's own field, a
 * last_post / last_live date as its day (same order as the ISO date), a handle as its rank.
 */
function crmSortNumber(data: ShopData, index: CrmIndex, i: number, key: CrmSortKey, w: DayWindow): number {
  const creator = index.creators[i]!
  switch (key) {
    case 'gmv':
    case 'video_gmv':
    case 'live_gmv':
    case 'commission':
    case 'units_sold':
      return crmSum(data, index, i, key, w)
    case 'video_count':
      return videoCount(index, i, w)
    case 'live_count':
      return windowLivesOf(index, i, w).length
    case 'live_duration':
      return windowLivesOf(index, i, w).reduce((total, l) => total + l.duration, 0)
    case 'post_rate':
      return typeof creator.post_rate === 'number' ? creator.post_rate : NaN
    case 'last_post':
    case 'last_live': {
      const day = key === 'last_post' ? index.lastPost[i]! : index.lastLive[i]!
      return day < 0 ? NaN : day
    }
    case 'handle':
      return index.handleRank[i]!
    default: {
      const value = creator[key]
      return typeof value === 'number' ? value : NaN
    }
  }
}

/** Sort keys whose value depends on the window (the others are the affiliate's or its creator's). */
const WINDOWED_SORT_KEYS: ReadonlySet<CrmSortKey> = new Set(['gmv', 'video_gmv', 'live_gmv', 'commission', 'units_sold', 'video_count', 'live_count', 'live_duration'])

/**
 * Sort keys read from what the CRM index already holds as fixed (facts, posts, LIVEs, handles): their
 * values and orders are kept. The profile keys are read from the creators at every request.
 */
const FIXED_SORT_KEYS: ReadonlySet<CrmSortKey> = new Set([...WINDOWED_SORT_KEYS, 'last_post', 'last_live', 'handle'])

/** How many sort-value arrays (or orders) a shop keeps: about two million numbers at most. */
const sortCacheSize = (n: number): number => Math.max(8, Math.min(MAX_SORT_CACHE, Math.floor(2_000_000 / Math.max(1, n))))

/** Bounded insertion: a full map is emptied first (windows are client input). */
function remember<V>(map: Map<string, V>, limit: number, id: string, value: V): V {
  if (map.size >= limit) map.clear()
  map.set(id, value)
  return value
}

/**
 * Every affiliate's sort value for a key within a window (see crmSortNumber). The facts, posts and
 * profiles they come from never change, so they are computed once per shop, key and window.
 */
function sortValuesOf(data: ShopData, index: CrmIndex, key: CrmSortKey, w: DayWindow): Float64Array {
  const kept = FIXED_SORT_KEYS.has(key)
  const id = WINDOWED_SORT_KEYS.has(key) ? `${key}|${w.from}|${w.to}` : key
  const known = kept ? index.sortValues.get(id) : undefined
  if (known) return known
  const values = new Float64Array(index.creators.length)
  for (let i = 0; i < values.length; i++) values[i] = crmSortNumber(data, index, i, key, w)
  return kept ? remember(index.sortValues, sortCacheSize(values.length), id, values) : values
}

/**
 * The first `count` affiliate indexes in the order sortRows sorts CRM rows: by the key (nulls last in
 * both directions), ties by handle ascending (then record order). Only the sort values are computed,
 * not the rows; a first page is picked with a bounded heap rather than sorting every match. For a key
 * of FIXED_SORT_KEYS, from the second request with the same key, direction and window, every affiliate
 * is sorted once (a total order, so the matches keep their relative order in it) and a page is the
 * first matches along it.
 */
export function sortCrm(data: ShopData, index: CrmIndex, matching: number[], key: CrmSortKey, direction: SortDirection, w: DayWindow, count = matching.length): number[] {
  const sign = direction === 'asc' ? 1 : -1
  const values = sortValuesOf(data, index, key, w)
  const rank = index.handleRank
  const compare = (a: number, b: number): number => {
    const x = values[a]!
    const y = values[b]!
    const xNull = Number.isNaN(x)
    const yNull = Number.isNaN(y)
    if (xNull !== yNull) return xNull ? 1 : -1
    return (xNull ? 0 : sign * (x - y)) || rank[a]! - rank[b]! || a - b
  }
  const n = index.creators.length
  const id = WINDOWED_SORT_KEYS.has(key) ? `${direction}|${key}|${w.from}|${w.to}` : `${direction}|${key}`
  const sorting = FIXED_SORT_KEYS.has(key) ? (index.sortOrders.get(id) ?? remember(index.sortOrders, sortCacheSize(n), id, { uses: 0 })) : { uses: 0 }
  sorting.uses++
  if (!sorting.order && sorting.uses >= 2) {
    const order = new Int32Array(n)
    for (let i = 0; i < n; i++) order[i] = i
    sorting.order = order.sort(compare)
  }
  const want = Math.min(Math.max(0, count), matching.length)
  const order = sorting.order
  if (!order) return firstInOrder(matching, want, compare)
  if (matching.length === n) return Array.from(order.subarray(0, want))
  const matches = new Uint8Array(n)
  for (const i of matching) matches[i] = 1
  const out: number[] = []
  for (let k = 0; k < n && out.length < want; k++) if (matches[order[k]!]) out.push(order[k]!)
  return out
}

/** The first `count` items of `items` sorted by `compare` (a total order); `items` may be reordered. */
function firstInOrder(items: number[], count: number, compare: (a: number, b: number) => number): number[] {
  if (count * 4 >= items.length) return items.sort(compare).slice(0, count)
  // A max-heap of the best `count` so far: its root is the worst of them.
  const heap: number[] = []
  const siftDown = (at: number) => {
    // Terminates: `at` at least doubles each turn and the loop returns past the heap's end.
    for (;;) {
      const left = 2 * at + 1
      if (left >= heap.length) return
      const worse = left + 1 < heap.length && compare(heap[left + 1]!, heap[left]!) > 0 ? left + 1 : left
      if (compare(heap[worse]!, heap[at]!) <= 0) return
      ;[heap[at], heap[worse]] = [heap[worse]!, heap[at]!]
      at = worse
    }
  }
  for (const item of items) {
    if (heap.length < count) {
      heap.push(item)
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1
        if (compare(heap[at]!, heap[parent]!) <= 0) break
        ;[heap[at], heap[parent]] = [heap[parent]!, heap[at]!]
        at = parent
      }
    } else if (count > 0 && compare(item, heap[0]!) < 0) {
      heap[0] = item
      siftDown(0)
    }
  }
  return heap.sort(compare)
}

/**
 * The shop's CRM rows matching a CRM `filters` object (spec: POST /affiliate/crm/list): `handle`
 * (case-insensitive substring), `min_videos` (videos in the window), `include_tags` (any of them,
 * case-sensitive), `exclude_tags` (none of them), `affiliate_performance` (platform-wide 30-day GMV and
 * followers), `shop_performance` (lifetime with the shop). Metrics all-time or within `dateRange`.
 * Ordered by gmv descending, then handle. Outreach re-resolves saved groups with it.
 */
export function filterCrmAffiliates(state: MockState, shopId: string, filters: Record<string, unknown>, dateRange?: { from: string; to: string }): CrmRow[] {
  const world = state.world
  const data = shopDataOf(world, shopId)
  const window = dayWindow(world, dateRange)
  const index = crmIndexOf(world, data)
  const tagsOf = affiliateTags(state, shopId)
  const sorted = sortCrm(data, index, matchingAffiliates(world, data, index, tagsOf, filters, window), 'gmv', 'desc', window)
  return sorted.map((i) => crmRow(world, data, index, i, window, tagsOf(data.affiliates[i]!)))
}


/**
 * How many of the shop's CRM creators a CRM `filters` object matches now: the length of
 * filterCrmAffiliates' answer without sorting them or building their rows (a saved group's size).
 * Kept per shop by window and filters: what they read is fixed (the index's facts, posts and
 * profiles) but for the tags, so a count by tags holds for the tags' version it was made at.
 */
export function countCrmAffiliates(state: MockState, shopId: string, filters: Record<string, unknown>): number {
  const world = state.world
  const data = shopDataOf(world, shopId)
  const window = dayWindow(world, undefined)
  const index = crmIndexOf(world, data)
  const tags = affiliateTagsVersion(state, shopId)
  const id = `${window.from}|${window.to}|${JSON.stringify(filters ?? {})}`
  const known = index.matchCounts.get(id)
  const byTags = tagList(filters?.include_tags).length > 0 || tagList(filters?.exclude_tags).length > 0
  if (known && (!byTags || known.tags === tags)) return known.count
  const count = matchingAffiliates(world, data, index, affiliateTags(state, shopId), filters, window).length
  return remember(index.matchCounts, MAX_SORT_CACHE, id, { tags, count }).count
}
