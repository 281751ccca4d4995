/** Timeseries searches over products, SKUs, affiliates, videos and slideshows (spec: Timeseries searches). */
import type { Area } from '../document.ts'
import { arr, body, bool, enumOf, int, nullable, num, obj, operation, ref, str, strOrArr, usDate, type OperationSpec, type Schema } from '../dsl.ts'
import { SORT_DIRECTION_UPPER, dateRange, pageFields } from '../common.ts'

const TAG = 'Timeseries'
const SECTION = 'Timeseries searches'

export const PRODUCT_TIMESERIES_SORT_KEYS = [
  'total_gmv', 'affiliate_gmv', 'video_gmv', 'live_gmv', 'shop_tab_gmv', 'shop_tab_impressions', 'units_sold',
  'subscription_gmv', 'new_subscriptions', 'active_subscriptions', 'recurring_subscriptions',
] as const
export const SKU_TIMESERIES_SORT_KEYS = ['gmv', 'units_sold', 'orders', 'gross_sales'] as const
// spec: Affiliate timeseries row: live_gmv is joined after ranking, so it is not sortable.
export const AFFILIATE_TIMESERIES_SORT_KEYS = [
  'gmv', 'video_gmv', 'new_video_gmv', 'commission', 'units_sold', 'video_count', 'live_count', 'views', 'likes', 'comments',
] as const

const n = (description?: string): Schema => num(description ? { description } : {})

const productRow: Record<string, Schema> = {
  product_id: str(),
  product_name: str(),
  price: num(),
  status: num({ description: 'Numeric product status, as on Product; meanings not shown.' }),
  is_open_plan: bool(),
  total_gmv: num(),
  affiliate_gmv: num(),
  video_gmv: num(),
  live_gmv: num(),
  shop_tab_gmv: num(),
  shop_tab_impressions: num(),
  units_sold: num(),
  subscription_gmv: n('Period total.'),
  new_subscriptions: n('Period total.'),
  active_subscriptions: n('Point-in-time count at the product\'s latest reporting day; do not sum across periods or products.'),
  recurring_subscriptions: n('Point-in-time count at the product\'s latest reporting day; do not sum across periods or products.'),
}

const videoRow: Record<string, Schema> = {
  video_id: str(),
  handle: str(),
  title: str(),
  post_time: usDate(),
  product_id: str(),
  gmv: num(),
  commission: num(),
  views: num(),
  likes: num(),
  comments: num(),
  units_sold: num(),
  engagement_rate: num(),
  conversion_rate: num(),
  avg_gmv_per_view: num(),
  avg_order_value: num(),
}

const inferredDemographic = (): Schema => nullable(str({ description: 'Inferred; null when unknown (as on the CRM row).' }))

const affiliateRow: Record<string, Schema> = {
  handle: str(),
  nickname: str(),
  gmv: n('Total shop GMV the creator drove in the window across all channels; video_gmv and live_gmv are subsets and need not add up to it.'),
  video_gmv: n('GMV from the creator\'s videos regardless of post date, clamped to gmv.'),
  new_video_gmv: n('Subset of video_gmv from videos posted inside the date range (equals video_gmv without a range), clamped to gmv.'),
  live_gmv: n('From LIVE session data, joined after ranking (not sortable).'),
  commission: num(),
  views: num(),
  likes: num(),
  comments: num(),
  units_sold: num(),
  video_count: n('For the shop in the window.'),
  live_count: n('For the shop in the window.'),
  engagement_rate: n('(likes+comments)/views, percent.'),
  conversion_rate: n('units_sold/views, percent.'),
  avg_gmv_per_view: n('gmv/views.'),
  avg_order_value: n('gmv/units_sold.'),
  creator_oecuid: str({ description: 'Stable creator id that survives handle changes; join on it, not on handle.' }),
  follower_cnt: n('Platform-wide profile.'),
  video_avg_view_cnt: n('Platform-wide 30-day average views; 0 = the platform returned no value.'),
  video_engagement: n('Platform-wide profile.'),
  med_gmv_revenue: n('Platform-wide 30-day GMV across all brands.'),
  post_rate: { type: ['number', 'string'], description: 'Platform-wide profile; type not shown (sample requests show a number or the text N/A).' },
  category: str(),
  top_follower_gender: str(),
  top_follower_ages: strOrArr({ description: 'Type not shown.' }),
  gender: inferredDemographic(),
  age: nullable({ type: ['string', 'number'], description: 'Inferred; null when unknown (as on the CRM row); type not shown.' }),
  bio: str(),
  is_fast_growing: bool(),
  units_sold_range: str(),
  med_gmv_revenue_range: str(),
  race: inferredDemographic(),
  body_type: inferredDemographic(),
  economic_status: inferredDemographic(),
  // The platform may hold no value for these (the world's creators have nulls), like the inferred demographics.
  face_visibility: nullable(str({ description: 'Type not shown; null when unknown.' })),
  tone: nullable(str({ description: 'Type not shown; null when unknown.' })),
  language: nullable(str({ description: 'Type not shown; null when unknown.' })),
  tags: arr(str(), { description: 'The shop\'s tags on the creator.' }),
}

/** The video and slideshow searches' sort fields: the spec gives examples (`e.g.`); the rest of the row's metrics are inferred. */
const CONTENT_TIMESERIES_SORT_KEYS = ['gmv', 'commission', 'views', 'likes', 'comments', 'units_sold', 'engagement_rate', 'conversion_rate', 'avg_gmv_per_view', 'avg_order_value', 'post_time'] as const

const sortBy = (values: readonly string[], examples?: string[]): Schema =>
  examples
    ? enumOf(values, { description: `The spec gives examples (${examples.join(', ')}); the other values are inferred (the mock refuses others with 400).`, 'x-inferred': true })
    : enumOf(values)

/** `search_params`: date range, sort and the search's own filters (spec: Timeseries searches). */
function searchParams(sort: Schema, filters: string[], dateRangeRequired = false): Schema {
  const filterProps = Object.fromEntries(filters.map((f) => [f, str({ description: 'Optional filter.' })]))
  return body(
    {
      date_range: dateRange(),
      sort_by: sort,
      sort_direction: enumOf(SORT_DIRECTION_UPPER),
      ...filterProps,
    },
    { required: dateRangeRequired ? ['date_range'] : [] },
  )
}

interface TimeseriesSearch {
  path: string
  operationId: string
  summary: string
  row: string
  sort: Schema
  filters: string[]
  /** Product and SKU responses always carry has_more and total_count (spec: Conventions 2). */
  totalsShown: boolean
  dateRangeRequired?: boolean
}

function timeseriesSearch(s: TimeseriesSearch): OperationSpec {
  const list = arr(ref(s.row))
  const response = obj(
    { data: list, has_more: bool(), total_count: int({ minimum: 0 }) },
    s.totalsShown ? {} : { required: ['data'] },
  )
  return operation({
    method: 'post',
    path: s.path,
    operationId: s.operationId,
    tag: TAG,
    specSection: SECTION,
    summary: s.summary,
    description: [
      'Body `{page_size, page_number, search_params}`; `search_params` holds `date_range`, `sort_by`, `sort_direction` (ASC or DESC) and the filters.',
      s.totalsShown ? '' : '`has_more` and `total_count` are documented only for the product and SKU searches, so they are optional here.',
      'No page-size maximum is documented: results stop at 10,000 rows (page_number x page_size).',
    ].filter(Boolean).join(' '),
    requestBody: body(
      { ...pageFields(), search_params: searchParams(s.sort, s.filters, s.dateRangeRequired) },
      { required: s.dateRangeRequired ? ['search_params'] : [] },
    ),
    paging: { sizeParam: 'page_size', pageParam: 'page_number', max: 10000, mode: 'clamp', depthCap: 10000 },
    success: { status: 200, schema: response },
  })
}

export const timeseries: Area = {
  name: TAG,
  description: 'Page-based searches of per-product, per-SKU, per-creator, per-video and per-slideshow metrics over a window.',
  schemas: {
    ProductTimeseriesRow: obj(productRow, { description: 'One product\'s metrics over the window.' }),
    SkuTimeseriesRow: obj(
      {
        sku_id: str(),
        sku_name: str(),
        product_id: str(),
        product_name: str(),
        price: num(),
        gmv: num(),
        units_sold: num(),
        orders: num(),
        gross_sales: num(),
      },
      { description: 'One SKU\'s metrics over the window.' },
    ),
    AffiliateTimeseriesRow: obj(affiliateRow, { description: 'One creator\'s metrics for the shop over the window, with the platform-wide profile.' }),
    VideoTimeseriesRow: obj(videoRow, { description: 'One video\'s metrics over the window.' }),
    SlideshowTimeseriesRow: obj(
      { ...videoRow, slideshow_link: str() },
      { description: 'As the video timeseries row, plus `slideshow_link`.' },
    ),
  },
  operations: [
    timeseriesSearch({
      path: '/timeseries/products',
      operationId: 'searchTimeseriesProducts',
      summary: 'Per-product GMV, units and subscription metrics over a window',
      row: 'ProductTimeseriesRow',
      sort: sortBy(PRODUCT_TIMESERIES_SORT_KEYS),
      filters: ['product_id'],
      totalsShown: true,
    }),
    timeseriesSearch({
      path: '/timeseries/skus',
      operationId: 'searchTimeseriesSkus',
      summary: 'Per-SKU GMV, units, orders and gross sales over a window',
      row: 'SkuTimeseriesRow',
      sort: sortBy(SKU_TIMESERIES_SORT_KEYS),
      filters: ['product_id', 'sku_id'],
      totalsShown: true,
    }),
    timeseriesSearch({
      path: '/timeseries/affiliates',
      operationId: 'searchTimeseriesAffiliates',
      summary: 'Per-creator metrics for the shop over a window',
      row: 'AffiliateTimeseriesRow',
      sort: sortBy(AFFILIATE_TIMESERIES_SORT_KEYS),
      filters: ['handle', 'campaign_id', 'product_id'],
      totalsShown: false,
    }),
    timeseriesSearch({
      path: '/timeseries/videos',
      operationId: 'searchTimeseriesVideos',
      summary: 'Per-video metrics over a window',
      row: 'VideoTimeseriesRow',
      sort: sortBy(CONTENT_TIMESERIES_SORT_KEYS, ['gmv', 'views', 'units_sold']),
      filters: ['handle', 'product_id'],
      totalsShown: false,
    }),
    timeseriesSearch({
      path: '/timeseries/slideshows',
      operationId: 'searchTimeseriesSlideshows',
      summary: 'Per-slideshow metrics over a window (date_range required)',
      row: 'SlideshowTimeseriesRow',
      sort: sortBy(CONTENT_TIMESERIES_SORT_KEYS, ['gmv', 'views', 'likes', 'comments', 'units_sold', 'commission']),
      filters: ['handle', 'product_id', 'campaign_id'],
      totalsShown: false,
      dateRangeRequired: true,
    }),
  ],
}
