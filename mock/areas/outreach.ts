/**
 * Outreach (spec: Outreach automations; Other named resources; Rules of the named resources;
 * Endpoints whose shapes are incomplete or absent: emails, groups, lists, tags, workflows, briefs,
 * community): automations, lists, groups, tags, workflows, creator briefs, community campaigns and
 * payouts, email campaigns and senders. Writes go through the outreach state (mock/lib/outreach.ts)
 * and the tag state (mock/lib/tags.ts), which every area reads, so they see them at once (a tag
 * filters the CRM, a sent email counts in `emails_sent`); the world stays as generated.
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
