/**
 * Email campaigns and custom senders (spec: Endpoints whose shapes are incomplete or absent: Email
 * campaigns and senders). Sending records one `email_sent` event per recipient with an email address,
 * so the `emails_sent` stat (POST /shop/stats) and the campaign's own `emails_sent` count it.
 */
import type { EmailCampaign, EmailSender, ShopData } from '../../../fixtures/types.ts'
import type { components } from '../../../openapi/types.ts'
import { defineHandler, type RequestContext } from '../../context.ts'
import { countShopEvents, recordEvent } from '../../events.ts'
import { apiError } from '../../respond.ts'
import { campaignOrdinals, creatorIndexByHandle, deleteById, findRecord, groupMembers, knownCreator, newId, nonBlank, resolveHandles } from './common.ts'
import { shopScope } from '../../lib/shop.ts'

type EmailRecipients = components['schemas']['EmailRecipients']
type StoredEmailCampaign = EmailCampaign & { recipients?: EmailRecipients }

/** The `campaign` index of a shop's email events (stable across deletes). */
const emailOrdinals = (ctx: RequestContext, shopId: string, data: ShopData) => campaignOrdinals(ctx.state, shopId, 'emails', data.emailCampaigns)

const findEmailCampaign = (data: ShopData, campaignId: string): StoredEmailCampaign => findRecord(data.emailCampaigns, 'campaign_id', campaignId, 'email campaign')

/** The sender a campaign uses: the one named (400 if not the shop's), else the shop's default (non-custom) sender. */
function senderOf(data: ShopData, senderId: string | undefined): string | null {
  if (senderId !== undefined) {
    if (!data.emailSenders.some((s) => s.sender_id === senderId)) throw apiError(400, `sender_id: no email sender ${senderId} in this shop`)
    return senderId
  }
  return (data.emailSenders.find((s) => !s.custom) ?? data.emailSenders[0])?.sender_id ?? null
}

/** Checks that every recipient source exists: known creators by handle, a list title, a group. */
function checkRecipients(ctx: RequestContext, data: ShopData, recipients: EmailRecipients): EmailRecipients {
  const { unmatched } = resolveHandles(recipients.handles ?? [], knownCreator(ctx.world))
  if (unmatched.length > 0) throw apiError(400, `recipients.handles: no known creator for ${unmatched.map((h) => JSON.stringify(h)).join(', ')}`)
  if (recipients.list !== undefined && !data.lists.some((l) => l.title === recipients.list)) throw apiError(400, `recipients.list: no list titled "${recipients.list}" in this shop`)
  if (recipients.group_id !== undefined && !data.groups.some((g) => g.group_id === recipients.group_id)) throw apiError(400, `recipients.group_id: no group ${recipients.group_id} in this shop`)
  return recipients
}

/**
 * The creators (indexes into world.creators) an email goes to now, each once: the handles, the
 * list's roster and the group re-resolved against the CRM; only those with an email address (the
 * shop's CRM override, else the public profile email).
 */
function recipientCreators(ctx: RequestContext, shopId: string, data: ShopData, recipients: EmailRecipients): number[] {
  const handles = [...(recipients.handles ?? [])]
  if (recipients.list !== undefined) handles.push(...(data.lists.find((l) => l.title === recipients.list)?.handles ?? []))
  const group = recipients.group_id === undefined ? undefined : data.groups.find((g) => g.group_id === recipients.group_id)
  if (group) handles.push(...groupMembers(ctx.state, shopId, group.filters).map((m) => m.handle))
  const crm = new Map(data.affiliates.map((a) => [a.creator_index, a]))
  const indexes = resolveHandles(handles, (h) => creatorIndexByHandle(ctx.world, h)).found.map((f) => f.match)
  return indexes.filter((i) => (crm.get(i)?.email ?? ctx.world.creators[i]!.email) !== null)
}

/** Sends the campaign now: one `email_sent` event per recipient, at the mock clock's time. */
function send(ctx: RequestContext, shopId: string, data: ShopData, campaign: StoredEmailCampaign): void {
  if (!campaign.recipients || Object.keys(campaign.recipients).length === 0) throw apiError(400, 'recipients are required to send: handles, list or group_id')
  const ordinal = emailOrdinals(ctx, shopId, data)(campaign.campaign_id)
  const at = ctx.now.getTime()
  for (const creator of recipientCreators(ctx, shopId, data, campaign.recipients)) recordEvent(ctx.state, shopId, { kind: 'email_sent', at, creator, campaign: ordinal })
  campaign.status = 'sent'
  campaign.sent_at = ctx.now.toISOString()
}

function emailCampaignView(ctx: RequestContext, shopId: string, data: ShopData, campaign: StoredEmailCampaign) {
  const ordinal = emailOrdinals(ctx, shopId, data)(campaign.campaign_id)
  return {
    ...campaign,
    recipients: campaign.recipients ?? {},
    emails_sent: countShopEvents(ctx.state, shopId, 'email_sent', -Infinity, Infinity, ordinal),
    updated_at: campaign.updated_at ?? campaign.created_at,
  }
}

const wantsSend = (input: Record<string, any>) => input.send_now === true || input.status === 'sent'

const createEmailCampaign = defineHandler('createEmailCampaign', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const title = nonBlank(input.title)
  if (!title) throw apiError(400, 'title is required')
  emailOrdinals(ctx, shopId, data)
  const now = ctx.now.toISOString()
  const campaign: StoredEmailCampaign = {
    campaign_id: newId(ctx, shopId, 'email-campaign'),
    title,
    subject: input.subject ?? null,
    body: input.body ?? null,
    sender_id: senderOf(data, input.sender_id),
    recipients: checkRecipients(ctx, data, input.recipients ?? {}),
    status: 'draft',
    sent_at: null,
    created_at: now,
    updated_at: now,
  }
  if (wantsSend(input)) send(ctx, shopId, data, campaign)
  data.emailCampaigns.push(campaign)
  return { status: 201, body: { data: emailCampaignView(ctx, shopId, data, campaign) } }
})

// A sent campaign is final: it can be deleted, not changed or sent again.
const updateEmailCampaign = defineHandler('updateEmailCampaign', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const campaign = findEmailCampaign(data, input.campaign_id)
  if (campaign.status === 'sent') throw apiError(400, `Email campaign ${campaign.campaign_id} was already sent and cannot be changed`)
  const next: StoredEmailCampaign = { ...campaign }
  if (input.title !== undefined) {
    const title = nonBlank(input.title)
    if (!title) throw apiError(400, 'title must not be blank')
    next.title = title
  }
  if (input.subject !== undefined) next.subject = input.subject
  if (input.body !== undefined) next.body = input.body
  if (input.sender_id !== undefined) next.sender_id = senderOf(data, input.sender_id)
  if (input.recipients !== undefined) next.recipients = checkRecipients(ctx, data, input.recipients)
  if (input.status === 'draft') next.status = 'draft'
  if (wantsSend(input)) send(ctx, shopId, data, next)
  Object.assign(campaign, next, { updated_at: ctx.now.toISOString() })
  return { status: 200, body: { data: emailCampaignView(ctx, shopId, data, campaign) } }
})

// The emails already sent stay counted in the emails_sent stat.
const removeEmailCampaign = deleteById((data) => data.emailCampaigns, 'campaign_id', 'email campaign')
const deleteEmailCampaign = defineHandler('deleteEmailCampaign', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  emailOrdinals(ctx, shopId, data)
  return removeEmailCampaign(ctx)
})

// The mock has no verification step: a custom sender can be used at once.
const createCustomEmailSender = defineHandler('createCustomEmailSender', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { email, name, reply_to } = ctx.input
  if (data.emailSenders.some((s) => s.email.toLowerCase() === email.toLowerCase())) throw apiError(400, `email: a sender with ${email} already exists in this shop`)
  const sender: EmailSender = {
    sender_id: newId(ctx, shopId, 'email-sender'),
    email,
    name: nonBlank(name) ?? null,
    reply_to: reply_to ?? null,
    verified: true,
    created_at: ctx.now.toISOString(),
    custom: true,
  }
  data.emailSenders.push(sender)
  const { custom: _custom, ...view } = sender
  return { status: 201, body: { data: view } }
})

export const emailHandlers = { createEmailCampaign, updateEmailCampaign, deleteEmailCampaign, createCustomEmailSender }
