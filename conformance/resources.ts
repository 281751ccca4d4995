/**
 * Resources the writing rules create for themselves, always named `conformance-…` and always
 * removed by a registered clean-up, whatever happens in the rule.
 */
import { isSuccess } from './support.ts'
import type { Reply, RuleContext } from './types.ts'

/** A fresh Idempotency-Key (matches ^[A-Za-z0-9-]{1,128}$). */
export const idempotencyKey = (t: RuleContext) => t.name('key')

/** The body of an outreach automation that stays `stopped` (nothing is ever sent). */
export function automationBody(title: string): Record<string, unknown> {
  return {
    title,
    message_type: 'dm',
    outreach_audience: 'new_affiliates',
    dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]! (conformance check: this automation is created stopped and deleted at once)' }],
    outreach_filters: { follower_min: 1000 },
  }
}

/** POST /automations/create; whatever it creates is deleted at the end of the rule. */
export async function createAutomation(t: RuleContext, body: Record<string, unknown>, options: { idempotencyKey?: string; unthrottled?: boolean } = {}): Promise<Reply> {
  const reply = await t.request('POST /automations/create', { body, ...options })
  const campaignId = reply.json?.data?.campaign_id
  if (isSuccess(reply) && typeof campaignId === 'string') {
    t.cleanup(() => t.request('DELETE /automations/delete', { body: { campaign_id: campaignId } }))
  }
  return reply
}

/** The automations whose title is `title`, or undefined when the target has no automation listing. */
export async function automationsTitled(t: RuleContext, title: string): Promise<Array<Record<string, any>> | undefined> {
  const reply = await t.request('POST /automations/list', { body: {} })
  const automations = reply.json?.data?.automations
  if (!isSuccess(reply) || !Array.isArray(automations)) return undefined
  return automations.filter((a: Record<string, any>) => a.title === title)
}

/** Deletes every automation of the rule's title left behind (by a target that created more than one). */
export function cleanupAutomationsTitled(t: RuleContext, title: string): void {
  t.cleanup(async () => {
    for (const a of (await automationsTitled(t, title)) ?? []) await t.request('DELETE /automations/delete', { body: { campaign_id: a.campaign_id } })
  })
}

/** POST /dashboards/create with a conformance name; the board is deleted at the end of the rule. */
export async function createDashboard(t: RuleContext, body: Record<string, unknown>): Promise<Reply> {
  const reply = await t.request('POST /dashboards/create', { body })
  const id = reply.json?.data?.id
  if (isSuccess(reply) && typeof id === 'string') t.cleanup(() => t.request('DELETE /dashboards/delete', { body: { dashboard_id: id } }))
  return reply
}

/** Handles of creators in the shop's CRM (the lists and tags rules address creators by handle). */
export async function crmHandles(t: RuleContext, count: number): Promise<string[]> {
  const reply = await t.request('POST /affiliate/crm/list', { body: { page_size: count, page_number: 1 } })
  const results = (reply.json?.results ?? reply.json?.data?.results ?? []) as Array<{ handle?: unknown }>
  return results.map((r) => r.handle).filter((h): h is string => typeof h === 'string' && /^[a-z0-9._]{1,30}$/.test(h))
}
