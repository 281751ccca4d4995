/**
 * The outreach state and the tag state (mock/lib/outreach.ts, mock/lib/tags.ts; issue 16, item 2):
 * outreach requests leave the world as generated, change the state only through named writes of
 * plain data, and replaying those writes on a fresh state of the same seed gives the same records.
 */
import { eventsState } from '../mock/events.ts'
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import type { WriteRecord } from '../mock/context.ts'
import { createHandlers, createMockState, type MockState } from '../mock/index.ts'
import { ID_FIELDS, outreachRecordById, outreachRecords, outreachState, type KeyedKind } from '../mock/lib/outreach.ts'
import { affiliateTags, affiliateTagsState } from '../mock/lib/tags.ts'

const NOW = '2026-05-01T20:00:00.000Z'
const BASE = 'https://outreach-state.test'

/** A strict mock whose writes are collected; `freezeWorld` as asked. */
function outreachMock(freezeWorld: boolean) {
  const writes: WriteRecord[] = []
  const state = createMockState({ seed: 42, now: NOW, rateLimit: false, strict: true, freezeWorld, onWrite: (w) => writes.push(w) })
  const handlers = createHandlers(state, { baseUrl: BASE, log: () => {} })
  const shopId = state.world.shops[0]!.shop_id
  async function call(operationId: string, body: Record<string, unknown>) {
    const op = state.contract.byId.get(operationId)!
    const request = new Request(`${BASE}${op.path}`, {
      method: op.method,
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId },
      body: JSON.stringify(body),
    })
    const response = (await getResponse(handlers, request))!
    return { status: response.status, json: (await response.json()) as any }
  }
  return { state, writes, shopId, call }
}

/** Every outreach write the API has, in one sequence; returns the statuses answered. */
async function writeEverything({ state, shopId, call }: ReturnType<typeof outreachMock>): Promise<number[]> {
  const data = state.world.shopData[shopId]!
  const crm = new Set(data.affiliates.map((a) => a.handle))
  const outsiders = state.world.creators.filter((c) => !crm.has(c.handle) && c.email !== null).slice(0, 3).map((c) => c.handle)
  const [first, second] = data.affiliates
  const statuses: number[] = []
  const run = async (operationId: string, body: Record<string, unknown>) => {
    const res = await call(operationId, body)
    statuses.push(res.status)
    return res.json.data
  }
  await run('createList', { title: 'Spring', handles: outsiders })
  await run('mergeLists', { source_titles: ['Spring', data.lists[0]!.title], target_title: 'Merged' })
  await run('deleteList', { title: data.lists[1]!.title })
  const group = await run('createGroup', { name: 'Gifted', filters: { include_tags: ['Gifted'] } })
  statuses.push((await call('createGroup', { name: '  ' })).status) // refused by the contract (a blank name), before any id is drawn
  await run('addTag', { tag: 'Summer Box', handles: [first!.handle, second!.handle] })
  await run('removeTag', { tag: 'Summer Box', handles: [second!.handle] })
  const automation = await run('createAutomation', { title: 'Spring creators', message_type: 'dm', outreach_audience: { type: 'groups', group_id: group.group_id }, dm_messages: [{ type: 'text', content: 'Hi' }] })
  await run('updateAutomation', { campaign_id: automation.campaign_id, title: 'Renamed' })
  await run('deleteAutomation', { campaign_id: data.automations[0]!.campaign_id })
  const workflow = await run('createWorkflow', { name: 'Nudge', trigger: { type: 'sample_delivered', config: { wait_days: 3 } } })
  await run('toggleWorkflow', { workflow_id: workflow.workflow_id })
  await run('deleteWorkflow', { workflow_id: data.workflows[0]!.workflow_id })
  const brief = await run('createCreatorBrief', { title: 'Brief', type: 'static' })
  await run('updateCreatorBrief', { brief_id: brief.brief_id, title: 'Retitled' })
  await run('deleteCreatorBrief', { brief_id: data.briefs[0]!.brief_id })
  const campaign = await run('createCommunityCampaign', { title: 'May race', type: 'race', status: 'active', settings: { reward: 75 } })
  statuses.push((await call('createCommunityCampaign', { title: 'Late', type: 'race', start_date: '2026-06-01', end_date: '2026-05-01' })).status)
  await run('updateCommunityCampaign', { campaign_id: campaign.campaign_id, status: 'ended' })
  await run('authorizeCommunityPayout', { campaign_id: campaign.campaign_id, handle: first!.handle, period: '2026-05' })
  await run('deleteCommunityCampaign', { campaign_id: data.communityCampaigns[0]!.campaign_id })
  const sender = await run('createCustomEmailSender', { email: 'team@brand.example', name: 'Team' })
  const email = await run('createEmailCampaign', { title: 'Launch', sender_id: sender.sender_id, recipients: { handles: outsiders, list: 'Merged' }, send_now: true })
  const draft = await run('createEmailCampaign', { title: 'Draft', recipients: { group_id: group.group_id } })
  await run('updateEmailCampaign', { campaign_id: draft.campaign_id, subject: 'Hello', status: 'sent' })
  await run('deleteEmailCampaign', { campaign_id: email.campaign_id })
  return statuses
}

/** What the outreach and tag states hold for a shop, as plain data. */
function statesOf(state: MockState, shopId: string) {
  const tagsOf = affiliateTags(state, shopId)
  const records = outreachRecords(state, shopId)
  // The outreach lists only (a shop no request changed reads them from its world data, which holds more).
  const kinds = ['lists', 'groups', 'briefs', 'automations', 'emailCampaigns', 'emailSenders', 'workflows', 'communityCampaigns', 'communityPayouts'] as const
  return { records: Object.fromEntries(kinds.map((k) => [k, records[k]])), tags: state.world.shopData[shopId]!.affiliates.map((a) => tagsOf(a)) }
}

describe('outreach state (issue 16, item 2: one state model)', () => {
  it('outreach writes run on a frozen world: no handler edits the generated records in place', async () => {
    const mock = outreachMock(true)
    expect(Object.isFrozen(mock.state.world.shopData[mock.shopId]!.lists)).toBe(true)
    const statuses = await writeEverything(mock)
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    expect(statuses.filter((s) => s === 400)).toHaveLength(2)
    expect(statuses.filter((s) => s !== 400).every((s) => s === 200 || s === 201)).toBe(true)
  })

  it('outreach writes leave the world deep-equal to a fresh build of the same seed; the state holds the changes', async () => {
    const mock = outreachMock(false)
    const fresh = createMockState({ seed: 42, now: NOW, rateLimit: false })
    const before = statesOf(mock.state, mock.shopId)
    await writeEverything(mock)
    const { shopData } = mock.state.world
    const shop = shopData[mock.shopId]!
    const pristine = fresh.world.shopData[mock.shopId]!
    for (const kind of ['lists', 'groups', 'briefs', 'automations', 'emailCampaigns', 'emailSenders', 'workflows', 'communityCampaigns', 'communityPayouts', 'affiliates'] as const) {
      expect(shop[kind], kind).toEqual(pristine[kind])
    }
    expect(statesOf(mock.state, mock.shopId)).not.toEqual(before)
  })

  it('every change is a named write with a plain-data input, reported in order to onWrite', async () => {
    const mock = outreachMock(true)
    await writeEverything(mock)
    // The events' own writes (numbering campaigns, recording the emails sent) are the events state's.
    expect(mock.writes.filter((w) => w.area !== 'events').map((w) => `${w.area}.${w.name}`)).toEqual([
      'outreach.addToList', 'outreach.addToList', 'outreach.deleteList', 'outreach.createGroup',
      'tags.tagAffiliates', 'tags.untagAffiliates', 'outreach.createAutomation', 'outreach.updateAutomation', 'outreach.deleteRecord',
      'outreach.createWorkflow', 'outreach.setWorkflowStatus', 'outreach.deleteRecord', 'outreach.createBrief', 'outreach.updateBrief',
      'outreach.deleteRecord', 'outreach.createCommunityCampaign', 'outreach.discardDraws', 'outreach.updateCommunityCampaign',
      'outreach.authorizeCommunityPayout', 'outreach.deleteRecord', 'outreach.createEmailSender', 'outreach.createEmailCampaign',
      'outreach.createEmailCampaign', 'outreach.updateEmailCampaign', 'outreach.deleteRecord',
    ])
    for (const w of mock.writes) expect(JSON.parse(JSON.stringify(w.input)), `${w.area}.${w.name}`).toEqual(w.input)
    expect(mock.writes.map((w) => w.version)).toEqual([...mock.writes.map((w) => w.version)].sort((a, b) => a - b))
  })

  it('a record is found by its id exactly when its list holds it, after every kind of write and after a new view of the world replays them', async () => {
    const mock = outreachMock(true)
    const seeded = mock.state.world.shopData[mock.shopId]!
    const deleted: Array<[KeyedKind, string]> = [
      ['automations', seeded.automations[0]!.campaign_id],
      ['workflows', seeded.workflows[0]!.workflow_id],
      ['briefs', seeded.briefs[0]!.brief_id],
      ['communityCampaigns', seeded.communityCampaigns[0]!.campaign_id],
    ]
    await writeEverything(mock)
    const expectIndexed = (shopId: string) => {
      for (const kind of Object.keys(ID_FIELDS) as KeyedKind[]) {
        const records = outreachRecords(mock.state, shopId)[kind] as ReadonlyArray<Record<string, unknown>>
        for (const record of records) expect(outreachRecordById(mock.state, shopId, kind, record[ID_FIELDS[kind]]), kind).toBe(record)
        expect(outreachRecordById(mock.state, shopId, kind, 'no-such-id')).toBeUndefined()
      }
    }
    expectIndexed(mock.shopId)
    for (const [kind, id] of deleted) expect(outreachRecordById(mock.state, mock.shopId, kind, id), kind).toBeUndefined()
    // A shop no request changed reads its world records.
    expectIndexed(mock.state.world.shops[1]!.shop_id)
    const view = mock.state.world
    mock.state.clock.set('2026-05-01T00:30:00.000Z')
    expect(mock.state.world).not.toBe(view)
    expectIndexed(mock.shopId)
    for (const [kind, id] of deleted) expect(outreachRecordById(mock.state, mock.shopId, kind, id), kind).toBeUndefined()
  })

  it('replaying the reported writes in order on a fresh state of the same seed gives the same records and tags', async () => {
    const mock = outreachMock(true)
    await writeEverything(mock)
    const replica = createMockState({ seed: 42, now: NOW, rateLimit: false, strict: true, freezeWorld: true })
    // The writes take their time in the input, not from the clock.
    replica.clock.advance(86_400_000)
    const definitions = { outreach: outreachState, tags: affiliateTagsState, events: eventsState } as const
    for (const w of mock.writes) replica.write(definitions[w.area as keyof typeof definitions] as typeof outreachState, w.name as 'deleteList', w.input as never)
    for (const shop of mock.state.world.shops) expect(statesOf(replica, shop.shop_id)).toEqual(statesOf(mock.state, shop.shop_id))
    // The ids and codes come from the state's own counters: a create after the replay makes the same record on both.
    const next = { shopId: mock.shopId, title: 'After', type: 'static', video_mode: 'auto', video_ids: [], product_id: null, now: NOW } as const
    expect(replica.write(outreachState, 'createBrief', { ...next, video_ids: [] })).toEqual(mock.state.write(outreachState, 'createBrief', { ...next, video_ids: [] }))
  })
})
