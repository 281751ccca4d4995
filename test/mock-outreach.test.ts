/**
 * Outreach (spec: Outreach automations; Other named resources; Rules of the named resources;
 * Endpoints whose shapes are incomplete or absent; States: Automation stopped; Errors: repeated
 * community payout; Limits: lists, tags, creator briefs, automation audience filters; Idempotency),
 * in-process through MSW with the small world. Every response is checked against the contract;
 * expectations are computed here from the world's records and the state's outreach records and tags
 * (mock/lib/outreach.ts, mock/lib/tags.ts: requests change those, never the world), not read back
 * from the mock's answers.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { BRIEF_URL, COMMUNITY_URL } from '../fixtures/outreach.ts'
import type { Affiliate, Automation } from '../fixtures/types.ts'
import { recordEvent, recordedEvents } from '../mock/events.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { outreachRecords, outreachState } from '../mock/lib/outreach.ts'
import { affiliateTags } from '../mock/lib/tags.ts'
import { contractProblem } from '../mock/testing.ts'

const BASE = 'https://outreach.example.com'
// 13:00 in Los Angeles (the main shop's timezone): the shop's local day began at 07:00Z.
const NOW = '2026-05-01T20:00:00.000Z'
const state = createMockState({ seed: 42, now: NOW, rateLimit: false, strict: true })
const [mainShop, growthShop] = state.world.shops as [(typeof state.world.shops)[0], (typeof state.world.shops)[0]]
const restrictedShop = state.world.shops.find((s) => s.is_active && s.sps < 3.5)!

const server = setupServer(...createHandlers(state, { baseUrl: BASE, log: () => {} }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  state.clock.set(NOW)
  state.reset()
})

/** Calls an operation by operationId and checks the answer (success or error) against the contract. */
async function call(operationId: string, body: unknown = {}, { shop = mainShop.shop_id, headers = {} as Record<string, string> } = {}) {
  const op = state.contract.byId.get(operationId)!
  const res = await fetch(`${BASE}${op.path}`, {
    method: op.method,
    headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop, ...headers },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  expect(contractProblem(state.contract, op, res.status, text)).toBeUndefined()
  return { status: res.status, text, json: JSON.parse(text) as any }
}

/** The shop's data as requests leave it: the world's, with the outreach records of the state. */
const data = (shop = mainShop.shop_id) => ({ ...state.world.shopData[shop]!, ...outreachRecords(state, shop) })
/** A CRM creator's tags now (the tag state's). */
const tagsOf = (a: Affiliate, shop = mainShop.shop_id) => affiliateTags(state, shop)(a)
const creators = () => state.world.creators
/** Handles of creators of the platform index that are not in the shop's CRM. */
const outsideCrm = (n: number, shop = mainShop.shop_id) => {
  const crm = new Set(data(shop).affiliates.map((a) => a.handle))
  return creators().filter((c) => !crm.has(c.handle)).slice(0, n).map((c) => c.handle)
}
const localDate = (ms: number | string, timeZone = mainShop.timezone) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms))
const withTag = (tag: string, shop = mainShop.shop_id) => data(shop).affiliates.filter((a) => tagsOf(a, shop).includes(tag))
const handlesOf = (rows: Array<{ handle: string }>) => rows.map((r) => r.handle).sort()

/** DMs (first DMs, open-plan cards, follow-ups) of the seeded log and the recorded ones on the shop's local day of `NOW`. */
function dmsSentToday(shop = mainShop) {
  const log = data(shop.shop_id).events
  const nowMs = Date.parse(NOW)
  const today = localDate(nowMs, shop.timezone)
  const kinds = ['dm_sent', 'open_plan_card', 'followup_dm']
  let n = 0
  for (let i = 0; i < log.count; i++) if (kinds.includes(log.kinds[log.kind[i]!]!) && log.at[i]! <= nowMs && localDate(log.at[i]!, shop.timezone) === today) n++
  for (const e of recordedEvents(state, shop.shop_id)) if (kinds.includes(e.kind) && e.at <= nowMs && localDate(e.at, shop.timezone) === today) n++
  return n
}

const automationBody = (overrides: Record<string, unknown> = {}): Record<string, any> => ({
  title: 'Spring creators',
  message_type: 'dm',
  outreach_audience: { type: 'new_affiliates' },
  dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]!' }],
  outreach_filters: { follower_min: 1000 },
  ...overrides,
})
async function listAutomations(body: Record<string, unknown> = {}) {
  const res = await call('listAutomations', body)
  expect(res.status).toBe(200)
  return res.json.data.automations as Array<Record<string, any>>
}
const automationById = async (id: string) => (await listAutomations()).find((a) => a.campaign_id === id)

describe('outreach automations (spec: Outreach automations)', () => {
  it('automations: create answers 201 {message, campaign_id, status: stopped, messages_remaining} and stores the fields (spec: Outreach automations; States: Automation stopped)', async () => {
    const before = data().automations.length
    const body = automationBody({ invite_details: { message: 'Join us [affiliate_name]' } })
    const res = await call('createAutomation', body)
    expect(res.status).toBe(201)
    const created = res.json.data
    expect(Object.keys(created).sort()).toEqual(['campaign_id', 'message', 'messages_remaining', 'status'])
    expect(created.status).toBe('stopped')
    expect(typeof created.message).toBe('string')
    expect(data().automations).toHaveLength(before + 1)
    const stored = await automationById(created.campaign_id)
    expect(stored).toMatchObject({
      title: body.title,
      status: 'stopped',
      message_type: 'dm',
      outreach_audience: { type: 'new_affiliates' },
      dm_messages: body.dm_messages,
      invite_details: body.invite_details,
      outreach_filters: body.outreach_filters,
      created_at: NOW,
    })
  })

  it('automations: messages_remaining is the daily DM allowance (200) minus the DMs the shop sent on its local day (spec: Outreach automations)', async () => {
    const sent = dmsSentToday()
    const first = await call('createAutomation', automationBody())
    expect(first.json.data.messages_remaining).toBe(200 - sent)
    // A DM sent now (as POST /affiliate/message/dm records it) uses the allowance up.
    recordEvent(state, mainShop.shop_id, { kind: 'dm_sent', at: Date.parse(NOW) - 1000, creator: 0, campaign: -1 })
    recordEvent(state, mainShop.shop_id, { kind: 'followup_dm', at: Date.parse(NOW) - 500, creator: 1, campaign: -1 })
    const second = await call('createAutomation', automationBody({ title: 'Second' }))
    expect(second.json.data.messages_remaining).toBe(200 - sent - 2)
    // A DM of the previous local day does not count (07:00Z is midnight in Los Angeles).
    recordEvent(state, mainShop.shop_id, { kind: 'dm_sent', at: Date.parse('2026-05-01T06:59:00.000Z'), creator: 2, campaign: -1 })
    expect((await call('createAutomation', automationBody({ title: 'Third' }))).json.data.messages_remaining).toBe(200 - sent - 2)
    expect((await automationById(first.json.data.campaign_id))!.messages_remaining).toBe(200 - sent - 2)
  })

  it('automations: a shop whose SPS is below 3.5 has no messages remaining (spec: GET /shop/sps; Outreach automations)', async () => {
    const res = await call('createAutomation', automationBody(), { shop: restrictedShop.shop_id })
    expect(res.status).toBe(201)
    expect(res.json.data.messages_remaining).toBe(0)
  })

  it.each([
    ['groups with an existing group_id', () => ({ outreach_audience: { type: 'groups', group_id: data().groups[0]!.group_id } }), 201, undefined],
    ['the bare "groups" with a top-level group_id', () => ({ outreach_audience: 'groups', group_id: data().groups[1]!.group_id }), 201, undefined],
    ['list with an existing title', () => ({ outreach_audience: { type: 'list', list: data().lists[0]!.title } }), 201, undefined],
    ['the bare "list" with a top-level list title', () => ({ outreach_audience: 'list', list: data().lists[1]!.title }), 201, undefined],
    ['the bare "new_affiliates"', () => ({ outreach_audience: 'new_affiliates' }), 201, undefined],
    ['groups with an unknown group_id', () => ({ outreach_audience: { type: 'groups', group_id: 'no-such-group' } }), 400, 'outreach_audience.group_id: no group no-such-group in this shop'],
    ['groups without a group_id', () => ({ outreach_audience: { type: 'groups' } }), 400, 'group_id'],
    // The contract's if/then says it (spec: Groups: "an automation uses one by `outreach_audience: groups` with `group_id`").
    ['the bare "groups" without a group_id', () => ({ outreach_audience: 'groups' }), 400, 'group_id is required'],
    ['list with an unknown title', () => ({ outreach_audience: { type: 'list', list: 'Nobody' } }), 400, 'outreach_audience.list: no list titled "Nobody" in this shop'],
    ['no audience', () => ({ outreach_audience: undefined }), 400, 'outreach_audience is required'],
    ['no title', () => ({ title: undefined }), 400, 'title is required'],
  ])('automations: outreach_audience %s (spec: Rules of the named resources: Groups)', async (_label, overrides, status, message) => {
    const before = data().automations.length
    const res = await call('createAutomation', automationBody(overrides()))
    expect(res.status).toBe(status)
    if (message) {
      expect(res.json.error).toContain(message)
      expect(data().automations).toHaveLength(before)
      return
    }
    const stored = await automationById(res.json.data.campaign_id)
    const sent = overrides() as Record<string, any>
    const expected = typeof sent.outreach_audience === 'string' ? { type: sent.outreach_audience, ...(sent.group_id && { group_id: sent.group_id }), ...(sent.list && { list: sent.list }) } : sent.outreach_audience
    expect(stored!.outreach_audience).toEqual(expected)
  })

  it('automations: categories beyond 5 and units_sold / follower_ages beyond 2 are silently dropped, on create and update (spec: Outreach automations; Limits)', async () => {
    const categories = ['Health', 'Pet Supplies', 'Home Supplies', 'Beauty & Personal Care', 'Food & Beverages', 'Sports & Outdoor', 'Fashion Accessories']
    const filters = { follower_min: 500, categories, units_sold: ['0-10', '10-100', '100-1K'], follower_ages: ['18-24', '25-34', '35-44'] }
    const res = await call('createAutomation', automationBody({ outreach_filters: filters }))
    expect(res.status).toBe(201)
    const id = res.json.data.campaign_id
    expect((await automationById(id))!.outreach_filters).toEqual({ follower_min: 500, categories: categories.slice(0, 5), units_sold: ['0-10', '10-100'], follower_ages: ['18-24', '25-34'] })
    const updated = await call('updateAutomation', { campaign_id: id, outreach_filters: { categories: categories.slice().reverse(), follower_ages: ['55+', '45-54', '35-44'] } })
    expect(updated.status).toBe(200)
    expect(updated.json.data.outreach_filters).toEqual({ categories: categories.slice().reverse().slice(0, 5), follower_ages: ['55+', '45-54'] })
  })

  it.each([
    [{ gmv_ranges: ['$100-$1K'] }, 'outreach_filters.gmv_ranges'],
    [{ live_gmv: ['$0-$100'] }, 'outreach_filters.live_gmv'],
    [{ gmv_ranges: [], live_gmv: [] }, 'outreach_filters.gmv_ranges and outreach_filters.live_gmv'],
  ])('automations: the legacy bucket arrays %o are refused on a new automation with a 400 naming them (spec: Outreach automations; Versioning)', async (legacy, named) => {
    const before = data().automations.length
    const res = await call('createAutomation', automationBody({ outreach_filters: { follower_min: 10, ...legacy } }))
    expect(res.status).toBe(400)
    expect(res.json.error).toContain(named)
    expect(data().automations).toHaveLength(before)
  })

  it('automations: an update sending legacy buckets is refused, except on an old automation that already carries them (spec: Versioning: legacy keys on old automations)', async () => {
    const [old, current] = data().automations as unknown as [Record<string, any>, Record<string, any>]
    const refused = await call('updateAutomation', { campaign_id: current.campaign_id, outreach_filters: { gmv_ranges: ['$1K+'] } })
    expect(refused.status).toBe(400)
    expect(refused.json.error).toContain('outreach_filters.gmv_ranges')
    // An old automation: one that carries a legacy bucket (the world is read-only: written through the outreach state).
    state.write(outreachState, 'updateAutomation', { shopId: mainShop.shop_id, id: old.campaign_id, changes: { outreach_filters: { gmv_ranges: ['$100-$1K'] } as Automation['outreach_filters'] }, now: NOW })
    const accepted = await call('updateAutomation', { campaign_id: old.campaign_id, outreach_filters: { gmv_ranges: ['$1K+'], live_gmv: ['$0-$100'] } })
    expect(accepted.status).toBe(200)
    expect(accepted.json.data.outreach_filters).toEqual({ gmv_ranges: ['$1K+'], live_gmv: ['$0-$100'] })
  })

  it('automations: update changes the fields sent by campaign_id and keeps the others; unknown campaign_id is 404 (spec: Outreach automations)', async () => {
    const id = (await call('createAutomation', automationBody())).json.data.campaign_id
    state.clock.advance(60_000)
    const res = await call('updateAutomation', { campaign_id: id, title: 'Renamed', outreach_audience: { type: 'list', list: data().lists[0]!.title }, dm_messages: [] })
    expect(res.status).toBe(200)
    expect(res.json.data).toMatchObject({ campaign_id: id, title: 'Renamed', status: 'stopped', outreach_audience: { type: 'list', list: data().lists[0]!.title }, dm_messages: [], outreach_filters: { follower_min: 1000 }, created_at: NOW })
    expect(res.json.data.updated_at).toBe(new Date(Date.parse(NOW) + 60_000).toISOString())
    const missing = await call('updateAutomation', { campaign_id: 'nope', title: 'x' })
    expect(missing.status).toBe(404)
    expect(missing.json.error).toContain('nope')
    expect((await call('updateAutomation', { campaign_id: id, outreach_audience: { type: 'groups', group_id: 'gone' } })).status).toBe(400)
  })

  it('automations: delete removes it by campaign_id; an unknown campaign_id is 404 (spec: Outreach automations)', async () => {
    const id = (await call('createAutomation', automationBody())).json.data.campaign_id
    const res = await call('deleteAutomation', { campaign_id: id })
    expect(res).toMatchObject({ status: 200, json: { data: { campaign_id: id, deleted: true } } })
    expect(await automationById(id)).toBeUndefined()
    expect((await call('deleteAutomation', { campaign_id: id })).status).toBe(404)
  })

  it('automations: the listing shows the world\'s automations in stored order and filters by status', async () => {
    const all = await listAutomations()
    expect(all.map((a) => a.campaign_id)).toEqual(data().automations.map((a) => a.campaign_id))
    const stopped = await listAutomations({ status: 'stopped' })
    expect(stopped.map((a) => a.campaign_id)).toEqual(data().automations.filter((a) => a.status === 'stopped').map((a) => a.campaign_id))
  })

  it('automations: audience_count re-resolves a group against the CRM at each request (spec: Rules of the named resources: Groups)', async () => {
    const vips = data().groups.find((g) => g.filters.include_tags?.includes('VIP'))!
    const id = (await call('createAutomation', automationBody({ outreach_audience: { type: 'groups', group_id: vips.group_id } }))).json.data.campaign_id
    expect((await automationById(id))!.audience_count).toBe(withTag('VIP').length)
    const newcomer = data().affiliates.find((a) => !tagsOf(a).includes('VIP'))!
    expect((await call('addTag', { tag: 'VIP', handles: [newcomer.handle] })).status).toBe(200)
    expect((await automationById(id))!.audience_count).toBe(withTag('VIP').length)
    expect(withTag('VIP')).toContain(newcomer)
    // A list audience is its roster; a deleted list leaves the audience unresolved.
    const list = data().lists[1]!
    const onList = (await call('createAutomation', automationBody({ outreach_audience: { type: 'list', list: list.title } }))).json.data.campaign_id
    expect((await automationById(onList))!.audience_count).toBe(list.handles.length)
    await call('deleteList', { title: list.title })
    expect((await automationById(onList))!.audience_count).toBeNull()
  })

  it('automations: audience_count of new_affiliates counts platform creators outside the CRM passing every filter: bounds, exact categories, case-insensitive demographics (spec: Outreach automations: outreach_filters)', async () => {
    const filters = { follower_min: 5000, max_engagement: 8, categories: ['Health', 'Pet Supplies'], gender: ['FEMALE'], is_fast_growing: false }
    const id = (await call('createAutomation', automationBody({ outreach_filters: filters }))).json.data.campaign_id
    const crm = new Set(data().affiliates.map((a) => a.creator_index))
    const expected = creators().filter(
      (c, i) =>
        !crm.has(i) &&
        c.follower_cnt >= 5000 &&
        c.video_engagement <= 8 &&
        [c.category, ...Object.keys(c.category_splits)].some((k) => filters.categories.includes(k)) &&
        c.gender?.toLowerCase() === 'female' &&
        !c.is_fast_growing,
    ).length
    expect(expected).toBeGreaterThan(0)
    expect((await automationById(id))!.audience_count).toBe(expected)
    // Categories are not case-folded: a lower-case category matches nobody.
    await call('updateAutomation', { campaign_id: id, outreach_filters: { categories: ['health'] } })
    expect((await automationById(id))!.audience_count).toBe(0)
  })

  it('automations: a replay with the same Idempotency-Key answers the first response and creates no second automation (spec: Idempotency)', async () => {
    const before = data().automations.length
    const headers = { 'idempotency-key': 'automation-create-1' }
    const first = await call('createAutomation', automationBody(), { headers })
    const replay = await call('createAutomation', automationBody({ title: 'Other' }), { headers })
    expect(replay.status).toBe(201)
    expect(replay.text).toBe(first.text)
    expect(data().automations).toHaveLength(before + 1)
    const deleted = await call('deleteAutomation', { campaign_id: first.json.data.campaign_id }, { headers: { 'idempotency-key': 'automation-delete-1' } })
    const deletedAgain = await call('deleteAutomation', { campaign_id: first.json.data.campaign_id }, { headers: { 'idempotency-key': 'automation-delete-1' } })
    expect(deletedAgain).toEqual(deleted)
  })
})

describe('lists (spec: Rules of the named resources: Lists; Limits: lists)', () => {
  const known = () => outsideCrm(4)

  it.each([
    ['trimmed, leading @ dropped, lowercased', (h: string) => `  @${h.toUpperCase()}  `, true],
    ['already normal', (h: string) => h, true],
    ['a second @ is not dropped', (h: string) => `@@${h}`, false],
    ['a character outside [a-z0-9._]', (h: string) => `${h}-x`, false],
    ['31 characters', () => `a${'b'.repeat(30)}`, false],
    ['valid but no known creator', () => 'zz.nobody.known', false],
    ['blank', () => '   ', false],
  ])('lists: a handle %s (spec: Rules of the named resources: Lists)', async (_label, form, matches) => {
    const [handle] = known()
    const sent = form(handle!)
    const res = await call('createList', { title: 'Handles', handles: [sent] })
    expect(res.status).toBe(201)
    expect(res.json.data).toEqual({ title: 'Handles', added_count: matches ? 1 : 0, unmatched: matches ? [] : [sent], creator_count: matches ? 1 : 0 })
    expect(data().lists.find((l) => l.title === 'Handles')!.handles).toEqual(matches ? [handle] : [])
  })

  it('lists: creating into an existing title appends; a handle already present (or repeated in the call) is a silent no-op (spec: Rules of the named resources: Lists)', async () => {
    const list = data().lists[0]!
    const before = [...list.handles]
    const fresh = known().filter((h) => !before.includes(h)).slice(0, 2)
    const res = await call('createList', { title: list.title, handles: [before[0]!, `@${fresh[0]}`, fresh[0]!, fresh[1]!.toUpperCase()] })
    expect(res.status).toBe(201)
    expect(res.json.data).toEqual({ title: list.title, added_count: 2, unmatched: [], creator_count: before.length + 2 })
    expect(data().lists.find((l) => l.title === list.title)!.handles).toEqual([...before, ...fresh])
    expect(data().lists.filter((l) => l.title === list.title)).toHaveLength(1)
  })

  it('lists: a call writes at most 10,000 creators; handles past the first 10,000 are not written (spec: Limits: lists)', async () => {
    const [late] = known()
    const unknown = Array.from({ length: 10_000 }, (_, i) => `nobody.${i}`)
    const res = await call('createList', { title: 'Big', handles: [...unknown, late!] })
    expect(res.status).toBe(201)
    expect(res.json.data.added_count).toBe(0)
    expect(res.json.data.unmatched).toHaveLength(10_000)
    expect(res.json.data.unmatched).not.toContain(late)
    expect(data().lists.find((l) => l.title === 'Big')!.handles).toEqual([])
  })

  it('lists: merge appends the sources\' creators to the target (created if missing) and keeps the sources; an unknown source is 404 (spec: Endpoints whose shapes are incomplete or absent: Lists)', async () => {
    const [a, b] = data().lists as unknown as [{ title: string; handles: string[] }, { title: string; handles: string[] }]
    const sourcesBefore = [[...a.handles], [...b.handles]]
    const union = [...new Set([...a.handles, ...b.handles])]
    const res = await call('mergeLists', { source_titles: [a.title, b.title], target_title: 'Merged' })
    expect(res.status).toBe(200)
    expect(res.json.data).toEqual({ title: 'Merged', added_count: union.length, unmatched: [], creator_count: union.length })
    expect(data().lists.find((l) => l.title === 'Merged')!.handles).toEqual(union)
    expect([a.handles, b.handles]).toEqual(sourcesBefore)
    // Merging into an existing list appends only what is new.
    const again = await call('mergeLists', { source_titles: [b.title], target_title: a.title })
    expect(again.json.data).toEqual({ title: a.title, added_count: union.length - sourcesBefore[0]!.length, unmatched: [], creator_count: union.length })
    const missing = await call('mergeLists', { source_titles: [a.title, 'Nope'], target_title: 'Other' })
    expect(missing.status).toBe(404)
    expect(missing.json.error).toContain('"Nope"')
    expect(data().lists.some((l) => l.title === 'Other')).toBe(false)
  })

  it('lists: delete by title; an unknown title is 404 (spec: Endpoints whose shapes are incomplete or absent: Lists)', async () => {
    const title = data().lists[0]!.title
    expect(await call('deleteList', { title })).toMatchObject({ status: 200, json: { data: { title, deleted: true } } })
    expect(data().lists.some((l) => l.title === title)).toBe(false)
    expect((await call('deleteList', { title })).status).toBe(404)
  })

  it('lists: a replay with the same Idempotency-Key answers the first added_count and writes nothing twice (spec: Idempotency)', async () => {
    const handles = known()
    const headers = { 'idempotency-key': 'list-create-1' }
    const first = await call('createList', { title: 'Replayed', handles }, { headers })
    expect(first.json.data.added_count).toBe(handles.length)
    const replay = await call('createList', { title: 'Replayed', handles: [...handles, ...outsideCrm(6).slice(4)] }, { headers })
    expect(replay.text).toBe(first.text)
    expect(data().lists.filter((l) => l.title === 'Replayed')).toHaveLength(1)
    expect(data().lists.find((l) => l.title === 'Replayed')!.handles).toEqual(handles)
    // Without the key, a repeat runs again and is a no-op.
    expect((await call('createList', { title: 'Replayed', handles })).json.data.added_count).toBe(0)
  })
})

describe('groups (spec: Rules of the named resources: Groups)', () => {
  it('groups: create saves a CRM filter (201) with the creators it matches now; the listing re-resolves it after a tag change; delete by group_id (spec: Groups: re-resolved dynamically)', async () => {
    const filters = { include_tags: ['Gifted'], exclude_tags: ['Do Not Contact'] }
    const matching = () => data().affiliates.filter((a) => tagsOf(a).includes('Gifted') && !tagsOf(a).includes('Do Not Contact')).length
    const created = await call('createGroup', { name: 'Gifted, contactable', filters })
    expect(created.status).toBe(201)
    expect(created.json.data).toMatchObject({ name: 'Gifted, contactable', filters, creator_count: matching(), created_at: NOW })
    const id = created.json.data.group_id
    const untagged = data().affiliates.find((a) => !tagsOf(a).includes('Gifted') && !tagsOf(a).includes('Do Not Contact'))!
    await call('addTag', { tag: 'Gifted', handles: [untagged.handle] })
    const listed = await call('listGroups', {})
    expect(listed.json.data.total_count).toBe(data().groups.length)
    expect(listed.json.data.groups.find((g: any) => g.group_id === id).creator_count).toBe(matching())
    expect(matching()).toBe(created.json.data.creator_count + 1)
    expect(await call('deleteGroup', { group_id: id })).toMatchObject({ status: 200, json: { data: { group_id: id, deleted: true } } })
    expect((await call('listGroups', {})).json.data.groups.some((g: any) => g.group_id === id)).toBe(false)
    expect((await call('deleteGroup', { group_id: id })).status).toBe(404)
  })

  it('groups: a blank name is 400', async () => {
    expect((await call('createGroup', { name: '  ' })).status).toBe(400)
  })
})

describe('tags (spec: Rules of the named resources: Tags; Limits: tags)', () => {
  async function crmHandles(filters: Record<string, unknown>) {
    const res = await call('listCrmAffiliates', { page_size: 100, page_number: 1, filters })
    expect(res.status).toBe(200)
    return (res.json.results as Array<{ handle: string }>).map((r) => r.handle).sort()
  }
  const tagCount = async (tag: string) => ((await call('listTags', {})).json.data.tags as Array<{ tag: string; creator_count: number }>).find((t) => t.tag === tag)?.creator_count

  it('tags: tagging with a new name creates it, and the CRM include_tags / exclude_tags see it at once (spec: Rules of the named resources: Tags)', async () => {
    const [a, b] = data().affiliates as [Affiliate, Affiliate]
    expect(await tagCount('Summer Box')).toBeUndefined()
    const res = await call('addTag', { tag: 'Summer Box', handles: [` @${a.handle.toUpperCase()}`, b.handle] })
    expect(res).toMatchObject({ status: 200, json: { data: { tag: 'Summer Box', added_count: 2, unmatched: [] } } })
    expect(await tagCount('Summer Box')).toBe(2)
    expect(await crmHandles({ include_tags: ['Summer Box'] })).toEqual([a.handle, b.handle].sort())
    expect(await crmHandles({ exclude_tags: ['Summer Box'] })).toEqual(handlesOf(data().affiliates.slice(2)))
    // Tagging again is a no-op.
    expect((await call('addTag', { tag: 'Summer Box', handles: [a.handle] })).json.data.added_count).toBe(0)
  })

  it('tags: names keep their case (VIP and vip differ) (spec: Rules of the named resources: Tags)', async () => {
    const target = data().affiliates.find((a) => !tagsOf(a).includes('VIP') && !tagsOf(a).includes('vip'))!
    const vipBefore = withTag('VIP').length
    const lowerBefore = withTag('vip').length
    await call('addTag', { tag: 'vip', handles: [target.handle] })
    expect(await tagCount('VIP')).toBe(vipBefore)
    expect(await tagCount('vip')).toBe(lowerBefore + 1)
    expect(await crmHandles({ include_tags: ['VIP'] })).toEqual(handlesOf(withTag('VIP')))
    expect(await crmHandles({ include_tags: ['VIP'] })).not.toContain(target.handle)
  })

  it('tags: creators must already be in the shop\'s CRM; others (and invalid handles) are skipped into unmatched (spec: Rules of the named resources: Tags)', async () => {
    const [outsider] = outsideCrm(1)
    const member = data().affiliates[3]!
    const res = await call('addTag', { tag: 'Prospect', handles: [outsider!, 'not a handle', member.handle] })
    expect(res.json.data).toEqual({ tag: 'Prospect', added_count: 1, unmatched: [outsider, 'not a handle'] })
    expect(await tagCount('Prospect')).toBe(1)
  })

  it('tags: removing the last creator makes the tag disappear; removing a tag nobody has is 404 (spec: Rules of the named resources: Tags)', async () => {
    const holders = withTag('Gifted')
    expect(holders.length).toBeGreaterThan(0)
    const partial = await call('removeTag', { tag: 'Gifted', handles: [holders[0]!.handle, data().affiliates.find((a) => !tagsOf(a).includes('Gifted'))!.handle, 'zz.nobody'] })
    expect(partial.json.data).toEqual({ tag: 'Gifted', removed_count: 1, unmatched: ['zz.nobody'] })
    expect(await tagCount('Gifted')).toBe(holders.length - 1)
    await call('removeTag', { tag: 'Gifted', handles: holders.slice(1).map((a) => a.handle) })
    expect(await tagCount('Gifted')).toBeUndefined()
    expect(await crmHandles({ include_tags: ['Gifted'] })).toEqual([])
    const gone = await call('removeTag', { tag: 'Gifted', handles: [holders[0]!.handle] })
    expect(gone.status).toBe(404)
    expect(gone.json.error).toContain('"Gifted"')
  })

  it.each([
    ['61 characters', 'x'.repeat(61), 400],
    ['60 characters', 'x'.repeat(60), 200],
    ['1 character', 'x', 200],
    ['empty', '', 400],
    ['blank', '   ', 400],
  ])('tags: a name of %s (spec: Limits: tags names 1-60 characters)', async (_label, tag, status) => {
    const res = await call('addTag', { tag, handles: [data().affiliates[0]!.handle] })
    expect(res.status).toBe(status)
    if (status === 400) expect(res.json.error).toMatch(/tag/)
  })

  it('tags: the listing counts the shop\'s creators per tag, most used first, with a case-insensitive search', async () => {
    const counts = new Map<string, number>()
    for (const a of data().affiliates) for (const t of tagsOf(a)) counts.set(t, (counts.get(t) ?? 0) + 1)
    const expected = [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1)).map(([tag, creator_count]) => ({ tag, creator_count }))
    const res = await call('listTags', {})
    expect(res.json.data).toEqual({ tags: expected, total_count: expected.length })
    const vip = await call('listTags', { search: 'vIp' })
    expect(vip.json.data.tags.map((t: any) => t.tag).sort()).toEqual(['VIP', 'vip'])
  })
})

describe('workflows (spec: Rules of the named resources: Workflows)', () => {
  it.each([
    ['scale', () => mainShop.shop_id],
    ['growth', () => growthShop.shop_id],
    ['starter', () => restrictedShop.shop_id],
  ])('workflows: reads work on the %s plan (spec: Workflows: reads work on any plan)', async (_plan, shop) => {
    const listed = await call('listWorkflows', {}, { shop: shop() })
    expect(listed.status).toBe(200)
    expect(listed.json.data.workflows.map((w: any) => w.workflow_id)).toEqual(data(shop()).workflows.map((w) => w.workflow_id))
    const first = data(shop()).workflows[0]!
    const got = await call('getWorkflow', { workflow_id: first.workflow_id }, { shop: shop() })
    expect(got.json.data).toMatchObject({ workflow_id: first.workflow_id, status: first.status, trigger: first.trigger, steps: first.steps })
    expect((await call('getWorkflow', { workflow_id: 'nope' }, { shop: shop() })).status).toBe(404)
  })

  it('workflows: create starts paused unless active; the listing filters by status (spec: Workflows)', async () => {
    const trigger = { type: 'sample_delivered', config: { wait_days: 3 } }
    const paused = await call('createWorkflow', { name: 'Nudge', trigger, steps: [{ id: 's1', type: 'send_dm', config: {}, next: [] }] })
    expect(paused.status).toBe(201)
    expect(paused.json.data).toMatchObject({ name: 'Nudge', status: 'paused', trigger, created_at: NOW })
    const active = await call('createWorkflow', { trigger, active: true })
    expect(active.json.data).toMatchObject({ name: null, status: 'active', steps: [] })
    const activeIds = (await call('listWorkflows', { status: 'active' })).json.data.workflows.map((w: any) => w.workflow_id)
    expect(activeIds).toContain(active.json.data.workflow_id)
    expect(activeIds).not.toContain(paused.json.data.workflow_id)
  })

  it('workflows: toggle flips pause/activate, or sets `active`; 404 for an unknown workflow_id (spec: Workflows)', async () => {
    const wf = data().workflows[0]!
    const initial = wf.status
    const flipped = await call('toggleWorkflow', { workflow_id: wf.workflow_id })
    expect(flipped.json.data.status).toBe(initial === 'active' ? 'paused' : 'active')
    expect((await call('toggleWorkflow', { workflow_id: wf.workflow_id, active: true })).json.data.status).toBe('active')
    expect((await call('toggleWorkflow', { workflow_id: wf.workflow_id, active: true })).json.data.status).toBe('active')
    expect((await call('getWorkflow', { workflow_id: wf.workflow_id })).json.data.status).toBe('active')
    expect((await call('toggleWorkflow', { workflow_id: 'nope' })).status).toBe(404)
  })

  it('workflows: toggle is 403 below the Scale plan and changes nothing (spec: Workflows; Authentication 5; Errors)', async () => {
    const wf = data(growthShop.shop_id).workflows[0]!
    const before = wf.status
    const res = await call('toggleWorkflow', { workflow_id: wf.workflow_id }, { shop: growthShop.shop_id })
    expect(res.status).toBe(403)
    expect(res.json.error).toBe('This feature requires the Scale plan')
    expect(wf.status).toBe(before)
  })

  it('workflows: delete by workflow_id; 404 afterwards (spec: Workflows)', async () => {
    const id = data().workflows[1]!.workflow_id
    expect(await call('deleteWorkflow', { workflow_id: id })).toMatchObject({ status: 200, json: { data: { workflow_id: id, deleted: true } } })
    expect((await call('getWorkflow', { workflow_id: id })).status).toBe(404)
    expect((await call('deleteWorkflow', { workflow_id: id })).status).toBe(404)
  })
})

describe('creator briefs (spec: Rules of the named resources: Creator briefs; Limits: creator briefs)', () => {
  const videoIds = () => data().videos.slice(0, 2).map((v) => v.video_id)
  const productId = () => data().products[0]!.product_id

  it.each([
    ['static, manual with the shop\'s videos', () => ({ type: 'static', video_mode: 'manual', video_ids: videoIds() }), () => ({ video_mode: 'manual', video_ids: videoIds(), product_id: null })],
    ['static, auto (the shop\'s top videos)', () => ({ type: 'static', video_mode: 'auto' }), () => ({ video_mode: 'auto', video_ids: [], product_id: null })],
    ['static with no mode (auto)', () => ({ type: 'static' }), () => ({ video_mode: 'auto', video_ids: [], product_id: null })],
    ['dynamic for a product', () => ({ type: 'dynamic', product_id: productId() }), () => ({ video_mode: null, video_ids: [], product_id: productId() })],
  ])('briefs: create %s with a public short code (spec: Creator briefs)', async (_label, body, content) => {
    const res = await call('createCreatorBrief', { title: 'Brief', ...body() })
    expect(res.status).toBe(201)
    const brief = res.json.data
    expect(brief).toMatchObject({ title: 'Brief', type: body().type, ...content(), created_at: NOW })
    expect(brief.short_code).toMatch(/^[0-9a-f]{8}$/)
    expect(brief.public_url).toBe(`${BRIEF_URL}/${brief.short_code}`)
    expect(data().briefs.some((b) => b.brief_id === brief.brief_id)).toBe(true)
  })

  it.each([
    ['manual without videos', () => ({ type: 'static', video_mode: 'manual' }), 'video_ids'],
    ['manual with a video of another shop', () => ({ type: 'static', video_mode: 'manual', video_ids: ['no-such-video'] }), 'no-such-video'],
    ['auto with video_ids', () => ({ type: 'static', video_mode: 'auto', video_ids: videoIds() }), 'video_ids'],
    ['static with a product', () => ({ type: 'static', product_id: productId() }), 'product_id'],
    ['dynamic with an unknown product', () => ({ type: 'dynamic', product_id: 'nope' }), 'product_id: no product nope'],
    // spec: Creator briefs: "static (`video_mode` ...) or dynamic (per product, generated live)": the contract's conditional schema refuses it first.
    ['dynamic with a video mode', () => ({ type: 'dynamic', product_id: productId(), video_mode: 'auto' }), 'video_mode is not allowed'],
  ])('briefs: create %s is 400 naming the field (spec: Creator briefs)', async (_label, body, message) => {
    const res = await call('createCreatorBrief', body())
    expect(res.status).toBe(400)
    expect(res.json.error).toContain(message)
  })

  it('briefs: the 501st brief of a shop is refused; the 500th is created (spec: Limits: at most 500 per shop)', async () => {
    const briefs = () => data().briefs
    const filler = { shopId: mainShop.shop_id, title: null, type: 'static', video_mode: 'auto', video_ids: [], product_id: null, now: NOW } as const
    while (briefs().length < 499) state.write(outreachState, 'createBrief', { ...filler, video_ids: [] })
    expect((await call('createCreatorBrief', { type: 'static' })).status).toBe(201)
    expect(briefs()).toHaveLength(500)
    const refused = await call('createCreatorBrief', { type: 'static' })
    expect(refused).toMatchObject({ status: 400, json: { error: 'Creator brief limit reached (500 per shop)' } })
    expect(briefs()).toHaveLength(500)
  })

  it('briefs: update keeps the type; switching to auto clears the picked videos; unknown brief_id is 404 (spec: Creator briefs)', async () => {
    const manual = data().briefs.find((b) => b.video_mode === 'manual')!
    const res = await call('updateCreatorBrief', { brief_id: manual.brief_id, title: 'Now automatic', video_mode: 'auto' })
    expect(res.json.data).toMatchObject({ brief_id: manual.brief_id, type: 'static', title: 'Now automatic', video_mode: 'auto', video_ids: [], short_code: manual.short_code })
    const back = await call('updateCreatorBrief', { brief_id: manual.brief_id, video_mode: 'manual', video_ids: [data().videos[5]!.video_id] })
    expect(back.json.data).toMatchObject({ video_mode: 'manual', video_ids: [data().videos[5]!.video_id] })
    const dynamic = data().briefs.find((b) => b.type === 'dynamic')!
    expect((await call('updateCreatorBrief', { brief_id: dynamic.brief_id, product_id: data().products[1]!.product_id })).json.data.product_id).toBe(data().products[1]!.product_id)
    expect((await call('updateCreatorBrief', { brief_id: dynamic.brief_id, video_mode: 'manual' })).status).toBe(400)
    expect((await call('updateCreatorBrief', { brief_id: 'nope', title: 'x' })).status).toBe(404)
  })

  it('briefs: delete by brief_id; 404 afterwards (spec: Creator briefs)', async () => {
    const id = data().briefs[0]!.brief_id
    expect(await call('deleteCreatorBrief', { brief_id: id })).toMatchObject({ status: 200, json: { data: { brief_id: id, deleted: true } } })
    expect((await call('deleteCreatorBrief', { brief_id: id })).status).toBe(404)
  })

  it.each(['createCreatorBrief', 'updateCreatorBrief', 'deleteCreatorBrief'])('briefs: %s is 403 below the Scale plan (spec: What the service does: Scale plan)', async (operationId) => {
    const res = await call(operationId, { type: 'static', brief_id: 'x' }, { shop: growthShop.shop_id })
    expect(res).toMatchObject({ status: 403, json: { error: 'This feature requires the Scale plan' } })
  })
})

describe('community campaigns (spec: Rules of the named resources: Community campaigns)', () => {
  it('community: create returns a 6-character slug and share_link {community_url}/<slug>; active goes live today, draft is the default (spec: Other named resources: Community campaign)', async () => {
    const active = await call('createCommunityCampaign', { title: 'May race', type: 'race', status: 'active', settings: { reward: 75 } })
    expect(active.status).toBe(201)
    const campaign = active.json.data
    expect(campaign.slug).toMatch(/^[a-z0-9]{6}$/)
    expect(campaign.share_link).toBe(`${COMMUNITY_URL}/${campaign.slug}`)
    expect(campaign).toMatchObject({ title: 'May race', type: 'race', status: 'active', start_date: localDate(NOW), end_date: null, settings: { reward: 75 } })
    const draft = await call('createCommunityCampaign', { title: 'Bingo', type: 'bingo' })
    expect(draft.json.data).toMatchObject({ status: 'draft', start_date: null })
    expect(draft.json.data.slug).not.toBe(campaign.slug)
    const slugs = Object.values(state.world.shopData).flatMap((d) => d.communityCampaigns.map((c) => c.slug))
    expect(new Set(slugs).size).toBe(slugs.length)
  })

  it('community: update by campaign_id (activating starts it today, ending ends it today); dates out of order are 400; unknown id 404', async () => {
    const id = (await call('createCommunityCampaign', { title: 'Later', type: 'contest' })).json.data.campaign_id
    expect((await call('updateCommunityCampaign', { campaign_id: id, status: 'active' })).json.data).toMatchObject({ status: 'active', start_date: localDate(NOW) })
    expect((await call('updateCommunityCampaign', { campaign_id: id, status: 'ended' })).json.data).toMatchObject({ status: 'ended', end_date: localDate(NOW) })
    const bad = await call('updateCommunityCampaign', { campaign_id: id, end_date: '2026-01-01' })
    expect(bad).toMatchObject({ status: 400, json: { error: 'end_date must not be before start_date' } })
    expect((await call('updateCommunityCampaign', { campaign_id: 'nope', title: 'x' })).status).toBe(404)
  })

  it('community: delete by campaign_id; 404 afterwards', async () => {
    const id = data().communityCampaigns[0]!.campaign_id
    expect(await call('deleteCommunityCampaign', { campaign_id: id })).toMatchObject({ status: 200, json: { data: { campaign_id: id, deleted: true } } })
    expect((await call('deleteCommunityCampaign', { campaign_id: id })).status).toBe(404)
  })

  it.each(['createCommunityCampaign', 'updateCommunityCampaign', 'deleteCommunityCampaign', 'authorizeCommunityPayout'])('community: %s is 403 below the Scale plan', async (operationId) => {
    const res = await call(operationId, { title: 't', type: 'race', campaign_id: 'x', creator_id: 'y', period: '2026-04' }, { shop: growthShop.shop_id })
    expect(res).toMatchObject({ status: 403, json: { error: 'This feature requires the Scale plan' } })
  })

  it('community: a payout is authorized once per (campaign, creator, period) without the Idempotency-Key header; a repeat is 400 already paid (spec: Idempotency; Errors)', async () => {
    const campaign = data().communityCampaigns[0]!
    const creator = data().affiliates[5]!
    const body = { campaign_id: campaign.campaign_id, creator_id: creator.creator_id, period: '2026-04', amount: 120 }
    const first = await call('authorizeCommunityPayout', body)
    expect(first.status).toBe(200)
    expect(first.json.data).toMatchObject({ campaign_id: campaign.campaign_id, creator_id: creator.creator_id, handle: creator.handle, period: '2026-04', amount: 120, status: 'authorized', authorized_at: NOW })
    const before = data().communityPayouts.length
    const repeat = await call('authorizeCommunityPayout', { ...body, amount: 50 })
    expect(repeat.status).toBe(400)
    expect(repeat.json.error).toMatch(/^Already paid/)
    // The same creator by handle is the same key.
    expect((await call('authorizeCommunityPayout', { campaign_id: campaign.campaign_id, handle: `@${creator.handle}`, period: '2026-04' })).status).toBe(400)
    expect(data().communityPayouts).toHaveLength(before)
    // Another period is another payout.
    expect((await call('authorizeCommunityPayout', { ...body, period: '2026-05' })).status).toBe(200)
  })

  it('community: the world\'s already-authorized payout cannot be paid again; unknown campaign or creator is 404; amount defaults to the campaign reward', async () => {
    const seeded = data().communityPayouts[0]!
    const again = await call('authorizeCommunityPayout', { campaign_id: seeded.campaign_id, creator_id: seeded.creator_id, period: seeded.period })
    expect(again.status).toBe(400)
    expect(again.json.error).toContain('Already paid')
    expect((await call('authorizeCommunityPayout', { campaign_id: 'nope', creator_id: seeded.creator_id, period: '2026-04' })).status).toBe(404)
    expect((await call('authorizeCommunityPayout', { campaign_id: seeded.campaign_id, handle: 'zz.nobody', period: '2026-04' })).status).toBe(404)
    const mismatch = await call('authorizeCommunityPayout', { campaign_id: seeded.campaign_id, creator_id: creators()[0]!.creator_id, handle: creators()[1]!.handle, period: '2026-04' })
    expect(mismatch.status).toBe(400)
    const race = (await call('createCommunityCampaign', { title: 'Paid race', type: 'race', status: 'active', settings: { reward: 75 } })).json.data
    expect((await call('authorizeCommunityPayout', { campaign_id: race.campaign_id, handle: creators()[2]!.handle, period: 'week-18' })).json.data.amount).toBe(75)
  })
})

describe('email campaigns and senders (spec: Endpoints whose shapes are incomplete or absent: Email campaigns and senders)', () => {
  /** Creators (indexes) with an email address: the shop's override, else the public one. */
  const emailable = (handles: string[]) => {
    const crm = new Map(data().affiliates.map((a) => [a.handle, a]))
    return [...new Set(handles)].filter((h) => (crm.get(h)?.email ?? creators().find((c) => c.handle === h)!.email) !== null)
  }
  const emailEvents = () => recordedEvents(state, mainShop.shop_id).filter((e) => e.kind === 'email_sent')
  async function emailsSentStat() {
    const today = localDate(NOW)
    const res = await call('getShopStats', { date_range: { from: today, to: today }, stats: ['emails_sent'] })
    expect(res.status).toBe(200)
    return res.json.data.stats[0].total_count as number
  }

  it('emails: a draft records nothing; send_now sends one email per recipient with an address (handles, list and group, each once) and the emails_sent stat counts them', async () => {
    const draft = await call('createEmailCampaign', { title: 'Draft', subject: 'Hi', body: 'Hello [affiliate_name]', recipients: { handles: outsideCrm(3) } })
    expect(draft.status).toBe(201)
    expect(draft.json.data).toMatchObject({ title: 'Draft', status: 'draft', emails_sent: 0, sent_at: null })
    expect(emailEvents()).toHaveLength(0)
    const statBefore = await emailsSentStat()

    const list = data().lists[0]!
    const group = data().groups.find((g) => g.filters.include_tags?.includes('VIP'))!
    const handles = [...outsideCrm(5), list.handles[0]!]
    const expected = emailable([...handles, ...list.handles, ...withTag('VIP').map((a) => a.handle)])
    const sent = await call('createEmailCampaign', { title: 'Launch', recipients: { handles, list: list.title, group_id: group.group_id }, send_now: true })
    expect(sent.status).toBe(201)
    expect(sent.json.data).toMatchObject({ status: 'sent', sent_at: NOW, emails_sent: expected.length })
    const index = data().emailCampaigns.findIndex((c) => c.campaign_id === sent.json.data.campaign_id)
    expect(index).toBe(data().emailCampaigns.length - 1)
    expect(emailEvents()).toHaveLength(expected.length)
    expect(emailEvents().every((e) => e.campaign === index && e.at === Date.parse(NOW))).toBe(true)
    expect(emailEvents().map((e) => creators()[e.creator]!.handle).sort()).toEqual(expected.sort())
    expect(await emailsSentStat()).toBe(statBefore + expected.length)
  })

  it('emails: update with status sent sends a draft; a sent campaign cannot be changed or sent again; unknown campaign_id is 404', async () => {
    const handles = emailable(outsideCrm(10)).slice(0, 4)
    const id = (await call('createEmailCampaign', { title: 'Later', recipients: { handles } })).json.data.campaign_id
    const sent = await call('updateEmailCampaign', { campaign_id: id, subject: 'Now', status: 'sent' })
    expect(sent.json.data).toMatchObject({ subject: 'Now', status: 'sent', emails_sent: handles.length })
    const again = await call('updateEmailCampaign', { campaign_id: id, send_now: true })
    expect(again.status).toBe(400)
    expect(again.json.error).toContain('already sent')
    expect(emailEvents()).toHaveLength(handles.length)
    expect((await call('updateEmailCampaign', { campaign_id: 'nope', title: 'x' })).status).toBe(404)
  })

  it('emails: deleting a campaign keeps the emails it sent counted and leaves the other campaigns\' counts attached', async () => {
    const handles = emailable(outsideCrm(10)).slice(0, 3)
    const seededSent = (await call('updateEmailCampaign', { campaign_id: data().emailCampaigns[1]!.campaign_id, title: 'Holiday push' })).json.data.emails_sent
    const created = (await call('createEmailCampaign', { title: 'Kept', recipients: { handles }, send_now: true })).json.data
    expect(await call('deleteEmailCampaign', { campaign_id: data().emailCampaigns[0]!.campaign_id })).toMatchObject({ status: 200 })
    expect((await call('updateEmailCampaign', { campaign_id: data().emailCampaigns[0]!.campaign_id, title: 'Holiday push 2' })).json.data.emails_sent).toBe(seededSent)
    // The created campaign now sits one position earlier, yet its emails are still its own.
    const byId = data().emailCampaigns.find((c) => c.campaign_id === created.campaign_id)!
    expect(data().emailCampaigns.indexOf(byId)).toBe(1)
    expect(emailEvents()).toHaveLength(handles.length)
    expect((await call('deleteEmailCampaign', { campaign_id: created.campaign_id })).status).toBe(200)
    expect((await call('deleteEmailCampaign', { campaign_id: created.campaign_id })).status).toBe(404)
    expect(emailEvents()).toHaveLength(handles.length)
  })

  it.each([
    ['an unknown handle', () => ({ recipients: { handles: ['zz.nobody'] } }), 'recipients.handles'],
    ['an unknown list', () => ({ recipients: { list: 'Nope' } }), 'recipients.list'],
    ['an unknown group', () => ({ recipients: { group_id: 'nope' } }), 'recipients.group_id'],
    ['an unknown sender', () => ({ sender_id: 'nope' }), 'sender_id'],
    ['send_now without recipients', () => ({ send_now: true }), 'recipients'],
    ['no title', () => ({ title: undefined }), 'title'],
  ])('emails: create with %s is 400 naming the field', async (_label, overrides, field) => {
    const res = await call('createEmailCampaign', { title: 'Bad', ...overrides() })
    expect(res.status).toBe(400)
    expect(res.json.error).toContain(field)
  })

  it('emails: a custom sender is created (201) and usable as a campaign\'s sender; the same address twice is 400', async () => {
    const res = await call('createCustomEmailSender', { email: 'Creators@Brand.example', name: 'Brand team' })
    expect(res.status).toBe(201)
    expect(res.json.data).toMatchObject({ email: 'Creators@Brand.example', name: 'Brand team', reply_to: null, verified: true, created_at: NOW })
    const campaign = await call('createEmailCampaign', { title: 'From us', sender_id: res.json.data.sender_id })
    expect(campaign.json.data.sender_id).toBe(res.json.data.sender_id)
    expect((await call('createCustomEmailSender', { email: 'creators@brand.example' })).status).toBe(400)
    // Without sender_id, the shop's default (non-custom) sender.
    expect((await call('createEmailCampaign', { title: 'Default' })).json.data.sender_id).toBe(data().emailSenders.find((s) => !s.custom)!.sender_id)
  })
})
