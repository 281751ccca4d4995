/**
 * Samples (spec: Samples; States and transitions: sample request ignored): the funnel, the review
 * queue, refundable samples, approve/reject/ignore/unignore and creator DMs. The requests as writes
 * leave them are the samples state's (mock/lib/sample-requests.ts, which the stats read too), changed
 * only through its named writes. Days are the shop's local days (its registered timezone).
 */
import { DAY_MS } from '../../fixtures/days.ts'
import { sampleStage } from '../../fixtures/samples.ts'
import { OPEN_SAMPLE_STATUSES, type Creator, type ProductRecord, type RefundableSample, type SampleRequest, type SampleStatus, type ShopData } from '../../fixtures/types.ts'
import type { components } from '../../openapi/types.ts'
import { defineHandler, type AdminAction, type AreaModule, type HandlerContext, type RequestContext } from '../context.ts'
import { recordEvent } from '../events.ts'
import { apiError } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { World } from '../world.ts'
import { sampleRequestsOf, samplesState } from '../lib/sample-requests.ts'
import { assertNotAfter, shopLocalDate } from '../lib/dates.ts'
import { boundsOf, fuzzyMatch, idArraySet, inBounds, matchesShopPerformance, type ShopLifetime } from '../lib/filters.ts'
import { shopLifetime } from '../lib/figures.ts'
import { handleContains, handleKey } from '../lib/handles.ts'
import { percent2, round2 } from '../lib/numbers.ts'
import { numberedResultsPage } from '../lib/pages.ts'
import { MIN_SPS_TO_MESSAGE, shopDataOf, shopScope } from '../lib/shop.ts'
import { compareText, sortDirectionOf, sortRows } from '../lib/sort.ts'

type Schemas = components['schemas']
type SampleRequestView = Schemas['SampleRequest']
type RefundableView = Schemas['RefundableSampleRequest']
type Funnel = Schemas['SampleFunnel']

/** spec: Samples: expiring_soon = expire_date within 3 days. */
const EXPIRING_SOON_DAYS = 3
const RANGE_ORDER = ['$0-$100', '$100-$1K', '$1K-$10K', '$10K-$100K', '$100K+']


// ---------------------------------------------------------------------------------------------
// Lookups

interface CreatorIndex {
  byId: Map<string, number>
  byHandle: Map<string, number>
}
// A memo of the world's (immutable) creator index, keyed by world: reset builds a new world.
const creatorIndexes = new WeakMap<World, CreatorIndex>()

function creatorIndexOf(world: World): CreatorIndex {
  let index = creatorIndexes.get(world)
  if (!index) {
    index = { byId: new Map(), byHandle: new Map() }
    world.creators.forEach((c, i) => {
      index!.byId.set(c.creator_id, i)
      index!.byHandle.set(c.handle.toLowerCase(), i)
    })
    creatorIndexes.set(world, index)
  }
  return index
}

/** Index into world.creators of a creator named by id or handle, or -1. */
function findCreator(world: World, by: { creator_id?: unknown; handle?: unknown }): number {
  const index = creatorIndexOf(world)
  if (typeof by.creator_id === 'string' && by.creator_id) return index.byId.get(by.creator_id) ?? -1
  if (typeof by.handle === 'string' && by.handle.trim()) return index.byHandle.get(handleKey(by.handle)) ?? -1
  return -1
}

/** The per-request reads of one call: the creator's profile and shop lifetime totals, memoized. */
function profiles(world: World, data: ShopData) {
  const index = creatorIndexOf(world)
  const shopPerf = new Map<string, ShopLifetime>()
  return {
    creator(creatorId: string): Creator | undefined {
      const i = index.byId.get(creatorId)
      return i === undefined ? undefined : world.creators[i]
    },
    /** What the creator did for this shop, lifetime (spec: CRM: shop_performance), 0 outside the CRM. */
    shop(creatorId: string): ShopLifetime {
      let perf = shopPerf.get(creatorId)
      if (!perf) shopPerf.set(creatorId, (perf = shopLifetime(world, data, creatorId)))
      return perf
    },
  }
}
type Profiles = ReturnType<typeof profiles>


// ---------------------------------------------------------------------------------------------
// Filters shared by the lists and the funnel

/** Inclusive local-day bounds of a `{from, to}` range (whole days in the shop's timezone), or null when absent. */
function dayBounds(data: ShopData, from: string | undefined, to: string | undefined, names: [string, string]): [number, number] | null {
  if (from === undefined && to === undefined) return null
  if (from !== undefined && to !== undefined) assertNotAfter(from, to, names[0], names[1])
  const axis = data.calendar.axis
  return [from === undefined ? -Infinity : axis.dayIndex(from), to === undefined ? Infinity : axis.dayIndex(to)]
}

const rangeBounds = (data: ShopData, range: { from: string; to: string } | undefined, field: string) =>
  range ? dayBounds(data, range.from, range.to, [`${field}.from`, `${field}.to`]) : null

/** True when the ISO timestamp falls on a local day within the bounds (no bounds: always; no timestamp: never). */
function inDays(data: ShopData, iso: string | null, bounds: [number, number] | null): boolean {
  if (!bounds) return true
  if (iso === null) return false
  const day = data.calendar.dayOf(Date.parse(iso))
  return day >= bounds[0] && day <= bounds[1]
}


/** spec: CRM: affiliate_performance (platform-wide 30-day GMV, followers) and shop_performance (shop lifetime). */
function matchesPerformance(creatorId: string, filters: Record<string, unknown>, lookup: Profiles): boolean {
  const a = boundsOf(filters.affiliate_performance)
  if (a) {
    const c = lookup.creator(creatorId)
    if (!inBounds(c?.med_gmv_revenue ?? 0, a.min_gmv, a.max_gmv) || !inBounds(c?.follower_cnt ?? 0, a.min_followers, a.max_followers)) return false
  }
  const s = boundsOf(filters.shop_performance)
  if (s && !matchesShopPerformance(lookup.shop(creatorId), s)) return false
  return true
}



/** spec: Samples: `campaign_id` or `all_campaigns: true` (any campaign); neither: no campaign filter. */
function matchesCampaign(campaignId: string | null, input: Record<string, unknown>): boolean {
  if (typeof input.campaign_id === 'string') return campaignId === input.campaign_id
  if (input.all_campaigns === true) return campaignId !== null
  return true
}

// ---------------------------------------------------------------------------------------------
// POST /affiliate/samples/list

/** Active (approved, still open) samples per creator: what `previous_approved` is derived from. */
function activeSamplesByCreator(requests: readonly SampleRequest[]): Map<string, number> {
  const active = new Map<string, number>()
  for (const r of requests) if (isActive(r)) active.set(r.creator_id, (active.get(r.creator_id) ?? 0) + 1)
  return active
}
const isActive = (r: SampleRequest): boolean => r.sample_approved !== null && OPEN_SAMPLE_STATUSES.includes(r.status)

/** The fields both kinds of sample request share: the request's own and its creator's profile. */
function sharedColumns(r: SampleRequest | RefundableSample, c: Creator | undefined, lookup: Profiles) {
  const { shop_id, creator_id, sampled_product, status, campaign_id, timestamp, apply_id, handle } = r
  return {
    shop_id,
    creator_id,
    sampled_product,
    status,
    campaign_id,
    timestamp,
    apply_id,
    handle,
    bio: c?.bio ?? '',
    follower_cnt: c?.follower_cnt ?? 0,
    med_gmv_revenue: c?.med_gmv_revenue ?? 0,
    med_gmv_revenue_range: c?.med_gmv_revenue_range ?? RANGE_ORDER[0]!,
    shop_gmv: lookup.shop(creator_id).gmv,
  }
}

function sampleView(r: SampleRequest, lookup: Profiles, active: Map<string, number>): SampleRequestView {
  const c = lookup.creator(r.creator_id)
  return {
    ...sharedColumns(r, c, lookup),
    status: r.status, // narrower than the shared union
    sample_approved: r.sample_approved,
    sample_received: r.sample_received,
    expire_date: r.expire_date,
    source: r.source,
    post_rate: c?.post_rate ?? 'N/A',
    video_engagement: c?.video_engagement ?? 0,
    pps: c?.pps ?? 0,
    gpm: c?.gpm ?? 0,
    average_gmv_per_video: c?.average_gmv_per_video ?? 0,
    // spec: Resources: previous_approved = the creator has another active sample with the shop.
    previous_approved: (active.get(r.creator_id) ?? 0) - (isActive(r) ? 1 : 0) > 0,
  }
}

type SampleSortKey = (v: SampleRequestView) => number | string | null
const SAMPLE_SORTS: Record<string, SampleSortKey> = {
  timestamp: (v) => v.timestamp,
  med_gmv_revenue: (v) => v.med_gmv_revenue,
  med_gmv_revenue_range: (v) => RANGE_ORDER.indexOf(v.med_gmv_revenue_range),
  follower_cnt: (v) => v.follower_cnt,
  post_rate: (v) => (v.post_rate === 'N/A' ? null : v.post_rate),
  pps: (v) => v.pps,
  gpm: (v) => v.gpm,
  average_gmv_per_video: (v) => v.average_gmv_per_video,
  expire_date: (v) => v.expire_date,
  shop_gmv: (v) => v.shop_gmv,
  engagement: (v) => v.video_engagement,
}

/**
 * What the list shows of a list of requests that no request changes: every request's row (its record,
 * its creator's profile, its shop lifetime and `previous_approved`, none of which depends on the clock)
 * and the full order of the rows per sort key and direction. Kept per list of the samples state: a
 * write or a new view of the world makes a new list, whose rows are built at its first listing. A
 * request filters an order (a subset keeps it: ties go by apply_id) and copies the rows of its page.
 */
interface SampleRows {
  views: readonly SampleRequestView[]
  /** By `sort_by direction`: indexes into the list, sorted. */
  orders: Map<string, readonly number[]>
}
const sampleRowsByList = new WeakMap<readonly SampleRequest[], SampleRows>()

// Keyed on the list alone, as the stats' days of the same records (mock/lib/stats/window.ts): the world's
// records are read-only and a write replaces the records it changes. The funnel checks its records
// too (funnelIndexOf), for the one test that edits a record of an editable world after a first answer.
function sampleRowsOf(requests: readonly SampleRequest[], lookup: Profiles): SampleRows {
  let rows = sampleRowsByList.get(requests)
  if (!rows) {
    const active = activeSamplesByCreator(requests)
    sampleRowsByList.set(requests, (rows = { views: requests.map((r) => sampleView(r, lookup, active)), orders: new Map() }))
  }
  return rows
}

/** The rows of ignored requests or of the others (spec: States: sample request ignored), in the order of a sort key and direction. */
function sampleOrder(requests: readonly SampleRequest[], rows: SampleRows, sortBy: string, direction: 'asc' | 'desc', ignored: boolean): readonly number[] {
  const key = `${sortBy} ${direction} ${ignored}`
  let order = rows.orders.get(key)
  if (!order) {
    const indexes = requests.flatMap((r, i) => (r.ignored === ignored ? [i] : []))
    order = sortRows(indexes, (i) => SAMPLE_SORTS[sortBy]!(rows.views[i]!), direction, (i) => rows.views[i]!.apply_id)
    rows.orders.set(key, order)
  }
  return order
}

// The CRM's join day per creator, for prev_worked_with: per affiliates list (views of the world share it).
const joinedDays = new WeakMap<ShopData['affiliates'], Map<string, number>>()
function crmJoinedDayOf(data: ShopData): Map<string, number> {
  let joined = joinedDays.get(data.affiliates)
  if (!joined) joinedDays.set(data.affiliates, (joined = new Map(data.affiliates.map((a) => [a.creator_id, a.joined_day]))))
  return joined
}

const listSampleRequests = defineHandler('listSampleRequests', (ctx) => {
  const { data, shopId } = shopScope(ctx)
  const requests = sampleRequestsOf(ctx.state, shopId) as readonly SampleRequest[]
  const input = ctx.input
  const filters = input.filters ?? {}
  const direction = sortDirectionOf(input.sort_direction, 'sort_direction')
  const statuses: string[] = filters.sample_status ?? []
  // spec: States: an ignored request shows only under sample_status `ignore`, and then only ignored ones.
  const onlyIgnored = statuses.includes('ignore')
  const wantedStatuses = idArraySet(statuses.filter((s) => s !== 'ignore'))
  const requestDays = rangeBounds(data, filters.date_range, 'filters.date_range')
  const approvalDays = rangeBounds(data, filters.approval_time, 'filters.approval_time')
  const productIds = idArraySet(filters.product_ids)
  const productNames = typeof filters.product_filter === 'string' ? new Map(data.products.map((p) => [p.product_id, p.product_name])) : undefined
  const today = shopLocalDate(data, ctx.now)
  const soon = shopLocalDate(data, ctx.now, EXPIRING_SOON_DAYS)
  const crmJoinedDay = input.prev_worked_with === true ? crmJoinedDayOf(data) : undefined
  const lookup = profiles(ctx.world, data)

  const filtered =
    wantedStatuses !== null ||
    (typeof filters.handle === 'string' && filters.handle.trim() !== '') ||
    productNames !== undefined ||
    productIds !== null ||
    requestDays !== null ||
    approvalDays !== null ||
    input.source !== undefined ||
    input.expiring_soon === true ||
    crmJoinedDay !== undefined ||
    Boolean(filters.affiliate_performance) ||
    Boolean(filters.shop_performance)
  const matches = (r: SampleRequest): boolean =>
    (!wantedStatuses || wantedStatuses.has(r.status)) &&
    handleContains(r.handle, filters.handle) &&
    (!productNames || fuzzyMatch(`${productNames.get(r.sampled_product) ?? ''} ${r.sampled_product}`, filters.product_filter)) &&
    (!productIds || productIds.has(r.sampled_product)) &&
    inDays(data, r.timestamp, requestDays) &&
    inDays(data, r.sample_approved, approvalDays) &&
    (input.source === undefined || r.source === input.source) &&
    (input.expiring_soon !== true || (r.expire_date >= today && r.expire_date <= soon)) &&
    (!crmJoinedDay || workedWithBefore(data, crmJoinedDay, r)) &&
    matchesPerformance(r.creator_id, filters, lookup)
  const rows = sampleRowsOf(requests, lookup)
  const order = sampleOrder(requests, rows, input.sort_by ?? 'timestamp', direction, onlyIgnored)
  const sorted = filtered ? order.filter((i) => matches(requests[i]!)) : order
  return numberedResultsPage(ctx, sorted, 'page_number', false, (i) => ({ ...rows.views[i]! }))
})

/** prev_worked_with: the creator is in the shop's CRM and had joined it before the request's day. */
function workedWithBefore(data: ShopData, crmJoinedDay: Map<string, number>, r: SampleRequest): boolean {
  const joined = crmJoinedDay.get(r.creator_id)
  return joined !== undefined && joined < data.calendar.dayOf(Date.parse(r.timestamp))
}

// ---------------------------------------------------------------------------------------------
// POST /affiliate/samples/refundable/list

const REFUNDABLE_SORTS: Record<string, (v: RefundableView) => number | string | null> = {
  timestamp: (v) => v.timestamp,
  sample_shipped: (v) => v.sample_shipped,
  sample_received: (v) => v.sample_received,
  refund_time: (v) => v.refund_time,
  refund_amount: (v) => v.refund_amount,
  commission_rate: (v) => v.commission_rate,
  review_expire_time: (v) => v.review_expire_time,
  follower_cnt: (v) => v.follower_cnt,
  shop_gmv: (v) => v.shop_gmv,
}

function refundableView(r: RefundableSample, products: Map<string, ProductRecord>, lookup: Profiles): RefundableView {
  const c = lookup.creator(r.creator_id)
  const p = products.get(r.sampled_product)
  return {
    ...sharedColumns(r, c, lookup),
    sku_id: r.sku_id,
    sku_desc: r.sku_desc,
    commission_rate: r.commission_rate,
    sample_shipped: r.sample_shipped,
    sample_received: r.sample_received,
    refund_time: r.refund_time,
    refund_amount: r.refund_amount,
    review_expire_time: r.review_expire_time,
    product_info: {
      product_id: r.sampled_product,
      product_name: p?.product_name ?? '',
      is_open_plan: p?.is_open_plan ?? false,
      price: p?.price ?? 0,
      units_sold: p?.units_sold ?? 0,
    },
  }
}

/**
 * The refundable list's rows and their orders by sort key and direction, as the sample list's
 * (`SampleRows`): kept per list of refundable samples, which views of the world share until one of
 * them is shipped, delivered or refunded; built from it, the shop's products and the creators alone.
 */
interface RefundableRows {
  views: readonly RefundableView[]
  orders: Map<string, readonly number[]>
}
const refundableRowsByList = new WeakMap<readonly RefundableSample[], RefundableRows>()

function refundableRowsOf(data: ShopData, lookup: Profiles): RefundableRows {
  let rows = refundableRowsByList.get(data.refundableSamples)
  if (!rows) {
    const products = new Map(data.products.map((p) => [p.product_id, p]))
    rows = { views: data.refundableSamples.map((r) => refundableView(r, products, lookup)), orders: new Map() }
    refundableRowsByList.set(data.refundableSamples, rows)
  }
  return rows
}

function refundableOrder(rows: RefundableRows, sortBy: string, direction: 'asc' | 'desc'): readonly number[] {
  const key = `${sortBy} ${direction}`
  let order = rows.orders.get(key)
  if (!order) {
    const indexes = rows.views.map((_, i) => i)
    order = sortRows(indexes, (i) => REFUNDABLE_SORTS[sortBy]!(rows.views[i]!), direction, (i) => rows.views[i]!.apply_id)
    rows.orders.set(key, order)
  }
  return order
}

const listRefundableSampleRequests = defineHandler('listRefundableSampleRequests', (ctx) => {
  const { data } = shopScope(ctx)
  const input = ctx.input
  const filters = input.filters ?? {}
  const direction = sortDirectionOf(input.sort_direction, 'sort_direction')
  const timeField: 'timestamp' | 'sample_shipped' | 'sample_received' | 'refund_time' | 'review_expire_time' = input.time_field ?? 'timestamp'
  const days = rangeBounds(data, filters.date_range, 'filters.date_range')
  const statuses = idArraySet(filters.sample_status)
  const productIds = idArraySet(filters.product_ids)
  const excluded = idArraySet(filters.exclude_product_ids)
  const skuIds = idArraySet(filters.sku_ids)
  const lookup = profiles(ctx.world, data)
  const filtered =
    statuses !== null ||
    (typeof filters.handle === 'string' && filters.handle.trim() !== '') ||
    productIds !== null ||
    excluded !== null ||
    skuIds !== null ||
    days !== null ||
    typeof input.campaign_id === 'string' ||
    input.all_campaigns === true ||
    Boolean(filters.affiliate_performance) ||
    Boolean(filters.shop_performance) ||
    typeof filters.product_filter === 'string'
  const matches = (r: RefundableSample, v: RefundableView): boolean =>
    (!statuses || statuses.has(r.status)) &&
    handleContains(r.handle, filters.handle) &&
    (!productIds || productIds.has(r.sampled_product)) &&
    (!excluded || !excluded.has(r.sampled_product)) &&
    (!skuIds || skuIds.has(r.sku_id)) &&
    inDays(data, r[timeField], days) &&
    matchesCampaign(r.campaign_id, input) &&
    matchesPerformance(r.creator_id, filters, lookup) &&
    (typeof filters.product_filter !== 'string' || fuzzyMatch(`${v.product_info.product_name} ${v.sampled_product}`, filters.product_filter))
  const rows = refundableRowsOf(data, lookup)
  const order = refundableOrder(rows, input.sort_by ?? 'timestamp', direction)
  const sorted = filtered ? order.filter((i) => matches(data.refundableSamples[i]!, rows.views[i]!)) : order
  return numberedResultsPage(ctx, sorted, 'page', true, (i) => {
    const v = rows.views[i]!
    return { ...v, product_info: { ...v.product_info } }
  })
})

// ---------------------------------------------------------------------------------------------
// POST /affiliate/samples/funnel

/** The request's timestamps in stage order (spec: Samples: funnel stages). */
const STAGE_TIMES = ['timestamp', 'sample_approved', 'sample_shipped', 'sample_received', 'sample_posted'] as const
type StageTime = (typeof STAGE_TIMES)[number]
const TIME_FIELD_COLUMN: Record<string, StageTime> = {
  timestamp: 'timestamp',
  approved: 'sample_approved',
  sample_approved: 'sample_approved',
  shipped: 'sample_shipped',
  sample_shipped: 'sample_shipped',
  delivered: 'sample_received',
  sample_received: 'sample_received',
  posted: 'sample_posted',
  sample_posted: 'sample_posted',
}
const STAGES = [
  { stage: 'requested', label: 'Requested' },
  { stage: 'approved', label: 'Approved' },
  { stage: 'shipped', label: 'Shipped' },
  { stage: 'delivered', label: 'Delivered' },
  { stage: 'posted', label: 'Posted' },
] as const
const STEPS = [
  { step: 'request_to_approval', label: 'Request to approval' },
  { step: 'approval_to_shipment', label: 'Approval to shipment' },
  { step: 'shipment_to_delivery', label: 'Shipment to delivery' },
  { step: 'delivery_to_post', label: 'Delivery to post' },
] as const

/** The furthest stage a request ever reached: its status's stage (legacy ones mapped) or its latest timestamp. */
export function stageReached(r: SampleRequest): number {
  let reached = sampleStage(r.status)
  STAGE_TIMES.forEach((field, k) => {
    if (r[field] !== null) reached = Math.max(reached, k)
  })
  return reached
}

function median(values: number[]): number | null {
  if (values.length === 0) return null
  const s = values.slice().sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * Per list of requests (a write or a new view of the world makes a new one): each stage's time as epoch
 * ms (NaN when unset), parsed once, and the clock-independent part of the funnel by cohort (64 at
 * most). Only the open statuses' ages depend on the clock: they are worked out per request from the
 * cohort's request times, in the cohort's order, so they add up as the plain computation does.
 */
interface FunnelIndex {
  stageMs: Float64Array[]
  parts: Map<string, FunnelParts>
}
/** A funnel but for its ages: its status groups (most rows first) and the counts and medians of its stages. */
interface FunnelParts {
  total: number
  byStatus: Array<{ status: SampleStatus; requestedMs: number[] }>
  reachedCounts: number[]
  medians: Array<number | null>
}
const FUNNEL_PARTS_KEPT = 64

/**
 * Kept per list: the samples state replaces the list and the records a write changes, and the world's
 * records are never edited, so the list's identity says the index still holds.
 */
const funnelIndexes = new WeakMap<readonly SampleRequest[], FunnelIndex>()

function funnelIndexOf(requests: readonly SampleRequest[]): FunnelIndex {
  let index = funnelIndexes.get(requests)
  if (!index) {
    index = { stageMs: STAGE_TIMES.map((field) => Float64Array.from(requests, (r) => (r[field] === null ? NaN : Date.parse(r[field])))), parts: new Map() }
    funnelIndexes.set(requests, index)
  }
  return index
}

/** The funnel's cohort (the filters, the time field's rows and its whole-day window) and what it shows but for ages. */
function funnelParts(ctx: HandlerContext<'getSampleFunnel'>, data: ShopData, column: StageTime): FunnelParts {
  const input = ctx.input
  const days = dayBounds(data, input.time_from, input.time_to, ['time_from', 'time_to'])
  const products = idArraySet([...(input.product_ids ?? []), ...(typeof input.product_id === 'string' ? [input.product_id] : [])])
  const requests = sampleRequestsOf(ctx.state, data.shop.shop_id) as readonly SampleRequest[]
  const index = funnelIndexOf(requests)
  const campaign = typeof input.campaign_id === 'string' ? ['campaign', input.campaign_id] : input.all_campaigns === true
  const key = JSON.stringify([column, String(days?.[0]), String(days?.[1]), products ? [...products].sort() : 0, campaign, input.include_ignored === true, input.source === undefined ? 0 : [input.source]])
  let parts = index.parts.get(key)
  if (parts) return parts
  const columnMs = index.stageMs[STAGE_TIMES.indexOf(column)]!
  const cohort: number[] = []
  requests.forEach((r, i) => {
    if (
      (input.include_ignored === true || !r.ignored) &&
      // spec: a non-default time_field restricts the cohort to rows carrying that timestamp.
      r[column] !== null &&
      (!days || inDayBounds(data.calendar.dayOf(columnMs[i]!), days)) &&
      (!products || products.has(r.sampled_product)) &&
      matchesCampaign(r.campaign_id, input) &&
      (input.source === undefined || r.source === input.source)
    )
      cohort.push(i)
  })
  parts = buildFunnelParts(requests, index.stageMs, cohort)
  if (index.parts.size >= FUNNEL_PARTS_KEPT) index.parts.delete(index.parts.keys().next().value!)
  index.parts.set(key, parts)
  return parts
}

const inDayBounds = (day: number, bounds: [number, number]): boolean => day >= bounds[0] && day <= bounds[1]

function buildFunnelParts(requests: readonly SampleRequest[], stageMs: Float64Array[], cohort: number[]): FunnelParts {
  const byStatus = new Map<SampleStatus, number[]>()
  for (const i of cohort) {
    const status = requests[i]!.status
    let requested = byStatus.get(status)
    if (!requested) byStatus.set(status, (requested = []))
    requested.push(stageMs[0]![i]!)
  }
  const reachedCounts = STAGES.map(() => 0)
  for (const i of cohort) for (let k = 0; k <= stageReached(requests[i]!); k++) reachedCounts[k]!++
  const medians = STEPS.map((_, k) => {
    const gaps: number[] = []
    const from = stageMs[k]!
    const to = stageMs[k + 1]!
    for (const i of cohort) {
      const r = requests[i]!
      if (r[STAGE_TIMES[k]!] !== null && r[STAGE_TIMES[k + 1]!] !== null) gaps.push((to[i]! - from[i]!) / DAY_MS)
    }
    return median(gaps)
  })
  return {
    total: cohort.length,
    byStatus: [...byStatus.entries()].sort((a, b) => b[1].length - a[1].length || compareText(a[0], b[0])).map(([status, requestedMs]) => ({ status, requestedMs })),
    reachedCounts,
    medians,
  }
}

function buildFunnel({ total, byStatus, reachedCounts, medians }: FunnelParts, nowMs: number): Pick<Funnel, 'total_count' | 'by_status' | 'funnel' | 'timing' | 'biggest_bottleneck'> {
  const by_status = byStatus.map(({ status, requestedMs }) => {
    const is_open = OPEN_SAMPLE_STATUSES.includes(status)
    const row: Funnel['by_status'][number] = { status, count: requestedMs.length, pct_of_total: percent2(requestedMs.length, total), is_open }
    if (is_open) {
      const ages = requestedMs.map((ms) => Math.max(0, (nowMs - ms) / DAY_MS))
      row.avg_age_days = round2(ages.reduce((s, a) => s + a, 0) / ages.length)
      row.oldest_age_days = round2(Math.max(...ages))
    }
    return row
  })
  const funnel = STAGES.map(({ stage, label }, k) => {
    const count = reachedCounts[k]!
    const prev = k === 0 ? null : reachedCounts[k - 1]!
    return {
      stage,
      label,
      count,
      pct_of_entry: percent2(count, reachedCounts[0]!),
      conversion_from_previous_pct: prev === null ? null : percent2(count, prev),
      dropped_from_previous: prev === null ? null : prev - count,
    }
  })
  const timing = total === 0 ? [] : STEPS.map(({ step, label }, k) => ({ step, label, median_days: medians[k] === null ? null : round2(medians[k]!) }))
  // The transition losing the largest share: lowest conversion from the previous stage, earliest on ties.
  let biggest_bottleneck: Funnel['biggest_bottleneck'] = null
  let worst = Infinity
  for (let k = 1; k < STAGES.length; k++) {
    const prev = reachedCounts[k - 1]!
    const dropped = prev - reachedCounts[k]!
    if (prev === 0 || dropped === 0) continue
    const share = reachedCounts[k]! / prev
    if (share < worst) {
      worst = share
      biggest_bottleneck = { stage: STAGES[k]!.stage, label: STAGES[k]!.label, dropped, conversion_pct: percent2(reachedCounts[k]!, prev) }
    }
  }
  return { total_count: total, by_status, funnel, timing, biggest_bottleneck }
}

const getSampleFunnel = defineHandler('getSampleFunnel', (ctx) => {
  const { data } = shopScope(ctx)
  const timeField: Funnel['time_field'] = ctx.input.time_field ?? 'timestamp'
  const parts = funnelParts(ctx, data, TIME_FIELD_COLUMN[timeField]!)
  const body: Funnel = { time_field: timeField, time_from: ctx.input.time_from ?? null, time_to: ctx.input.time_to ?? null, ...buildFunnel(parts, ctx.now.getTime()) }
  return { status: 200, body: { data: body } }
})

// ---------------------------------------------------------------------------------------------
// Writes: approve, reject, ignore, unignore

/**
 * Moves `To Review` requests on; counts only those that moved (spec: Samples: success_count). The
 * body of both approve and reject: `defineHandler('approveSampleRequests', reviewDecision('approved'))`.
 */
const reviewDecision =
  (verb: 'approved' | 'rejected') =>
  (ctx: HandlerContext<'approveSampleRequests' | 'rejectSampleRequests'>) => {
    const shopId = ctx.shop.shop_id
    const ids: string[] = ctx.input.apply_ids
    const moved =
      verb === 'approved'
        ? ctx.state.write(samplesState, 'approve', { shopId, applyIds: ids, at: ctx.now.toISOString() })
        : ctx.state.write(samplesState, 'reject', { shopId, applyIds: ids })
    return { status: 200, body: { data: { message: `${moved} of ${ids.length} sample requests ${verb}`, success_count: moved } } }
  }

const ignoreSampleRequests = defineHandler('ignoreSampleRequests', (ctx) => {
  const ids: string[] = ctx.input.apply_ids
  const perma: Array<{ creator_id: string; handle: string }> = ctx.input.perma_ignore_affiliates ?? []
  const permaIgnoreCreatorIds = perma.map((a) => a.creator_id)
  const ignored = ctx.state.write(samplesState, 'ignore', { shopId: ctx.shop.shop_id, applyIds: ids, permaIgnoreCreatorIds })
  const also = perma.length > 0 ? `; future requests from ${perma.length} creators will be ignored` : ''
  return { status: 200, body: { data: { message: `${ignored} of ${ids.length} sample requests ignored${also}`, ignored_count: ignored } } }
})

const unignoreSampleRequests = defineHandler('unignoreSampleRequests', (ctx) => {
  const ids: string[] = ctx.input.apply_ids ?? []
  const unignored = ctx.state.write(samplesState, 'unignore', { shopId: ctx.shop.shop_id, applyIds: ids })
  return { status: 200, body: { data: { message: `${unignored} of ${ids.length} sample requests unignored`, unignored_count: unignored } } }
})

// ---------------------------------------------------------------------------------------------
// POST /affiliate/message/dm

const sendCreatorDm = defineHandler('sendCreatorDm', (ctx) => {
  const { shop } = ctx
  if (shop.sps < MIN_SPS_TO_MESSAGE) {
    return apiError(403, `Shop SPS is ${shop.sps}, below ${MIN_SPS_TO_MESSAGE}: the shop is restricted from sending messages to creators`)
  }
  const { creator_id, handle, message } = ctx.input
  const index = findCreator(ctx.world, { creator_id, handle })
  if (index < 0) return apiError(400, `Unknown creator: ${typeof creator_id === 'string' ? `creator_id ${creator_id}` : `handle ${handle}`}`)
  const creator = ctx.world.creators[index]!
  if (typeof creator_id === 'string' && typeof handle === 'string' && handleKey(handle) !== creator.handle.toLowerCase()) {
    return apiError(400, 'creator_id and handle name different creators')
  }
  const dmId = ctx.state.write(samplesState, 'sendDm', { shopId: shop.shop_id, creatorId: creator.creator_id, message, at: ctx.now.toISOString() })
  // Counted by the stats' dms_sent (spec: POST /shop/stats).
  recordEvent(ctx.state, shop.shop_id, { kind: 'dm_sent', at: ctx.now.getTime(), creator: index, campaign: -1 })
  return { status: 200, body: { data: { message: `DM sent to @${creator.handle}`, dm_id: dmId } } }
})

// ---------------------------------------------------------------------------------------------
// Control API: POST /__admin/samples/arrive

/**
 * Simulates a new sample request arriving: `{shop_id?, creator_id | handle?, product_id?, source?}`
 * (defaults: the main shop, its first CRM creator, its first product, Open). Status To Review,
 * requested now (mock clock); auto-ignored when the creator is perma-ignored.
 */
const arrive: AdminAction = (state: MockState, input) => {
  const shop = input.shop_id === undefined ? state.world.shops[0] : typeof input.shop_id === 'string' ? state.findShop(input.shop_id) : undefined
  if (!shop) throw apiError(404, `Unknown shop_id: ${String(input.shop_id)}`)
  const data = shopDataOf(state.world, shop.shop_id)
  const named = input.creator_id !== undefined || input.handle !== undefined
  const index = named ? findCreator(state.world, input) : (data.affiliates[0]?.creator_index ?? 0)
  if (index < 0) throw apiError(400, 'creator_id or handle must name a known creator')
  const creator = state.world.creators[index]!
  const product = input.product_id === undefined ? data.products[0] : data.products.find((p) => p.product_id === input.product_id)
  if (!product) throw apiError(400, `Unknown product_id: ${String(input.product_id)}`)
  if (input.source !== undefined && input.source !== 'TC' && input.source !== 'Open') throw apiError(400, 'source must be TC or Open')
  const sku = data.skus.find((s) => s.product_id === product.product_id) ?? data.skus[0]!
  const now = state.clock.now()
  const expireDate = data.calendar.axis.date(data.calendar.dayOf(now.getTime()) + 7)
  const request = state.write(samplesState, 'arrive', {
    shopId: shop.shop_id,
    creatorId: creator.creator_id,
    handle: creator.handle,
    productId: product.product_id,
    skuId: sku.sku_id,
    source: input.source ?? 'Open',
    at: now.toISOString(),
    expireDate,
  })
  return { sample_request: request }
}

export const samples: AreaModule = {
  handlers: {
    getSampleFunnel,
    listSampleRequests,
    listRefundableSampleRequests,
    approveSampleRequests: defineHandler('approveSampleRequests', reviewDecision('approved')),
    rejectSampleRequests: defineHandler('rejectSampleRequests', reviewDecision('rejected')),
    ignoreSampleRequests,
    unignoreSampleRequests,
    sendCreatorDm,
  },
  adminActions: { 'samples/arrive': arrive },
}
