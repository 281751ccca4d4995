/**
 * Outreach automations: create, update, delete, each accepting Idempotency-Key (spec: Outreach
 * automations; Idempotency). Every write first makes its call to the platform (`platform`), so a
 * test can hold a request in flight or make the platform fail.
 */
import { apiError } from '../errors.ts'
import type { Define, SpecState } from '../index.ts'

const AUDIENCES = new Set(['new_affiliates', 'groups', 'list'])
/** spec: Limits: "categories beyond 5 and units_sold / follower_ages beyond 2 entries are silently dropped". */
const FILTER_CAPS: Record<string, number> = { categories: 5, units_sold: 2, follower_ages: 2 }
/** Messages a shop may still send this period (spec: create returns `messages_remaining`; its size is not shown). */
const MESSAGE_ALLOWANCE = 5000

export interface Automation {
  campaign_id: string
  title: string
  message_type: string
  outreach_audience: string
  group_id?: string
  dm_messages: unknown[]
  invite_details?: unknown
  outreach_filters: Record<string, unknown>
  status: 'stopped'
}

function validate(body: Record<string, any>, partial: boolean): Partial<Automation> {
  const out: Partial<Automation> = {}
  if (body.title !== undefined || !partial) {
    if (typeof body.title !== 'string' || !body.title.trim()) throw apiError(400, 'title must be a non-empty string')
    out.title = body.title
  }
  if (body.message_type !== undefined) {
    if (typeof body.message_type !== 'string') throw apiError(400, 'message_type must be a string')
    out.message_type = body.message_type
  } else if (!partial) out.message_type = 'dm'
  if (body.outreach_audience !== undefined || !partial) {
    const audience = body.outreach_audience ?? 'new_affiliates'
    if (!AUDIENCES.has(audience)) throw apiError(400, 'outreach_audience must be new_affiliates, groups or list')
    if (audience === 'groups' && typeof body.group_id !== 'string') throw apiError(400, 'group_id is required with outreach_audience groups')
    out.outreach_audience = audience
    if (audience === 'groups') out.group_id = body.group_id
  }
  if (body.dm_messages !== undefined || !partial) {
    const messages = body.dm_messages ?? []
    if (!Array.isArray(messages) || messages.some((m: any) => !m || typeof m.content !== 'string')) throw apiError(400, 'dm_messages must be an array of {type, content}')
    out.dm_messages = messages
  }
  if (body.invite_details !== undefined) out.invite_details = body.invite_details
  if (body.outreach_filters !== undefined || !partial) {
    const filters = body.outreach_filters ?? {}
    if (typeof filters !== 'object' || Array.isArray(filters)) throw apiError(400, 'outreach_filters must be an object')
    out.outreach_filters = Object.fromEntries(
      Object.entries(filters as Record<string, unknown>).map(([k, v]) => [k, Array.isArray(v) && FILTER_CAPS[k] ? v.slice(0, FILTER_CAPS[k]) : v]),
    )
  }
  return out
}

export function automationRoutes(define: Define, state: SpecState): void {
  const of = (shopId: string) => {
    if (!state.automations.has(shopId)) state.automations.set(shopId, new Map())
    return state.automations.get(shopId)!
  }
  const find = (shopId: string, campaignId: unknown) => {
    if (typeof campaignId !== 'string' || !campaignId) throw apiError(400, 'campaign_id is required')
    const found = of(shopId).get(campaignId)
    if (!found) throw apiError(404, 'Automation not found')
    return found
  }

  define('POST', '/automations/create', { shop: true, idempotent: true }, async (c) => {
    const fields = validate(c.get('body'), false)
    await state.platform('POST /automations/create')
    const automation = { ...fields, campaign_id: `auto-${String(++state.sequence).padStart(6, '0')}`, status: 'stopped' } as Automation
    of(c.get('shop').shop_id).set(automation.campaign_id, automation)
    // spec: "Response 201 {data: {message, campaign_id, status, messages_remaining}}"; status stopped after create.
    return c.json({ data: { message: 'Automation created', campaign_id: automation.campaign_id, status: automation.status, messages_remaining: MESSAGE_ALLOWANCE } }, 201)
  })

  define('POST', '/automations/update', { shop: true, idempotent: true }, async (c) => {
    const body = c.get('body')
    const automation = find(c.get('shop').shop_id, body.campaign_id)
    const fields = validate(body, true)
    await state.platform('POST /automations/update')
    Object.assign(automation, fields)
    return c.json({ data: { message: 'Automation updated', campaign_id: automation.campaign_id, status: automation.status } })
  })

  define('DELETE', '/automations/delete', { shop: true, idempotent: true }, async (c) => {
    const automation = find(c.get('shop').shop_id, c.get('body').campaign_id)
    await state.platform('DELETE /automations/delete')
    of(c.get('shop').shop_id).delete(automation.campaign_id)
    return c.json({ data: { message: 'Automation deleted', campaign_id: automation.campaign_id } })
  })
}
