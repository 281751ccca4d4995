/**
 * Email campaigns and custom senders (spec: Endpoints whose shapes are incomplete or absent: Email
 * campaigns and senders). Sending records one `email_sent` event per recipient with an email address,
 * so the `emails_sent` stat (POST /shop/stats) and the campaign's own `emails_sent` count it.
 */
import type { ShopData } from '../../../fixtures/types.ts'
import type { components } from '../../../openapi/types.ts'
import { defineHandler, type DeepReadonly, type RequestContext } from '../../context.ts'
import { countShopEvents, recordEvent } from '../../events.ts'
import { apiError } from '../../respond.ts'
import { campaignOrdinals, checkedAfterDraw, creatorIndexByHandle, deleteById, findRecord, groupMembers, knownCreator, nonBlank, resolveHandles } from './common.ts'
import { outreachRecords, outreachState, type OutreachRecords, type StoredEmailCampaign } from '../../lib/outreach.ts'
import { shopScope } from '../../lib/shop.ts'

type EmailRecipients = components['schemas']['EmailRecipients']
type Records = DeepReadonly<OutreachRecords>

/** The `campaign` index of a shop's email events (stable across deletes). */
const emailOrdinals = (ctx: RequestContext, shopId: string) => campaignOrdinals(ctx.state, shopId, 'emails', outreachRecords(ctx.state, shopId).emailCampaigns)

/** The sender a campaign uses: the one named (400 if not the shop's), else the shop's default (non-custom) sender. */
function senderOf(data: Records, senderId: string | undefined): string | null {
  if (senderId !== undefined) {
    if (!data.emailSenders.some((s) => s.sender_id === senderId)) throw apiError(400, `sender_id: no email sender ${senderId} in this shop`)
    return senderId
  }
  return (data.emailSenders.find((s) => !s.custom) ?? data.emailSenders[0])?.sender_id ?? null
}

/** Checks that every recipient source exists: known creators by handle, a list title, a group. */
function checkRecipients(ctx: RequestContext, data: Records, recipients: EmailRecipients): EmailRecipients {
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
function recipientCreators(ctx: RequestContext, shopId: string, data: ShopData, recipients: DeepReadonly<EmailRecipients>): number[] {
  const records = outreachRecords(ctx.state, shopId)
  const handles = [...(recipients.handles ?? [])]
  if (recipients.list !== undefined) handles.push(...(records.lists.find((l) => l.title === recipients.list)?.handles ?? []))
  const group = recipients.group_id === undefined ? undefined : records.groups.find((g) => g.group_id === recipients.group_id)
  if (group) handles.push(...groupMembers(ctx.state, shopId, group.filters).map((m) => m.handle))
  const crm = new Map(data.affiliates.map((a) => [a.creator_index, a]))
  const indexes = resolveHandles(handles, (h) => creatorIndexByHandle(ctx.world, h)).found.map((f) => f.match)
  return indexes.filter((i) => (crm.get(i)?.email ?? ctx.world.creators[i]!.email) !== null)
}

/** The recipients of a campaign about to be sent: 400 when it has none. */
function recipientsToSend(recipients: EmailRecipients | undefined): EmailRecipients {
  if (!recipients || Object.keys(recipients).length === 0) throw apiError(400, 'recipients are required to send: handles, list or group_id')
  return recipients
}

/** Sends the campaign now: one `email_sent` event per recipient, at the mock clock's time. */
function send(ctx: RequestContext, shopId: string, data: ShopData, campaignId: string, recipients: DeepReadonly<EmailRecipients>): void {
  const ordinal = emailOrdinals(ctx, shopId)(campaignId)
  const at = ctx.now.getTime()
  for (const creator of recipientCreators(ctx, shopId, data, recipients)) recordEvent(ctx.state, shopId, { kind: 'email_sent', at, creator, campaign: ordinal })
}

/** The fields a send sets on the campaign. */
const sentNow = (ctx: RequestContext) => ({ status: 'sent' as const, sent_at: ctx.now.toISOString() })

function emailCampaignView(ctx: RequestContext, shopId: string, campaign: DeepReadonly<StoredEmailCampaign>) {
  const ordinal = emailOrdinals(ctx, shopId)(campaign.campaign_id)
  return {
    ...campaign,
    recipients: campaign.recipients ?? {},
    emails_sent: countShopEvents(ctx.state, shopId, 'email_sent', -Infinity, Infinity, ordinal),
    updated_at: campaign.updated_at ?? campaign.created_at,
  }
}

const wantsSend = (input: Record<string, unknown>) => input.send_now === true || input.status === 'sent'

// The sender, the recipients and a send without recipients are refused after the campaign's id is drawn.
const createEmailCampaign = defineHandler('createEmailCampaign', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const title = nonBlank(input.title)
  if (!title) throw apiError(400, 'title is required')
  const records = outreachRecords(ctx.state, shopId)
  emailOrdinals(ctx, shopId)
  const checked = checkedAfterDraw(ctx, { shopId, ids: 1, codes: [] }, () => {
    const fields = { sender_id: senderOf(records, input.sender_id), recipients: checkRecipients(ctx, records, input.recipients ?? {}) }
    if (wantsSend(input)) recipientsToSend(fields.recipients)
    return fields
  })
  const campaign = ctx.state.write(outreachState, 'createEmailCampaign', {
    shopId,
    title,
    subject: input.subject ?? null,
    body: input.body ?? null,
    ...checked,
    ...(wantsSend(input) ? sentNow(ctx) : { status: 'draft', sent_at: null }),
    now: ctx.now.toISOString(),
  })
  if (wantsSend(input)) send(ctx, shopId, data, campaign.campaign_id, checked.recipients)
  return { status: 201, body: { data: emailCampaignView(ctx, shopId, campaign) } }
})

// A sent campaign is final: it can be deleted, not changed or sent again.
const updateEmailCampaign = defineHandler('updateEmailCampaign', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const records = outreachRecords(ctx.state, shopId)
  const campaign = findRecord(ctx.state, shopId, 'emailCampaigns', input.campaign_id, 'email campaign')
  if (campaign.status === 'sent') throw apiError(400, `Email campaign ${campaign.campaign_id} was already sent and cannot be changed`)
  const changes: Partial<StoredEmailCampaign> = {}
  if (input.title !== undefined) {
    const title = nonBlank(input.title)
    if (!title) throw apiError(400, 'title must not be blank')
    changes.title = title
  }
  if (input.subject !== undefined) changes.subject = input.subject
  if (input.body !== undefined) changes.body = input.body
  if (input.sender_id !== undefined) changes.sender_id = senderOf(records, input.sender_id)
  if (input.recipients !== undefined) changes.recipients = checkRecipients(ctx, records, input.recipients)
  if (input.status === 'draft') changes.status = 'draft'
  if (wantsSend(input)) {
    send(ctx, shopId, data, campaign.campaign_id, recipientsToSend(changes.recipients ?? (campaign.recipients as EmailRecipients | undefined)))
    Object.assign(changes, sentNow(ctx))
  }
  const updated = ctx.state.write(outreachState, 'updateEmailCampaign', { shopId, id: campaign.campaign_id, changes, now: ctx.now.toISOString() })
  return { status: 200, body: { data: emailCampaignView(ctx, shopId, updated) } }
})

// The emails already sent stay counted in the emails_sent stat.
const removeEmailCampaign = deleteById('emailCampaigns', 'email campaign')
const deleteEmailCampaign = defineHandler('deleteEmailCampaign', (ctx) => {
  emailOrdinals(ctx, ctx.shop.shop_id)
  return removeEmailCampaign(ctx)
})

// The mock has no verification step: a custom sender can be used at once.
const createCustomEmailSender = defineHandler('createCustomEmailSender', (ctx) => {
  const shopId = ctx.shop.shop_id
  const { email, name, reply_to } = ctx.input
  if (outreachRecords(ctx.state, shopId).emailSenders.some((s) => s.email.toLowerCase() === email.toLowerCase())) throw apiError(400, `email: a sender with ${email} already exists in this shop`)
  const sender = ctx.state.write(outreachState, 'createEmailSender', { shopId, email, name: nonBlank(name) ?? null, reply_to: reply_to ?? null, now: ctx.now.toISOString() })
  const { custom: _custom, ...view } = sender
  return { status: 201, body: { data: view } }
})

export const emailHandlers = { createEmailCampaign, updateEmailCampaign, deleteEmailCampaign, createCustomEmailSender }
