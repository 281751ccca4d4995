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

/** spec: Affiliate (CRM row): shop metrics all-time or within the window, the public profile, the shop's tags. */
function crmRow(world: World, data: ShopData, affiliate: Affiliate, w: DayWindow): CrmRow {
  const creator = creatorOf(world, affiliate)
  const { videos, slideshows, lives } = creatorContent(world, data, affiliate.creator_id)
  const sum = (metric: 'gmv' | 'video_gmv' | 'live_gmv' | 'commission' | 'units_sold') => round2(data.facts.affiliates.sum(metric, affiliate.creator_id, w.from, w.to))
  const windowLives = lives.filter((l) => inWindow(l.start_day, w))
  const lastDay = (days: number[]) => (days.length ? usDateOf(world, Math.max(...days)) : null)
  return {
    shop_id: data.shop.shop_id,
    handle: affiliate.handle,
    creator_id: affiliate.creator_id,
    nickname: creator.nickname,
    showcasing: affiliate.showcasing,
    units_sold: sum('units_sold'),
    video_count: videos.filter((v) => inWindow(v.post_day, w)).length,
    live_count: windowLives.length,
    live_duration: windowLives.reduce((total, l) => total + l.duration, 0),
    gmv: sum('gmv'),
    video_gmv: sum('video_gmv'),
    live_gmv: sum('live_gmv'),
    commission: sum('commission'),
    // Most recent post (video or slideshow) and LIVE, whatever the window.
    last_post: lastDay([...videos, ...slideshows].map((p) => p.post_day)),
    last_live: lastDay(lives.map((l) => l.start_day)),
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
  const f = filters ?? {}
  const include = tagList(f.include_tags)
  const exclude = tagList(f.exclude_tags)
  const rows: CrmRow[] = []
  for (const affiliate of data.affiliates) {
    if (!handleMatches(affiliate.handle, f.handle)) continue
    if (include.length && !affiliate.tags.some((t) => include.includes(t))) continue
    if (exclude.length && affiliate.tags.some((t) => exclude.includes(t))) continue
    if (!matchesAffiliatePerformance(creatorOf(world, affiliate), f.affiliate_performance)) continue
    if (hasBounds(f.shop_performance) && !matchesShopPerformance(shopLifetime(world, data, affiliate.creator_id), f.shop_performance)) continue
    const row = crmRow(world, data, affiliate, window)
    if (typeof f.min_videos === 'number' && row.video_count < f.min_videos) continue
    rows.push(row)
  }
  return sortRows(rows, (r) => r.gmv, 'desc', (r) => r.handle)
}

const CRM_SORT_KEYS = [
  'gmv', 'video_gmv', 'live_gmv', 'commission', 'units_sold', 'video_count', 'live_count', 'live_duration',
  'follower_cnt', 'med_gmv_revenue', 'brand_collaborations', 'video_engagement', 'video_avg_view_cnt', 'post_rate',
  'last_post', 'last_live', 'handle',
] as const

/** MM/DD/YYYY → YYYY-MM-DD, so dates sort as text. */
const isoOfUs = (us: string | null): string | null => (us ? `${us.slice(6)}-${us.slice(0, 2)}-${us.slice(3, 5)}` : null)

function crmSortValue(row: CrmRow, key: (typeof CRM_SORT_KEYS)[number]): SortValue {
  if (key === 'last_post' || key === 'last_live') return isoOfUs(row[key])
  if (key === 'post_rate') return typeof row.post_rate === 'number' ? row.post_rate : null
  return row[key]
}

/** `{data: {total_count}}` for `just_count: true` (spec: Conventions 3). */
const countOnly = (total: number) => ({ status: 200, body: { data: { total_count: total } } })

const listCrmAffiliates: AreaHandler = (ctx) => {
  const { input } = ctx
  const sortBy = sortKeyOf(input.sort_by, CRM_SORT_KEYS, 'sort_by', 'gmv')
  const direction = sortDirectionOf(input.sort_direction, 'sort_direction')
  const matching = filterCrmAffiliates(ctx.state, ctx.shop!.shop_id, input.filters ?? {}, input.date_range)
  if (input.just_count === true) return countOnly(matching.length)
  const { rows, hasMore } = paginate(sortRows(matching, (r) => crmSortValue(r, sortBy), direction, (r) => r.handle), ctx.page!)
  // spec: CRM Search returns results, has_more, page_size, page_offset at the top level.
  return { status: 200, body: { results: rows, has_more: hasMore, page_size: ctx.page!.pageSize, page_offset: ctx.page!.offset } }
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
}
