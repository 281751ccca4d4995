/**
 * Sponsored-video (spark ad) codes (spec: Sponsored-video codes; Resources: Sponsored-video code).
 * `POST /spark/list` and its GET form share one handler; the normalizer puts filters sent inline at
 * the top level into `search_params` and folds each `{from, to}` range into its flat
 * `<name>_from`/`<name>_to` keys, so the handler reads one shape whatever the form.
 */
import type { components } from '../../openapi/types.ts'
import type { ShopData, SparkCode, Video } from '../../fixtures/index.ts'
import { defineHandler, type AreaModule, type InputNormalizer } from '../context.ts'
import { paginate } from '../pipeline/paging.ts'
import type { World } from '../world.ts'
import { assertRangeOrder } from '../lib/dates.ts'
import { postFigures } from '../lib/figures.ts'
import { handleContains } from '../lib/handles.ts'
import { isPlainObject } from '../lib/json.ts'
import { shopLookupsOf } from '../lib/lookups.ts'
import { round2 } from '../lib/numbers.ts'
import { shopDataFor } from '../lib/shop.ts'
import { sortRows, type SortValue } from '../lib/sort.ts'

type SparkRow = components['schemas']['SparkCode']
type SparkVideoData = components['schemas']['SparkVideoData']

const RANGE_FILTERS = ['shared_time', 'auth_time', 'post_time'] as const
const SEARCH_KEYS = [
  'sort_by', 'sort_direction', 'handle', 'spark_code', 'status', 'expired', 'video_ids', ...RANGE_FILTERS,
  ...RANGE_FILTERS.flatMap((name) => [`${name}_from`, `${name}_to`]),
]


/**
 * spec: Sponsored-video codes: search filters may be sent inline at the top level, and each range
 * also takes flat keys. `search_params` wins over an inline key; a `{from, to}` object over flat keys.
 * A range object missing a bound is left as it is, for validation to refuse.
 */
export const normalizeSparkInput: InputNormalizer = (input) => {
  const out: Record<string, unknown> = { ...input }
  const params: Record<string, unknown> = isPlainObject(input.search_params) ? { ...input.search_params } : {}
  for (const key of SEARCH_KEYS) {
    if (!(key in out)) continue
    if (!(key in params)) params[key] = out[key]
    delete out[key]
  }
  for (const name of RANGE_FILTERS) {
    const range = params[name]
    if (isPlainObject(range) && typeof range.from === 'string' && typeof range.to === 'string') {
      params[`${name}_from`] = range.from
      params[`${name}_to`] = range.to
      delete params[name]
    }
  }
  if (Object.keys(params).length || 'search_params' in input) out.search_params = params
  return out
}

/** MM/DD/YYYY → YYYY-MM-DD (null stays null), so dates compare and sort as text. */
const isoOfUs = (us: string | null): string | null => (us ? `${us.slice(6)}-${us.slice(0, 2)}-${us.slice(3, 5)}` : null)

/** A code with its joined video (when linked) and the dates the filters and sorts read. */
interface SparkEntry {
  code: SparkCode
  video: Video | undefined
  sharedDay: string
  authStart: string | null
  authEnd: string | null
  postDay: string | null
}

/**
 * When the joined row's lifetime figures were computed: a property of the data, not of the request,
 * so identical reads are identical (inferred: the daily analysis runs at the start of the world's
 * today, UTC; never after the clock's now).
 */
function analysisTimeOf(today: string, now: Date): string {
  const start = Date.parse(`${today}T00:00:00.000Z`)
  return new Date(Math.min(start, now.getTime())).toISOString()
}

/** spec: video_data: the joined content row (lifetime figures), post_time and analysis_time as ISO timestamps. */
function videoDataOf(world: World, data: ShopData, video: Video, analysisTime: string): SparkVideoData {
  const f = postFigures(world, data, video, 'videos')
  return {
    shop_id: video.shop_id,
    video_id: video.video_id,
    handle: video.handle,
    campaign_id: video.campaign_id,
    title: video.title,
    post_time: video.posted_at,
    analysis_time: analysisTime,
    gmv: f.gmv,
    commission: f.commission,
    ctr: f.ctr,
    engagement_rate: f.engagement_rate,
    view_count: f.view_count,
    like_count: f.like_count,
    comment_count: f.comment_count,
    units_sold: f.units_sold,
    products: [...video.products],
  }
}

function entryOf(world: World, data: ShopData, code: SparkCode): SparkEntry {
  const index = code.video_id === null ? undefined : shopLookupsOf(data).videoById.get(code.video_id)
  const video = index === undefined ? undefined : data.videos[index]
  return {
    code,
    video,
    sharedDay: isoOfUs(code.shared_time)!,
    authStart: isoOfUs(code.auth_start_time),
    authEnd: isoOfUs(code.auth_end_time),
    postDay: video ? world.axis.date(video.post_day) : null,
  }
}

/** The row of one code; video_data is joined only for the rows of the page. */
const toRow = (world: World, data: ShopData, { code, video }: SparkEntry, analysisTime: string): SparkRow => ({
  shop_id: code.shop_id,
  handle: code.handle,
  spark_code: code.spark_code,
  shared_time: code.shared_time,
  video_id: code.video_id,
  auth_start_time: code.auth_start_time,
  auth_end_time: code.auth_end_time,
  status: code.status,
  expired: code.expired,
  ad_spend: code.ad_spend,
  roi: code.roi,
  cpa: code.cpa,
  video_link: code.video_link,
  video_data: video ? videoDataOf(world, data, video, analysisTime) : null,
})

/** Inclusive, either bound optional; a null date never matches a set bound. */
const inRange = (day: string | null, from: unknown, to: unknown): boolean =>
  (typeof from !== 'string' || (day !== null && day >= from)) && (typeof to !== 'string' || (day !== null && day <= to))

/** A one-or-many filter: unset or empty matches everything. */
const listOf = (value: unknown): unknown[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value])

/** 400 when a range's from is after its to (decision: a reversed range is a mistake, not an empty filter). */
function checkRanges(p: Record<string, unknown>): void {
  for (const name of RANGE_FILTERS) {
    const from = p[`${name}_from`]
    const to = p[`${name}_to`]
    if (typeof from === 'string' && typeof to === 'string') assertRangeOrder(from, to, name)
  }
}

/** spec: Sponsored-video codes: every search_params filter. */
function matches(e: SparkEntry, p: Record<string, unknown>): boolean {
  const statuses = listOf(p.status)
  const videoIds = listOf(p.video_ids)
  return (
    handleContains(e.code.handle, p.handle) &&
    (typeof p.spark_code !== 'string' || p.spark_code === '' || e.code.spark_code === p.spark_code) &&
    (!statuses.length || statuses.includes(e.code.status)) &&
    (typeof p.expired !== 'boolean' || e.code.expired === p.expired) &&
    (!videoIds.length || videoIds.includes(e.code.video_id)) &&
    inRange(e.sharedDay, p.shared_time_from, p.shared_time_to) &&
    // spec: auth_time: auth_start_time >= from and auth_end_time <= to.
    inRange(e.authStart, p.auth_time_from, undefined) &&
    inRange(e.authEnd, undefined, p.auth_time_to) &&
    inRange(e.postDay, p.post_time_from, p.post_time_to)
  )
}

const SORT_VALUES: Record<string, (e: SparkEntry, world: World, data: ShopData) => SortValue> = {
  // The joined video's GMV (video_data.gmv); null without a video.
  gmv: (e, world, data) => (e.video ? round2(data.facts.videos.sum('gmv', e.video.video_id, 0, world.axis.todayIndex)) : null),
  ad_spend: (e) => e.code.ad_spend,
  roi: (e) => e.code.roi,
  cpa: (e) => e.code.cpa,
  // spec: shared_time is the canonical alias of created_at.
  shared_time: (e) => e.sharedDay,
  created_at: (e) => e.sharedDay,
  auth_start_time: (e) => e.authStart,
  auth_end_time: (e) => e.authEnd,
  post_time: (e) => e.video?.posted_at,
  status: (e) => e.code.status,
}

const listSparkCodes = defineHandler('listSparkCodes', (ctx) => {
  const data = shopDataFor(ctx)
  const { input } = ctx
  const params = input.search_params ?? {}
  checkRanges(params)
  const sortBy: string = params.sort_by ?? 'shared_time'
  const sortDirection: string = params.sort_direction ?? 'DESC'
  const matching = data.sparkCodes.map((code) => entryOf(ctx.world, data, code)).filter((e) => matches(e, params))
  if (input.just_count === true) return { status: 200, body: { data: { total_count: matching.length } } }
  // spec: sort_direction ASC/DESC, nulls last in both.
  const sortValue = SORT_VALUES[sortBy]!
  const sorted = sortRows(matching, (e) => sortValue(e, ctx.world, data), sortDirection === 'ASC' ? 'asc' : 'desc', (e) => e.code.spark_code)
  // spec: page_number (1-based) overrides page_offset (default 0); results stop at 10,000 rows.
  const { pageSize, depthCap } = ctx.page
  const offset: number = typeof input.page_number === 'number' ? ctx.page.offset : (input.page_offset ?? 0)
  const { rows, hasMore } = paginate(sorted, { ...ctx.page, offset, limit: Math.max(0, Math.min(pageSize, depthCap - offset)) })
  ctx.page.rows = sorted.length
  const analysisTime = analysisTimeOf(ctx.state.today, ctx.now)
  const results = rows.map((e) => toRow(ctx.world, data, e, analysisTime))
  return {
    status: 200,
    body: {
      data: {
        results,
        page_size: pageSize,
        page_offset: offset,
        sort_by: sortBy,
        sort_direction: sortDirection,
        has_more: hasMore,
        // spec: total_count is null when include_total is false.
        total_count: input.include_total === true ? sorted.length : null,
      },
    },
  }
})

export const spark: AreaModule = {
  handlers: { listSparkCodes },
  normalizers: { listSparkCodes: normalizeSparkInput, listSparkCodesGet: normalizeSparkInput },
}
