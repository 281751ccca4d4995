/** The affiliate CRM, videos, slideshows and LIVE streams (spec: CRM, videos, slideshows, LIVEs). */
import type { Area } from '../document.ts'
import { arr, body, bool, data, enumOf, int, nullable, num, obj, operation, ref, str, strOrArr, usDate, type Schema } from '../dsl.ts'
import { SORT_DIRECTION_LOWER, dateRange, pageFields, affiliatePerformance, shopPerformance } from '../common.ts'

const TAG = 'Content'
const SECTION = 'CRM, videos, slideshows, LIVEs'

// spec: POST /affiliate/slideshows/list: ad metrics roi, cpa, ad_spend are unavailable as sort fields.
export const SLIDESHOW_SORT_KEYS = ['gmv', 'post_time', 'view_count', 'like_count', 'comment_count', 'units_sold', 'ctr', 'engagement_rate'] as const
/** Inferred: the spec shows only `gmv` for the CRM; these are the row's sortable numbers, dates and handle. */
const CRM_SORT_KEYS = [
  'gmv', 'video_gmv', 'live_gmv', 'commission', 'units_sold', 'video_count', 'live_count', 'live_duration',
  'follower_cnt', 'med_gmv_revenue', 'brand_collaborations', 'video_engagement', 'video_avg_view_cnt', 'post_rate',
  'last_post', 'last_live', 'handle',
] as const
/** Inferred: the video list's sort fields are not enumerated; the Video row's metrics and post time. */
const VIDEO_SORT_KEYS = ['gmv', 'post_time', 'view_count', 'units_sold', 'ctr', 'like_count', 'comment_count'] as const
/** Inferred likewise for LIVEs: the LIVE row's metrics and start time. */
const LIVE_SORT_KEYS = ['gmv', 'start_time', 'duration', 'units_sold', 'views', 'likes', 'comments', 'ctr'] as const
const inferredSortBy = (values: readonly string[], what: string): Schema =>
  enumOf(values, { description: `Sort field. The spec does not enumerate the ${what}'s sort fields; these are inferred (the mock refuses others with 400).`, 'x-inferred': true })

const DEPTH_NOTE = 'No page-size maximum is documented: results stop at 10,000 rows (page_number x page_size).'

const n = (description: string): Schema => num({ description })
const inferredDemographic = (): Schema => nullable(str({ description: 'Inferred; null when unknown.' }))

/** Video fields; Slideshow is "as Video" plus two fields. */
const videoFields: Record<string, Schema> = {
  shop_id: str(),
  video_id: str(),
  handle: str(),
  gmv: num(),
  post_time: usDate(),
  view_count: num(),
  units_sold: num(),
  ctr: num(),
  like_count: num(),
  comment_count: num(),
  title: str(),
  campaign_id: nullable(str()),
  products: arr(str(), { description: 'Product ids.' }),
  product: { description: 'The video\'s product; type not shown.' },
}


const productFilter = (): Schema => strOrArr({ description: 'Product id or ids; exact shape not shown.' })
const sortDirectionAnyCase = (): Schema =>
  enumOf(['asc', 'desc', 'ASC', 'DESC'], { description: 'asc or desc; the case is not shown for this list, so both are accepted (inferred).', 'x-inferred': true })

/** `{data: {results, has_more, page_size, page_offset, ...}}` or, with just_count, CountOnly. */
const pagedResults = (row: string, extra: Record<string, Schema> = {}): Schema => ({
  anyOf: [
    data(obj({ results: arr(ref(row)), has_more: bool(), page_size: int({ minimum: 0 }), page_offset: int({ minimum: 0 }), ...extra })),
    ref('CountOnly'),
  ],
})

/** The search body of the video and LIVE lists (spec: LIVEs take filters "as videos"). */
const contentSearchBody = (sortKeys: readonly string[], what: string): Schema =>
  body({
    ...pageFields(),
    just_count: bool(),
    filters: body({
      sort_by: inferredSortBy(sortKeys, what),
      sort_direction: sortDirectionAnyCase(),
      handle: str(),
      product_filter: productFilter(),
      date_range: dateRange(),
      affiliate_performance: affiliatePerformance(),
      shop_performance: shopPerformance(),
    }),
  })

/** Lists without a stated page-size maximum clamp at the 10,000-row depth cap. */
const CLAMPED_PAGING = { sizeParam: 'page_size', pageParam: 'page_number', max: 10000, mode: 'clamp', depthCap: 10000 } as const

export const content: Area = {
  name: TAG,
  description: 'The shop\'s affiliate CRM, and its creators\' videos, slideshows and LIVE streams.',
  schemas: {
    Affiliate: obj(
      {
        shop_id: str(),
        handle: str(),
        creator_id: str(),
        nickname: str(),
        showcasing: bool(),
        units_sold: n('For the shop, all-time or within date_range when supplied.'),
        video_count: n('For the shop, all-time or within date_range when supplied.'),
        live_count: n('For the shop, all-time or within date_range when supplied.'),
        live_duration: n('LIVE minutes for the shop, all-time or within date_range when supplied.'),
        gmv: n('For the shop, all-time or within date_range when supplied.'),
        video_gmv: n('For the shop, all-time or within date_range when supplied.'),
        live_gmv: n('For the shop, all-time or within date_range when supplied.'),
        commission: n('What the creator earned for the shop, all-time or within date_range when supplied.'),
        last_post: nullable(str({ description: 'Most recent post date; format not shown.' })),
        last_live: nullable(str({ description: 'Most recent LIVE date; format not shown.' })),
        email: nullable(str({ description: 'Falls back to the public profile email; null when unknown.' })),
        phone_number: nullable(str({ description: 'Null when unknown.' })),
        med_gmv_revenue: n('Platform-wide 30-day GMV across all brands.'),
        follower_cnt: n('Platform-wide profile.'),
        brand_collaborations: n('Platform-wide profile.'),
        post_rate: { type: ['number', 'string'], description: 'Platform-wide profile; type not shown (sample requests show a number or the text N/A).' },
        video_engagement: n('Platform-wide profile.'),
        video_avg_view_cnt: n('Platform-wide 30-day average views.'),
        category: str(),
        category_splits: { type: 'object', additionalProperties: num({ minimum: 0, maximum: 1 }), description: 'Category to share (0-1).' },
        regional_geography: arr(str()),
        gender: inferredDemographic(),
        age: nullable({ type: ['string', 'number'], description: 'Inferred; null when unknown; type not shown.' }),
        race: inferredDemographic(),
        body_type: inferredDemographic(),
        economic_status: inferredDemographic(),
        top_follower_gender: str(),
        top_follower_ages: strOrArr({ description: 'Type not shown.' }),
        bio: str(),
        tags: arr(str(), { description: 'The shop\'s tags on the creator.' }),
      },
      { description: 'A creator in the shop\'s CRM (spec: Resources: Affiliate (CRM row)).' },
    ),
    Video: obj(videoFields, { description: 'A creator video promoting the shop\'s products.' }),
    Slideshow: obj(
      { ...videoFields, engagement_rate: num(), slideshow_url: str() },
      { description: 'A photo-mode post, tracked separately from videos: as Video plus engagement_rate and slideshow_url.' },
    ),
    LiveStream: obj(
      {
        shop_id: str(),
        campaign_id: nullable(str()),
        live_id: str(),
        handle: str(),
        title: str(),
        start_time: usDate(),
        duration: num(),
        units_sold: num(),
        gmv: num(),
        views: num(),
        likes: num(),
        comments: num(),
        ctr: num(),
        products: arr(str(), { description: 'Product ids.' }),
        products_stats: arr(obj({ product_id: str(), gmv: num(), units_sold: num(), impressions: num() })),
      },
      { description: 'A creator LIVE stream.' },
    ),
  },
  operations: [
    operation({
      method: 'post',
      path: '/affiliate/crm/list',
      operationId: 'listCrmAffiliates',
      tag: TAG,
      specSection: SECTION,
      summary: 'Search the shop\'s affiliate CRM',
      description: `Returns \`results\`, \`has_more\`, \`page_size\`, \`page_offset\` at the top level (not under \`data\`); with \`just_count\` only \`total_count\`. Shop metrics are all-time, or within \`date_range\` when supplied. ${DEPTH_NOTE}`,
      requestBody: body({
        ...pageFields(),
        just_count: bool(),
        date_range: dateRange(),
        sort_by: inferredSortBy(CRM_SORT_KEYS, 'CRM list (`gmv` is the one shown)'),
        sort_direction: enumOf(SORT_DIRECTION_LOWER),
        filters: body({
          handle: str(),
          min_videos: num(),
          include_tags: arr(str()),
          exclude_tags: arr(str()),
          affiliate_performance: affiliatePerformance(),
          shop_performance: shopPerformance(),
        }),
      }),
      paging: CLAMPED_PAGING,
      success: {
        status: 200,
        schema: {
          anyOf: [
            obj({ results: arr(ref('Affiliate')), has_more: bool(), page_size: int({ minimum: 0 }), page_offset: int({ minimum: 0 }) }),
            ref('CountOnly'),
            // The CRM answers at the top level and the spec does not say where its count-only total_count goes: either place.
            obj({ total_count: int({ minimum: 0 }) }, { additionalProperties: false, description: 'Count-only at the top level, as the CRM answers its pages (spec: Conventions 2-3).' }),
          ],
        },
      },
    }),
    operation({
      method: 'post',
      path: '/affiliate/videos/list',
      operationId: 'listAffiliateVideos',
      tag: TAG,
      specSection: SECTION,
      summary: 'Search creator videos',
      description: `Sort and filters go inside \`filters\`. ${DEPTH_NOTE}`,
      requestBody: contentSearchBody(VIDEO_SORT_KEYS, 'video list'),
      paging: CLAMPED_PAGING,
      success: { status: 200, schema: pagedResults('Video') },
    }),
    operation({
      method: 'post',
      path: '/affiliate/slideshows/list',
      operationId: 'listAffiliateSlideshows',
      tag: TAG,
      specSection: SECTION,
      summary: 'Search creator slideshows (photo-mode posts)',
      description: 'Sort and filters go inside `filters`; `date_range` filters on post time. Server maximum page_size 100 (no word of clamping: larger sizes are refused with 400). Results stop at 10,000 rows (page_number x page_size).',
      requestBody: body({
        ...pageFields(100),
        just_count: bool(),
        filters: body({
          sort_by: enumOf(SLIDESHOW_SORT_KEYS, { description: 'Ad metrics (roi, cpa, ad_spend) are unavailable.' }),
          sort_direction: sortDirectionAnyCase(),
          handle: str(),
          product_filter: productFilter(),
          campaign_id: str(),
          date_range: dateRange(),
        }),
      }),
      paging: { sizeParam: 'page_size', pageParam: 'page_number', max: 100, mode: 'reject', depthCap: 10000 },
      success: { status: 200, schema: pagedResults('Slideshow') },
    }),
    operation({
      method: 'post',
      path: '/affiliate/lives/list',
      operationId: 'listAffiliateLives',
      tag: TAG,
      specSection: SECTION,
      summary: 'Search creator LIVE streams',
      description: `Filters as for videos. The response also echoes \`sort_by\` and \`sort_direction\`. ${DEPTH_NOTE}`,
      requestBody: contentSearchBody(LIVE_SORT_KEYS, 'LIVE list'),
      paging: CLAMPED_PAGING,
      success: { status: 200, schema: pagedResults('LiveStream', { sort_by: str(), sort_direction: str() }) },
    }),
  ],
}
