/**
 * Community campaigns and payouts (spec: Rules of the named resources: Community campaigns; Other
 * named resources: Community campaign; Idempotency: POST /community/payouts/authorize; Errors: 400
 * repeated community payout). The Scale plan gate is the pipeline's.
 */
import type { CommunityCampaign, Creator } from '../../../fixtures/types.ts'
import { defineHandler, type DeepReadonly, type InputOf, type ShopContext } from '../../context.ts'
import { apiError } from '../../respond.ts'
import { checkedAfterDraw, deleteById, findRecord, knownCreator, nonBlank } from './common.ts'
import { listHandle } from '../../lib/handles.ts'
import { dateInZone } from '../../lib/dates.ts'
import { outreachRecords, outreachState } from '../../lib/outreach.ts'

/** The shop's local date of the request (a campaign going live starts that day). */
const shopToday = (ctx: ShopContext): string => dateInZone(ctx.now, ctx.shop.timezone)

const findCampaign = (ctx: ShopContext, campaignId: string) => findRecord(ctx.state, ctx.shop.shop_id, 'communityCampaigns', campaignId, 'community campaign')

type CampaignDates = Pick<CommunityCampaign, 'status' | 'start_date' | 'end_date'>

/**
 * Applies the status rules: `active` is live immediately (starts today unless a start date is set);
 * `ended` ends today unless an end date is set. The dates must be in order.
 */
function settleDates<T extends CampaignDates>(ctx: ShopContext, campaign: T): T {
  const settled = { ...campaign }
  if (settled.status === 'active' && !settled.start_date) settled.start_date = shopToday(ctx)
  if (settled.status === 'ended' && !settled.end_date) settled.end_date = shopToday(ctx)
  if (settled.start_date && settled.end_date && settled.end_date < settled.start_date) throw apiError(400, 'end_date must not be before start_date')
  return settled
}

const communityCampaignView = (c: DeepReadonly<CommunityCampaign>) => ({ settings: {}, ...c, updated_at: c.updated_at ?? c.created_at })

// spec: Other named resources: a 6-character slug and share_link {community_url}/<slug>; status active goes live at once.
// The community hub is shared by every shop: the write makes the slug unique across the world. Dates
// out of order are refused after the slug and the id are drawn.
const createCommunityCampaign = defineHandler('createCommunityCampaign', (ctx) => {
  const shopId = ctx.shop.shop_id
  const { input } = ctx
  const title = nonBlank(input.title)
  if (!title) throw apiError(400, 'title must not be blank')
  const wanted = { status: input.status ?? 'draft', start_date: input.start_date ?? null, end_date: input.end_date ?? null } as CampaignDates
  const dates = checkedAfterDraw(ctx, { shopId, ids: 1, codes: ['community-slug'] }, () => settleDates(ctx, wanted))
  const campaign = ctx.state.write(outreachState, 'createCommunityCampaign', {
    shopId,
    title,
    type: input.type,
    status: dates.status,
    description: input.description ?? null,
    start_date: dates.start_date,
    end_date: dates.end_date,
    settings: input.settings ?? {},
    now: ctx.now.toISOString(),
  } as Parameters<(typeof outreachState.writes)['createCommunityCampaign']>[1])
  return { status: 201, body: { data: communityCampaignView(campaign) } }
})

const updateCommunityCampaign = defineHandler('updateCommunityCampaign', (ctx) => {
  const { input } = ctx
  const campaign = findCampaign(ctx, input.campaign_id)
  const changes: Partial<CommunityCampaign> = {}
  if (input.title !== undefined) {
    const title = nonBlank(input.title)
    if (!title) throw apiError(400, 'title must not be blank')
    changes.title = title
  }
  for (const field of ['status', 'description', 'start_date', 'end_date', 'settings'] as const) {
    if (input[field] !== undefined) (changes as Record<string, unknown>)[field] = input[field]
  }
  const dates = settleDates(ctx, { status: campaign.status, start_date: campaign.start_date, end_date: campaign.end_date, ...changes } as CampaignDates)
  const updated = ctx.state.write(outreachState, 'updateCommunityCampaign', { shopId: ctx.shop.shop_id, id: campaign.campaign_id, changes: { ...changes, ...dates }, now: ctx.now.toISOString() })
  return { status: 200, body: { data: communityCampaignView(updated) } }
})

// Payouts already authorized stay on record (history) after their campaign is deleted.
const deleteCommunityCampaign = defineHandler('deleteCommunityCampaign', deleteById('communityCampaigns', 'community campaign'))

/** The body of POST /community/payouts/authorize. */
type PayoutInput = InputOf<'authorizeCommunityPayout'>

/** The creator of the platform index that creator_id and/or handle name (404 unknown, 400 when they disagree). */
function payoutCreator(ctx: ShopContext, input: PayoutInput): Creator {
  const { creator_id: creatorId, handle: rawHandle } = input
  const byId = creatorId === undefined ? undefined : ctx.world.creators.find((c) => c.creator_id === creatorId)
  if (creatorId !== undefined && !byId) throw apiError(404, `No creator with creator_id ${creatorId}`)
  if (rawHandle === undefined) return byId!
  const handle = listHandle(rawHandle)
  const byHandle = handle === undefined ? undefined : knownCreator(ctx.world)(handle)
  if (!byHandle) throw apiError(404, `No creator with handle ${rawHandle}`)
  if (byId && byId !== byHandle) throw apiError(400, `creator_id ${creatorId} and handle ${rawHandle} name different creators`)
  return byHandle
}

/**
 * spec: Idempotency: authorize is idempotent without the header, keyed on (campaign, creator,
 * period); a repeat is 400 with an already-paid message. The amount defaults to the campaign's
 * `settings.reward` when it has one.
 */
const authorizeCommunityPayout = defineHandler('authorizeCommunityPayout', (ctx) => {
  const shopId = ctx.shop.shop_id
  const { input } = ctx
  const campaign = findCampaign(ctx, input.campaign_id)
  const creator = payoutCreator(ctx, input)
  const period = nonBlank(input.period)
  if (!period) throw apiError(400, 'period must not be blank')
  const paid = outreachRecords(ctx.state, shopId).communityPayouts.find((p) => p.campaign_id === campaign.campaign_id && p.creator_id === creator.creator_id && p.period === period)
  if (paid) {
    throw apiError(400, `Already paid: ${creator.handle} was already paid for campaign ${campaign.campaign_id}, period ${period} (payout ${paid.payout_id ?? 'on record'}, authorized ${paid.authorized_at ?? 'earlier'})`)
  }
  const reward = (campaign.settings as Record<string, unknown> | undefined)?.reward
  const payout = ctx.state.write(outreachState, 'authorizeCommunityPayout', {
    shopId,
    campaign_id: campaign.campaign_id,
    creator_id: creator.creator_id,
    handle: creator.handle,
    period,
    amount: input.amount ?? (typeof reward === 'number' ? reward : null),
    authorized_at: ctx.now.toISOString(),
  })
  return { status: 200, body: { data: payout } }
})

export const communityHandlers = { createCommunityCampaign, updateCommunityCampaign, deleteCommunityCampaign, authorizeCommunityPayout }
