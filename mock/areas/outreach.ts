/**
 * Outreach (spec: Outreach automations; Other named resources; Rules of the named resources;
 * Endpoints whose shapes are incomplete or absent: emails, groups, lists, tags, workflows, briefs,
 * community): automations, lists, groups, tags, workflows, creator briefs, community campaigns and
 * payouts, email campaigns and senders. Writes change the shop's records in the state's world, so
 * every area's reads see them (a tag filters the CRM, a sent email counts in `emails_sent`).
 */
import type { AreaModule } from '../context.ts'
import { audienceHandlers } from './outreach/audiences.ts'
import { automationHandlers } from './outreach/automations.ts'
import { briefHandlers } from './outreach/briefs.ts'
import { communityHandlers } from './outreach/community.ts'
import { emailHandlers } from './outreach/emails.ts'
import { workflowHandlers } from './outreach/workflows.ts'

export const outreach: AreaModule = {
  handlers: { ...automationHandlers, ...audienceHandlers, ...workflowHandlers, ...briefHandlers, ...communityHandlers, ...emailHandlers },
}
