/**
 * Timeseries searches (spec: Timeseries searches; Resources: Product, SKU, Affiliate, Video
 * timeseries rows): per-product, per-SKU, per-creator, per-video and per-slideshow metrics summed
 * from the world's daily facts over `search_params.date_range` (all-time without one), filtered,
 * sorted and paged (depth cap 10,000 rows by the pipeline's x-paging).
 */
import type { components } from '../../openapi/types.ts'
import type { Affiliate, Creator, LiveStream, ShopData, Video } from '../../fixtures/index.ts'
import { defineHandler, type AreaModule, type HandlerContext, type InputNormalizer } from '../context.ts'
import { apiError } from '../respond.ts'
import type { World } from '../world.ts'
import { dayWindow, inWindow, usDateOf, type DayWindow } from '../lib/dates.ts'
import { derivedRates, postRateOf } from '../lib/figures.ts'
import { handleContains, isHandleFilter } from '../lib/handles.ts'
import { isPlainObject } from '../lib/json.ts'
import { creatorContent, creatorOf } from '../lib/lookups.ts'
import { round2 } from '../lib/numbers.ts'
import { dataPage } from '../lib/pages.ts'
import { shopDataFor } from '../lib/shop.ts'
import { sortKeyOf, sortRows, type SortDirection, type SortValue } from '../lib/sort.ts'
import { affiliateTags } from '../lib/tags.ts'

type Schemas = components['schemas']
export type ProductTimeseriesRow = Schemas['ProductTimeseriesRow']
export type SkuTimeseriesRow = Schemas['SkuTimeseriesRow']
export type AffiliateTimeseriesRow = Schemas['AffiliateTimeseriesRow']
export type VideoTimeseriesRow = Schemas['VideoTimeseriesRow']
export type SlideshowTimeseriesRow = Schemas['SlideshowTimeseriesRow']

/** `search_params` of a timeseries search (as its operation types it) with its window and sort direction. */
function searchOf<P extends { date_range?: Schemas['DateRange']; sort_direction?: 'ASC' | 'DESC' }>(ctx: { world: World; input: { search_params?: P } }) {
  const params: Partial<P> = ctx.input.search_params ?? {}
  const window = dayWindow(ctx.world, params.date_range, 'search_params.date_range')
  const direction: SortDirection = params.sort_direction === 'ASC' ? 'asc' : 'desc'
  return { params, window, direction }
}

/** An exact-id filter of `search_params`: unset (or empty) matches everything. */
/** True when an id filter narrows something: absent or empty, it passes every id (idMatches). */
const isIdFilter = (filter: unknown): filter is string => typeof filter === 'string' && filter !== ''
const idMatches = (id: string, filter: unknown): boolean => !isIdFilter(filter) || id === filter

// ---- Products and SKUs ----

const PRODUCT_SUMS = ['total_gmv', 'affiliate_gmv', 'video_gmv', 'live_gmv', 'shop_tab_gmv', 'shop_tab_impressions', 'units_sold', 'subscription_gmv', 'new_subscriptions'] as const
// spec: Timeseries searches: point-in-time counts at each product's own latest reporting day, never summed.
const PRODUCT_LEVELS = ['active_subscriptions', 'recurring_subscriptions'] as const

const searchTimeseriesProducts = defineHandler('searchTimeseriesProducts', (ctx) => {
  const data = shopDataFor(ctx)
  const { params, window, direction } = searchOf(ctx)
  const facts = data.facts.products
  const rows: ProductTimeseriesRow[] = data.products
    .filter((p) => idMatches(p.product_id, params.product_id))
    .map((p) => {
      const row = { product_id: p.product_id, product_name: p.product_name, price: p.price, status: p.status, is_open_plan: p.is_open_plan } as ProductTimeseriesRow
      for (const metric of PRODUCT_SUMS) row[metric] = round2(facts.sum(metric, p.product_id, window.from, window.to))
      for (const metric of PRODUCT_LEVELS) {
        const latest = facts.latest(metric, p.product_id, window.to)
        row[metric] = latest && latest.day >= window.from ? latest.value : 0
      }
      return row
    })
  const sortBy = params.sort_by ?? 'total_gmv'
  return dataPage(ctx, sortRows(rows, (r) => r[sortBy] as number, direction, (r) => r.product_id))
})

const SKU_METRICS = ['gmv', 'units_sold', 'orders', 'gross_sales'] as const

const searchTimeseriesSkus = defineHandler('searchTimeseriesSkus', (ctx) => {
  const data = shopDataFor(ctx)
  const { params, window, direction } = searchOf(ctx)
  const rows: SkuTimeseriesRow[] = data.skus
    .filter((s) => idMatches(s.product_id, params.product_id) && idMatches(s.sku_id, params.sku_id))
    .map((s) => {
      const row = { sku_id: s.sku_id, sku_name: s.sku_name, product_id: s.product_id, product_name: s.product_name, price: s.price } as SkuTimeseriesRow
      for (const metric of SKU_METRICS) row[metric] = round2(data.facts.skus.sum(metric, s.sku_id, window.from, window.to))
      return row
    })
  const sortBy = params.sort_by ?? 'gmv'
  return dataPage(ctx, sortRows(rows, (r) => r[sortBy], direction, (r) => r.sku_id))
})

// ---- Affiliates ----

/** Windows kept per fact table (a client pages and re-sorts through a few). */
const MAX_WINDOWS = 16

/** A creator's shop metrics over a window (before the LIVE join and the profile). */
interface CreatorWindowMetrics {
  gmv: number
  video_gmv: number
  new_video_gmv: number
  commission: number
  units_sold: number
  views: number
  likes: number
  comments: number
  video_count: number
  live_count: number
}

/** What narrows the affiliate search to part of a creator's content (`campaign_id`, `product_id`). */
interface ContentFilter {
  campaignId: string | undefined
  productId: string | undefined
}

const contentFilterOf = (params: Record<string, unknown>): ContentFilter | undefined => {
  const campaignId = typeof params.campaign_id === 'string' && params.campaign_id !== '' ? params.campaign_id : undefined
  const productId = typeof params.product_id === 'string' && params.product_id !== '' ? params.product_id : undefined
  return campaignId || productId ? { campaignId, productId } : undefined
}

// GMV is attributed to a post's primary product, so a product filter matches on it.
const postMatches = (post: Video, f: ContentFilter): boolean =>
  (!f.campaignId || post.campaign_id === f.campaignId) && (!f.productId || post.product === f.productId)
const liveMatches = (live: LiveStream, f: ContentFilter): boolean =>
  (!f.campaignId || live.campaign_id === f.campaignId) && (!f.productId || live.products.includes(f.productId))

/** A LIVE's GMV, units and commission, for one product when the search is narrowed to it. */
function liveSales(data: ShopData, live: LiveStream, productId: string | undefined) {
  const stats = productId ? live.products_stats.filter((s) => s.product_id === productId) : live.products_stats
  const rate = (id: string) => (data.products.find((p) => p.product_id === id)?.commission_rate ?? 0) / 10_000
  return {
    gmv: stats.reduce((sum, s) => sum + s.gmv, 0),
    units: stats.reduce((sum, s) => sum + s.units_sold, 0),
    commission: stats.reduce((sum, s) => sum + round2(s.gmv * rate(s.product_id)), 0),
  }
}

/**
 * spec: Affiliate timeseries row: gmv over all channels; video_gmv regardless of post date and
 * new_video_gmv from videos posted inside the range, both clamped to gmv; counts in the window.
 * With campaign_id or product_id, every figure comes from the creator's matching posts and LIVEs only.
 */
function creatorWindowMetrics(world: World, data: ShopData, affiliate: Affiliate, w: DayWindow, filter: ContentFilter | undefined): CreatorWindowMetrics {
  const { videos, slideshows, lives } = creatorContent(data, affiliate.creator_id)
  const vf = data.facts.videos
  const postedVideos = videos.filter((v) => inWindow(v.post_day, w) && (!filter || postMatches(v, filter)))
  const newVideoGmv = postedVideos.reduce((sum, v) => sum + vf.sum('gmv', v.video_id, w.from, w.to), 0)
  const windowLives = lives.filter((l) => inWindow(l.start_day, w) && (!filter || liveMatches(l, filter)))
  let m: Omit<CreatorWindowMetrics, 'new_video_gmv' | 'video_count' | 'live_count'>
  if (!filter) {
    const af = data.facts.affiliates
    const entity = af.indexOf(affiliate.creator_id)
    const sum = (metric: 'gmv' | 'video_gmv' | 'commission' | 'units_sold' | 'views' | 'likes' | 'comments') => af.sum(metric, entity, w.from, w.to)
    m = { gmv: sum('gmv'), video_gmv: sum('video_gmv'), commission: sum('commission'), units_sold: sum('units_sold'), views: sum('views'), likes: sum('likes'), comments: sum('comments') }
  } else {
    m = { gmv: 0, video_gmv: 0, commission: 0, units_sold: 0, views: 0, likes: 0, comments: 0 }
    for (const [posts, table] of [[videos, vf], [slideshows, data.facts.slideshows]] as const) {
      for (const post of posts) {
        if (!postMatches(post, filter)) continue
        const sum = (metric: 'gmv' | 'commission' | 'units_sold' | 'views' | 'likes' | 'comments') => table.sum(metric, post.video_id, w.from, w.to)
        const gmv = sum('gmv')
        m.gmv += gmv
        if (table === vf) m.video_gmv += gmv
        m.commission += sum('commission')
        m.units_sold += sum('units_sold')
        m.views += sum('views')
        m.likes += sum('likes')
        m.comments += sum('comments')
      }
    }
    for (const live of windowLives) {
      const sales = liveSales(data, live, filter.productId)
      m.gmv += sales.gmv
      m.units_sold += sales.units
      m.commission += sales.commission
    }
  }
  const gmv = round2(m.gmv)
  const videoGmv = Math.min(round2(m.video_gmv), gmv)
  return {
    ...m,
    gmv,
    video_gmv: videoGmv,
    new_video_gmv: w.ranged ? Math.min(round2(newVideoGmv), videoGmv) : videoGmv,
    commission: round2(m.commission),
    units_sold: round2(m.units_sold),
    video_count: postedVideos.length,
    live_count: windowLives.length,
  }
}

/** spec: Affiliate timeseries row: the platform-wide profile fields of the row, and the shop's tags. */
function affiliateProfile(creator: Creator, tags: readonly string[]) {
  return {
    creator_oecuid: creator.creator_oecuid,
    follower_cnt: creator.follower_cnt,
    video_avg_view_cnt: creator.video_avg_view_cnt,
    video_engagement: creator.video_engagement,
    med_gmv_revenue: creator.med_gmv_revenue,
    post_rate: postRateOf(creator),
    category: creator.category,
    top_follower_gender: creator.top_follower_gender,
    top_follower_ages: creator.top_follower_ages,
    gender: creator.gender,
    age: creator.age,
    bio: creator.bio,
    is_fast_growing: creator.is_fast_growing,
    units_sold_range: creator.units_sold_range,
    med_gmv_revenue_range: creator.med_gmv_revenue_range,
    race: creator.race,
    body_type: creator.body_type,
    economic_status: creator.economic_status,
    face_visibility: creator.face_visibility,
    tone: creator.tone,
    language: creator.language,
    tags: [...tags],
  }
}

type RankedAffiliate = { affiliate: Affiliate; metrics: CreatorWindowMetrics }
type AffiliateSortKey = NonNullable<NonNullable<HandlerContext<'searchTimeseriesAffiliates'>['input']['search_params']>['sort_by']>

/** What the affiliate rows are summed from, besides the affiliate facts the cache is kept on: a view of the world that changes one of them (a post of the day) starts it over. */
const affiliateSources = (data: ShopData): readonly unknown[] => [data.affiliates, data.videos, data.slideshows, data.lives, data.facts.videos, data.facts.slideshows, data.products]
const rankedByAffiliateFacts = new WeakMap<object, { sources: readonly unknown[]; byWindow: Map<string, { all: RankedAffiliate[]; orders: Map<string, RankedAffiliate[]> }> }>()

/**
 * Every creator with activity for the shop in the window (matching the content filter), with its
 * metrics there, in the order of a sort key and direction. The facts and content they come from
 * never change with a request: the metrics are summed once per window and filter (16 kept), the
 * order worked out once per sort (ties by handle, so a handle-filtered subset keeps it).
 */
function rankedAffiliates(world: World, data: ShopData, window: DayWindow, filter: ContentFilter | undefined, sortBy: AffiliateSortKey, direction: SortDirection): readonly RankedAffiliate[] {
  const sources = affiliateSources(data)
  let cache = rankedByAffiliateFacts.get(data.facts.affiliates)
  if (!cache || cache.sources.some((source, k) => source !== sources[k])) rankedByAffiliateFacts.set(data.facts.affiliates, (cache = { sources, byWindow: new Map() }))
  const windowKey = JSON.stringify([window.from, window.to, window.ranged, filter?.campaignId ?? null, filter?.productId ?? null])
  let byWindow = cache.byWindow.get(windowKey)
  if (!byWindow) {
    const all = data.affiliates
      // Every post, LIVE or sale of a creator lands in the affiliate facts: no report in the window, no activity.
      .filter((a) => data.facts.affiliates.reportDays(a.creator_id, window.from, window.to) > 0)
      .map((affiliate) => ({ affiliate, metrics: creatorWindowMetrics(world, data, affiliate, window, filter) }))
      // Only creators with activity for the shop in the window (matching the filters) are rows.
      .filter(({ metrics: m }) => m.gmv > 0 || m.views > 0 || m.units_sold > 0 || m.commission > 0 || m.video_count > 0 || m.live_count > 0)
    if (cache.byWindow.size >= MAX_WINDOWS) cache.byWindow.delete(cache.byWindow.keys().next().value!)
    cache.byWindow.set(windowKey, (byWindow = { all, orders: new Map() }))
  }
  let order = byWindow.orders.get(`${sortBy} ${direction}`)
  if (!order) byWindow.orders.set(`${sortBy} ${direction}`, (order = sortRows(byWindow.all, (r) => r.metrics[sortBy], direction, (r) => r.affiliate.handle)))
  return order
}

const searchTimeseriesAffiliates = defineHandler('searchTimeseriesAffiliates', (ctx) => {
  const data = shopDataFor(ctx)
  const { params, window, direction } = searchOf(ctx)
  const filter = contentFilterOf(params)
  const ranked = rankedAffiliates(ctx.world, data, window, filter, params.sort_by ?? 'gmv', direction)
  const sorted = params.handle === undefined ? ranked : ranked.filter((r) => handleContains(r.affiliate.handle, params.handle))
  const tagsOf = affiliateTags(ctx.state, data.shop.shop_id)
  // spec: live_gmv comes from LIVE session data, joined after ranking (so it cannot be sorted on).
  return dataPage(ctx, sorted, ({ affiliate, metrics: m }): AffiliateTimeseriesRow => {
    const creator = creatorOf(ctx.world, affiliate)
    const lives = creatorContent(data, affiliate.creator_id).lives.filter((l) => inWindow(l.start_day, window) && (!filter || liveMatches(l, filter)))
    const liveGmv = round2(lives.reduce((sum, l) => sum + liveSales(data, l, filter?.productId).gmv, 0))
    return {
      handle: affiliate.handle,
      nickname: creator.nickname,
      gmv: m.gmv,
      video_gmv: m.video_gmv,
      new_video_gmv: m.new_video_gmv,
      live_gmv: liveGmv,
      commission: m.commission,
      views: m.views,
      likes: m.likes,
      comments: m.comments,
      units_sold: m.units_sold,
      video_count: m.video_count,
      live_count: m.live_count,
      ...derivedRates(m),
      ...affiliateProfile(creator, tagsOf(affiliate)),
    }
  })
})

// ---- Videos and slideshows ----

const CONTENT_SORT_KEYS = ['gmv', 'commission', 'views', 'likes', 'comments', 'units_sold', 'engagement_rate', 'conversion_rate', 'avg_gmv_per_view', 'avg_order_value', 'post_time'] as const

const POST_SUMS = ['gmv', 'commission', 'views', 'likes', 'comments', 'units_sold'] as const
type PostMetrics = Record<(typeof POST_SUMS)[number], number>

/** One post's metrics over the window, from its own facts (its entity index in them). */
function postMetrics(table: ShopData['facts']['videos'], entity: number, w: DayWindow): PostMetrics {
  const m = {} as PostMetrics
  for (const metric of POST_SUMS) m[metric] = round2(table.sum(metric, entity, w.from, w.to))
  return m
}

/** spec: Video timeseries row: a post's metrics over the window and the rates derived from them. */
function postRow(world: World, post: Video, m: PostMetrics): VideoTimeseriesRow {
  return { video_id: post.video_id, handle: post.handle, title: post.title, post_time: usDateOf(world, post.post_day), product_id: post.product, ...m, ...derivedRates(m) }
}

type RankedPost = { post: Video; m: PostMetrics }
const rankedByTable = new WeakMap<object, { posts: readonly Video[]; length: number; byWindow: Map<string, { all: RankedPost[]; orders: Map<string, RankedPost[]> }> }>()

/**
 * Every post that reported in the window, with its metrics there, in the order of a sort key and
 * direction. The posts and their facts never change: the metrics are summed once per window and
 * the order is worked out once per sort (ties go by id, so a request's filtered subset keeps it).
 */
function rankedPosts(table: ShopData['facts']['videos'], posts: readonly Video[], window: DayWindow, sortBy: (typeof CONTENT_SORT_KEYS)[number], direction: SortDirection): readonly RankedPost[] {
  let cache = rankedByTable.get(table)
  if (!cache || cache.posts !== posts || cache.length !== posts.length) rankedByTable.set(table, (cache = { posts, length: posts.length, byWindow: new Map() }))
  const windowKey = `${window.from} ${window.to}`
  let byWindow = cache.byWindow.get(windowKey)
  if (!byWindow) {
    const all: RankedPost[] = []
    for (const post of posts) {
      const entity = table.indexOf(post.video_id)
      if (table.reportDays(entity, window.from, window.to) > 0) all.push({ post, m: postMetrics(table, entity, window) })
    }
    if (cache.byWindow.size >= MAX_WINDOWS) cache.byWindow.delete(cache.byWindow.keys().next().value!)
    cache.byWindow.set(windowKey, (byWindow = { all, orders: new Map() }))
  }
  let order = byWindow.orders.get(`${sortBy} ${direction}`)
  if (!order) {
    const value = (r: RankedPost): SortValue =>
      sortBy === 'post_time' ? r.post.posted_at : sortBy in r.m ? r.m[sortBy as keyof PostMetrics] : derivedRates(r.m)[sortBy as keyof ReturnType<typeof derivedRates>]
    byWindow.orders.set(`${sortBy} ${direction}`, (order = sortRows(byWindow.all, value, direction, (r) => r.post.video_id)))
  }
  return order
}

/**
 * The per-post search of videos or slideshows: posts that reported in the window, filtered and
 * sorted. The body of both searches: `defineHandler('searchTimeseriesVideos', postSearch('videos'))`.
 * The rows are built for the page alone.
 */
function postSearch(kind: 'videos' | 'slideshows') {
  return (ctx: HandlerContext<'searchTimeseriesVideos' | 'searchTimeseriesSlideshows'>) => {
    const data = shopDataFor(ctx)
    const { params, window, direction } = searchOf(ctx)
    const sortBy = sortKeyOf(params.sort_by, CONTENT_SORT_KEYS, 'search_params.sort_by', 'gmv')
    const table = data.facts[kind]
    const posts: Video[] = kind === 'videos' ? data.videos : data.slideshows
    // spec: Timeseries searches: campaign_id filters the slideshow search only (the videos search
    // takes handle and product_id; its search_params do not declare campaign_id).
    const campaignId = kind === 'slideshows' && 'campaign_id' in params ? params.campaign_id : undefined
    const ranked = rankedPosts(table, posts, window, sortBy, direction)
    // Without a filter the kept order is the answer: no pass over every post.
    const filtered = isHandleFilter(params.handle) || isIdFilter(params.product_id) || isIdFilter(campaignId)
    const sorted = filtered
      ? ranked.filter(({ post }) => handleContains(post.handle, params.handle) && idMatches(post.product, params.product_id) && idMatches(post.campaign_id ?? '', campaignId))
      : ranked
    return dataPage(ctx, sorted, ({ post, m }) => {
      const row = postRow(ctx.world, post, m)
      return kind === 'slideshows' ? ({ ...row, slideshow_link: (post as (typeof data.slideshows)[number]).slideshow_url } satisfies SlideshowTimeseriesRow) : row
    })
  }
}

// spec: Timeseries searches: live_gmv is not sortable; the contract's enum refuses it, this names why.
const refuseLiveGmvSort: InputNormalizer = (input) => {
  if (isPlainObject(input.search_params) && input.search_params.sort_by === 'live_gmv') throw apiError(400, 'search_params.sort_by live_gmv is not sortable: live_gmv is joined after ranking')
  return input
}

export const timeseries: AreaModule = {
  handlers: {
    searchTimeseriesProducts,
    searchTimeseriesSkus,
    searchTimeseriesAffiliates,
    searchTimeseriesVideos: defineHandler('searchTimeseriesVideos', postSearch('videos')),
    searchTimeseriesSlideshows: defineHandler('searchTimeseriesSlideshows', postSearch('slideshows')),
  },
  normalizers: { searchTimeseriesAffiliates: refuseLiveGmvSort },
}
