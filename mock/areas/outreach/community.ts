/**
 * Community campaigns and payouts (spec: Rules of the named resources: Community campaigns; Other
 * named resources: Community campaign; Idempotency: POST /community/payouts/authorize; Errors: 400
 * repeated community payout). The Scale plan gate is the pipeline's.
 */
import { COMMUNITY_URL } from '../../../fixtures/outreach.ts'
import type { CommunityCampaign, CommunityPayout, Creator, ShopData } from '../../../fixtures/types.ts'
import { defineHandler, type InputOf, type ShopContext } from '../../context.ts'
import { apiError } from '../../respond.ts'
import { deleteById, findRecord, knownCreator, newCode, newId, nonBlank } from './common.ts'
import { listHandle } from '../../lib/handles.ts'
import { dateInZone } from '../../lib/dates.ts'
import { shopScope } from '../../lib/shop.ts'

/** The shop's local date of the request (a campaign going live starts that day). */
const shopToday = (ctx: ShopContext): string => dateInZone(ctx.now, ctx.shop.timezone)

const findCampaign = (data: ShopData, campaignId: string) => findRecord(data.communityCampaigns, 'campaign_id', campaignId, 'community campaign')

/**
 * Applies the status rules: `active` is live immediately (starts today unless a start date is set);
 * `ended` ends today unless an end date is set. The dates must be in order.
 */
function settleDates(ctx: ShopContext, campaign: CommunityCampaign): void {
  if (campaign.status === 'active' && !campaign.start_date) campaign.start_date = shopToday(ctx)
  if (campaign.status === 'ended' && !campaign.end_date) campaign.end_date = shopToday(ctx)
  if (campaign.start_date && campaign.end_date && campaign.end_date < campaign.start_date) throw apiError(400, 'end_date must not be before start_date')
}

const communityCampaignView = (c: CommunityCampaign) => ({ settings: {}, ...c, updated_at: c.updated_at ?? c.created_at })

// spec: Other named resources: a 6-character slug and share_link {community_url}/<slug>; status active goes live at once.
const createCommunityCampaign = defineHandler('createCommunityCampaign', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const title = nonBlank(input.title)
  if (!title) throw apiError(400, 'title must not be blank')
  // The community hub is shared by every shop: slugs are unique across the world.
  const taken = new Set(Object.values(ctx.world.shopData).flatMap((d) => d.communityCampaigns.map((c) => c.slug)))
  const slug = newCode(ctx, shopId, 'community-slug', 6, taken, 'base36')
  const now = ctx.now.toISOString()
  const campaign = {
    campaign_id: newId(ctx, shopId, 'community-campaign'),
    title,
    type: input.type,
    status: input.status ?? 'draft',
    slug,
    share_link: `${COMMUNITY_URL}/${slug}`,
    description: input.description ?? null,
    start_date: input.start_date ?? null,
    end_date: input.end_date ?? null,
    settings: input.settings ?? {},
    created_at: now,
    updated_at: now,
  } as CommunityCampaign
  settleDates(ctx, campaign)
  data.communityCampaigns.push(campaign)
  return { status: 201, body: { data: communityCampaignView(campaign) } }
})

const updateCommunityCampaign = defineHandler('updateCommunityCampaign', (ctx) => {
  const { data } = shopScope(ctx)
  const { input } = ctx
  const campaign = findCampaign(data, input.campaign_id)
  const next = { ...campaign }
  if (input.title !== undefined) {
    const title = nonBlank(input.title)
    if (!title) throw apiError(400, 'title must not be blank')
    next.title = title
  }
  for (const field of ['status', 'description', 'start_date', 'end_date', 'settings'] as const) {
    if (input[field] !== undefined) (next as Record<string, unknown>)[field] = input[field]
  }
  settleDates(ctx, next)
  Object.assign(campaign, next, { updated_at: ctx.now.toISOString() })
  return { status: 200, body: { data: communityCampaignView(campaign) } }
})

// Payouts already authorized stay on record (history) after their campaign is deleted.
const deleteCommunityCampaign = defineHandler('deleteCommunityCampaign', deleteById((data) => data.communityCampaigns, 'campaign_id', 'community campaign'))

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
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const campaign = findCampaign(data, input.campaign_id)
  const creator = payoutCreator(ctx, input)
  const period = nonBlank(input.period)
  if (!period) throw apiError(400, 'period must not be blank')
  const paid = data.communityPayouts.find((p) => p.campaign_id === campaign.campaign_id && p.creator_id === creator.creator_id && p.period === period)
  if (paid) {
    throw apiError(400, `Already paid: ${creator.handle} was already paid for campaign ${campaign.campaign_id}, period ${period} (payout ${paid.payout_id ?? 'on record'}, authorized ${paid.authorized_at ?? 'earlier'})`)
  }
  const reward = (campaign.settings as Record<string, unknown> | undefined)?.reward
  const payout: CommunityPayout = {
    payout_id: newId(ctx, shopId, 'community-payout'),
    campaign_id: campaign.campaign_id,
    creator_id: creator.creator_id,
    handle: creator.handle,
    period,
    amount: input.amount ?? (typeof reward === 'number' ? reward : null),
    status: 'authorized',
    authorized_at: ctx.now.toISOString(),
  }
  data.communityPayouts.push(payout)
  return { status: 200, body: { data: payout } }
})

export const communityHandlers = { createCommunityCampaign, updateCommunityCampaign, deleteCommunityCampaign, authorizeCommunityPayout }
