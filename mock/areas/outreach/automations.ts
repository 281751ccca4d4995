/**
 * Outreach automations (spec: Outreach automations; States and transitions: Automation `stopped`;
 * Limits: automation audience filters; Versioning: legacy gmv_ranges / live_gmv).
 */
import type { EventKind } from '../../../fixtures/facts.ts'
import type { Affiliate, Automation, Creator, ShopData } from '../../../fixtures/types.ts'
import type { components } from '../../../openapi/types.ts'
import { defineHandler, type DeepReadonly, type InputOf, type RequestContext } from '../../context.ts'
import { campaignOrdinalTable, countShopEvents } from '../../events.ts'
import { apiError } from '../../respond.ts'
import { deleteById, findRecord, groupSize, nonBlank } from './common.ts'
import { localDayStartMs } from '../../lib/dates.ts'
import { outreachRecords, outreachState, type OutreachRecords } from '../../lib/outreach.ts'
import { MIN_SPS_TO_MESSAGE, shopScope } from '../../lib/shop.ts'

type OutreachAudience = components['schemas']['OutreachAudience']
type OutreachFilters = components['schemas']['OutreachFilters'] & Record<string, unknown>

/**
 * DMs a shop may send per day (not shown by the spec; inferred). `messages_remaining` is this
 * allowance minus every DM the shop sent today: first DMs, open-plan cards and follow-ups.
 */
export const DAILY_DM_ALLOWANCE = 200
const DM_KINDS: readonly EventKind[] = ['dm_sent', 'open_plan_card', 'followup_dm']

/** The shop's DM allowance left for its current local day (0 when its SPS restricts messaging). */
export function messagesRemaining(ctx: RequestContext, shopId: string): number {
  const shop = ctx.shop!
  if (shop.sps < MIN_SPS_TO_MESSAGE) return 0
  const nowMs = ctx.now.getTime()
  const dayStart = localDayStartMs(shop.timezone, nowMs)
  const sent = DM_KINDS.reduce((n, kind) => n + countShopEvents(ctx.state, shopId, kind, dayStart, nowMs + 1), 0)
  return Math.max(0, DAILY_DM_ALLOWANCE - sent)
}

// spec: Limits: `categories` beyond 5 and `units_sold` / `follower_ages` beyond 2 entries are silently dropped.
const FILTER_LIST_CAPS: Record<string, number> = { categories: 5, units_sold: 2, follower_ages: 2 }
// spec: Outreach automations: the legacy bucket arrays exist on old automations and must not be sent.
const LEGACY_FILTERS: Record<string, string> = { gmv_ranges: 'min_gmv / max_gmv', live_gmv: 'min_live_gmv / max_live_gmv' }

const hasLegacyFilters = (filters: Record<string, unknown> | null | undefined) => !!filters && Object.keys(LEGACY_FILTERS).some((k) => k in filters)

/**
 * The filters as stored: list fields cut to their caps. Legacy buckets are refused unless the
 * automation already carries them (an old automation: spec: Versioning, legacy keys stay accepted).
 */
function storedFilters(raw: OutreachFilters, legacyAccepted: boolean): OutreachFilters {
  const legacy = Object.keys(LEGACY_FILTERS).filter((k) => k in raw)
  if (legacy.length > 0 && !legacyAccepted) {
    const names = legacy.map((k) => `outreach_filters.${k}`).join(' and ')
    const instead = legacy.map((k) => LEGACY_FILTERS[k]).join(' and ')
    throw apiError(400, `${names}: legacy bucket arrays exist only on old automations and must not be sent; use ${instead}`)
  }
  const filters: OutreachFilters = { ...raw }
  for (const [field, cap] of Object.entries(FILTER_LIST_CAPS)) {
    const values = filters[field]
    if (Array.isArray(values) && values.length > cap) filters[field] = values.slice(0, cap)
  }
  return filters
}

/** The audience in its object form: the bare value takes `group_id` / `list` from the body's top level. */
function audienceOf(input: InputOf<'createAutomation' | 'updateAutomation'>): OutreachAudience | undefined {
  const raw = input.outreach_audience
  if (raw === undefined) return undefined
  const type = typeof raw === 'string' ? raw : raw.type
  const source = typeof raw === 'string' ? input : raw
  if (type === 'groups') {
    const groupId = nonBlank(source.group_id)
    if (!groupId) throw apiError(400, 'outreach_audience "groups" needs a group_id')
    return { type, group_id: groupId }
  }
  if (type === 'list') {
    const list = nonBlank(source.list)
    if (!list) throw apiError(400, 'outreach_audience "list" needs a list title in list')
    return { type, list }
  }
  return { type }
}

// spec: Rules of the named resources: Groups: an automation uses one by `groups` with `group_id`; lists by `list`.
function requireAudienceExists(data: DeepReadonly<OutreachRecords>, audience: OutreachAudience): void {
  if (audience.type === 'groups' && !data.groups.some((g) => g.group_id === audience.group_id)) {
    throw apiError(400, `outreach_audience.group_id: no group ${audience.group_id} in this shop`)
  }
  if (audience.type === 'list' && !data.lists.some((l) => l.title === audience.list)) {
    throw apiError(400, `outreach_audience.list: no list titled "${audience.list}" in this shop`)
  }
}

type NumericCreatorField = { [K in keyof Creator]: Creator[K] extends number | null ? K : never }[keyof Creator]
// spec: Outreach automations: outreach_filters fields (lower and upper bounds) and the creator field each reads.
const FILTER_BOUNDS: Array<[lower: string | undefined, upper: string | undefined, field: NumericCreatorField]> = [
  ['follower_min', 'follower_max', 'follower_cnt'],
  ['min_gmv', 'max_gmv', 'med_gmv_revenue'],
  ['min_live_gmv', 'max_live_gmv', 'live_gmv_30d'],
  ['engagement', 'max_engagement', 'video_engagement'],
  ['avg_view_cnt', 'max_avg_view_cnt', 'video_avg_view_cnt'],
  ['post_rate', undefined, 'post_rate'],
  ['brand_collaborations', 'max_brand_collaborations', 'brand_collaborations'],
  ['min_pps', 'max_pps', 'pps'],
  ['min_content_quality', 'max_content_quality', 'content_quality'],
  ['min_live_avg_view_cnt', 'max_live_avg_view_cnt', 'live_avg_view_cnt'],
  ['min_creator_rating', 'max_creator_rating', 'creator_rating'],
  ['min_sample_score', 'max_sample_score', 'sample_score'],
  ['min_posts_with_samples', 'max_posts_with_samples', 'posts_with_samples'],
  ['min_post_frequency', 'max_post_frequency', 'post_frequency'],
  ['min_sales_generation', 'max_sales_generation', 'sales_generation'],
]
// Value lists: OR within the field; demographic and appearance values match case-insensitively.
const FILTER_VALUES: Array<[filter: string, values: (c: Creator) => Array<string | null>, caseInsensitive: boolean]> = [
  ['categories', (c) => [c.category, ...Object.keys(c.category_splits)], false],
  ['units_sold', (c) => [c.units_sold_range], false],
  ['follower_ages', (c) => [c.top_follower_ages], false],
  ['gender', (c) => [c.gender], true],
  ['age', (c) => [c.age], true],
  ['race', (c) => [c.race], true],
  ['body_type', (c) => [c.body_type], true],
  ['economic_status', (c) => [c.economic_status], true],
  ['face_visibility', (c) => [c.face_visibility], true],
  ['tone', (c) => [c.tone], true],
  ['language', (c) => [c.language], true],
  ['follower_gender', (c) => [c.top_follower_gender], true],
]

/** True when a creator of the platform index passes every filter (AND across fields). */
export function matchesOutreachFilters(creator: Creator, filters: OutreachFilters): boolean {
  for (const [lower, upper, field] of FILTER_BOUNDS) {
    const lo = lower === undefined ? undefined : filters[lower]
    const hi = upper === undefined ? undefined : filters[upper]
    if (typeof lo !== 'number' && typeof hi !== 'number') continue
    const value = creator[field]
    if (value === null) return false
    if (typeof lo === 'number' && value < lo) return false
    if (typeof hi === 'number' && value > hi) return false
  }
  if (typeof filters.is_fast_growing === 'boolean' && creator.is_fast_growing !== filters.is_fast_growing) return false
  for (const [filter, valuesOf, caseInsensitive] of FILTER_VALUES) {
    const wanted = filters[filter]
    if (!Array.isArray(wanted) || wanted.length === 0) continue
    const fold = (v: string) => (caseInsensitive ? v.toLowerCase() : v)
    const accepted = new Set((wanted as string[]).map(fold))
    if (!valuesOf(creator).some((v) => v !== null && accepted.has(fold(v)))) return false
  }
  return true
}

/**
 * How many creators the audience resolves to now (null when its group or list is gone): a group is
 * re-resolved against the CRM, a list is its roster, `new_affiliates` are the platform's creators
 * not yet in the shop's CRM that pass the stored filters.
 */
function audienceCount(ctx: RequestContext, shopId: string, data: ShopData, automation: DeepReadonly<Automation>): number | null {
  const audience = automation.outreach_audience
  const records = outreachRecords(ctx.state, shopId)
  if (audience.type === 'groups') {
    const group = records.groups.find((g) => g.group_id === audience.group_id)
    return group ? groupSize(ctx.state, shopId, group.filters) : null
  }
  if (audience.type === 'list') return records.lists.find((l) => l.title === audience.list)?.handles.length ?? null
  return newAffiliatesCount(ctx.world.creators, data.affiliates, (automation.outreach_filters ?? {}) as OutreachFilters)
}

/** Filters counted per shop (they are client input): the count of a repeated filter is kept. */
const MAX_COUNTED_FILTERS = 256
/**
 * By the shop's affiliates (a view of the world keeps them, and the creators they index), with the
 * creators they were counted against: new-affiliate audience sizes by filters, as JSON.
 */
const newAffiliatesCounts = new WeakMap<readonly Affiliate[], { creators: readonly Creator[]; byFilters: Map<string, number> }>()

/**
 * How many of the platform's creators are not in the shop's CRM and pass the filters. Neither list
 * changes with a request, so each filter's count is made once per shop (a scan of every creator).
 */
function newAffiliatesCount(creators: readonly Creator[], affiliates: readonly Affiliate[], filters: OutreachFilters): number {
  let counts = newAffiliatesCounts.get(affiliates)
  if (!counts || counts.creators !== creators) newAffiliatesCounts.set(affiliates, (counts = { creators, byFilters: new Map() }))
  const id = JSON.stringify(filters)
  let count = counts.byFilters.get(id)
  if (count === undefined) {
    const inCrm = new Set(affiliates.map((a) => a.creator_index))
    count = creators.filter((c, i) => !inCrm.has(i) && matchesOutreachFilters(c, filters)).length
    if (counts.byFilters.size >= MAX_COUNTED_FILTERS) counts.byFilters.clear()
    counts.byFilters.set(id, count)
  }
  return count
}

function automationView(ctx: RequestContext, shopId: string, data: ShopData, automation: DeepReadonly<Automation>, remaining: number) {
  const { messages_remaining: _stored, updated_at, ...fields } = automation
  return { ...fields, messages_remaining: remaining, audience_count: audienceCount(ctx, shopId, data, automation), updated_at: updated_at ?? automation.created_at }
}

const findAutomation = (ctx: RequestContext, shopId: string, campaignId: string) => findRecord(ctx.state, shopId, 'automations', campaignId, 'automation')

const inviteDetails = (details: { message?: string } | undefined) => (details ? { message: details.message ?? null } : null)

// spec: Outreach automations: 201 {data: {message, campaign_id, status, messages_remaining}}; States: `stopped` after create.
const createAutomation = defineHandler('createAutomation', (ctx) => {
  const shopId = ctx.shop.shop_id
  const { input } = ctx
  const title = nonBlank(input.title)
  if (!title) throw apiError(400, 'title is required')
  const audience = audienceOf(input)
  if (!audience) throw apiError(400, 'outreach_audience is required: new_affiliates, groups (with group_id) or list (with a list title)')
  requireAudienceExists(outreachRecords(ctx.state, shopId), audience)
  const outreach_filters = storedFilters(input.outreach_filters ?? {}, false)
  const remaining = messagesRemaining(ctx, shopId)
  const automation = ctx.state.write(outreachState, 'createAutomation', {
    shopId,
    title,
    message_type: input.message_type ?? 'dm',
    outreach_audience: audience,
    dm_messages: input.dm_messages ?? [],
    invite_details: inviteDetails(input.invite_details),
    outreach_filters,
    messages_remaining: remaining,
    now: ctx.now.toISOString(),
  })
  return {
    status: 201,
    body: { data: { message: `Automation "${title}" created; it stays stopped until it is started`, campaign_id: automation.campaign_id, status: automation.status, messages_remaining: remaining } },
  }
})

// Update: the create fields, each optional; outreach_filters replaces the stored filters as a whole.
const updateAutomation = defineHandler('updateAutomation', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const records = outreachRecords(ctx.state, shopId)
  const automation = findAutomation(ctx, shopId, input.campaign_id)
  const changes: Partial<Automation> = {}
  if (input.title !== undefined) {
    const title = nonBlank(input.title)
    if (!title) throw apiError(400, 'title must not be blank')
    changes.title = title
  }
  const audience = audienceOf(input)
  if (audience) {
    requireAudienceExists(records, audience)
    changes.outreach_audience = audience
  }
  if (input.outreach_filters !== undefined) changes.outreach_filters = storedFilters(input.outreach_filters, hasLegacyFilters(automation.outreach_filters))
  if (input.message_type !== undefined) changes.message_type = input.message_type
  if (input.dm_messages !== undefined) changes.dm_messages = input.dm_messages
  if (input.invite_details !== undefined) changes.invite_details = inviteDetails(input.invite_details)
  const updated = ctx.state.write(outreachState, 'updateAutomation', { shopId, id: automation.campaign_id, changes, now: ctx.now.toISOString() })
  return { status: 200, body: { data: automationView(ctx, shopId, data, updated, messagesRemaining(ctx, shopId)) } }
})

const removeAutomation = deleteById('automations', 'automation')
// Number the automations before one goes, so their DM and invite events stay attached (spec: POST /shop/stats, campaign_id).
const deleteAutomation = defineHandler('deleteAutomation', (ctx) => {
  const shopId = ctx.shop.shop_id
  campaignOrdinalTable(ctx.state, shopId, 'automations', outreachRecords(ctx.state, shopId).automations)
  return removeAutomation(ctx)
})

const listAutomations = defineHandler('listAutomations', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const status = ctx.input.status
  const remaining = messagesRemaining(ctx, shopId)
  const automations = outreachRecords(ctx.state, shopId).automations.filter((a) => status === undefined || a.status === status).map((a) => automationView(ctx, shopId, data, a, remaining))
  return { status: 200, body: { data: { automations, total_count: automations.length } } }
})

export const automationHandlers = { createAutomation, updateAutomation, deleteAutomation, listAutomations }
