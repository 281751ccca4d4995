/** Off-platform sales correlation (halo effect) and the halo product links (spec: Off-platform sales correlation). */
import type { Area } from '../document.ts'
import {
  arr, body, bool, data, date, enumOf, getForm, int, nullable, num, obj, operation, ref, str, type Schema,
} from '../dsl.ts'
import { HALO_STATUSES, csvFields, dateRange } from '../common.ts'

const TAG = 'Halo'
const SECTION = 'Off-platform sales correlation'
const OFF_PLATFORMS = ['storefront', 'marketplace'] as const

/** A number that is null when the data is missing (the spec: "Missing data is null, never 0"). */
const maybe = (description?: string): Schema => nullable(num(description ? { description } : {}))

const getHaloReport = operation({
  method: 'post',
  path: '/halo-effect',
  operationId: 'getHaloReport',
  tag: TAG,
  specSection: SECTION,
  summary: 'Correlation of platform video views with off-platform (storefront, marketplace) sales',
  description: [
    'A date range is required, as `date_range` {from, to} (inclusive, at most 366 days) or `date_from`/`date_to` instead (body and GET form alike);',
    'the server refuses a request with neither (400). `granularity` affects `series` only; halo statistics always use daily data.',
    'CSV: `format: csv` returns the `series` rows as a presigned download. Missing data is null, never 0.',
    'Changes no data of the account; a call (POST or GET, not HEAD) starts a storefront snapshot build when there is none or it is older than 6 hours, and fetches the marketplace\'s live numbers when its cache is older than 12 hours (spec: States and transitions, Halo).',
  ].join(' '),
  requestBody: {
    ...body({
    date_range: dateRange(),
    date_from: date({ description: 'Start of the range (inclusive), instead of `date_range.from` (spec: "date_from/date_to accepted instead of date_range").' }),
    date_to: date({ description: 'End of the range (inclusive), instead of `date_range.to`.' }),
    platform_product_id: str({ description: 'Narrows platform numbers to that product and the platform blocks to the storefront products/variants and marketplace items linked to it. A product the shop does not have: 400.' }),
    exclude_platform_gmv: {
      anyOf: [
        bool(),
        arr(enumOf(OFF_PLATFORMS)),
        str({ pattern: '^\\s*(storefront|marketplace)\\s*(,\\s*(storefront|marketplace)\\s*)*$' }),
      ],
      description: 'true for all, or a list or comma string of `storefront` and `marketplace`: subtracts each day\'s platform shop GMV from that platform\'s revenue, floored at 0.',
    },
    granularity: { ...ref('Grain'), default: 'day', description: '`week` starts on Monday. Affects `series` only.' },
    include_top_videos: bool({ description: 'Adds `top_videos_per_day`.' }),
    ...csvFields(),
  }, { description: 'Halo report request. A date range is required: `date_range`, or `date_from`/`date_to` instead (in the body as in the GET form); without one, 400 `Missing date_range (from/to)`.' }),
    // spec: Off-platform sales correlation: `date_from`/`date_to` accepted instead of `date_range`.
    anyOf: [{ required: ['date_range'] }, { required: ['date_from', 'date_to'] }],
  },
  success: {
    status: 200,
    csv: 'HaloSeriesRow',
    schema: { anyOf: [data(ref('HaloReport')), ref('CsvExport')] },
  },
})

/** GET form: every body field as a query parameter, `date_range` as a deep object (`date_from`/`date_to` come from the body). */
const getHaloReportGetForm = getForm(getHaloReport, 'getHaloReportGet')
const getHaloReportGet = {
  ...getHaloReportGetForm,
  query: getHaloReportGetForm.query!.map((p) => (p.name === 'date_range' ? { ...p, style: 'deepObject' as const } : p)),
}

const HaloPlatformBlock = obj(
  {
    connected: bool(),
    linked_product_count: int({ minimum: 0 }),
    linked_products: arr(ref('HaloProductLink'), { description: 'Matching link rows when a product is selected.' }),
    status: enumOf(HALO_STATUSES, { description: 'Absent when `connected` is false. `refreshing`: no snapshot yet, a refresh was started; `not_linked`: the selected product has no link on this platform; `error`: platform data unavailable now.' }),
    warnings: arr(str(), { description: 'Present when numbers are partial.' }),
    totals: obj({
      revenue: maybe(),
      orders: maybe(),
      units: maybe(),
      aov: maybe(),
      revenue_change_pct: maybe('Average day in the second half vs the first half of the range, not netted by exclusion.'),
      orders_change_pct: maybe('Average day in the second half vs the first half of the range.'),
      units_change_pct: maybe('Average day in the second half vs the first half of the range.'),
    }),
    campaign_impact: arr(ref('HaloCampaignImpact')),
    net_of_platform_gmv: bool(),
    halo_revenue: maybe(),
    // storefront only
    snapshot_from: nullable(str({ description: 'Storefront only: first day of the snapshot (format not shown).' })),
    snapshot_to: nullable(str({ description: 'Storefront only: last day of the snapshot (format not shown).' })),
    refreshed_at: nullable(str({ description: 'Storefront only: when the snapshot was built (format not shown).' })),
    store: { description: 'Storefront only: the connected store (type not shown).' },
    refresh_started_at: str({ description: 'Storefront only, while a refresh is building.' }),
    // marketplace only
    auth_error: bool({ description: 'Marketplace only: true when authorization expired or was revoked.' }),
    account_type: nullable(str({ description: 'Marketplace only.' })),
  },
  {
    required: ['connected', 'linked_product_count', 'totals', 'campaign_impact', 'net_of_platform_gmv', 'halo_revenue'],
    description: 'One off-platform sales channel. Storefront snapshots refresh nightly and on demand (an older than 6 hours snapshot is served as is while a refresh runs); marketplace numbers are live and cached up to 12 hours.',
  },
)

export const halo: Area = {
  name: TAG,
  description: 'Off-platform sales correlation (halo effect): how platform video views relate to storefront and marketplace revenue. Read-only; connecting stores and linking products happens in the dashboard.',
  schemas: {
    HaloReport: obj(
      {
        date_from: date(),
        date_to: date(),
        granularity: ref('Grain'),
        platform_product_id: nullable(str()),
        platform_product_name: nullable(str()),
        halo: ref('HaloStats'),
        platform: obj({
          gmv: num(),
          views: num(),
          gmv_source: enumOf(['shop_performance.platform_gmv', 'daily_product_stats.total_gmv'], { description: 'shop_performance.platform_gmv shop-wide; daily_product_stats.total_gmv when a product is selected.' }),
        }),
        platforms: obj({ storefront: ref('HaloPlatformBlock'), marketplace: ref('HaloPlatformBlock') }),
        series: arr(ref('HaloSeriesRow')),
        top_videos_per_day: arr(ref('HaloTopVideosDay'), { description: 'Only with include_top_videos.' }),
      },
      {
        required: ['date_from', 'date_to', 'granularity', 'platform_product_id', 'platform_product_name', 'halo', 'platform', 'platforms', 'series'],
        description: 'Off-platform sales report (spec: Off-platform sales correlation). Missing data is null, never 0.',
      },
    ),
    HaloStats: obj(
      {
        correlation: nullable(num({ minimum: 0, maximum: 1, description: 'Pearson, floored at 0; null with fewer than 3 active days.' })),
        est_halo_revenue: maybe('Regression slope x total views; 0 if the slope is not positive.'),
        revenue_per_1k_views: maybe(),
        multiplier: maybe('Off-platform revenue per 1 unit of platform shop GMV; null with no GMV.'),
        total_views: num(),
        total_off_platform_revenue: maybe(),
        total_platform_gmv: num(),
        sample_size: int({ minimum: 0, description: 'Days used.' }),
        days_excluded_no_platform_data: int({ minimum: 0, description: 'Present when days were dropped because a reporting platform had no data.' }),
      },
      {
        required: ['correlation', 'est_halo_revenue', 'revenue_per_1k_views', 'multiplier', 'total_views', 'total_off_platform_revenue', 'total_platform_gmv', 'sample_size'],
        description: 'Halo statistics; always computed from daily data.',
      },
    ),
    HaloPlatformBlock,
    HaloCampaignImpact: obj(
      {
        campaign_id: str(),
        campaign_name: str(),
        campaign_type: str(),
        start_date: str({ description: 'Format not shown.' }),
        end_date: str({ description: 'Format not shown.' }),
        lift_pct: maybe('Average daily revenue in the campaign vs the 14 days before; null when the baseline reaches before the platform\'s data.'),
        baseline_daily_revenue: maybe('null when the baseline reaches before the platform\'s data.'),
        baseline_complete: bool({ description: 'false when the baseline reaches before the platform\'s data.' }),
        campaign_revenue: maybe(),
        days_active: num(),
      },
      { description: 'Revenue lift of one off-platform campaign.' },
    ),
    HaloSeriesRow: obj(
      {
        date: date({ description: 'The day, or the first day of the week (Monday) or month.' }),
        platform_views: num(),
        platform_gmv: maybe('null on days without a platform report (the shop\'s, or the selected product\'s); with week or month, the sum of the reported days, null when none.'),
        storefront_revenue: maybe('null on days without data; with week or month, null when the platform does not cover the whole period.'),
        marketplace_revenue: maybe('null on days without data; with week or month, null when the platform does not cover the whole period.'),
        off_platform_revenue: maybe('null when any reporting platform is null.'),
      },
      { description: 'One period of the halo series.' },
    ),
    HaloTopVideosDay: obj(
      {
        date: date({ description: 'The day (field name inferred; the spec says only "per day").' }),
        top_videos: arr(obj({ video_id: str(), handle: str(), views: num(), gmv: num() }), { maxItems: 4, description: 'The 4 most viewed videos of the day.' }),
        other: obj({ count: int({ minimum: 0 }), views: num(), gmv: num() }, { description: 'When more than 4 videos exist.' }),
      },
      { required: ['top_videos'], description: 'Top videos of one day.' },
    ),
    HaloProductLink: obj(
      {
        platform: enumOf(OFF_PLATFORMS),
        platform_product_id: str({ description: 'The commerce-platform product the link points from.' }),
        external_product_id: str({ description: 'Storefront product or marketplace item id.' }),
        external_variant_id: nullable(str({ description: 'Storefront variant id, when the link is per variant.' })),
        title: nullable(str()),
      },
      {
        inferred: true,
        required: ['platform', 'platform_product_id'],
        description: 'A link between a platform product and a storefront product/variant or marketplace item. Links are made in the dashboard; the row shape is not shown.',
      },
    ),
    HaloConnectedStore: obj(
      {
        platform: enumOf(OFF_PLATFORMS),
        connected: bool(),
        store: str({ description: 'Store name or address.' }),
        status: enumOf(HALO_STATUSES),
        linked_product_count: int({ minimum: 0 }),
      },
      {
        inferred: true,
        required: ['platform', 'connected'],
        description: 'An off-platform store connected in the dashboard. The shape is not shown.',
      },
    ),
  },
  operations: [
    getHaloReport,
    getHaloReportGet,
    operation({
      method: 'get',
      path: '/halo-effect/product-links',
      operationId: 'listHaloProductLinks',
      tag: TAG,
      specSection: 'Endpoints whose shapes are incomplete or absent: Halo product links',
      summary: 'Connected off-platform stores and their product links',
      description: 'The spec says a read endpoint lists connected stores and product links; its path, body and response are not shown. Path and shape are inferred. Read-only: links are made in the dashboard.',
      inferred: true,
      success: {
        status: 200,
        schema: data(obj(
          { stores: arr(ref('HaloConnectedStore')), links: arr(ref('HaloProductLink')) },
          { inferred: true, description: 'Connected stores and product links (inferred shape).' },
        )),
      },
    }),
  ],
}
