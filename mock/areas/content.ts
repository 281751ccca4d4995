/**
 * The affiliate CRM, videos, slideshows and LIVE streams (spec: CRM, videos, slideshows, LIVEs;
 * Resources: Affiliate (CRM row), Video, Slideshow, LIVE stream). Shop metrics are summed from the
 * daily facts (all-time, or within `date_range`); the profile is the platform-wide creator's.
 * `filterCrmAffiliates` is exported so saved groups (outreach) re-resolve the same filter.
 */
import type { components } from '../../openapi/types.ts'
import type { Affiliate, Creator, LiveStream, ShopData, Slideshow, Video } from '../../fixtures/index.ts'
import type { AreaHandler, AreaModule, InputNormalizer, RequestContext } from '../context.ts'
import { paginate } from '../pipeline/paging.ts'
import { apiError } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { World } from '../world.ts'
import { shopDataOf } from './account.ts'
import {
  creatorContent,
  creatorOf,
  dayWindow,
  handleMatches,
  inWindow,
  lookupsOf,
  postRateOf,
  ratio,
  round2,
  shopOf,
  sortDirectionOf,
  sortKeyOf,
  sortRows,
  usDateOf,
  type DayWindow,
  type SortDirection,
  type SortValue,
} from './timeseries.ts'

type Schemas = components['schemas']
/** A CRM row as the contract returns it (spec: Resources: Affiliate (CRM row)). */
export type CrmRow = Schemas['Affiliate']
export type VideoRow = Schemas['Video']
export type SlideshowRow = Schemas['Slideshow']
export type LiveRow = Schemas['LiveStream']

type Bounds = Record<string, number | undefined> | undefined

/** Inclusive `min_<name>`/`max_<name>` bounds of a performance filter (unset bounds match everything). */
const within = (value: number, bounds: Bounds, name: string): boolean => {
  const min = bounds?.[`min_${name}`]
  const max = bounds?.[`max_${name}`]
  return (typeof min !== 'number' || value >= min) && (typeof max !== 'number' || value <= max)
}

// spec: affiliate_performance: platform-wide 30-day GMV across all brands and followers.
const matchesAffiliatePerformance = (creator: Creator, bounds: Bounds): boolean =>
  within(creator.med_gmv_revenue, bounds, 'gmv') && within(creator.follower_cnt, bounds, 'followers')

/** A creator's lifetime figures for the shop (spec: shop_performance: shop lifetime). */
interface ShopLifetime {
  gmv: number
  video_gmv: number
  live_gmv: number
  units_sold: number
}

function shopLifetime(world: World, data: ShopData, creatorId: string): ShopLifetime {
  const sum = (metric: 'gmv' | 'video_gmv' | 'live_gmv' | 'units_sold') => round2(data.facts.affiliates.sum(metric, creatorId, 0, world.axis.todayIndex))
  return { gmv: sum('gmv'), video_gmv: sum('video_gmv'), live_gmv: sum('live_gmv'), units_sold: sum('units_sold') }
}

const matchesShopPerformance = (lifetime: ShopLifetime, bounds: Bounds): boolean =>
  within(lifetime.gmv, bounds, 'gmv') && within(lifetime.video_gmv, bounds, 'video_gmv') && within(lifetime.live_gmv, bounds, 'live_gmv') && within(lifetime.units_sold, bounds, 'units_sold')

const hasBounds = (bounds: Bounds): boolean => !!bounds && Object.values(bounds).some((v) => typeof v === 'number')

// ---- CRM ----

/**
 * What the CRM reads of each affiliate that no request changes (the world's content is fixed; only
 * tags are edited, and they are read at request time): its creator, fact-table entity, posts, LIVEs,
 * last post and LIVE days, and its handle's rank in sort order. Built once per shop of a world, on
 * the first CRM request (a reset builds a new world, so a new index).
 */
interface CrmIndex {
  /** The affiliate records indexed (a test may add some to the world: then the index is rebuilt). */
  affiliates: Affiliate[]
  creators: Creator[]
  /** Entity index in `facts.affiliates` (-1 without facts). */
  entities: Int32Array
  videos: Video[][]
  lives: LiveStream[][]
  /** Day of the last video or slideshow, -1 for none. */
  lastPost: Int32Array
  /** Day of the last LIVE, -1 for none. */
  lastLive: Int32Array
  /** Position of the handle in `localeCompare` order (the tie-break of every CRM sort). */
  handleRank: Int32Array
}

const crmIndexes = new WeakMap<ShopData, CrmIndex>()

/** True while `records` still holds exactly the records a cache was built from. */
export const sameRecords = <T>(snapshot: readonly T[], records: readonly T[]): boolean =>
  snapshot.length === records.length && snapshot.every((record, i) => record === records[i])

function crmIndexOf(world: World, data: ShopData): CrmIndex {
  let index = crmIndexes.get(data)
  if (index && sameRecords(index.affiliates, data.affiliates)) return index
  const n = data.affiliates.length
  const lastDayOf = (days: number[]) => (days.length ? Math.max(...days) : -1)
  index = {
    affiliates: [...data.affiliates],
    creators: data.affiliates.map((a) => creatorOf(world, a)),
    entities: Int32Array.from(data.affiliates, (a) => data.facts.affiliates.indexOf(a.creator_id)),
    videos: [],
    lives: [],
    lastPost: new Int32Array(n),
    lastLive: new Int32Array(n),
    handleRank: new Int32Array(n),
  }
  data.affiliates.forEach((affiliate, i) => {
    const { videos, slideshows, lives } = creatorContent(world, data, affiliate.creator_id)
    index!.videos.push(videos)
    index!.lives.push(lives)
    index!.lastPost[i] = lastDayOf([...videos, ...slideshows].map((p) => p.post_day))
    index!.lastLive[i] = lastDayOf(lives.map((l) => l.start_day))
  })
  const byHandle = data.affiliates.map((a, i) => ({ handle: a.handle, i })).sort((a, b) => a.handle.localeCompare(b.handle))
  byHandle.forEach(({ handle, i }, k) => {
    // Handles that compare equal share a rank, as they tie in localeCompare.
    index!.handleRank[i] = k > 0 && byHandle[k - 1]!.handle.localeCompare(handle) === 0 ? index!.handleRank[byHandle[k - 1]!.i]! : k
  })
  crmIndexes.set(data, index)
  return index
}

type CrmMetric = 'gmv' | 'video_gmv' | 'live_gmv' | 'commission' | 'units_sold'

const crmSum = (data: ShopData, index: CrmIndex, i: number, metric: CrmMetric, w: DayWindow): number => {
  const entity = index.entities[i]!
  return entity < 0 ? 0 : round2(data.facts.affiliates.sum(metric, entity, w.from, w.to))
}

const videoCount = (index: CrmIndex, i: number, w: DayWindow): number => {
  let count = 0
  for (const v of index.videos[i]!) if (inWindow(v.post_day, w)) count++
  return count
}

const windowLivesOf = (index: CrmIndex, i: number, w: DayWindow): LiveStream[] => index.lives[i]!.filter((l) => inWindow(l.start_day, w))

const lastDayText = (world: World, day: number): string | null => (day < 0 ? null : usDateOf(world, day))

/** spec: Affiliate (CRM row): shop metrics all-time or within the window, the public profile, the shop's tags. */
function crmRow(world: World, data: ShopData, index: CrmIndex, i: number, w: DayWindow): CrmRow {
  const affiliate = data.affiliates[i]!
  const creator = index.creators[i]!
  const sum = (metric: CrmMetric) => crmSum(data, index, i, metric, w)
  const windowLives = windowLivesOf(index, i, w)
  return {
    shop_id: data.shop.shop_id,
    handle: affiliate.handle,
    creator_id: affiliate.creator_id,
    nickname: creator.nickname,
    showcasing: affiliate.showcasing,
    units_sold: sum('units_sold'),
    video_count: videoCount(index, i, w),
    live_count: windowLives.length,
    live_duration: windowLives.reduce((total, l) => total + l.duration, 0),
    gmv: sum('gmv'),
    video_gmv: sum('video_gmv'),
    live_gmv: sum('live_gmv'),
    commission: sum('commission'),
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
    // Read at request time: the tags area edits the records.
    tags: [...affiliate.tags],
  }
}

const tagList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [])

/** Indexes of the shop's affiliates matching a CRM `filters` object, in record order (see filterCrmAffiliates). */
function matchingAffiliates(world: World, data: ShopData, index: CrmIndex, filters: Record<string, any>, window: DayWindow): number[] {
  const f = filters ?? {}
  const include = tagList(f.include_tags)
  const exclude = tagList(f.exclude_tags)
  // Without a numeric bound every creator is within the performance filters.
  const wantsAffiliatePerformance = hasBounds(f.affiliate_performance)
  const wantsShopPerformance = hasBounds(f.shop_performance)
  const minVideos = typeof f.min_videos === 'number' ? f.min_videos : undefined
  const out: number[] = []
  data.affiliates.forEach((affiliate, i) => {
    if (!handleMatches(affiliate.handle, f.handle)) return
    if (include.length && !affiliate.tags.some((t) => include.includes(t))) return
    if (exclude.length && affiliate.tags.some((t) => exclude.includes(t))) return
    if (wantsAffiliatePerformance && !matchesAffiliatePerformance(index.creators[i]!, f.affiliate_performance)) return
    if (wantsShopPerformance && !matchesShopPerformance(shopLifetime(world, data, affiliate.creator_id), f.shop_performance)) return
    if (minVideos !== undefined && videoCount(index, i, window) < minVideos) return
    out.push(i)
  })
  return out
}

const CRM_SORT_KEYS = [
  'gmv', 'video_gmv', 'live_gmv', 'commission', 'units_sold', 'video_count', 'live_count', 'live_duration',
  'follower_cnt', 'med_gmv_revenue', 'brand_collaborations', 'video_engagement', 'video_avg_view_cnt', 'post_rate',
  'last_post', 'last_live', 'handle',
] as const
type CrmSortKey = (typeof CRM_SORT_KEYS)[number]

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

/**
 * The first `count` affiliate indexes in the order sortRows sorts CRM rows: by the key (nulls last in
 * both directions), ties by handle ascending (then record order). Only the sort values are computed,
 * not the rows; a first page is picked with a bounded heap rather than sorting every match.
 */
function sortCrm(data: ShopData, index: CrmIndex, matching: number[], key: CrmSortKey, direction: SortDirection, w: DayWindow, count = matching.length): number[] {
  const sign = direction === 'asc' ? 1 : -1
  const values = new Float64Array(data.affiliates.length)
  for (const i of matching) values[i] = crmSortNumber(data, index, i, key, w)
  const rank = index.handleRank
  const compare = (a: number, b: number): number => {
    const x = values[a]!
    const y = values[b]!
    const xNull = Number.isNaN(x)
    const yNull = Number.isNaN(y)
    if (xNull !== yNull) return xNull ? 1 : -1
    return (xNull ? 0 : sign * (x - y)) || rank[a]! - rank[b]! || a - b
  }
  return firstInOrder(matching, Math.max(0, count), compare)
}

/** The first `count` items of `items` sorted by `compare` (a total order); `items` may be reordered. */
function firstInOrder(items: number[], count: number, compare: (a: number, b: number) => number): number[] {
  if (count * 4 >= items.length) return items.sort(compare).slice(0, count)
  // A max-heap of the best `count` so far: its root is the worst of them.
  const heap: number[] = []
  const siftDown = (at: number) => {
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
export function filterCrmAffiliates(state: MockState, shopId: string, filters: Record<string, any>, dateRange?: { from: string; to: string }): CrmRow[] {
  const world = state.world
  const data = shopDataOf(world, shopId)
  const window = dayWindow(world, dateRange)
  const index = crmIndexOf(world, data)
  const sorted = sortCrm(data, index, matchingAffiliates(world, data, index, filters, window), 'gmv', 'desc', window)
  return sorted.map((i) => crmRow(world, data, index, i, window))
}

/** `{data: {total_count}}` for `just_count: true` (spec: Conventions 3). */
const countOnly = (total: number) => ({ status: 200, body: { data: { total_count: total } } })

const listCrmAffiliates: AreaHandler = (ctx) => {
  const { input, world } = ctx
  const sortBy = sortKeyOf(input.sort_by, CRM_SORT_KEYS, 'sort_by', 'gmv')
  const direction = sortDirectionOf(input.sort_direction, 'sort_direction')
  const data = shopDataOf(world, ctx.shop!.shop_id)
  const window = dayWindow(world, input.date_range)
  const index = crmIndexOf(world, data)
  const matching = matchingAffiliates(world, data, index, input.filters ?? {}, window)
  if (input.just_count === true) return countOnly(matching.length)
  // Only the rows up to the end of the page are ordered, and only the page's rows are built.
  const page = ctx.page!
  const ordered = sortCrm(data, index, matching, sortBy, direction, window, page.offset + page.limit)
  const { rows } = paginate(ordered, page)
  const hasMore = page.offset + page.limit < Math.min(matching.length, page.depthCap)
  const results = rows.map((i) => crmRow(world, data, index, i, window))
  // spec: CRM Search returns results, has_more, page_size, page_offset at the top level.
  return { status: 200, body: { results, has_more: hasMore, page_size: ctx.page!.pageSize, page_offset: ctx.page!.offset } }
}

// ---- Videos, slideshows, LIVEs ----

/** A product filter: one id or several; a post matches when it features any of them. */
const productIdsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : []).map((v) => String(v).trim()).filter(Boolean)

/** The `filters` every content list shares: handle, product_filter, date_range, sort direction. */
function contentFiltersOf(ctx: RequestContext) {
  const filters = (ctx.input.filters ?? {}) as Record<string, any>
  return {
    filters,
    products: productIdsOf(filters.product_filter),
    window: filters.date_range ? dayWindow(ctx.world, filters.date_range, 'filters.date_range') : undefined,
    direction: sortDirectionOf(filters.sort_direction, 'filters.sort_direction'),
  }
}

/** The creator filters (platform-wide and shop lifetime) of the video and LIVE lists. */
function creatorPerformanceFilter(world: World, data: ShopData, filters: Record<string, any>): (creatorId: string) => boolean {
  const wantsAffiliate = hasBounds(filters.affiliate_performance)
  const wantsShop = hasBounds(filters.shop_performance)
  if (!wantsAffiliate && !wantsShop) return () => true
  const shop = lookupsOf(world).shop(data.shop.shop_id)!
  const memo = new Map<string, boolean>()
  return (creatorId) => {
    let ok = memo.get(creatorId)
    if (ok === undefined) {
      const index = shop.affiliateByCreator.get(creatorId)
      const affiliate = index === undefined ? undefined : data.affiliates[index]
      ok = !!affiliate &&
        (!wantsAffiliate || matchesAffiliatePerformance(creatorOf(world, affiliate), filters.affiliate_performance)) &&
        (!wantsShop || matchesShopPerformance(shopLifetime(world, data, creatorId), filters.shop_performance))
      memo.set(creatorId, ok)
    }
    return ok
  }
}

/** A post's lifetime figures from its facts (ctr = clicks / views, percent, as LIVEs); spark's video_data joins them too. */
export type PostFigures = ReturnType<typeof postFigures>
export function postFigures(world: World, data: ShopData, post: Video, kind: 'videos' | 'slideshows') {
  const sum = (metric: 'gmv' | 'views' | 'likes' | 'comments' | 'units_sold' | 'commission' | 'clicks') => round2(data.facts[kind].sum(metric, post.video_id, 0, world.axis.todayIndex))
  const views = sum('views')
  const likes = sum('likes')
  const comments = sum('comments')
  return {
    gmv: sum('gmv'),
    view_count: views,
    units_sold: sum('units_sold'),
    ctr: ratio(sum('clicks'), views, 100),
    like_count: likes,
    comment_count: comments,
    commission: sum('commission'),
    engagement_rate: ratio(likes + comments, views, 100),
  }
}

/** spec: Video: the resource's fields. */
function videoRow(world: World, post: Video, { commission: _commission, engagement_rate: _engagement, ...figures }: PostFigures): VideoRow {
  return {
    shop_id: post.shop_id,
    video_id: post.video_id,
    handle: post.handle,
    post_time: usDateOf(world, post.post_day),
    title: post.title,
    campaign_id: post.campaign_id,
    products: [...post.products],
    product: post.product,
    ...figures,
  }
}

const VIDEO_SORT_KEYS = ['gmv', 'post_time', 'view_count', 'units_sold', 'ctr', 'like_count', 'comment_count'] as const
type PostSortKey = (typeof VIDEO_SORT_KEYS)[number] | 'engagement_rate'

const postSortValue = (row: VideoRow | SlideshowRow, post: Video, key: PostSortKey): SortValue =>
  key === 'post_time' ? post.posted_at : (row as SlideshowRow)[key]

/** `{data: {results, has_more, page_size, page_offset, ...extra}}` of one page. */
function contentPage<T>(ctx: RequestContext, sorted: readonly T[], extra: Record<string, unknown> = {}) {
  if (ctx.input.just_count === true) return countOnly(sorted.length)
  const { rows, hasMore } = paginate(sorted, ctx.page!)
  return { status: 200, body: { data: { results: rows, has_more: hasMore, page_size: ctx.page!.pageSize, page_offset: ctx.page!.offset, ...extra } } }
}

const postMatches = (post: Video, products: string[], window: DayWindow | undefined, handle: unknown): boolean =>
  handleMatches(post.handle, handle) && (!products.length || post.products.some((p) => products.includes(p))) && (!window || inWindow(post.post_day, window))

const listAffiliateVideos: AreaHandler = (ctx) => {
  const data = shopOf(ctx)
  const { filters, products, window, direction } = contentFiltersOf(ctx)
  const sortBy = sortKeyOf(filters.sort_by, VIDEO_SORT_KEYS, 'filters.sort_by', 'gmv')
  const creatorOk = creatorPerformanceFilter(ctx.world, data, filters)
  // Creator videos only: the brand's own posts are not an affiliate's.
  const rows = data.videos
    .filter((v) => !v.is_brand && postMatches(v, products, window, filters.handle) && creatorOk(v.creator_id))
    .map((post) => ({ post, row: videoRow(ctx.world, post, postFigures(ctx.world, data, post, 'videos')) }))
  const sorted = sortRows(rows, (r) => postSortValue(r.row, r.post, sortBy), direction, (r) => r.post.video_id)
  return contentPage(ctx, sorted.map((r) => r.row))
}

// spec: POST /affiliate/slideshows/list: ad metrics roi, cpa, ad_spend are unavailable as sort fields.
const AD_METRIC_SORTS = ['roi', 'cpa', 'ad_spend']
const SLIDESHOW_SORT_KEYS = [...VIDEO_SORT_KEYS, 'engagement_rate'] as const

const refuseAdMetricSort: InputNormalizer = (input) => {
  const sortBy = input.filters?.sort_by
  if (AD_METRIC_SORTS.includes(sortBy)) throw apiError(400, `filters.sort_by ${sortBy} is unavailable for slideshows: the ad metrics roi, cpa and ad_spend cannot be sorted on`)
  return input
}

const listAffiliateSlideshows: AreaHandler = (ctx) => {
  const data = shopOf(ctx)
  const { filters, products, window, direction } = contentFiltersOf(ctx)
  const sortBy = sortKeyOf(filters.sort_by, SLIDESHOW_SORT_KEYS, 'filters.sort_by', 'gmv')
  const campaignId = typeof filters.campaign_id === 'string' && filters.campaign_id !== '' ? filters.campaign_id : undefined
  const rows = data.slideshows
    .filter((s) => !s.is_brand && postMatches(s, products, window, filters.handle) && (!campaignId || s.campaign_id === campaignId))
    .map((post: Slideshow) => {
      const figures = postFigures(ctx.world, data, post, 'slideshows')
      const row: SlideshowRow = { ...videoRow(ctx.world, post, figures), engagement_rate: figures.engagement_rate, slideshow_url: post.slideshow_url }
      return { post, row }
    })
  const sorted = sortRows(rows, (r) => postSortValue(r.row, r.post, sortBy), direction, (r) => r.post.video_id)
  return contentPage(ctx, sorted.map((r) => r.row))
}

const LIVE_SORT_KEYS = ['gmv', 'start_time', 'duration', 'units_sold', 'views', 'likes', 'comments', 'ctr'] as const

/** spec: LIVE stream: the resource's fields. */
const liveRow = (world: World, live: LiveStream): LiveRow => ({
  shop_id: live.shop_id,
  campaign_id: live.campaign_id,
  live_id: live.live_id,
  handle: live.handle,
  title: live.title,
  start_time: usDateOf(world, live.start_day),
  duration: live.duration,
  units_sold: live.units_sold,
  gmv: live.gmv,
  views: live.views,
  likes: live.likes,
  comments: live.comments,
  ctr: round2(live.ctr),
  products: [...live.products],
  products_stats: live.products_stats.map((s) => ({ ...s })),
})

const listAffiliateLives: AreaHandler = (ctx) => {
  const data = shopOf(ctx)
  const { filters, products, window, direction } = contentFiltersOf(ctx)
  const sortBy = sortKeyOf(filters.sort_by, LIVE_SORT_KEYS, 'filters.sort_by', 'gmv')
  const creatorOk = creatorPerformanceFilter(ctx.world, data, filters)
  const lives = data.lives.filter(
    (l) => handleMatches(l.handle, filters.handle) && (!products.length || l.products.some((p) => products.includes(p))) && (!window || inWindow(l.start_day, window)) && creatorOk(l.creator_id),
  )
  const value = (l: LiveStream): SortValue => (sortBy === 'start_time' ? l.started_at : sortBy === 'ctr' ? round2(l.ctr) : l[sortBy])
  const sorted = sortRows(lives, value, direction, (l) => l.live_id).map((l) => liveRow(ctx.world, l))
  // spec: the LIVE list echoes sort_by and sort_direction (the ones applied, defaults included).
  return contentPage(ctx, sorted, { sort_by: sortBy, sort_direction: filters.sort_direction ?? direction })
}

export const content: AreaModule = {
  handlers: { listCrmAffiliates, listAffiliateVideos, listAffiliateSlideshows, listAffiliateLives },
  normalizers: { listAffiliateSlideshows: refuseAdMetricSort },
  cacheable: ['listCrmAffiliates'],
}
