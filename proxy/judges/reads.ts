/**
 * Rules on what one answer holds, judged on every answer traffic brings: date-range and stats
 * refusals, daily_counts, the affiliate timeseries invariants, ratio fields, the sample funnel,
 * sort order with nulls last, and the 412 on a board changed since the client's read.
 */
import { CHARTLESS_STAT_KEYS } from '../../openapi/index.ts'
import { isNumber, near, rowsOf } from '../../conformance/support.ts'
import { nullableSorts, numericSorts, type SortCase } from '../../conformance/rules/sorting/cases.ts'
import { describeObserved, type Finding, type Observed, type PassiveJudge } from './types.ts'

const success = (o: Observed) => o.status >= 200 && o.status < 300
/** Refusals that come before the input is read (auth, scope, rate limit). */
const refusedBefore = (o: Observed) => [401, 403, 429].includes(o.status) || o.status >= 500
const MISSING_RANGE = 'Missing date_range (from/to)'

/** spec: Sales-max ads; Social-network partnership ads; Errors: 400 "Missing date_range (from/to)". */
const missingRange: PassiveJudge = {
  rule: 'dates.missing-range',
  judges: `a campaign, creative-ads or social-ads request without its required date_range gets 400 "${MISSING_RANGE}"`,
  observe(o, t) {
    const needs = /^POST \/(v1\/)?(ads\/campaigns|social\/(campaigns|adsets|ads))$/.test(o.op.permission)
    if (!needs || o.request.input.date_range !== undefined || refusedBefore(o) || o.x.requestHeaders['x-shop-id'] === undefined) return
    t.exercised(o)
    if (o.status !== 400 || o.error !== MISSING_RANGE) t.fail(o, { message: 'a missing date_range is refused with the spec\'s message', expected: `400 {"error": "${MISSING_RANGE}"}`, received: describeObserved(o) })
  },
}

/** spec: Timeseries searches (slideshows: date_range required). */
const slideshowsRange: PassiveJudge = {
  rule: 'dates.slideshows-range-required',
  judges: 'the slideshow timeseries without search_params.date_range is refused with 400',
  observe(o, t) {
    if (o.op.path !== '/timeseries/slideshows' || refusedBefore(o) || o.request.input.search_params?.date_range !== undefined) return
    t.exercised(o)
    if (o.status !== 400) t.fail(o, { message: 'the slideshow timeseries requires date_range', expected: '400', received: describeObserved(o) })
  },
}

const dayCount = (range: { from?: unknown; to?: unknown } | undefined): number | undefined => {
  const from = Date.parse(String(range?.from ?? ''))
  const to = Date.parse(String(range?.to ?? ''))
  return Number.isFinite(from) && Number.isFinite(to) ? Math.round((to - from) / 86_400_000) + 1 : undefined
}

/** spec: Off-platform sales correlation; Limits: halo date range at most 366 days. */
const haloRangeMax: PassiveJudge = {
  rule: 'dates.halo-range-max',
  judges: 'a halo report over more than 366 days (date_range or date_from/date_to) is refused with 400',
  observe(o, t) {
    if (o.op.path !== '/halo-effect' || refusedBefore(o)) return
    const input = o.request.input
    const days = dayCount(input.date_range ?? { from: input.date_from, to: input.date_to })
    if (days === undefined || days <= 366) return
    t.exercised(o)
    if (o.status !== 400) t.fail(o, { message: `a ${days}-day range is over the 366-day maximum`, expected: '400', received: describeObserved(o) })
  },
}

const validTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** spec: POST /shop/stats rules 1-2; Errors: unrecognised timezone or grain gets 400. */
const statsGrainTimezone: PassiveJudge = {
  rule: 'dates.stats-grain-timezone',
  judges: 'shop stats asked with a grain other than day, week, month or an unrecognised IANA timezone are refused with 400',
  observe(o, t) {
    if (o.op.path !== '/shop/stats' || refusedBefore(o)) return
    const { grain, timezone } = o.request.input
    const badGrain = grain !== undefined && !['day', 'week', 'month'].includes(grain)
    const badZone = typeof timezone === 'string' && !validTimeZone(timezone)
    if (!badGrain && !badZone) return
    t.exercised(o)
    if (o.status !== 400) t.fail(o, { message: badGrain ? `grain ${JSON.stringify(grain)} is refused` : `timezone ${JSON.stringify(timezone)} is refused`, expected: '400', received: describeObserved(o) })
  },
}

const CHARTLESS = new Set<string>(CHARTLESS_STAT_KEYS)

/** spec: POST /shop/stats (daily_counts only with include_charts; chart No stats). */
const dailyCounts: PassiveJudge = {
  rule: 'stats.daily-counts',
  judges: 'shop stats carry daily_counts only with include_charts, and never on chart-No stats',
  observe(o, t) {
    if (o.op.path !== '/shop/stats' || !success(o)) return
    const stats = (o.json?.data?.stats ?? []) as Array<Record<string, any>>
    if (!stats.length) return
    t.exercised(o)
    const charts = o.request.input.include_charts === true
    const wrong = stats.find((s) => 'daily_counts' in s && (!charts || CHARTLESS.has(s.key)))
    if (wrong) t.fail(o, { message: charts ? `${wrong.key} (chart No) has only total_count and percent_change` : 'no daily_counts without include_charts', expected: `${wrong.key} without daily_counts`, received: describeObserved(o, 300) })
  },
}

const affiliateRows = (o: Observed) => (o.op.path === '/timeseries/affiliates' && success(o) ? rowsOf(o.json) : [])

/** spec: Resources: Affiliate timeseries row. */
const videoGmvBounded: PassiveJudge = {
  rule: 'invariants.video-gmv-bounded',
  judges: 'every affiliate timeseries row has new_video_gmv <= video_gmv <= gmv',
  observe(o, t) {
    const rows = affiliateRows(o)
    if (!rows.length) return
    t.exercised(o)
    const at = rows.findIndex((r) => isNumber(r.gmv) && isNumber(r.video_gmv) && isNumber(r.new_video_gmv) && (r.video_gmv > r.gmv + 0.01 || r.new_video_gmv > r.video_gmv + 0.01))
    if (at >= 0) t.fail(o, { message: 'video_gmv is clamped to gmv and new_video_gmv is a subset of video_gmv', expected: 'new_video_gmv <= video_gmv <= gmv', received: `row ${at}: ${JSON.stringify({ gmv: rows[at]!.gmv, video_gmv: rows[at]!.video_gmv, new_video_gmv: rows[at]!.new_video_gmv })}` })
  },
}

const newVideoGmvWithoutRange: PassiveJudge = {
  rule: 'invariants.new-video-gmv-without-range',
  judges: 'an affiliate timeseries asked without a date range has new_video_gmv equal to video_gmv on every row',
  observe(o, t) {
    if (o.request.input.search_params?.date_range !== undefined) return
    const rows = affiliateRows(o)
    if (!rows.length) return
    t.exercised(o)
    const at = rows.findIndex((r) => isNumber(r.video_gmv) && r.new_video_gmv !== r.video_gmv)
    if (at >= 0) t.fail(o, { message: 'without a date range new_video_gmv equals video_gmv', expected: `new_video_gmv = ${rows[at]!.video_gmv}`, received: `row ${at}: new_video_gmv ${rows[at]!.new_video_gmv}` })
  },
}

type Part = (row: Record<string, any>) => unknown
/** Ratio fields and their parts (0 or null where the divisor is 0), by operation. */
const RATIOS: Record<string, Array<{ field: string; num: Part; den: Part; read?: (row: Record<string, any>) => unknown }>> = {
  '/ads/campaigns': [
    { field: 'ad_roi', num: (r) => r.ad_revenue, den: (r) => r.ad_spend },
    { field: 'cost_per_order', num: (r) => r.ad_spend, den: (r) => r.orders },
  ],
  '/ads/creatives': [
    { field: 'roi', num: (r) => r.gross_revenue, den: (r) => r.ad_spend },
    { field: 'cpa', num: (r) => r.ad_spend, den: (r) => r.orders },
    { field: 'cost_per_order', num: (r) => r.ad_spend, den: (r) => r.orders },
  ],
  '/social/campaigns': [
    { field: 'roas', num: (r) => (r.metrics ?? r).purchase_value, den: (r) => (r.metrics ?? r).spend, read: (r) => (r.metrics ?? r).roas },
    { field: 'cost_per_purchase', num: (r) => (r.metrics ?? r).spend, den: (r) => (r.metrics ?? r).purchases, read: (r) => (r.metrics ?? r).cost_per_purchase },
  ],
}

/** The first ratio field of `rows` that is not the ratio of its parts, or undefined. */
function ratioFinding(rows: Array<Record<string, any>>, ratios: (typeof RATIOS)[string]): Finding | undefined {
  for (const [index, row] of rows.entries()) {
    for (const ratio of ratios) {
      const num = ratio.num(row)
      const den = ratio.den(row)
      const value = (ratio.read ?? ((r) => r[ratio.field]))(row)
      if (!isNumber(num) || !isNumber(den)) continue
      const ok = den === 0 ? value === 0 || value === null : isNumber(value) && near(value, num / den)
      if (!ok) return { message: `${ratio.field} equals the ratio of its parts`, expected: `${ratio.field} = ${den === 0 ? '0 (no divisor)' : (num / den).toFixed(4)}`, received: `row ${index}: ${ratio.field} = ${JSON.stringify(value)} (parts ${num} / ${den})` }
    }
  }
  return undefined
}

/**
 * spec: Resources: Sales-max ad campaign, creative; Social: common metric fields. The verdict is a
 * pure function of the operation and the answer's text (its rows), so an answer byte-identical to the
 * last one of its operation (a repeated read: the proxy hands the same text) gets the last verdict
 * again without reading its rows (test/proxy-repeated-answers.test.ts: answers one byte off are judged anew).
 */
function ratioFields(): PassiveJudge {
  const last = new Map<string, { text: string; rows: number; finding: Finding | undefined }>()
  return {
    rule: 'invariants.ratio-fields',
    judges: 'ratio fields of campaign, creative and social-campaign rows equal the ratio of their parts (ad_roi, cost_per_order, roi, cpa, roas, cost_per_purchase)',
    observe(o, t) {
      const path = o.op.path.replace(/^\/v1/, '')
      const ratios = RATIOS[path]
      if (!ratios || !success(o)) return
      let judged = last.get(path)
      if (judged?.text !== o.text) {
        const rows = rowsOf(o.json)
        last.set(path, (judged = { text: o.text, rows: rows.length, finding: rows.length ? ratioFinding(rows, ratios) : undefined }))
      }
      if (!judged.rows) return
      t.exercised(o)
      if (judged.finding) t.fail(o, judged.finding)
    },
  }
}

const STAGES = ['requested', 'approved', 'shipped', 'delivered', 'posted']

/** spec: Samples: POST /affiliate/samples/funnel. */
const funnelMonotonic: PassiveJudge = {
  rule: 'samples.funnel-monotonic',
  judges: 'every sample funnel answered lists its five stages in order with non-increasing counts, and by_status by count descending',
  observe(o, t) {
    if (o.op.path !== '/affiliate/samples/funnel' || !success(o)) return
    const data = o.json?.data ?? {}
    const funnel = (data.funnel ?? []) as Array<Record<string, any>>
    if (!funnel.length) return
    t.exercised(o)
    const byStatus = (data.by_status ?? []) as Array<Record<string, any>>
    const problem =
      funnel.map((s) => s.stage).join() !== STAGES.join() ? 'the stages come in order' :
      funnel.some((s, i) => i > 0 && s.count > funnel[i - 1]!.count) ? 'counts never increase down the funnel' :
      byStatus.some((s, i) => i > 0 && s.count > byStatus[i - 1]!.count) ? 'by_status is ordered by count descending' : undefined
    if (problem) t.fail(o, { message: problem, expected: `${STAGES.join(', ')} with non-increasing counts`, received: describeObserved(o, 400) })
  },
}

/** The sort case an answer was asked for, if the request names one of the cases' fields. */
function sortAsked(o: Observed, cases: SortCase[]): { sort: SortCase; ascending: boolean } | undefined {
  if (!success(o)) return undefined
  const input = o.request.input
  const sortBy = input.sort_by ?? input.search_params?.sort_by ?? input.filters?.sort_by
  const direction = String(input.sort_direction ?? input.search_params?.sort_direction ?? input.filters?.sort_direction ?? '')
  const permission = o.op.permission.replace(' /v1/', ' /')
  const sort = cases.find((c) => c.permission === permission && c.field === sortBy)
  if (!sort || !direction) return undefined
  return { sort, ascending: direction.toLowerCase() === 'asc' }
}

/** spec: Account and shop; Timeseries searches; CRM; Sales-max ads; Social. */
const sortOrder: PassiveJudge = {
  rule: 'sorting.order',
  judges: 'a listing asked sorted (sort_by and sort_direction, on the fields the rule covers) comes in that order',
  observe(o, t) {
    const asked = sortAsked(o, numericSorts)
    if (!asked) return
    t.exercised(o)
    const values = rowsOf(o.json).map(asked.sort.value).filter(isNumber)
    const badAt = values.findIndex((v, i) => i > 0 && (asked.ascending ? v < values[i - 1]! : v > values[i - 1]!))
    if (badAt > 0) t.fail(o, { message: `rows are sorted by ${asked.sort.field} ${asked.ascending ? 'ascending' : 'descending'}`, expected: `${asked.sort.field} ${asked.ascending ? 'non-decreasing' : 'non-increasing'}`, received: `row ${badAt}: ${values[badAt]} after ${values[badAt - 1]}` })
  },
}

/** spec: Sponsored-video codes; Sales-max ads (sort_direction, nulls last). */
const nullsLast: PassiveJudge = {
  rule: 'sorting.nulls-last',
  judges: 'a listing sorted on a field that may be null puts the nulls last, in both directions',
  observe(o, t) {
    const asked = sortAsked(o, nullableSorts)
    if (!asked) return
    const values = rowsOf(o.json).map(asked.sort.value)
    if (!values.some((v) => v === null)) return
    t.exercised(o)
    const firstNull = values.indexOf(null)
    if (values.slice(firstNull).some((v) => v !== null)) t.fail(o, { message: `nulls of ${asked.sort.field} come last`, expected: 'every null after every value', received: `a value after the null at row ${firstNull}` })
  },
}

/** spec: Dashboards: POST /dashboards/update (expected_updated_at older than updated_at gets 412). */
function staleUpdate412(): PassiveJudge {
  /** The newest updated_at the proxy saw answered per board, with when the answer arrived. */
  const boards = new Map<string, { updatedAt: string; seenAt: number }>()
  const note = (board: any, at: number) => {
    if (typeof board?.id !== 'string' || typeof board.updated_at !== 'string') return
    const known = boards.get(board.id)
    if (!known || Date.parse(board.updated_at) > Date.parse(known.updatedAt)) boards.set(board.id, { updatedAt: board.updated_at, seenAt: at })
  }
  return {
    rule: 'dashboards.stale-update-412',
    judges: 'an update whose expected_updated_at is older than an updated_at the board showed before the update was sent gets 412',
    observe(o, t) {
      const { dashboard_id: id, expected_updated_at: expected } = o.request.input
      const known = o.op.path === '/dashboards/update' && typeof id === 'string' ? boards.get(id) : undefined
      if (known && typeof expected === 'string' && known.seenAt <= o.x.atMs && Date.parse(expected) < Date.parse(known.updatedAt) && !refusedBefore(o)) {
        t.exercised(o)
        if (o.status !== 412) t.fail(o, { message: `expected_updated_at ${expected} is older than the board's updated_at ${known.updatedAt}`, expected: '412', received: describeObserved(o) })
      }
      if (success(o) && o.op.path.startsWith('/dashboards/')) {
        const data = o.json?.data
        for (const board of Array.isArray(data?.dashboards) ? data.dashboards : [data]) note(board, o.x.atMs + o.x.durationMs)
      }
    },
  }
}

export const readJudges = (): PassiveJudge[] => [missingRange, slideshowsRange, haloRangeMax, statsGrainTimezone, dailyCounts, videoGmvBounded, newVideoGmvWithoutRange, ratioFields(), funnelMonotonic, sortOrder, nullsLast, staleUpdate412()]
