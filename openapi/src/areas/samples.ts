/** Sample requests: the funnel, the review queue, refundable samples, approve/reject/ignore, creator DMs (spec: Samples). */
import type { Area } from '../document.ts'
import { arr, body, bool, data, date, dateTime, enumOf, int, nullable, num, obj, operation, ref, str, type Schema } from '../dsl.ts'
import { OPEN_SAMPLE_STATUSES, REFUNDABLE_SAMPLE_STATUSES, SAMPLE_STATUSES, dateRange, affiliatePerformance, shopPerformance } from '../common.ts'

const TAG = 'Samples'
const SECTION = 'Samples'

const SOURCES = ['TC', 'Open'] as const
// spec: Samples: the funnel's time_field also takes the column names as aliases.
const FUNNEL_TIME_FIELDS = [
  'timestamp', 'approved', 'shipped', 'delivered', 'posted',
  'sample_approved', 'sample_shipped', 'sample_received', 'sample_posted',
] as const
const FUNNEL_STAGES = ['requested', 'approved', 'shipped', 'delivered', 'posted'] as const
const FUNNEL_STEPS = ['request_to_approval', 'approval_to_shipment', 'shipment_to_delivery', 'delivery_to_post'] as const
const SAMPLE_SORT_KEYS = [
  'timestamp', 'med_gmv_revenue', 'med_gmv_revenue_range', 'follower_cnt', 'post_rate', 'pps', 'gpm',
  'average_gmv_per_video', 'expire_date', 'shop_gmv', 'engagement',
] as const
const REFUNDABLE_SORT_KEYS = [
  'timestamp', 'sample_shipped', 'sample_received', 'refund_time', 'refund_amount', 'commission_rate',
  'review_expire_time', 'follower_cnt', 'shop_gmv',
] as const
const REFUNDABLE_TIME_FIELDS = ['timestamp', 'sample_shipped', 'sample_received', 'refund_time', 'review_expire_time'] as const

const SAMPLE_PAGE_MAX = 100
const SAMPLE_DEPTH_CAP = 1000


const pageFields = (): Record<string, Schema> => ({
  page_size: int({ minimum: 1, maximum: SAMPLE_PAGE_MAX, description: `At most ${SAMPLE_PAGE_MAX}; larger is refused.` }),
  page_number: int({ minimum: 1, description: `1-based; page_number x page_size must not exceed ${SAMPLE_DEPTH_CAP}.` }),
})

const sortDirection = (): Schema =>
  enumOf(['asc', 'desc', 'ASC', 'DESC'], { description: 'asc or desc; the accepted case is not shown, so both are accepted, and other values are refused with 400 (inferred).', 'x-inferred': true })

const samplePaging = { sizeParam: 'page_size', pageParam: 'page_number', max: SAMPLE_PAGE_MAX, mode: 'reject', depthCap: SAMPLE_DEPTH_CAP } as const
const pagingText = `page_size max ${SAMPLE_PAGE_MAX} (larger is refused with 400, no clamping); page_number x page_size must not exceed ${SAMPLE_DEPTH_CAP} (spec: Limits, sample list depth).`

const applyIds = (): Schema => arr(str(), { description: 'apply_id values of the sample requests.' })

// Inferred (spec: Samples, "not shown"): the DM names its creator by creator_id or by handle.
const dmBody: Schema = {
  ...body(
    {
      creator_id: str(),
      handle: str(),
      message: str({ minLength: 1, maxLength: 2000, description: 'Message text (length limit inferred).' }),
    },
    { required: ['message'], inferred: true, description: 'Not shown; inferred: creator_id or handle, and the message.' },
  ),
  anyOf: [{ required: ['creator_id'] }, { required: ['handle'] }],
}

export const samples: Area = {
  name: TAG,
  description: 'Sample requests: the request funnel, the review queue and refundable samples, approving, rejecting, ignoring and unignoring requests, and creator direct messages.',
  schemas: {
    SampleRequest: obj(
      {
        shop_id: str(),
        creator_id: str(),
        sampled_product: str(),
        status: ref('SampleStatus'),
        campaign_id: nullable(str()),
        timestamp: dateTime({ description: 'Requested time.' }),
        sample_approved: nullable(dateTime()),
        sample_received: nullable(dateTime()),
        expire_date: str({ description: 'Format not shown.' }),
        source: enumOf(SOURCES),
        apply_id: str({ description: 'The id used by approve, reject and ignore.' }),
        handle: str(),
        bio: str(),
        follower_cnt: num(),
        post_rate: { anyOf: [num(), enumOf(['N/A'])], description: 'A number or the text N/A.' },
        video_engagement: num(),
        med_gmv_revenue: num(),
        med_gmv_revenue_range: str({ description: 'A range bucket; type not shown.' }),
        pps: num(),
        gpm: num(),
        shop_gmv: num(),
        average_gmv_per_video: num(),
        previous_approved: bool({ description: 'The creator has another active sample with the shop.' }),
      },
      { description: 'A sample request (spec: Resources: Sample request).' },
    ),
    RefundableSampleRequest: obj(
      {
        shop_id: str(),
        creator_id: str(),
        sampled_product: str(),
        status: str({
          description: 'Refundable sample status; the spec says the values include Shipped and Refunded (the full list is not shown).',
          examples: [...REFUNDABLE_SAMPLE_STATUSES],
        }),
        campaign_id: nullable(str({ description: 'Null when the request is not tied to a campaign (inferred, as on the sample request).' })),
        timestamp: dateTime({ description: 'Requested time.' }),
        apply_id: str(),
        sku_id: str(),
        sku_desc: str(),
        commission_rate: num({ description: 'Basis points; 1500 = 15%.' }),
        sample_shipped: nullable(str({ description: 'Timestamp; format not shown. Null until shipped (inferred).' })),
        sample_received: nullable(str({ description: 'Timestamp; format not shown. Null until received (inferred).' })),
        refund_time: nullable(str({ description: 'Timestamp; format not shown. Null until refunded (inferred).' })),
        refund_amount: nullable(num({ description: 'Null until refunded (inferred).' })),
        review_expire_time: nullable(str({ description: 'Timestamp; format not shown. Null before the review window opens (inferred).' })),
        handle: str(),
        bio: str(),
        follower_cnt: num(),
        med_gmv_revenue: num(),
        med_gmv_revenue_range: str({ description: 'A range bucket; type not shown.' }),
        shop_gmv: num(),
        product_info: obj({ product_id: str(), product_name: str(), is_open_plan: bool(), price: num(), units_sold: num() }),
      },
      { description: 'A refundable sample request: the creator buys the sample and is refunded after posting (spec: Resources: Refundable sample request).' },
    ),
    SampleFunnel: obj(
      {
        time_field: enumOf(FUNNEL_TIME_FIELDS),
        time_from: nullable(date({ description: 'null when omitted (all time).' })),
        time_to: nullable(date({ description: 'null when omitted (all time).' })),
        total_count: int({ minimum: 0 }),
        by_status: arr(
          obj(
            {
              status: ref('SampleStatus'),
              count: int({ minimum: 0 }),
              pct_of_total: num(),
              is_open: bool({ description: `Open statuses: ${OPEN_SAMPLE_STATUSES.join(', ')}.` }),
              avg_age_days: num({ description: 'Open rows only: days since submission.' }),
              oldest_age_days: num({ description: 'Open rows only: days since submission.' }),
            },
            { required: ['status', 'count', 'pct_of_total', 'is_open'] },
          ),
          { description: 'Ordered by count descending.' },
        ),
        funnel: arr(
          obj({
            stage: enumOf(FUNNEL_STAGES),
            label: str(),
            count: int({ minimum: 0, description: 'Cumulative: a request counts at every stage it ever passed.' }),
            pct_of_entry: num(),
            conversion_from_previous_pct: nullable(num({ description: 'null on the entry stage.' })),
            dropped_from_previous: nullable(int({ description: 'null on the entry stage.' })),
          }),
        ),
        timing: arr(
          obj({
            step: enumOf(FUNNEL_STEPS),
            label: str(),
            median_days: nullable(num({ description: 'null when no request has made the transition.' })),
          }),
        ),
        biggest_bottleneck: nullable(
          obj(
            { stage: enumOf(FUNNEL_STAGES), label: str(), dropped: int({ minimum: 0 }), conversion_pct: num() },
            { description: 'The transition losing the largest share of the funnel.' },
          ),
        ),
      },
      { description: 'Sample request funnel: one row per request, not per creator. With no matching requests: counts 0, empty arrays, biggest_bottleneck null.' },
    ),
  },
  operations: [
    operation({
      method: 'post',
      path: '/affiliate/samples/funnel',
      operationId: 'getSampleFunnel',
      tag: TAG,
      specSection: SECTION,
      summary: 'Sample request funnel: counts by status, cumulative stages, step timings and the biggest bottleneck',
      description:
        'A non-default time_field restricts the cohort to rows carrying that timestamp. Ignored requests are left out unless include_ignored is true (spec: States: Sample request ignored). A `time_from` after the `time_to`: 400 (inferred).',
      requestBody: body({
        time_field: enumOf(FUNNEL_TIME_FIELDS, {
          default: 'timestamp',
          description: 'timestamp = request time; the column names sample_approved, sample_shipped, sample_received, sample_posted also work.',
        }),
        time_from: date({ description: 'Inclusive of the whole day; omit both bounds for all time.' }),
        time_to: date({ description: 'Inclusive of the whole day.' }),
        product_ids: arr(str()),
        product_id: str(),
        campaign_id: str(),
        all_campaigns: bool(),
        source: enumOf(SOURCES),
        include_ignored: bool({ default: false }),
      }),
      success: { status: 200, schema: data(ref('SampleFunnel')) },
    }),
    operation({
      method: 'post',
      path: '/affiliate/samples/list',
      operationId: 'listSampleRequests',
      tag: TAG,
      specSection: SECTION,
      summary: 'Search sample requests',
      description: `${pagingText} Ignored requests appear only when filters.sample_status contains \`ignore\` (spec: States: Sample request ignored). total_count is filled on page 1 or with just_count.`,
      paging: samplePaging,
      requestBody: body({
        ...pageFields(),
        sort_by: enumOf(SAMPLE_SORT_KEYS),
        sort_direction: sortDirection(),
        just_count: bool(),
        filters: body({
          sample_status: arr(enumOf([...SAMPLE_STATUSES, 'ignore']), { description: '`[ignore]` shows only ignored requests.' }),
          handle: str(),
          product_filter: str(),
          product_ids: arr(str()),
          date_range: dateRange(),
          approval_time: dateRange(),
          affiliate_performance: affiliatePerformance(),
          shop_performance: shopPerformance(),
        }),
        prev_worked_with: bool(),
        expiring_soon: bool({ description: 'expire_date within 3 days.' }),
        source: enumOf(SOURCES),
      }),
      success: {
        status: 200,
        schema: {
          anyOf: [
            data(
              obj(
                {
                  results: arr(ref('SampleRequest')),
                  page_number: int({ minimum: 1 }),
                  page_size: int({ minimum: 1 }),
                  total_count: nullable(int({ minimum: 0, description: 'Filled on page 1 or with just_count.' })),
                  has_more: bool(),
                },
                { required: ['results', 'page_number', 'page_size', 'has_more'] },
              ),
            ),
            ref('CountOnly'),
          ],
        },
      },
    }),
    operation({
      method: 'post',
      path: '/affiliate/samples/refundable/list',
      operationId: 'listRefundableSampleRequests',
      tag: TAG,
      specSection: SECTION,
      summary: 'Search refundable sample requests',
      description: pagingText,
      paging: samplePaging,
      requestBody: body({
        ...pageFields(),
        sort_by: enumOf(REFUNDABLE_SORT_KEYS),
        sort_direction: sortDirection(),
        time_field: enumOf(REFUNDABLE_TIME_FIELDS, { default: 'timestamp', description: 'The timestamp filters.date_range applies to.' }),
        just_count: bool(),
        filters: body({
          sample_status: arr(str(), { description: `Refundable sample statuses (known: ${REFUNDABLE_SAMPLE_STATUSES.join(', ')}).` }),
          handle: str(),
          product_filter: str(),
          product_ids: arr(str()),
          exclude_product_ids: arr(str()),
          sku_ids: arr(str()),
          date_range: dateRange(),
          affiliate_performance: affiliatePerformance(),
          shop_performance: shopPerformance(),
        }),
        campaign_id: str(),
        all_campaigns: bool(),
      }),
      success: {
        status: 200,
        schema: {
          anyOf: [
            data(
              obj({
                results: arr(ref('RefundableSampleRequest')),
                page: int({ minimum: 1 }),
                page_size: int({ minimum: 1 }),
                total_count: int({ minimum: 0 }),
                has_more: bool(),
              }),
            ),
            ref('CountOnly'),
          ],
        },
      },
    }),
    operation({
      method: 'post',
      path: '/affiliate/samples/approve',
      operationId: 'approveSampleRequests',
      tag: TAG,
      specSection: SECTION,
      summary: 'Approve sample requests',
      idempotent: true,
      requestBody: body({ apply_ids: applyIds() }, { required: ['apply_ids'] }),
      success: { status: 200, schema: data(obj({ message: str(), success_count: int({ minimum: 0 }) })) },
    }),
    operation({
      method: 'post',
      path: '/affiliate/samples/reject',
      operationId: 'rejectSampleRequests',
      tag: TAG,
      specSection: SECTION,
      summary: 'Reject sample requests',
      idempotent: true,
      requestBody: body({ apply_ids: applyIds() }, { required: ['apply_ids'] }),
      success: { status: 200, schema: data(obj({ message: str(), success_count: int({ minimum: 0 }) })) },
    }),
    operation({
      method: 'post',
      path: '/affiliate/samples/ignore',
      operationId: 'ignoreSampleRequests',
      tag: TAG,
      specSection: SECTION,
      summary: 'Ignore sample requests (hide them without contacting the platform or the creator)',
      description:
        'Hides the requests from the review queue, search (unless filtered with sample_status `ignore`) and the funnel (unless include_ignored); the platform status is unchanged (spec: States: Sample request ignored). perma_ignore_affiliates also auto-ignores every future request from those creators and can only be reversed in the dashboard. The response body is not shown; `{data: {message, ignored_count}}` is inferred.',
      idempotent: true,
      inferred: true,
      requestBody: body(
        {
          apply_ids: applyIds(),
          perma_ignore_affiliates: arr(body({ creator_id: str(), handle: str() }, { required: ['creator_id', 'handle'] })),
        },
        { required: ['apply_ids'] },
      ),
      success: {
        status: 200,
        schema: data(
          obj({ message: str(), ignored_count: int({ minimum: 0 }) }, { required: [], inferred: true, description: 'Not shown; inferred.' }),
        ),
      },
    }),
    operation({
      method: 'post',
      path: '/affiliate/samples/unignore',
      operationId: 'unignoreSampleRequests',
      tag: TAG,
      specSection: SECTION,
      summary: 'Unignore sample requests (reverses ignore)',
      description:
        'Reverses ignore (spec: States: Sample request ignored). Request and response bodies are not shown; `{apply_ids}` and `{data: {message, unignored_count}}` are inferred from the sibling approve/reject/ignore operations.',
      idempotent: true,
      inferred: true,
      requestBody: body({ apply_ids: applyIds() }, { inferred: true, description: 'Not shown; inferred like ignore.' }),
      success: {
        status: 200,
        schema: data(
          obj({ message: str(), unignored_count: int({ minimum: 0 }) }, { required: [], inferred: true, description: 'Not shown; inferred.' }),
        ),
      },
    }),
    operation({
      method: 'post',
      path: '/affiliate/message/dm',
      operationId: 'sendCreatorDm',
      tag: TAG,
      specSection: SECTION,
      summary: 'Send a creator a direct message',
      description:
        'Request and response bodies are not shown; the creator (creator_id or handle) and the message text are inferred, as is `{data: {message, dm_id}}`. A shop whose SPS is below 3.5 is restricted from messaging creators: 403 (status inferred; spec: Account and shop). An unknown creator, or a creator_id and a handle naming different creators: 400.',
      idempotent: true,
      inferred: true,
      requestBody: dmBody,
      success: {
        status: 200,
        schema: data(obj({ message: str(), dm_id: str() }, { required: [], inferred: true, description: 'Not shown; inferred.' })),
      },
    }),
  ],
}

