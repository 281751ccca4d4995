/**
 * Social-network partnership ads (spec: Social-network partnership ads; States: Program, Membership):
 * campaigns, ad sets and ads pushed through the service with metrics summed from the daily mirror
 * (`facts.socialAds`), and the creator programs they come from with their creators.
 */
import type { CreatorProgram, ProgramCreator, ShopData, SocialAd } from '../../fixtures/index.ts'
import type { components } from '../../openapi/types.ts'
import { defineAreaState, defineHandler, type AdminAction, type DeepReadonly, type AreaModule, type HandlerContext, type PagedContext, type RequestContext } from '../context.ts'
import type { MockState } from '../state.ts'
import { acceptCamelCase } from '../normalize.ts'
import { requireDateRange } from '../pipeline/validate.ts'
import { apiError } from '../respond.ts'
import { dayIndexes } from '../lib/dates.ts'
import { digest } from '../lib/digest.ts'
import { contentStats } from '../lib/figures.ts'
import { idSetOf } from '../lib/filters.ts'
import { handleKey } from '../lib/handles.ts'
import { videoOf } from '../lib/lookups.ts'
import { positiveRatio, round2 } from '../lib/numbers.ts'
import { numberedPage } from '../lib/pages.ts'
import { adminShop, shopDataFor, shopStates } from '../lib/shop.ts'
import { sortKeyOr, upperDirectionOf } from '../lib/sort.ts'
import { sortRows, type SortValue } from '../lib/sort.ts'
import { csvExport, wantsCsv } from '../csv.ts'

type Schemas = components['schemas']
type SocialMetrics = Schemas['SocialMetrics']

const METRIC_KEYS = ['spend', 'impressions', 'clicks', 'ctr', 'purchases', 'purchase_value', 'roas', 'cost_per_purchase'] as const
type MetricKey = (typeof METRIC_KEYS)[number]
const isMetricKey = (key: string): key is MetricKey => (METRIC_KEYS as readonly string[]).includes(key)

interface Window {
  fromDay: number
  toDay: number
}

/** The required date range of campaigns, adsets and ads (spec: 400 `Missing date_range (from/to)`). */
const requiredWindow = (ctx: RequestContext, data: ShopData): Window => dayIndexes(data.facts.campaigns.axis, requireDateRange(ctx.input), 'date_range')

/** An optional date range; all-time (every fact day) when omitted. */
function optionalWindow(ctx: HandlerContext<'listCreatorPrograms'>, data: ShopData): Window {
  const range = ctx.input.date_range
  if (range) return dayIndexes(data.facts.campaigns.axis, range, 'date_range')
  return { fromDay: 0, toDay: data.facts.socialAds.axis.todayIndex }
}

/**
 * spec: Common metric fields: sums over the window; ctr a fraction (clicks / impressions), roas =
 * purchase_value / spend (0 with no spend), cost_per_purchase = spend / purchases (0 with none).
 */
function metricsOf(data: ShopData, ads: readonly SocialAd[], { fromDay, toDay }: Window): SocialMetrics {
  const table = data.facts.socialAds
  const sum = (metric: 'spend' | 'impressions' | 'clicks' | 'purchases' | 'purchase_value') =>
    ads.reduce((total, ad) => total + table.sum(metric, ad.ad_id, fromDay, toDay), 0)
  const spend = round2(sum('spend'))
  const impressions = Math.round(sum('impressions'))
  const clicks = Math.round(sum('clicks'))
  const purchases = Math.round(sum('purchases'))
  const purchase_value = round2(sum('purchase_value'))
  return {
    spend,
    impressions,
    clicks,
    purchases,
    purchase_value,
    ctr: positiveRatio(clicks, impressions),
    roas: positiveRatio(purchase_value, spend),
    cost_per_purchase: positiveRatio(spend, purchases),
  }
}

/** Sort value of a row with `metrics`: a metric key reads the metrics, anything else the row. */
const metricOrField = (key: string) => (row: { metrics: SocialMetrics }): SortValue => {
  if (isMetricKey(key)) return row.metrics[key]
  const value = (row as Record<string, unknown>)[key]
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? (value as SortValue) : undefined
}

/** Rows flattened for CSV (metrics beside the other fields): the columns a client may pick. */
const csvColumns = (fields: readonly string[]): string[] => [...fields.filter((f) => f !== 'metrics'), ...METRIC_KEYS]

interface Listing<T> {
  key: string
  rows: T[]
  /** Every field of a row (CSV columns). */
  fields: readonly string[]
  sortKeys: readonly string[]
  fallback: string
  value: (key: string) => (row: T) => string | number | boolean | null | undefined
  id: (row: T) => string
  /** The row as answered (a copy of a stored record), made only for the rows sent; default the row itself. */
  present?: (row: T) => unknown
}

/**
 * The list answer every endpoint of this section shares: CSV link, or the sorted page with
 * `{<key>, total_count, page, page_size, sort_by, sort_direction}`. spec: an invalid sort_by falls back
 * to `spend`; sort_direction defaults to DESC, nulls last.
 */
function listAnswer<T>(ctx: RequestContext & PagedContext, listing: Listing<T>) {
  const { key, rows, fields, sortKeys, fallback, value, id, present = (row: T) => row } = listing
  const sort_by = sortKeyOr(ctx.input.sort_by, sortKeys, fallback)
  const sort_direction = upperDirectionOf(ctx.input.sort_direction)
  const sorted = sortRows(rows, value(sort_by), sort_direction, id)
  if (wantsCsv(ctx)) {
    const flat = sorted.map(present).map((row) => {
      const { metrics, ...rest } = row as Record<string, unknown> & { metrics?: SocialMetrics }
      return { ...rest, ...(metrics ?? {}) }
    })
    return csvExport(ctx, flat, csvColumns(fields))
  }
  const { rows: pageRows, page, page_size } = numberedPage(ctx, sorted)
  return { status: 200, body: { data: { [key]: pageRows.map(present), total_count: rows.length, page, page_size, sort_by, sort_direction } } }
}

const campaignsById = (data: ShopData) => new Map(data.socialCampaigns.map((c) => [c.campaign_id, c]))

type AdsIndex = Record<'campaign_id' | 'adset_id' | 'program_id', Map<string | null, SocialAd[]>>
const adsIndexes = new WeakMap<readonly SocialAd[], AdsIndex>()
const NO_ADS: SocialAd[] = []

/**
 * The shop's pushed ads by campaign, ad set and program, each group in the ads' order (so the sums
 * come out as a filter's would): built once per list of ads, as no request changes them, so a
 * listing of thousands of campaigns or programs does not scan every ad for each.
 */
function adsOf(data: ShopData, key: keyof AdsIndex, id: string | null): readonly SocialAd[] {
  let index = adsIndexes.get(data.socialAds)
  if (!index) {
    index = { campaign_id: new Map(), adset_id: new Map(), program_id: new Map() }
    for (const ad of data.socialAds) {
      for (const field of ['campaign_id', 'adset_id', 'program_id'] as const) {
        const group = index[field].get(ad[field])
        if (group) group.push(ad)
        else index[field].set(ad[field], [ad])
      }
    }
    adsIndexes.set(data.socialAds, index)
  }
  return index[key].get(id) ?? NO_ADS
}

// spec: POST /social/campaigns.
const listSocialCampaigns = defineHandler('listSocialCampaigns', (ctx) => {
  const data = shopDataFor(ctx)
  const window = requiredWindow(ctx, data)
  const campaignIds = idSetOf(ctx.input.campaign_ids)
  const programId = ctx.input.program_id
  const rows: Array<Schemas['SocialCampaign']> = data.socialCampaigns
    .filter((c) => (!campaignIds || campaignIds.has(c.campaign_id)) && (programId === undefined || c.program_id === programId))
    .map((c) => {
      const ads = adsOf(data, 'campaign_id', c.campaign_id)
      // spec: pushed_ads is the all-time count; the metrics follow date_range.
      return { campaign_id: c.campaign_id, campaign_name: c.campaign_name, pushed_ads: ads.length, metrics: metricsOf(data, ads, window) }
    })
  return listAnswer(ctx, {
    key: 'campaigns',
    rows,
    fields: ['campaign_id', 'campaign_name', 'pushed_ads', 'metrics'],
    sortKeys: [...METRIC_KEYS, 'campaign_name'],
    fallback: 'spend',
    value: metricOrField,
    id: (c) => c.campaign_id ?? '',
  })
})

// spec: POST /social/adsets.
const listSocialAdsets = defineHandler('listSocialAdsets', (ctx) => {
  const data = shopDataFor(ctx)
  const window = requiredWindow(ctx, data)
  const campaignIds = idSetOf(ctx.input.campaign_id, ctx.input.campaign_ids)
  const adsetIds = idSetOf(ctx.input.adset_ids)
  const programId = ctx.input.program_id
  const campaigns = campaignsById(data)
  const rows: Array<Schemas['SocialAdset']> = data.socialAdsets
    .filter((s) => (!campaignIds || campaignIds.has(s.campaign_id)) && (!adsetIds || adsetIds.has(s.adset_id)))
    .filter((s) => programId === undefined || campaigns.get(s.campaign_id)?.program_id === programId)
    .map((s) => {
      const ads = adsOf(data, 'adset_id', s.adset_id)
      return {
        adset_id: s.adset_id,
        adset_name: s.adset_name,
        campaign_id: s.campaign_id,
        campaign_name: campaigns.get(s.campaign_id)?.campaign_name ?? null,
        pushed_ads: ads.length,
        metrics: metricsOf(data, ads, window),
      }
    })
  return listAnswer(ctx, {
    key: 'adsets',
    rows,
    fields: ['adset_id', 'adset_name', 'campaign_id', 'campaign_name', 'pushed_ads', 'metrics'],
    sortKeys: [...METRIC_KEYS, 'campaign_name', 'adset_name'],
    fallback: 'spend',
    value: metricOrField,
    id: (s) => s.adset_id,
  })
})


const SOCIAL_AD_FIELDS = [
  'ad_id', 'campaign_id', 'campaign_name', 'adset_id', 'adset_name', 'program_id', 'handle', 'video_id', 'title', 'view_count',
  'like_count', 'comment_count', 'post_time', 'pushed_time', 'video_link', 'metrics',
] as const

// spec: POST /social/ads.
const listSocialAds = defineHandler('listSocialAds', (ctx) => {
  const data = shopDataFor(ctx)
  const window = requiredWindow(ctx, data)
  const { input } = ctx
  const campaignIds = idSetOf(input.campaign_id, input.campaign_ids)
  const adsetIds = idSetOf(input.adset_id, input.adset_ids)
  const videoIds = idSetOf(input.video_ids)
  const programId = input.program_id
  // spec: handle filter on ads: exact, case-insensitive, a leading `@` ignored.
  const handle = typeof input.handle === 'string' && handleKey(input.handle) ? handleKey(input.handle) : undefined
  const campaigns = campaignsById(data)
  const adsets = new Map(data.socialAdsets.map((s) => [s.adset_id, s]))
  const postDay = new Map<string, number>()
  const rows: Array<Schemas['SocialAd']> = data.socialAds
    .filter(
      (ad) =>
        (!campaignIds || campaignIds.has(ad.campaign_id)) &&
        (!adsetIds || adsetIds.has(ad.adset_id)) &&
        (!videoIds || videoIds.has(ad.video_id)) &&
        (programId === undefined || ad.program_id === programId) &&
        (handle === undefined || ad.handle.toLowerCase() === handle),
    )
    .map((ad) => {
      const { view_count, like_count, comment_count, post_time } = contentStats(data, ad.video_id)
      postDay.set(ad.ad_id, videoOf(data, ad.video_id)?.post_day ?? -1)
      return {
        ad_id: ad.ad_id,
        campaign_id: ad.campaign_id,
        campaign_name: campaigns.get(ad.campaign_id)?.campaign_name ?? null,
        adset_id: ad.adset_id,
        adset_name: adsets.get(ad.adset_id)?.adset_name ?? null,
        // Every pushed ad comes from a program's campaign; '' if the mirror ever lacks one (the contract's program_id is a string).
        program_id: ad.program_id ?? '',
        handle: ad.handle,
        video_id: ad.video_id,
        title: ad.title,
        view_count,
        like_count,
        comment_count,
        post_time,
        pushed_time: ad.pushed_time,
        video_link: ad.video_link,
        metrics: metricsOf(data, [ad], window),
      }
    })
  return listAnswer(ctx, {
    key: 'ads',
    rows,
    fields: SOCIAL_AD_FIELDS,
    sortKeys: [...METRIC_KEYS, 'handle', 'title', 'post_time', 'view_count'],
    fallback: 'spend',
    // post_time shows MM/DD/YYYY: sort it by the post day, not the text.
    value: (key) => (key === 'post_time' ? (ad) => postDay.get(ad.ad_id) ?? null : metricOrField(key)),
    id: (ad) => ad.ad_id,
  })
})

// --- Programs and their creators --------------------------------------------------------------

/**
 * The shops' program memberships: the world's, then joins and approvals through the control API. A
 * write replaces the list and the record it changes (the world's records are never edited).
 */
export const membershipsState = defineAreaState('social', (world) => shopStates(world, (data) => ({ members: data.programCreators as readonly ProgramCreator[] })), {
  join(shops, input: { shopId: string; member: ProgramCreator }): void {
    const shop = shops.of(input.shopId)
    shop.members = [...shop.members, input.member]
  },
  /** spec: States: Membership pending → approved, at `at`; the approved membership. */
  approve(shops, input: { shopId: string; creatorId: string; at: string }): ProgramCreator {
    const shop = shops.of(input.shopId)
    const i = shop.members.findIndex((m) => m.creator_id === input.creatorId)
    const approved: ProgramCreator = { ...shop.members[i]!, status: 'approved', approved_at: input.at }
    shop.members = shop.members.with(i, approved)
    return approved
  },
})

/** The shop's memberships as they stand now. */
const membershipsOf = (state: MockState, data: ShopData): DeepReadonly<ProgramCreator[]> => state.read(membershipsState).of(data.shop.shop_id).members

const PROGRAM_FIELDS = [
  'program_id', 'name', 'description', 'short_id', 'join_url', 'status', 'approval_mode', 'cadence', 'commission_rules', 'created_at',
  'last_payout_at', 'members_approved', 'members_pending', 'spend', 'sales', 'roas', 'earnings_paid', 'earnings_pending',
] as const

// spec: POST /social/programs: statuses default active and paused; spend and sales follow date_range
// (all-time without it); member counts and earnings are always lifetime.
const listCreatorPrograms = defineHandler('listCreatorPrograms', (ctx) => {
  const data = shopDataFor(ctx)
  const window = optionalWindow(ctx, data)
  const statuses = idSetOf(ctx.input.statuses) ?? new Set(['active', 'paused'])
  // Members approved and pending per program, counted in one pass.
  const memberCounts = new Map<string, { approved: number; pending: number }>()
  for (const m of membershipsOf(ctx.state, data)) {
    if (m.status !== 'approved' && m.status !== 'pending') continue
    const counts = memberCounts.get(m.program_id) ?? { approved: 0, pending: 0 }
    counts[m.status]++
    memberCounts.set(m.program_id, counts)
  }
  const rows: Array<Schemas['CreatorProgram']> = data.programs
    .filter((p) => statuses.has(p.status))
    .map((p) => {
      const { spend, purchase_value: sales } = metricsOf(data, adsOf(data, 'program_id', p.program_id), window)
      const count = (status: 'approved' | 'pending') => memberCounts.get(p.program_id)?.[status] ?? 0
      return {
        ...p,
        commission_rules: p.commission_rules.map((r) => ({ ...r })),
        members_approved: count('approved'),
        members_pending: count('pending'),
        spend,
        sales,
        roas: positiveRatio(sales, spend),
      }
    })
  return listAnswer(ctx, {
    key: 'programs',
    rows,
    fields: PROGRAM_FIELDS,
    sortKeys: ['created_at', 'name', 'spend', 'sales', 'roas', 'earnings_paid', 'earnings_pending', 'members_approved'],
    fallback: ctx.input.sort_by === undefined ? 'created_at' : 'spend',
    value: (key) => (p) => p[key as keyof typeof p] as string | number,
    id: (p) => p.program_id,
  })
})

const CREATOR_FIELDS = [
  'creator_id', 'handle', 'status', 'program_id', 'program_name', 'commission_pct', 'commission_rules', 'joined_at', 'approved_at',
  'earnings_paid', 'ads_count', 'ig_usernames',
] as const

// spec: POST /social/programs/creators: statuses default pending and approved, handle a
// case-insensitive substring, sort default joined_at, nulls last.
const listProgramCreators = defineHandler('listProgramCreators', (ctx) => {
  const data = shopDataFor(ctx)
  const programId = ctx.input.program_id
  const statuses = idSetOf(ctx.input.statuses) ?? new Set(['pending', 'approved'])
  const handle = typeof ctx.input.handle === 'string' && ctx.input.handle.trim() ? ctx.input.handle.trim().toLowerCase() : undefined
  const rows = membershipsOf(ctx.state, data).filter(
    (m) => (programId === undefined || m.program_id === programId) && statuses.has(m.status) && (handle === undefined || (m.handle !== null && m.handle.toLowerCase().includes(handle))),
  )
  return listAnswer(ctx, {
    key: 'creators',
    rows,
    present: (m) => ({ ...m, commission_rules: m.commission_rules.map((r) => ({ ...r })), ig_usernames: [...m.ig_usernames] }),
    fields: CREATOR_FIELDS,
    sortKeys: ['joined_at', 'approved_at', 'handle', 'commission_pct', 'earnings_paid', 'ads_count'],
    // A creator has no spend: an invalid sort_by falls back to the default, joined_at.
    fallback: 'joined_at',
    value: (key) => (m) => m[key as keyof ProgramCreator] as string | number | null,
    id: (m) => m.creator_id,
  })
})

/** A UUID-shaped id derived from text (the control API's new memberships; deterministic on the clock). */
function uuidFrom(text: string): string {
  const h = digest(text, 32)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const programOf = (data: ShopData, programId: unknown): CreatorProgram => {
  const program = data.programs.find((p) => p.program_id === programId)
  if (!program) throw apiError(404, `No program ${String(programId)}`)
  return program
}

/**
 * Control API `social/join` `{shop_id, program_id, handle, ig_usernames?}`: a creator joins through the
 * program's join link. spec: States: `paused` closes the join link and `archived` programs are deleted;
 * with approval mode `manual` the creator waits as `pending`, with `auto` is approved immediately; a
 * creator is in at most one program per brand at a time (pending or approved elsewhere: 409).
 */
const joinProgram: AdminAction = (state, input) => {
  const data = adminShop(state, input)
  const program = programOf(data, input.program_id)
  if (program.status !== 'active') throw apiError(409, `The join link of program ${program.program_id} is closed (${program.status})`)
  if (typeof input.handle !== 'string' || !input.handle.trim()) throw apiError(400, 'handle is required')
  const handle = input.handle.trim().replace(/^@/, '')
  const members = membershipsOf(state, data)
  if (members.some((m) => m.handle?.toLowerCase() === handle.toLowerCase() && (m.status === 'pending' || m.status === 'approved'))) {
    throw apiError(409, `${handle} is already in a program of this brand`)
  }
  const now = state.clock.now().toISOString()
  const auto = program.approval_mode === 'auto'
  const pct = program.commission_rules.find((r) => r.type === 'gmv_pct')?.pct
  const member: ProgramCreator = {
    creator_id: uuidFrom(`${data.shop.shop_id}:${program.program_id}:${handle}:${now}`),
    handle,
    status: auto ? 'approved' : 'pending',
    program_id: program.program_id,
    program_name: program.name,
    commission_pct: pct ?? null,
    commission_rules: program.commission_rules.map((r) => ({ ...r })),
    joined_at: now,
    approved_at: auto ? now : null,
    earnings_paid: 0,
    ads_count: 0,
    ig_usernames: Array.isArray(input.ig_usernames) ? input.ig_usernames.filter((u): u is string => typeof u === 'string') : [],
  }
  state.write(membershipsState, 'join', { shopId: data.shop.shop_id, member })
  return { ...member }
}

/** Control API `social/approve` `{shop_id, creator_id}`: the brand approves a pending membership (spec: States: Membership pending). */
const approveMember: AdminAction = (state, input) => {
  const data = adminShop(state, input)
  const member = membershipsOf(state, data).find((m) => m.creator_id === input.creator_id)
  if (!member) throw apiError(404, `No program creator ${String(input.creator_id)}`)
  if (member.status !== 'pending') throw apiError(409, `Program creator ${member.creator_id} is ${member.status}, not pending`)
  return { ...state.write(membershipsState, 'approve', { shopId: data.shop.shop_id, creatorId: member.creator_id, at: state.clock.now().toISOString() }) }
}

export const social: AreaModule = {
  handlers: { listSocialCampaigns, listSocialAdsets, listSocialAds, listCreatorPrograms, listProgramCreators },
  // spec: all accept snake_case and camelCase keys.
  normalizers: Object.fromEntries(
    ['listSocialCampaigns', 'listSocialAdsets', 'listSocialAds', 'listCreatorPrograms', 'listProgramCreators'].map((id) => [id, acceptCamelCase({ sortDir: 'sort_direction' })]),
  ),
  adminActions: { 'social/join': joinProgram, 'social/approve': approveMember },
}
