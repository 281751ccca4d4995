/**
 * Off-platform sales correlation (spec: Off-platform sales correlation; States and transitions: Halo;
 * Limits: halo date range). The report correlates platform video views with the revenue of the
 * shop's connected storefront and marketplace, computed day by day from the world's fact tables.
 *
 * The platform blocks run a small state machine on the mock clock (state kept per shop, dropped by reset):
 * - storefront: no snapshot → the first report call starts a build and answers `refreshing` with
 *   `refresh_started_at` (a HEAD of its GET form answers as that call would, and starts nothing); the
 *   build completes `refresh_ms` later (default 30 s, `POST /__admin/halo/config` `{refresh_ms}`),
 *   after which calls answer `ok`. A snapshot older than 6 hours is served as is (`ok`, its
 *   old `snapshot_to`/`refreshed_at`) while a build runs in the background. Every built snapshot is also
 *   rebuilt nightly at 02:24 UTC. The snapshot covers its `snapshot_from`..`snapshot_to` days only.
 * - marketplace: live numbers, fetched on a call and cached up to 12 hours; while the platform is
 *   unavailable a cache younger than 12 hours is still served, then the block answers `error`. An expired
 *   authorization (the world's `auth_error`) is `error` with `auth_error: true`.
 * - `POST /__admin/halo/availability` `{shop_id, platform, available}` makes a platform unavailable (`error`);
 *   `POST /__admin/halo/drop-snapshot` `{shop_id}` takes the storefront back to no snapshot.
 */
import type { components } from '../../openapi/types.ts'
import { addDays, DAY_MS, epochMsToDate, type AffiliateCampaign, type ProductRecord, type ShopData, type StoreConnection } from '../../fixtures/index.ts'
import { changesState, defineAreaState, defineHandler, type AdminAction, type AreaModule, type DeepReadonly, type HandlerContext, type InputNormalizer, type RequestContext } from '../context.ts'
import { requireDateRange } from '../pipeline/validate.ts'
import { apiError } from '../respond.ts'
import { csvExport, wantsCsv } from '../csv.ts'
import type { MockState } from '../state.ts'
import { assertRangeOrder } from '../lib/dates.ts'
import { isOneOf } from '../lib/json.ts'
import { roundHalfAway } from '../lib/numbers.ts'
import { shopDataFor, shopStates } from '../lib/shop.ts'
import { compareText } from '../lib/sort.ts'

type Schemas = components['schemas']
type HaloReport = Schemas['HaloReport']
type HaloPlatformBlock = Schemas['HaloPlatformBlock']
type HaloSeriesRow = Schemas['HaloSeriesRow']
type HaloStatus = NonNullable<HaloPlatformBlock['status']>
type OffPlatform = 'storefront' | 'marketplace'
type Granularity = HaloReport['granularity']

export const OFF_PLATFORMS: readonly OffPlatform[] = ['storefront', 'marketplace']
const HOUR_MS = 3_600_000
// spec: Limits: halo date range at most 366 days; marketplace cache up to 12 hours; snapshot served as is when older than 6 hours.
export const MAX_RANGE_DAYS = 366
export const MARKETPLACE_CACHE_MS = 12 * HOUR_MS
export const SNAPSHOT_STALE_MS = 6 * HOUR_MS
export const DEFAULT_REFRESH_MS = 30_000
/** The nightly snapshot build runs at this fraction of the UTC day (02:24, the fixtures' refreshed_at). */
const NIGHTLY_FRACTION = 0.1
const BASELINE_DAYS = 14
const TOP_VIDEOS = 4
const SERIES_COLUMNS = ['date', 'platform_views', 'platform_gmv', 'storefront_revenue', 'marketplace_revenue', 'off_platform_revenue'] as const

// ---------------------------------------------------------------------------------------------
// State: per mock (config) and per shop (snapshots, caches, availability)

export interface HaloConfig {
  /** How long a storefront snapshot build takes on the mock clock. */
  refreshMs: number
}
interface Snapshot {
  from: string
  to: string
  refreshed_at: string
}
interface StorefrontState {
  snapshot: Snapshot | null
  refresh: { startedAtMs: number; completesAtMs: number } | null
}
interface HaloShopState {
  storefront: StorefrontState
  marketplace: { fetchedAtMs: number | null }
  unavailable: Set<OffPlatform>
}

// The config is a setting of the mock (like the clock), so it survives reset; per-shop state does not.
export const haloConfigState = defineAreaState('halo.config', (): HaloConfig => ({ refreshMs: DEFAULT_REFRESH_MS }), {
  set(config, input: { refreshMs: number }): void {
    config.refreshMs = input.refreshMs
  },
}, { survivesReset: true })

function seedShop(data: ShopData): HaloShopState {
  const storefront = data.stores.find((s) => s.platform === 'storefront')
  return { storefront: { snapshot: storefront?.snapshot ?? null, refresh: null }, marketplace: { fetchedAtMs: null }, unavailable: new Set() }
}

export const haloState = defineAreaState('halo', (world) => shopStates(world, seedShop), {
  /** The storefront as the clock has moved it to `at` (see settledStorefront); `from`: its store's first day of data. */
  settleStorefront(shops, input: { shopId: string; at: string; from: string }): void {
    const halo = shops.of(input.shopId)
    halo.storefront = settledStorefront(halo.storefront, input.from, Date.parse(input.at)) ?? halo.storefront
  },
  /** spec: States and transitions: Halo: a report call starts a snapshot build, done `refreshMs` later. */
  startBuild(shops, input: { shopId: string; at: string; refreshMs: number }): void {
    const startedAtMs = Date.parse(input.at)
    shops.of(input.shopId).storefront.refresh = { startedAtMs, completesAtMs: startedAtMs + input.refreshMs }
  },
  /** The storefront's snapshot is gone: its next report call starts a build. */
  dropSnapshot(shops, input: { shopId: string }): void {
    shops.of(input.shopId).storefront = { snapshot: null, refresh: null }
  },
  /** The marketplace's live numbers were fetched at `at` (cached from then). */
  fetchMarketplace(shops, input: { shopId: string; at: string }): void {
    shops.of(input.shopId).marketplace.fetchedAtMs = Date.parse(input.at)
  },
  setAvailable(shops, input: { shopId: string; platform: OffPlatform; available: boolean }): void {
    const { unavailable } = shops.of(input.shopId)
    if (input.available) unavailable.delete(input.platform)
    else unavailable.add(input.platform)
  },
}, { stableAcrossViews: true }) // the stores, which do not come with the clock

/** The halo settings of one mock. */
export const haloConfig = (state: MockState): DeepReadonly<HaloConfig> => state.read(haloConfigState)

const haloOf = (state: MockState, data: ShopData): DeepReadonly<HaloShopState> => state.read(haloState).of(data.shop.shop_id)

const connectedStore = (data: ShopData, platform: OffPlatform): StoreConnection | undefined =>
  data.stores.find((s) => s.platform === platform && s.connected)

function buildSnapshot(from: string, atMs: number): Snapshot {
  return { from, to: addDays(epochMsToDate(atMs), -1), refreshed_at: new Date(atMs).toISOString() }
}

/**
 * The storefront at `nowMs`: a build whose time has come completes, and the nightly rebuild applies;
 * starts nothing. Undefined when neither happens (then there is nothing to write).
 */
function settledStorefront(sf: DeepReadonly<StorefrontState>, from: string, nowMs: number): StorefrontState | undefined {
  let { snapshot, refresh } = sf
  if (refresh && nowMs >= refresh.completesAtMs) {
    snapshot = buildSnapshot(from, refresh.completesAtMs)
    refresh = null
  }
  if (snapshot && !refresh) {
    let nightly = Math.floor(nowMs / DAY_MS) * DAY_MS + NIGHTLY_FRACTION * DAY_MS
    if (nightly > nowMs) nightly -= DAY_MS
    if (Date.parse(snapshot.refreshed_at) < nightly) snapshot = buildSnapshot(from, nightly)
  }
  return snapshot === sf.snapshot && refresh === sf.refresh ? undefined : { snapshot, refresh }
}

const marketplaceCacheFresh = (halo: DeepReadonly<HaloShopState>, nowMs: number): boolean =>
  halo.marketplace.fetchedAtMs !== null && nowMs - halo.marketplace.fetchedAtMs < MARKETPLACE_CACHE_MS

// ---------------------------------------------------------------------------------------------
// What one report sees of each platform

/** One off-platform channel as one report call sees it. */
interface PlatformView {
  platform: OffPlatform
  store: StoreConnection | undefined
  status: HaloStatus | undefined
  /** Day indexes the platform can have data for (when status is ok). */
  coverFrom: number
  coverTo: number
  /** Fields only this platform's block has (snapshot, refresh_started_at, auth_error...). */
  extras: Partial<HaloPlatformBlock>
  warnings: string[]
}

const isLinked = (store: StoreConnection, product: ProductRecord | undefined) =>
  !product || store.links.some((l) => l.platform_product_id === product.product_id)

/**
 * What a call does to a platform block: a report call starts a storefront build and fetches the
 * marketplace's live numbers (`starts`); `records` keeps what it did (and the storefront as the clock
 * has moved it) in the shop's state. A HEAD of the report answers as its GET would, recording nothing
 * (RFC 9110 9.3.2); the product-links listing starts nothing and records nothing.
 */
interface CallEffects {
  starts: boolean
  records: boolean
}

/** spec: States and transitions: Halo platform block refreshing; a report call may start a build. */
function viewStorefront(ctx: RequestContext, data: ShopData, product: ProductRecord | undefined, { starts, records }: CallEffects): PlatformView {
  const store = connectedStore(data, 'storefront')
  const view: PlatformView = { platform: 'storefront', store, status: undefined, coverFrom: 0, coverTo: -1, extras: {}, warnings: [] }
  if (!store) return view
  const shopId = data.shop.shop_id
  const nowMs = ctx.now.getTime()
  const at = ctx.now.toISOString()
  const from = data.calendar.axis.date(store.data_from_day)
  const halo = haloOf(ctx.state, data)
  // The storefront as the clock has moved it, then as this call leaves it: what the writes below record.
  let sf: DeepReadonly<StorefrontState> = settledStorefront(halo.storefront, from, nowMs) ?? halo.storefront
  if (records && sf !== halo.storefront) ctx.state.write(haloState, 'settleStorefront', { shopId, at, from })
  const available = !halo.unavailable.has('storefront')
  const stale = sf.snapshot !== null && nowMs - Date.parse(sf.snapshot.refreshed_at) > SNAPSHOT_STALE_MS
  if (starts && available && !sf.refresh && (sf.snapshot === null || stale)) {
    const { refreshMs } = haloConfig(ctx.state)
    sf = { snapshot: sf.snapshot, refresh: { startedAtMs: nowMs, completesAtMs: nowMs + refreshMs } }
    if (records) ctx.state.write(haloState, 'startBuild', { shopId, at, refreshMs })
  }
  const axis = data.calendar.axis
  view.extras = {
    store: store.store,
    snapshot_from: sf.snapshot?.from ?? null,
    snapshot_to: sf.snapshot?.to ?? null,
    refreshed_at: sf.snapshot?.refreshed_at ?? null,
    ...(sf.refresh ? { refresh_started_at: new Date(sf.refresh.startedAtMs).toISOString() } : {}),
  }
  if (!available) view.status = 'error'
  else if (!isLinked(store, product)) view.status = 'not_linked'
  else if (!sf.snapshot) view.status = 'refreshing'
  else {
    view.status = 'ok'
    view.coverFrom = axis.dayIndex(sf.snapshot.from)
    view.coverTo = axis.dayIndex(sf.snapshot.to)
  }
  return view
}

/** spec: Off-platform sales correlation: marketplace numbers are live and cached up to 12 hours. */
function viewMarketplace(ctx: RequestContext, data: ShopData, product: ProductRecord | undefined, { starts, records }: CallEffects): PlatformView {
  const store = connectedStore(data, 'marketplace')
  const view: PlatformView = { platform: 'marketplace', store, status: undefined, coverFrom: 0, coverTo: -1, extras: {}, warnings: [] }
  if (!store) return view
  const nowMs = ctx.now.getTime()
  view.extras = { store: store.store, auth_error: store.auth_error, account_type: store.account_type }
  const halo = haloOf(ctx.state, data)
  const available = !halo.unavailable.has('marketplace')
  if (store.auth_error) {
    view.status = 'error'
    return view
  }
  let fetchedAtMs = halo.marketplace.fetchedAtMs
  if (available && starts && !marketplaceCacheFresh(halo, nowMs)) {
    fetchedAtMs = nowMs
    if (records) ctx.state.write(haloState, 'fetchMarketplace', { shopId: data.shop.shop_id, at: ctx.now.toISOString() })
  }
  if (!available && !marketplaceCacheFresh(halo, nowMs)) view.status = 'error'
  else if (!isLinked(store, product)) view.status = 'not_linked'
  else if (fetchedAtMs === null) view.status = 'ok' // a listing that fetched nothing: the platform is reachable
  else {
    view.status = 'ok'
    view.coverFrom = store.data_from_day
    view.coverTo = data.calendar.axis.dayIndex(epochMsToDate(fetchedAtMs))
    if (!available) view.warnings.push(`The marketplace is unavailable; numbers are cached from ${new Date(fetchedAtMs).toISOString()}`)
  }
  return view
}

/** A platform's revenue (orders, units) on a day, or null without data (spec: Missing data is null, never 0). */
function platformDay(view: PlatformView, data: ShopData, metric: 'revenue' | 'orders' | 'units', day: number): number | null {
  if (view.status !== 'ok' || !view.store || day < view.coverFrom || day > view.coverTo) return null
  return data.facts.stores.value(metric, view.store.store_id, day)
}

// ---------------------------------------------------------------------------------------------
// Numbers

const roundOrNull = (value: number | null, digits = 2): number | null => (value === null ? null : roundHalfAway(value, digits))
const sumOrNull = (values: Array<number | null>): number | null => {
  let total: number | null = null
  for (const v of values) if (v !== null) total = (total ?? 0) + v
  return total
}
const averageOrNull = (values: Array<number | null>): number | null => {
  const known = values.filter((v): v is number => v !== null)
  return known.length ? known.reduce((a, b) => a + b, 0) / known.length : null
}
const changePct = (before: number | null, after: number | null): number | null =>
  before === null || after === null || before === 0 ? null : ((after - before) / before) * 100

/** Least-squares slope and Pearson r of y on x; null where undefined (fewer than 2 points, no variance). */
export function regression(xs: readonly number[], ys: readonly number[]): { slope: number | null; r: number | null } {
  const n = xs.length
  if (n < 2) return { slope: null, r: null }
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my)
    sxx += (xs[i]! - mx) ** 2
    syy += (ys[i]! - my) ** 2
  }
  return { slope: sxx === 0 ? null : sxy / sxx, r: sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy) }
}

/** The average day of the second half of the range vs the first half, in percent (an odd middle day counts in neither). */
function halvesChangePct(daily: Array<number | null>): number | null {
  const half = Math.floor(daily.length / 2)
  if (half === 0) return null
  return changePct(averageOrNull(daily.slice(0, half)), averageOrNull(daily.slice(daily.length - half)))
}

// ---------------------------------------------------------------------------------------------
// Request

interface ReportRequest {
  fromDay: number
  toDay: number
  from: string
  to: string
  product: ProductRecord | undefined
  excluded: Set<OffPlatform>
  granularity: Granularity
}

/** spec: Off-platform sales correlation: `exclude_platform_gmv` true for all, or a list or comma string. */
export function excludedPlatforms(value: unknown): Set<OffPlatform> {
  if (value === true) return new Set(OFF_PLATFORMS)
  const names = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : []
  return new Set(names.map((n) => String(n).trim()).filter((n): n is OffPlatform => (OFF_PLATFORMS as readonly string[]).includes(n)))
}

function parseRequest(ctx: HandlerContext<'getHaloReport'>, data: ShopData): ReportRequest {
  const { from, to } = requireDateRange(ctx.input)
  const axis = data.calendar.axis
  const fromDay = axis.dayIndex(from)
  const toDay = axis.dayIndex(to)
  assertRangeOrder(fromDay, toDay, 'date_range')
  // spec: Limits: the range is inclusive and at most 366 days.
  if (toDay - fromDay + 1 > MAX_RANGE_DAYS) throw apiError(400, `date_range must span at most ${MAX_RANGE_DAYS} days`)
  const productId = ctx.input.platform_product_id
  const product = productId === undefined ? undefined : data.products.find((p) => p.product_id === productId)
  if (productId !== undefined && !product) throw apiError(400, `platform_product_id: no product ${productId} in this shop`)
  return { fromDay, toDay, from, to, product, excluded: excludedPlatforms(ctx.input.exclude_platform_gmv), granularity: ctx.input.granularity ?? 'day' }
}

// ---------------------------------------------------------------------------------------------
// Report

interface VideoDay {
  video_id: string
  handle: string
  views: number
  gmv: number
}

/** Each day's video rows (of the selected product's videos, or all), for product views and top videos. */
function videoDays(data: ShopData, req: ReportRequest): VideoDay[][] {
  const days: VideoDay[][] = Array.from({ length: req.toDay - req.fromDay + 1 }, () => [])
  const table = data.facts.videos
  for (const video of data.videos) {
    if (req.product && !video.products.includes(req.product.product_id)) continue
    const [a, b] = table.rowRange(video.video_id, req.fromDay, req.toDay)
    for (let r = a; r < b; r++) {
      days[table.days[r]! - req.fromDay]!.push({ video_id: video.video_id, handle: video.handle, views: table.columns.views[r]!, gmv: table.columns.gmv[r]! })
    }
  }
  return days
}

function topVideosPerDay(days: VideoDay[][], req: ReportRequest, date: (i: number) => string): Schemas['HaloTopVideosDay'][] {
  return days.map((rows, i) => {
    const sorted = rows.slice().sort((a, b) => b.views - a.views || compareText(a.video_id, b.video_id))
    const rest = sorted.slice(TOP_VIDEOS)
    return {
      date: date(i),
      top_videos: sorted.slice(0, TOP_VIDEOS).map((v) => ({ ...v, gmv: roundHalfAway(v.gmv) })),
      ...(rest.length
        ? { other: { count: rest.length, views: rest.reduce((s, v) => s + v.views, 0), gmv: roundHalfAway(rest.reduce((s, v) => s + v.gmv, 0)) } }
        : {}),
    }
  })
}

/** Groups the range's day offsets into series periods: days, Monday weeks or calendar months. */
function periods(req: ReportRequest, date: (i: number) => string): Array<{ date: string; days: number[] }> {
  const out: Array<{ date: string; days: number[] }> = []
  let key = ''
  for (let i = 0; i <= req.toDay - req.fromDay; i++) {
    const d = date(i)
    let k = d
    if (req.granularity === 'week') k = addDays(d, -((new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7))
    else if (req.granularity === 'month') k = d.slice(0, 7)
    // The first (partial) period is dated by its first day in the range.
    if (k !== key) out.push({ date: d, days: [] })
    key = k
    out[out.length - 1]!.days.push(i)
  }
  return out
}

function campaignImpact(campaign: AffiliateCampaign, view: PlatformView, data: ShopData, req: ReportRequest): Schemas['HaloCampaignImpact'] {
  const axis = data.calendar.axis
  const startDay = axis.dayIndex(campaign.start_date)
  const endDay = campaign.end_date ? axis.dayIndex(campaign.end_date) : req.toDay
  const from = Math.max(startDay, req.fromDay)
  const to = Math.min(endDay, req.toDay)
  const during: Array<number | null> = []
  for (let d = from; d <= to; d++) during.push(platformDay(view, data, 'revenue', d))
  // spec: lift vs the 14 days before; an incomplete baseline (before the platform's data) gives nulls.
  const baselineComplete = startDay - BASELINE_DAYS >= view.coverFrom
  const baseline: Array<number | null> = []
  for (let d = startDay - BASELINE_DAYS; d < startDay; d++) baseline.push(platformDay(view, data, 'revenue', d))
  const baselineDaily = baselineComplete ? averageOrNull(baseline) : null
  return {
    campaign_id: campaign.campaign_id,
    campaign_name: campaign.name,
    campaign_type: campaign.type,
    start_date: campaign.start_date,
    end_date: campaign.end_date ?? req.to,
    lift_pct: roundOrNull(baselineComplete ? changePct(baselineDaily, averageOrNull(during)) : null),
    baseline_daily_revenue: roundOrNull(baselineDaily),
    baseline_complete: baselineComplete,
    campaign_revenue: roundOrNull(sumOrNull(during)),
    days_active: to - from + 1,
  }
}

function platformBlock(
  view: PlatformView,
  data: ShopData,
  req: ReportRequest,
  net: Array<number | null>,
  sample: number[],
): HaloPlatformBlock {
  const netted = req.excluded.has(view.platform)
  if (!view.store) {
    return {
      connected: false,
      linked_product_count: 0,
      totals: { revenue: null, orders: null, units: null, aov: null, revenue_change_pct: null, orders_change_pct: null, units_change_pct: null },
      campaign_impact: [],
      net_of_platform_gmv: netted,
      halo_revenue: null,
    }
  }
  const store = view.store
  const daily = (metric: 'revenue' | 'orders' | 'units') => {
    const values: Array<number | null> = []
    for (let d = req.fromDay; d <= req.toDay; d++) values.push(platformDay(view, data, metric, d))
    return values
  }
  const [revenue, orders, units] = [daily('revenue'), daily('orders'), daily('units')]
  const totalRevenue = sumOrNull(revenue)
  const totalOrders = sumOrNull(orders)
  const missing = revenue.filter((v) => v === null).length
  const warnings = [...view.warnings]
  if (view.status === 'ok' && missing > 0 && missing < revenue.length) {
    warnings.push(`No ${view.platform} data for ${missing} of ${revenue.length} days in the range`)
  }
  const campaigns =
    view.status === 'ok'
      ? data.affiliateCampaigns
          .filter((c) => c.start_date <= req.to && (c.end_date === null || c.end_date >= req.from))
          .filter((c) => !req.product || c.product_ids.includes(req.product.product_id))
          .sort((a, b) => compareText(a.start_date, b.start_date) || compareText(a.campaign_id, b.campaign_id))
      : []
  return {
    connected: true,
    linked_product_count: new Set(store.links.map((l) => l.platform_product_id)).size,
    ...(req.product ? { linked_products: store.links.filter((l) => l.platform_product_id === req.product!.product_id) } : {}),
    status: view.status,
    ...(warnings.length ? { warnings } : {}),
    totals: {
      revenue: roundOrNull(totalRevenue),
      orders: totalOrders,
      units: sumOrNull(units),
      aov: totalRevenue !== null && totalOrders ? roundHalfAway(totalRevenue / totalOrders) : null,
      revenue_change_pct: roundOrNull(halvesChangePct(revenue)),
      orders_change_pct: roundOrNull(halvesChangePct(orders)),
      units_change_pct: roundOrNull(halvesChangePct(units)),
    },
    campaign_impact: campaigns.map((c) => campaignImpact(c, view, data, req)),
    net_of_platform_gmv: netted,
    halo_revenue: view.status === 'ok' && sample.length ? roundHalfAway(sample.reduce((s, i) => s + net[i]!, 0)) : null,
    ...view.extras,
  }
}

function buildReport(ctx: RequestContext, data: ShopData, req: ReportRequest): { report: HaloReport; series: HaloSeriesRow[] } {
  const length = req.toDay - req.fromDay + 1
  const date = (i: number) => data.calendar.axis.date(req.fromDay + i)
  const effects: CallEffects = { starts: true, records: changesState(ctx) }
  const views = [viewStorefront(ctx, data, req.product, effects), viewMarketplace(ctx, data, req.product, effects)]
  const reporting = views.filter((v) => v.status === 'ok')
  const needVideos = req.product !== undefined || ctx.input.include_top_videos === true
  const perVideo = needVideos ? videoDays(data, req) : undefined

  // Platform side: views every day; GMV null on days without a report.
  const platformViews: number[] = []
  const platformGmv: Array<number | null> = []
  for (let i = 0; i < length; i++) {
    const day = req.fromDay + i
    if (req.product) {
      platformViews.push(perVideo![i]!.reduce((s, v) => s + v.views, 0))
      platformGmv.push(data.facts.products.value('total_gmv', req.product.product_id, day))
    } else {
      platformViews.push(data.facts.contentTotals.value('video_views', 0, day) ?? 0)
      platformGmv.push(data.facts.shop.value('platform_gmv', 0, day))
    }
  }

  // Off-platform side: each platform's revenue, net of the day's platform GMV where excluded (floored at 0).
  const net = new Map<OffPlatform, Array<number | null>>()
  for (const view of views) {
    const values: Array<number | null> = []
    for (let i = 0; i < length; i++) {
      const gross = platformDay(view, data, 'revenue', req.fromDay + i)
      values.push(gross === null || !req.excluded.has(view.platform) ? gross : Math.max(0, gross - (platformGmv[i] ?? 0)))
    }
    net.set(view.platform, values)
  }
  const offPlatform: Array<number | null> = []
  for (let i = 0; i < length; i++) {
    const parts = reporting.map((v) => net.get(v.platform)![i]!)
    offPlatform.push(reporting.length === 0 || parts.some((p) => p === null) ? null : parts.reduce((s, p) => s + p!, 0))
  }

  // spec: halo statistics always use daily data: the days where every reporting platform has data.
  const sample = offPlatform.flatMap((v, i) => (v === null ? [] : [i]))
  const xs = sample.map((i) => platformViews[i]!)
  const ys = sample.map((i) => offPlatform[i]!)
  const totalViews = xs.reduce((a, b) => a + b, 0)
  const totalOff = sample.length ? ys.reduce((a, b) => a + b, 0) : null
  const totalGmv = sample.reduce((s, i) => s + (platformGmv[i] ?? 0), 0)
  const activeDays = xs.filter((x) => x > 0).length
  const { slope, r } = regression(xs, ys)
  const excludedDays = reporting.length ? length - sample.length : 0

  const blocks = Object.fromEntries(views.map((v) => [v.platform, platformBlock(v, data, req, net.get(v.platform)!, sample)])) as HaloReport['platforms']

  const series: HaloSeriesRow[] = periods(req, date).map(({ date: periodDate, days }) => {
    const whole = (values: Array<number | null>) => (days.some((i) => values[i] === null) ? null : roundHalfAway(days.reduce((s, i) => s + values[i]!, 0)))
    const revenueOf = (platform: OffPlatform) => (views.find((v) => v.platform === platform)!.status === 'ok' ? whole(net.get(platform)!) : null)
    return {
      date: periodDate,
      platform_views: days.reduce((s, i) => s + platformViews[i]!, 0),
      platform_gmv: roundOrNull(sumOrNull(days.map((i) => platformGmv[i]!))),
      storefront_revenue: revenueOf('storefront'),
      marketplace_revenue: revenueOf('marketplace'),
      off_platform_revenue: whole(offPlatform),
    }
  })

  const report: HaloReport = {
    date_from: req.from,
    date_to: req.to,
    granularity: req.granularity,
    platform_product_id: req.product?.product_id ?? null,
    platform_product_name: req.product?.product_name ?? null,
    halo: {
      correlation: activeDays >= 3 && r !== null ? roundHalfAway(Math.max(0, r), 4) : null,
      est_halo_revenue: slope === null ? null : slope > 0 ? roundHalfAway(slope * totalViews) : 0,
      revenue_per_1k_views: totalOff !== null && totalViews > 0 ? roundHalfAway((totalOff / totalViews) * 1000) : null,
      multiplier: totalOff !== null && totalGmv > 0 ? roundHalfAway(totalOff / totalGmv, 4) : null,
      total_views: totalViews,
      total_off_platform_revenue: roundOrNull(totalOff),
      total_platform_gmv: roundHalfAway(totalGmv),
      sample_size: sample.length,
      ...(excludedDays > 0 ? { days_excluded_no_platform_data: excludedDays } : {}),
    },
    platform: {
      gmv: roundHalfAway(platformGmv.reduce<number>((s, v) => s + (v ?? 0), 0)),
      views: platformViews.reduce((a, b) => a + b, 0),
      gmv_source: req.product ? 'daily_product_stats.total_gmv' : 'shop_performance.platform_gmv',
    },
    platforms: blocks,
    series,
    ...(ctx.input.include_top_videos === true ? { top_videos_per_day: topVideosPerDay(perVideo!, req, date) } : {}),
  }
  return { report, series }
}



const getHaloReport = defineHandler('getHaloReport', (ctx) => {
  const data = shopDataFor(ctx)
  const { report, series } = buildReport(ctx, data, parseRequest(ctx, data))
  if (wantsCsv(ctx)) return csvExport(ctx, series, SERIES_COLUMNS)
  return { status: 200, body: { data: report } }
})

/** spec: Endpoints whose shapes are incomplete or absent: Halo product links (path and shape inferred). A read: starts no build, records nothing. */
const listHaloProductLinks = defineHandler('listHaloProductLinks', (ctx) => {
  const data = shopDataFor(ctx)
  const reads: CallEffects = { starts: false, records: false }
  const views = [viewStorefront(ctx, data, undefined, reads), viewMarketplace(ctx, data, undefined, reads)]
  const building = views[0]!.extras.refresh_started_at !== undefined
  const connected = views.filter((v) => v.store)
  return {
    status: 200,
    body: {
      data: {
        stores: connected.map(({ platform, store, status }) => ({
          platform,
          connected: true,
          store: store!.store,
          // A storefront without a snapshot and no build running has no status until a report starts one.
          ...(status === 'refreshing' && !building ? {} : { status }),
          linked_product_count: new Set(store!.links.map((l) => l.platform_product_id)).size,
        })),
        links: connected.flatMap((v) => v.store!.links),
      },
    },
  }
})

/** spec: Off-platform sales correlation: `date_from`/`date_to` accepted instead of `date_range`, in the POST body and the GET query (a `date_range` present wins). */
const acceptFlatDates: InputNormalizer = (input) => {
  const { date_from, date_to, ...rest } = input
  if (rest.date_range !== undefined || (date_from === undefined && date_to === undefined)) return rest
  return { ...rest, date_range: { ...(date_from !== undefined ? { from: date_from } : {}), ...(date_to !== undefined ? { to: date_to } : {}) } }
}

/** `POST /__admin/halo/config` `{refresh_ms}`: how long a storefront snapshot build takes on the mock clock. */
const configAction: AdminAction = (state, input) => {
  if (input.refresh_ms !== undefined) {
    if (typeof input.refresh_ms !== 'number' || !Number.isFinite(input.refresh_ms) || input.refresh_ms < 0) throw apiError(400, 'refresh_ms must be a number of milliseconds, at least 0')
    state.write(haloConfigState, 'set', { refreshMs: input.refresh_ms })
  }
  return { refresh_ms: haloConfig(state).refreshMs }
}

/** `POST /__admin/halo/availability` `{shop_id, platform, available}`: an unavailable platform answers `error`. */
const availabilityAction: AdminAction = (state, input) => {
  const { shop_id, platform, available } = input
  const shop = typeof shop_id === 'string' ? state.findShop(shop_id) : undefined
  if (!shop) throw apiError(400, 'shop_id must be a shop of the account')
  if (!isOneOf(OFF_PLATFORMS, platform)) throw apiError(400, 'platform must be storefront or marketplace')
  if (typeof available !== 'boolean') throw apiError(400, 'available must be a boolean')
  state.write(haloState, 'setAvailable', { shopId: shop.shop_id, platform, available })
  return { shop_id, platform, available }
}

/**
 * `POST /__admin/halo/drop-snapshot` `{shop_id}`: the shop's storefront has no snapshot any more, so its
 * next report call starts a build and answers `refreshing` (a client certification prepares one so).
 */
const dropSnapshotAction: AdminAction = (state, input) => {
  const shop = typeof input.shop_id === 'string' ? state.findShop(input.shop_id) : undefined
  if (!shop) throw apiError(400, 'shop_id must be a shop of the account')
  state.write(haloState, 'dropSnapshot', { shopId: shop.shop_id })
  return { shop_id: shop.shop_id }
}

export const halo: AreaModule = {
  handlers: { getHaloReport, listHaloProductLinks },
  normalizers: { getHaloReport: acceptFlatDates, getHaloReportGet: acceptFlatDates },
  adminActions: { 'halo/config': configAction, 'halo/availability': availabilityAction, 'halo/drop-snapshot': dropSnapshotAction },
}
