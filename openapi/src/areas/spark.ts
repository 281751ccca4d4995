/** Sponsored-video (spark ad) codes (spec: Sponsored-video codes). */
import type { Area } from '../document.ts'
import { arr, body, bool, data, date, dateTime, enumOf, getForm, int, nullable, num, obj, operation, ref, str, usDate, type OperationSpec, type QueryParam, type Schema } from '../dsl.ts'
import { SORT_DIRECTION_UPPER, dateRange } from '../common.ts'

const TAG = 'Spark'
const SECTION = 'Sponsored-video codes'

export const SPARK_SORT_KEYS = [
  'gmv', 'ad_spend', 'roi', 'cpa', 'shared_time', 'created_at', 'auth_start_time', 'auth_end_time', 'post_time', 'status',
] as const

/** The date-range filters; each also accepts flat `<name>_from` / `<name>_to` keys. */
const RANGE_FILTERS = ['shared_time', 'auth_time', 'post_time'] as const

const flatRangeKeys = (): Record<string, Schema> =>
  Object.fromEntries(
    RANGE_FILTERS.flatMap((name) => [
      [`${name}_from`, date({ description: `Flat form of \`${name}.from\`.` })],
      [`${name}_to`, date({ description: `Flat form of \`${name}.to\`.` })],
    ]),
  )

/** Search filters: sent in `search_params` or inline at the top level of the body. */
const searchFilters = (): Record<string, Schema> => ({
  handle: str({ description: 'Case-insensitive substring.' }),
  spark_code: str({ description: 'Exact match.' }),
  status: { anyOf: [ref('DeliveryStatus'), arr(ref('DeliveryStatus'))], description: 'One delivery status or an array.' },
  expired: bool(),
  video_ids: arr(str()),
  shared_time: dateRange(),
  auth_time: { ...dateRange(), description: 'auth_start_time >= from and auth_end_time <= to.' },
  post_time: dateRange(),
  ...flatRangeKeys(),
})

const sortFields = (): Record<string, Schema> => ({
  sort_by: enumOf(SPARK_SORT_KEYS),
  sort_direction: enumOf(SORT_DIRECTION_UPPER, { description: 'Nulls last.' }),
})

const listSparkCodes = operation({
  method: 'post',
  path: '/spark/list',
  operationId: 'listSparkCodes',
  tag: TAG,
  specSection: SECTION,
  summary: 'Search the shop\'s sponsored-video (spark ad) codes',
  description: [
    'Also callable with GET and query parameters. Search filters may be sent in `search_params` or inline at the top level;',
    'each date-range filter also accepts flat keys (`shared_time_from`, `shared_time_to`, `auth_time_from`, `auth_time_to`, `post_time_from`, `post_time_to`).',
    '`page_size` default 10, max 100 (larger sizes are refused with 400); `page_number` (1-based) overrides `page_offset`.',
    'Results stop at 10,000 rows. `total_count` is null unless `include_total` is true; with `just_count` only `total_count` is returned.',
  ].join(' '),
  requestBody: body({
    page_size: int({ minimum: 1, maximum: 100, default: 10 }),
    page_number: int({ minimum: 1, description: '1-based; overrides page_offset when set.' }),
    page_offset: int({ minimum: 0, default: 0 }),
    include_total: bool({ description: 'Runs a count; without it total_count is null.' }),
    just_count: bool(),
    search_params: body({ ...sortFields(), ...searchFilters() }, { description: 'Sort and search filters; all optional.' }),
    ...sortFields(),
    ...searchFilters(),
  }),
  paging: { sizeParam: 'page_size', pageParam: 'page_number', defaultSize: 10, max: 100, mode: 'reject', depthCap: 10000 },
  success: {
    status: 200,
    schema: {
      anyOf: [
        data(
          obj({
            results: arr(ref('SparkCode')),
            page_size: int({ minimum: 0 }),
            page_offset: int({ minimum: 0 }),
            sort_by: str(),
            sort_direction: str(),
            has_more: bool(),
            total_count: nullable(int({ minimum: 0, description: 'Null when include_total is false.' })),
          }),
        ),
        ref('CountOnly'),
      ],
    },
  },
})

/**
 * How the GET form's parameters are serialised, so a tool reading only the contract builds a valid
 * filtered request: the inline date ranges are one-level deep objects (`shared_time[from]=2026-01-01`,
 * or the flat `shared_time_from`); `search_params`, which nests ranges and arrays (undefined for
 * `deepObject` in OpenAPI), is JSON text (`search_params={"handle":"ab","shared_time":{...}}`).
 */
const asQueryParam = (p: QueryParam): QueryParam => {
  if (RANGE_FILTERS.includes(p.name as (typeof RANGE_FILTERS)[number])) return { ...p, style: 'deepObject' }
  if (p.name === 'search_params') {
    return {
      name: p.name,
      schema: p.schema,
      json: true,
      nestedBrackets: true,
      description:
        'Sort and search filters as JSON text (`search_params={"handle":"ab","shared_time":{"from":"2026-01-01","to":"2026-01-31"}}`, URL-encoded). The same filters may be sent inline instead (spec: "search filters may also be sent inline at top level"): `handle=ab&shared_time[from]=2026-01-01&shared_time[to]=2026-01-31`, or the flat `shared_time_from`/`shared_time_to`. Or as nested brackets, deepObject carried on to nested objects and arrays (the form qs, Rails and PHP write, and what a generator that reads `schema` and `style: deepObject` but not `content` sends): `search_params[handle]=ab&search_params[shared_time][from]=2026-01-01&search_params[shared_time][to]=2026-01-31&search_params[status][]=DELIVERING&search_params[status][]=LEARNING`; an array\'s items as `[]`, `[0]`, `[1]`, or the key repeated. The server reads it into the same structure as the JSON text, with the same validation and the same error messages.',
    }
  }
  return p
}

const listSparkCodesGetForm = getForm(listSparkCodes, 'listSparkCodesGet')
const listSparkCodesGet: OperationSpec = {
  ...listSparkCodesGetForm,
  description: `${listSparkCodes.description} GET form: filters inline as query parameters (ranges as \`shared_time[from]=...\` or \`shared_time_from=...\`, arrays as repeated keys), or \`search_params\` as JSON text.`,
  query: listSparkCodesGetForm.query?.map(asQueryParam),
}

export const spark: Area = {
  name: TAG,
  description: 'Sponsored-video (spark ad) authorization codes with their ad metrics and joined video.',
  schemas: {
    SparkCode: obj(
      {
        shop_id: str(),
        handle: str(),
        spark_code: str(),
        shared_time: usDate({ description: 'Canonical alias of created_at.' }),
        video_id: nullable(str({ description: 'Null if not linked (needs the platform\'s business API installed on the brand).' })),
        auth_start_time: nullable(usDate()),
        auth_end_time: nullable(usDate()),
        status: nullable(ref('DeliveryStatus')),
        expired: bool(),
        ad_spend: nullable(num({ description: 'Null when the code is not running as an ad.' })),
        roi: nullable(num({ description: 'Null when the code is not running as an ad.' })),
        cpa: nullable(num({ description: 'Null when the code is not running as an ad.' })),
        video_link: str({ description: '`https://<platform host>/@{handle}/video/{video_id}`, with the literal text None when video_id is null.' }),
        video_data: nullable(ref('SparkVideoData')),
      },
      { description: 'A sponsored-video code (spark ad). status is null when the code is not running as an ad.' },
    ),
    SparkVideoData: obj(
      {
        shop_id: str(),
        video_id: str(),
        handle: str(),
        campaign_id: nullable(str()),
        title: str(),
        post_time: dateTime(),
        analysis_time: dateTime(),
        gmv: num(),
        commission: num(),
        ctr: num(),
        engagement_rate: num(),
        view_count: num(),
        like_count: num(),
        comment_count: num(),
        units_sold: num(),
        products: arr(str(), { description: 'Product ids.' }),
      },
      { description: 'The content row joined to a spark code; post_time and analysis_time are ISO timestamps.' },
    ),
  },
  operations: [listSparkCodes, listSparkCodesGet],
}
