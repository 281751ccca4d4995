/**
 * Nothing in request handling runs unbounded (issue 15, item 1): every create is answered, at the
 * documented per-shop cap with the cap's error, and at its natural limits (hundreds of records on one
 * shop) with fresh, unique ids and codes. spec: Rules of the named resources (Creator briefs: at most
 * 500 per shop; Community campaigns: 6-character slug), Limits.
 */
import { describe, expect, it } from 'vitest'
import { createMockState } from '../mock/index.ts'
import { BRIEF_LIMIT_REACHED, MAX_BRIEFS } from '../mock/areas/outreach/briefs.ts'
import { createInProcessClient } from './support/in-process.ts'

const state = createMockState({ seed: 42, scale: 'small', now: '2026-11-20T15:20:00.000Z', rateLimit: false })
const client = createInProcessClient(state, { timeoutMs: 2_000 })
const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id }
const op = (id: string) => state.contract.byId.get(id)!

async function create(operationId: string, body: unknown): Promise<{ status: number; json: any }> {
  const answer = await client.call(op(operationId), { headers, body: JSON.stringify(body) })
  return { status: answer.status, json: JSON.parse(answer.text) }
}

describe('liveness: creates at the caps and at their natural limits (issue 15; spec: Limits)', () => {
  it(`creator briefs: ${MAX_BRIEFS} per shop counting the fixtures' briefs, every create answered; the next gets the cap error (spec: Creator briefs)`, async () => {
    const existing = state.world.shopData[shop.shop_id]!.briefs.length
    const codes = new Set(state.world.shopData[shop.shop_id]!.briefs.map((b) => b.short_code))
    for (let i = existing; i < MAX_BRIEFS; i++) {
      const { status, json } = await create('createCreatorBrief', { type: 'static', title: `b${i}`, video_mode: 'auto' })
      expect(status, JSON.stringify(json)).toBe(201)
      const code = json.data.short_code as string
      expect(code).toMatch(/^[0-9a-f]{8}$/)
      expect(codes.has(code), `short code ${code} given twice`).toBe(false)
      codes.add(code)
    }
    const over = await create('createCreatorBrief', { type: 'static', title: 'one too many', video_mode: 'auto' })
    expect(over).toEqual({ status: 400, json: { error: BRIEF_LIMIT_REACHED } })
    // The server is still there for the next request.
    const health = await client.call(op('getHealth'))
    expect(health.status).toBe(200)
  })

  it('community campaigns: 400 on one shop, each with a fresh 6-character slug unique across the world (spec: Community campaigns)', async () => {
    const slugs = new Set(Object.values(state.world.shopData).flatMap((d) => d.communityCampaigns.map((c) => c.slug)))
    for (let i = 0; i < 400; i++) {
      const { status, json } = await create('createCommunityCampaign', { title: `race ${i}`, type: 'race' })
      expect(status, JSON.stringify(json)).toBe(201)
      const slug = json.data.share_link.split('/').pop() as string
      expect(slug).toMatch(/^[0-9a-z]{6}$/)
      expect(slugs.has(slug), `slug ${slug} given twice`).toBe(false)
      slugs.add(slug)
    }
  })

  it.each([
    ['createList', (i: number) => ({ title: `list ${i}`, handles: [] })],
    ['createGroup', (i: number) => ({ name: `group ${i}` })],
    ['createAutomation', (i: number) => ({ title: `automation ${i}`, message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }] })],
    ['createDashboard', (i: number) => ({ name: `board ${i}` })],
    ['createEmailCampaign', (i: number) => ({ title: `email ${i}` })],
    ['createWorkflow', (i: number) => ({ name: `workflow ${i}`, trigger: { type: 'new_affiliate' } })],
  ] as const)('%s: 300 creates on one shop are all answered with distinct records', async (operationId, bodyOf) => {
    const answers = new Set<string>()
    for (let i = 0; i < 300; i++) {
      const { status, json } = await create(operationId, bodyOf(i))
      expect(status, `${operationId} #${i}: ${JSON.stringify(json)}`).toBeLessThan(300)
      answers.add(JSON.stringify(json))
    }
    expect(answers.size).toBe(300)
  })
})
