/** Sales-max ads: campaigns, creatives, excluded creatives and boost sessions (spec: Sales-max ads). */
import type { Area } from '../document.ts'
import {
  arr, body, bool, data, date, dateTime, enumOf, getForm, int, nullable, num, obj, operation, ref, str, strOrArr, v1Alias,
  type OperationSpec, type Schema,
} from '../dsl.ts'
import { SORT_DIRECTION_UPPER, csvFields, dateRange } from '../common.ts'

const TAG = 'Ads'
const SECTION = 'Sales-max ads'
const PLAN_GATE_NOTE =
  'Plan gate: a shop not on an active paid plan gets 403 `This shop is not on an active paid plan`; a shop not found or not owned by the user gets 403 `Shop not found or not owned by user`.'

const CAMPAIGN_SORT_KEYS = ['ad_spend', 'ad_revenue', 'orders', 'campaign_name', 'operation_status', 'budget', 'roas_target']
const CREATIVE_SORT_KEYS = [
  'date_posted', 'ad_spend', 'gross_revenue', 'roi', 'cpa', 'orders', 'cost_per_order', 'impressions', 'clicks',
  'click_rate', 'ad_click_rate', 'conversion_rate', 'view_rate_2s', 'view_rate_6s', 'view_count',
]
const EXCLUDED_SORT_KEYS = ['created_at', 'campaign_id', 'video_id', 'handle', 'rule_name'] as const
const BOOSTED_SORT_KEYS = [
  'created_at', 'ended_at', 'budget_per_day', 'spend', 'revenue', 'orders', 'roas', 'active', 'campaign_id', 'video_id', 'handle',
] as const

/** A `{from, to}` range where either bound may be sent alone (creatives' performance_date / posted_date). */
const partialDateRange = (description: string): Schema =>
  obj({ from: date(), to: date() }, { required: [], description })

/** sort_by where an invalid value falls back to ad_spend: a plain string. */
const fallbackSortBy = (keys: string[]): Schema =>
  str({ default: 'ad_spend', description: `One of ${keys.map((k) => `\`${k}\``).join(', ')}; any other value falls back to \`ad_spend\`.` })

const sortDirection = (extra: Schema = {}): Schema =>
  enumOf(SORT_DIRECTION_UPPER, { description: 'Nulls sort last.', ...extra })

const page = (): Schema => int({ minimum: 1, default: 1, description: '1-based page number.' })

/** Page size the server clamps (no bounds in the schema). */
const clampedPageSize = (defaultSize: number, min: number, max: number): Schema =>
  int({ default: defaultSize, description: `Default ${defaultSize}; clamped by the server to ${min}-${max}.` })

const sortEcho = (): Record<string, Schema> => ({
  sort_by: str({ description: 'The sort key applied (after fallback).' }),
  sort_direction: enumOf(SORT_DIRECTION_UPPER),
})

const pageEcho = (): Record<string, Schema> => ({
  total_count: int({ minimum: 0 }),
  page: int({ minimum: 1 }),
  page_size: int({ minimum: 1 }),
})

// --- Canonical operations ----------------------------------------------------------------------

const listAdCampaigns = operation({
  method: 'post',
  path: '/ads/campaigns',
  operationId: 'listAdCampaigns',
  tag: TAG,
  specSection: SECTION,
  summary: 'Sales-max campaigns with metrics over a date range',
  description: [
    '`date_range` (or its camelCase alias `dateRange`) is required: without it 400 `Missing date_range (from/to)`.',
    '`page_size` defaults to 10 and is clamped to 1-100 (not refused); paging depth is capped at 10,000 rows (page x page_size).',
    'An invalid `sort_by` falls back to `ad_spend`. `totals.prev` covers the equal-length period immediately before the range.',
    'Campaigns with no spend still appear with zero metrics; `total_count` counts all the shop\'s campaigns regardless of dates.',
    'camelCase keys `pageSize`, `sortBy`, `dateRange`, `sortDir` are accepted.',
    PLAN_GATE_NOTE,
  ].join(' '),
  planGate: 'active-paid',
  requestBody: {
    ...body({
      date_range: dateRange(),
      dateRange: dateRange(),
      page: page(),
      page_size: clampedPageSize(10, 1, 100),
      pageSize: clampedPageSize(10, 1, 100),
      sort_by: fallbackSortBy(CAMPAIGN_SORT_KEYS),
      sortBy: fallbackSortBy(CAMPAIGN_SORT_KEYS),
      sort_direction: sortDirection({ default: 'DESC' }),
      sortDir: sortDirection({ default: 'DESC' }),
    }, { description: 'Sales-max campaign search. `date_range` is required (snake_case or camelCase).' }),
    anyOf: [{ required: ['date_range'] }, { required: ['dateRange'] }],
  },
  paging: { sizeParam: 'page_size', pageParam: 'page', defaultSize: 10, max: 100, mode: 'clamp', depthCap: 10000 },
  success: {
    status: 200,
    schema: data(obj({
      totals: obj({
        ad_spend: num(),
        ad_roi: num(),
        ad_revenue: num(),
        prev: obj({ ad_spend: num(), ad_roi: num(), ad_revenue: num() }, { description: 'The equal-length period immediately before the range.' }),
      }),
      campaigns: arr(ref('AdCampaign')),
      ...pageEcho(),
      ...sortEcho(),
    })),
  },
})

const listAdCreatives = operation({
  method: 'post',
  path: '/ads/creatives',
  operationId: 'listAdCreatives',
  tag: TAG,
  specSection: SECTION,
  summary: 'Sales-max creatives (per video) with metrics over a window',
  description: [
    'All fields optional. `performance_date` is the metrics window (either bound alone; `from` defaults to 6 months ago, `to` to today; omitted = trailing 6 months).',
    '`posted_date` filters videos by post date (unknown post dates excluded when set); legacy `date_range` is its alias.',
    '`page_size` defaults to 5 and is clamped to 1-1000 (not refused); paging depth is capped at 10,000 rows.',
    'An invalid `sort_by` falls back to `ad_spend`. Filters combine. `available_statuses` lists statuses present before the status filter; `total_count` is within it.',
    'camelCase keys `campaignId`, `pageSize`, `productIds`, `videoIds`/`video_id`, `sortBy`, `sortDir` are accepted.',
    PLAN_GATE_NOTE,
  ].join(' '),
  planGate: 'active-paid',
  requestBody: body({
    performance_date: partialDateRange('Metrics window; either bound may be sent alone (from defaults to 6 months ago, to to today).'),
    posted_date: partialDateRange('Filters videos by post date; videos with unknown post dates are excluded when set.'),
    date_range: partialDateRange('Legacy alias of posted_date.'),
    page: page(),
    page_size: clampedPageSize(5, 1, 1000),
    pageSize: clampedPageSize(5, 1, 1000),
    sort_by: fallbackSortBy(CREATIVE_SORT_KEYS),
    sortBy: fallbackSortBy(CREATIVE_SORT_KEYS),
    sort_direction: sortDirection({ default: 'DESC' }),
    sortDir: sortDirection({ default: 'DESC' }),
    campaign_id: str(),
    campaignId: str(),
    product_ids: strOrArr(),
    productIds: strOrArr(),
    video_ids: strOrArr(),
    videoIds: strOrArr(),
    video_id: strOrArr(),
    statuses: { anyOf: [ref('DeliveryStatus'), arr(ref('DeliveryStatus'))], description: 'One delivery status or an array.' },
  }),
  paging: { sizeParam: 'page_size', pageParam: 'page', defaultSize: 5, max: 1000, mode: 'clamp', depthCap: 10000 },
  success: {
    status: 200,
    schema: data(obj({
      creatives: arr(ref('AdCreative')),
      ...pageEcho(),
      available_statuses: arr(ref('DeliveryStatus'), { description: 'Statuses present in scope before the status filter.' }),
      ...sortEcho(),
    })),
  },
})

/** Excluded and boosted lists: `page_size` default 20, max 100 (refused above), depth cap 10,000 (spec: Limits). */
const CREATIVE_LIST_PAGING = { sizeParam: 'page_size', pageParam: 'page', defaultSize: 20, max: 100, mode: 'reject', depthCap: 10000 } as const

const listExcludedCreatives = operation({
  method: 'post',
  path: '/ads/excluded-creatives',
  operationId: 'listExcludedCreatives',
  tag: TAG,
  specSection: SECTION,
  summary: 'Active creative exclusions of sales-max campaigns',
  description: [
    'Only active exclusions. `page_size` defaults to 20, max 100 (larger is refused with 400); paging depth is capped at 10,000 rows.',
    'CSV: `format: csv` returns a presigned download link. Also callable with GET and query parameters.',
    PLAN_GATE_NOTE,
  ].join(' '),
  planGate: 'active-paid',
  requestBody: body({
    campaign_id: str(),
    video_ids: strOrArr({ description: 'A video id or an array of ids.' }),
    rule_id: str({ description: '`manual` for manual exclusions; moderation scan ids begin with `moderation_scan`.' }),
    page: page(),
    page_size: int({ minimum: 1, maximum: 100, default: 20 }),
    sort_by: enumOf(EXCLUDED_SORT_KEYS, { default: 'created_at' }),
    sort_direction: sortDirection({ default: 'DESC' }),
    ...csvFields(),
  }),
  paging: CREATIVE_LIST_PAGING,
  success: {
    status: 200,
    csv: 'ExcludedCreative',
    schema: {
      anyOf: [
        data(obj({ exclusions: arr(ref('ExcludedCreative')), ...pageEcho(), ...sortEcho() })),
        ref('CsvExport'),
      ],
    },
  },
})

const listBoostedCreatives = operation({
  method: 'post',
  path: '/ads/boosted-creatives',
  operationId: 'listBoostedCreatives',
  tag: TAG,
  specSection: SECTION,
  summary: 'Boost sessions of sales-max creatives',
  description: [
    'Active sessions only unless `include_ended` is true. `page_size` defaults to 20, max 100 (larger is refused with 400); paging depth is capped at 10,000 rows.',
    'CSV: `format: csv` returns a presigned download link. Also callable with GET and query parameters.',
    PLAN_GATE_NOTE,
  ].join(' '),
  planGate: 'active-paid',
  requestBody: body({
    include_ended: bool({ default: false, description: 'false (default): active sessions only.' }),
    campaign_id: str(),
    video_ids: strOrArr({ description: 'A video id or an array of ids.' }),
    rule_id: str({ description: '`manual` for manual boosts.' }),
    page: page(),
    page_size: int({ minimum: 1, maximum: 100, default: 20 }),
    sort_by: enumOf(BOOSTED_SORT_KEYS, { default: 'created_at' }),
    sort_direction: sortDirection(),
    ...csvFields(),
  }),
  paging: CREATIVE_LIST_PAGING,
  success: {
    status: 200,
    csv: 'BoostSession',
    schema: {
      anyOf: [
        data(obj({ sessions: arr(ref('BoostSession')), ...pageEcho(), include_ended: bool(), ...sortEcho() })),
        ref('CsvExport'),
      ],
    },
  },
})

// --- GET forms and /v1 aliases ----------------------------------------------------------------

const listExcludedCreativesGet = getForm(listExcludedCreatives, 'listExcludedCreativesGet')
const listBoostedCreativesGet = getForm(listBoostedCreatives, 'listBoostedCreativesGet')

/** `/v1` alias of a GET form: still an alias of the canonical POST operation. */
const v1GetAlias = (op: OperationSpec, operationId: string): OperationSpec => ({
  ...v1Alias(op, operationId),
  aliasOf: op.aliasOf ?? op.operationId,
})

export const ads: Area = {
  name: TAG,
  description: 'Automated sales-max ad campaigns: campaigns, per-video creatives, excluded creatives and boost sessions. Every operation is also reachable under `/v1/ads/...` and needs a shop on an active paid plan.',
  schemas: {
    AdCampaign: obj(
      {
        campaign_id: str(),
        campaign_name: nullable(str()),
        operation_status: nullable(str({ description: 'For example `ENABLE`, `DISABLE`.' })),
        budget: num(),
        roas_target: num(),
        schedule_type: nullable(str({ description: 'For example `SCHEDULE_FROM_NOW`, `SCHEDULE_START_END`.' })),
        schedule_start_time: nullable(str({ description: 'Datetime string (exact format not shown).' })),
        schedule_end_time: nullable(str({ description: 'Datetime string (exact format not shown).' })),
        product_specific_type: nullable(str({ description: 'For example `CUSTOMIZED_PRODUCTS`.' })),
        auto_budget_enabled: bool(),
        store_id: nullable(str()),
        item_group_ids: strOrArr({ description: 'Targeted product group id or ids.' }),
        ad_spend: num(),
        ad_revenue: num(),
        orders: num(),
        ad_roi: num({ description: 'ad_revenue / ad_spend, 0 if no spend.' }),
        cost_per_order: num({ description: 'ad_spend / orders, 0 if no orders.' }),
      },
      { description: 'Sales-max ad campaign (spec: Resources: Sales-max ad campaign).' },
    ),
    AdCreative: obj(
      {
        video_id: str(),
        product_id: nullable(str()),
        status: nullable(ref('DeliveryStatus')),
        date_posted: nullable(date()),
        ad_spend: num(),
        gross_revenue: num(),
        roi: num({ description: 'Ratio of sums over the window.' }),
        cpa: num({ description: 'Ratio of sums over the window.' }),
        orders: num(),
        cost_per_order: num({ description: 'Equals cpa.' }),
        impressions: num(),
        clicks: num(),
        click_rate: num({ description: 'Percentage (1.87 means 1.87%); ratio of sums.' }),
        ad_click_rate: num({ description: 'Percentage; weighted average of daily values.' }),
        conversion_rate: num({ description: 'Percentage; weighted average of daily values.' }),
        view_rate_2s: num({ description: 'Percentage; weighted average of daily values.' }),
        view_rate_6s: num({ description: 'Percentage; weighted average of daily values.' }),
        handle: nullable(str({ description: 'null if no content row.' })),
        title: str(),
        view_count: num({ description: 'Organic views.' }),
        url: str(),
        video_link: str({ description: 'Alias of url.' }),
      },
      { description: 'Sales-max creative, per video (spec: Resources: Sales-max creative). status is the latest value within the metrics window.' },
    ),
    ExcludedCreative: obj(
      {
        video_id: str(),
        campaign_id: str(),
        campaign_name: nullable(str({ description: 'Best effort.' })),
        product_ids: arr(str()),
        handle: str(),
        title: str(),
        url: str(),
        video_link: str(),
        rule_id: str({ description: '`manual` for manual; moderation scan ids begin with `moderation_scan`.' }),
        rule_name: str(),
        reason: str(),
        created_at: dateTime(),
        view_count: num({ description: 'Zero when no content row.' }),
        like_count: num({ description: 'Zero when no content row.' }),
        comment_count: num({ description: 'Zero when no content row.' }),
        video_gmv: num({ description: 'Zero when no content row.' }),
        units_sold: num({ description: 'Zero when no content row.' }),
        ctr: nullable(num()),
        post_time: str({ description: 'Post time (format not shown).' }),
      },
      { description: 'An active creative exclusion (spec: Resources: Excluded creative).' },
    ),
    BoostSession: obj(
      {
        session_id: str(),
        rule_id: str({ description: '`manual` for manual boosts.' }),
        rule_name: str(),
        campaign_id: str(),
        campaign_name: str(),
        video_id: str(),
        product_id: str(),
        handle: str(),
        title: str(),
        url: str(),
        video_link: str(),
        budget_per_day: num(),
        spend: num({ description: 'Since the boost began.' }),
        revenue: num({ description: 'Since the boost began.' }),
        orders: num({ description: 'Since the boost began.' }),
        roas: num({ description: 'Baseline revenue / baseline spend.' }),
        active: bool({ description: 'Last recorded state (no live platform call).' }),
        created_at: str({ description: 'Timestamp (format not shown).' }),
        ended_at: nullable(str({ description: 'Set when the boost is stopped or expires; null while active.' })),
        exit_reason: nullable(str({ description: 'null while active.' })),
        view_count: num(),
        like_count: num(),
        comment_count: num(),
        video_gmv: num(),
        ctr: num(),
        units_sold: num(),
        post_time: str({ description: 'Post time (format not shown).' }),
      },
      { description: 'A boost session (spec: Resources: Boost session). Active until stopped or expired; ended_at and exit_reason are then set.' },
    ),
  },
  operations: [
    listAdCampaigns,
    v1Alias(listAdCampaigns, 'listAdCampaignsV1'),
    listAdCreatives,
    v1Alias(listAdCreatives, 'listAdCreativesV1'),
    listExcludedCreatives,
    v1Alias(listExcludedCreatives, 'listExcludedCreativesV1'),
    listExcludedCreativesGet,
    v1GetAlias(listExcludedCreativesGet, 'listExcludedCreativesGetV1'),
    listBoostedCreatives,
    v1Alias(listBoostedCreatives, 'listBoostedCreativesV1'),
    listBoostedCreativesGet,
    v1GetAlias(listBoostedCreativesGet, 'listBoostedCreativesGetV1'),
  ],
}
