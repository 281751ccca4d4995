/**
 * The affiliate CRM, videos, slideshows and LIVE streams (spec: CRM, videos, slideshows, LIVEs;
 * Resources: Affiliate (CRM row), Video, Slideshow, LIVE stream). Shop metrics are summed from the
 * daily facts (all-time, or within `date_range`); the profile is the platform-wide creator's.
 * The CRM query itself (index, filters, sorts, rows) is mock/lib/crm.ts: outreach re-resolves saved groups with it.
 */
import type { components } from '../../openapi/types.ts'
import type { LiveStream, ShopData, Slideshow, Video } from '../../fixtures/index.ts'
import { defineHandler, type AreaModule, type InputNormalizer } from '../context.ts'
import { paginate } from '../pipeline/paging.ts'
import { apiError } from '../respond.ts'
import type { World } from '../world.ts'
import { CRM_SORT_KEYS, crmIndexOf, crmRowsBytes, matchingAffiliates, sortCrm } from '../lib/crm.ts'
import { dayWindow, inWindow, usDateOf, type DayWindow } from '../lib/dates.ts'
import { boundsOf, hasBounds, matchesAffiliatePerformance, matchesShopPerformance } from '../lib/filters.ts'
import { postFigures, shopLifetime, type PostFigures } from '../lib/figures.ts'
import { handleContains } from '../lib/handles.ts'
import { isPlainObject } from '../lib/json.ts'
import { creatorOf, shopLookupsOf } from '../lib/lookups.ts'
import { round2 } from '../lib/numbers.ts'
import { countOnly, offsetResultsPage } from '../lib/pages.ts'
import { shopDataFor } from '../lib/shop.ts'
import { sortDirectionOf, sortKeyOf, sortRows, type SortDirection, type SortValue } from '../lib/sort.ts'
import { affiliateTags } from '../lib/tags.ts'

type Schemas = components['schemas']
export type VideoRow = Schemas['Video']
export type SlideshowRow = Schemas['Slideshow']
export type LiveRow = Schemas['LiveStream']

// ---- CRM ----

const listCrmAffiliates = defineHandler('listCrmAffiliates', (ctx) => {
  const { input, world } = ctx
  const sortBy = sortKeyOf(input.sort_by, CRM_SORT_KEYS, 'sort_by', 'gmv')
  const direction = sortDirectionOf(input.sort_direction, 'sort_direction')
  const data = shopDataFor(ctx)
  const window = dayWindow(world, input.date_range)
  const index = crmIndexOf(world, data)
  const tagsOf = affiliateTags(ctx.state, data.shop.shop_id)
  const matching = matchingAffiliates(world, data, index, tagsOf, input.filters ?? {}, window)
  if (input.just_count === true) return countOnly(matching.length)
  // Only the rows up to the end of the page are ordered, and only the page's rows are built.
  const page = ctx.page
  const ordered = sortCrm(data, index, matching, sortBy, direction, window, page.offset + page.limit)
  const { rows } = paginate(ordered, page)
  // Only the rows up to the page's end were ordered: the listing's depth is the matching rows'.
  page.rows = matching.length
  const hasMore = page.offset + page.limit < Math.min(matching.length, page.depthCap)
  // spec: CRM Search returns results, has_more, page_size, page_offset at the top level. The bytes are
  // JSON.stringify({ results: rows.map(crmRow), has_more, page_size, page_offset }), built from each
  // row's parts encoded once (see crmRowsBytes).
  const after = `],"has_more":${hasMore},"page_size":${JSON.stringify(page.pageSize)},"page_offset":${JSON.stringify(page.offset)}}`
  return { status: 200, rawBytes: crmRowsBytes(world, data, index, tagsOf, rows, window, '{"results":[', after) }
})

// ---- Videos, slideshows, LIVEs ----

/** A product filter: one id or several; a post matches when it features any of them. */
const productIdsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : []).map((v) => String(v).trim()).filter(Boolean)

/** The `filters` every content list shares: handle, product_filter, date_range, sort direction. */
function contentFiltersOf<F extends { product_filter?: unknown; date_range?: unknown; sort_direction?: unknown }>(ctx: { world: World; input: { filters?: F } }) {
  const filters: Partial<F> = ctx.input.filters ?? {}
  return {
    filters,
    products: productIdsOf(filters.product_filter),
    window: filters.date_range ? dayWindow(ctx.world, filters.date_range, 'filters.date_range') : undefined,
    direction: sortDirectionOf(filters.sort_direction, 'filters.sort_direction'),
  }
}

/** The creator filter of a list without creator filters. */
const anyCreator = (_creatorId: string): boolean => true

/** The creator filters (platform-wide and shop lifetime) of the video and LIVE lists (`anyCreator` without). */
function creatorPerformanceFilter(world: World, data: ShopData, filters: Record<string, unknown>): (creatorId: string) => boolean {
  const affiliatePerformance = boundsOf(filters.affiliate_performance)
  const shopPerformance = boundsOf(filters.shop_performance)
  const wantsAffiliate = hasBounds(affiliatePerformance)
  const wantsShop = hasBounds(shopPerformance)
  if (!wantsAffiliate && !wantsShop) return anyCreator
  const shop = shopLookupsOf(data)
  const memo = new Map<string, boolean>()
  return (creatorId) => {
    let ok = memo.get(creatorId)
    if (ok === undefined) {
      const index = shop.affiliateByCreator.get(creatorId)
      const affiliate = index === undefined ? undefined : data.affiliates[index]
      ok = !!affiliate &&
        (!wantsAffiliate || matchesAffiliatePerformance(creatorOf(world, affiliate), affiliatePerformance)) &&
        (!wantsShop || matchesShopPerformance(shopLifetime(world, data, creatorId), shopPerformance))
      memo.set(creatorId, ok)
    }
    return ok
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

// Read from the figures (the rows show them), so that only the page's rows are built.
const postSortValue = (figures: PostFigures, post: Video, key: PostSortKey): SortValue => (key === 'post_time' ? post.posted_at : figures[key])

// The posts, LIVEs and their lifetime figures never change: a list's full order by sort key and
// direction is worked out once per shop, and a request keeps the items its filters match, in that order
// (the order of a subset; ties go by id, so the order is total).
const orders = new WeakMap<readonly object[], { length: number; byKey: Map<string, readonly unknown[]> }>()

function orderOf<T extends object, R>(list: readonly T[], key: string, sort: () => R[]): readonly R[] {
  let cache = orders.get(list)
  if (!cache || cache.length !== list.length) orders.set(list, (cache = { length: list.length, byKey: new Map() }))
  let order = cache.byKey.get(key) as readonly R[] | undefined
  if (!order) cache.byKey.set(key, (order = sort()))
  return order
}

function postsInOrder(world: World, data: ShopData, kind: 'videos' | 'slideshows', sortBy: PostSortKey, direction: SortDirection): ReadonlyArray<{ post: Video; figures: PostFigures }> {
  const posts: readonly Video[] = data[kind]
  return orderOf(posts, `${sortBy} ${direction}`, () => {
    const rows = posts.map((post) => ({ post, figures: postFigures(world, data, post, kind) }))
    return sortRows(rows, (r) => postSortValue(r.figures, r.post, sortBy), direction, (r) => r.post.video_id)
  })
}

const postMatches = (post: Video, products: string[], window: DayWindow | undefined, handle: unknown): boolean =>
  handleContains(post.handle, handle) && (!products.length || post.products.some((p) => products.includes(p))) && (!window || inWindow(post.post_day, window))

const listAffiliateVideos = defineHandler('listAffiliateVideos', (ctx) => {
  const data = shopDataFor(ctx)
  const { filters, products, window, direction } = contentFiltersOf(ctx)
  const sortBy = sortKeyOf(filters.sort_by, VIDEO_SORT_KEYS, 'filters.sort_by', 'gmv')
  const creatorOk = creatorPerformanceFilter(ctx.world, data, filters)
  // Creator videos only: the brand's own posts are not an affiliate's. Their order is kept beside the
  // full one, so a request without filters reads none of the shop's videos.
  const creatorVideos = orderOf(data.videos, `${sortBy} ${direction} creators`, () => postsInOrder(ctx.world, data, 'videos', sortBy, direction).filter(({ post }) => !post.is_brand))
  const filtered = products.length > 0 || window !== undefined || (typeof filters.handle === 'string' && filters.handle.trim() !== '') || creatorOk !== anyCreator
  const sorted = filtered ? creatorVideos.filter(({ post }) => postMatches(post, products, window, filters.handle) && creatorOk(post.creator_id)) : creatorVideos
  return offsetResultsPage(ctx, sorted, {}, (r): VideoRow => videoRow(ctx.world, r.post, r.figures))
})

// spec: POST /affiliate/slideshows/list: ad metrics roi, cpa, ad_spend are unavailable as sort fields.
const AD_METRIC_SORTS = ['roi', 'cpa', 'ad_spend']
const SLIDESHOW_SORT_KEYS = [...VIDEO_SORT_KEYS, 'engagement_rate'] as const

const refuseAdMetricSort: InputNormalizer = (input) => {
  const sortBy = isPlainObject(input.filters) ? input.filters.sort_by : undefined
  if (typeof sortBy === 'string' && AD_METRIC_SORTS.includes(sortBy)) throw apiError(400, `filters.sort_by ${sortBy} is unavailable for slideshows: the ad metrics roi, cpa and ad_spend cannot be sorted on`)
  return input
}

const listAffiliateSlideshows = defineHandler('listAffiliateSlideshows', (ctx) => {
  const data = shopDataFor(ctx)
  const { filters, products, window, direction } = contentFiltersOf(ctx)
  const sortBy = sortKeyOf(filters.sort_by, SLIDESHOW_SORT_KEYS, 'filters.sort_by', 'gmv')
  const campaignId = typeof filters.campaign_id === 'string' && filters.campaign_id !== '' ? filters.campaign_id : undefined
  const sorted = postsInOrder(ctx.world, data, 'slideshows', sortBy, direction).filter(
    ({ post }) => !post.is_brand && postMatches(post, products, window, filters.handle) && (!campaignId || post.campaign_id === campaignId),
  ) as Array<{ post: Slideshow; figures: PostFigures }>
  return offsetResultsPage(ctx, sorted, {}, ({ post, figures }): SlideshowRow => ({ ...videoRow(ctx.world, post, figures), engagement_rate: figures.engagement_rate, slideshow_url: post.slideshow_url }))
})

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

const listAffiliateLives = defineHandler('listAffiliateLives', (ctx) => {
  const data = shopDataFor(ctx)
  const { filters, products, window, direction } = contentFiltersOf(ctx)
  const sortBy = sortKeyOf(filters.sort_by, LIVE_SORT_KEYS, 'filters.sort_by', 'gmv')
  const creatorOk = creatorPerformanceFilter(ctx.world, data, filters)
  const value = (l: LiveStream): SortValue => (sortBy === 'start_time' ? l.started_at : sortBy === 'ctr' ? round2(l.ctr) : l[sortBy])
  const sorted = orderOf(data.lives, `${sortBy} ${direction}`, () => sortRows(data.lives, value, direction, (l) => l.live_id)).filter(
    (l) => handleContains(l.handle, filters.handle) && (!products.length || l.products.some((p) => products.includes(p))) && (!window || inWindow(l.start_day, window)) && creatorOk(l.creator_id),
  )
  // spec: the LIVE list echoes sort_by and sort_direction (the ones applied, defaults included).
  return offsetResultsPage(ctx, sorted, { sort_by: sortBy, sort_direction: filters.sort_direction ?? direction }, (l) => liveRow(ctx.world, l))
})

export const content: AreaModule = {
  handlers: { listCrmAffiliates, listAffiliateVideos, listAffiliateSlideshows, listAffiliateLives },
  normalizers: { listAffiliateSlideshows: refuseAdMetricSort },
  cacheable: ['listCrmAffiliates'],
}
