/**
 * Writes, end to end through the HTTP operations (first written as the review of issue 6). A write
 * on one area is read back through another area's read endpoint (spec: Samples; POST /shop/stats;
 * Endpoints whose shapes are incomplete or absent: Email campaigns; States: sample request
 * ignored), and every write of the spec's Idempotency list is replayed with its key (spec:
 * Idempotency; States and transitions: Idempotency completed).
 */
import { describe, expect, it } from 'vitest'
import { outreachRecords } from '../mock/lib/outreach.ts'
import { mockHarness, type Params } from './support/harness.ts'

const NOW = '2026-03-10T12:00:00.000Z'
const { state, mainShop, baseUrl, call, mutating } = mockHarness({ now: NOW })
const restrictedShop = state.world.shops.find((s) => s.is_active && s.sps < 3.5)!

/** The shop-local date of an instant, through Intl (independent of the mock's calendar). */
const localDate = (ms: number | string, timeZone = mainShop.timezone) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms))
const TODAY = localDate(NOW)

/** Calls an operation by operationId (its method and path from the contract). */
function op(operationId: string, body: Params = {}, options: { shop?: string; headers?: Record<string, string> } = {}) {
  const operation = state.contract.byId.get(operationId)
  expect(operation, `${operationId} is an operation of the contract`).toBeDefined()
  return call(operation!.method as 'POST' | 'DELETE', operation!.path, body, options)
}

async function ok(operationId: string, body: Params = {}, options: { shop?: string; headers?: Record<string, string> } = {}) {
  const res = await op(operationId, body, options)
  expect(res.status, `${operationId}: ${res.text}`).toBeLessThan(300)
  return res.json.data
}

/** `total_count` of one stat over today, read through POST /shop/stats. */
async function statToday(key: string, extra: Params = {}, shop = mainShop.shop_id): Promise<number> {
  const data = await ok('getShopStats', { date_range: { from: TODAY, to: TODAY }, stats: [key], ...extra }, { shop })
  return data.stats[0].total_count
}

/** Every sample request row the list shows (ignored ones with `ignored: true`). */
async function sampleRows(filters: Params = {}) {
  const shown = await ok('listSampleRequests', { page_size: 100, filters })
  const ignored = await ok('listSampleRequests', { page_size: 100, filters: { ...filters, sample_status: ['ignore'] } })
  expect(shown.has_more || ignored.has_more).toBe(false)
  return [...shown.results, ...ignored.results] as Array<Record<string, any>>
}
const toReview = async () => (await ok('listSampleRequests', { page_size: 100, filters: { sample_status: ['To Review'] } })).results as Array<Record<string, any>>
const countSamples = async (filters: Params = {}) => (await ok('listSampleRequests', { just_count: true, filters })).total_count as number

/** Handles of platform creators outside the main shop's CRM that have a public email address. */
function emailableOutsiders(n: number): string[] {
  const crm = new Set(state.world.shopData[mainShop.shop_id]!.affiliates.map((a) => a.handle))
  return state.world.creators.filter((c) => !crm.has(c.handle) && c.email !== null).slice(0, n).map((c) => c.handle)
}

describe('writes: a write is visible through the other areas\' read endpoints', () => {
  it('samples: an approve through the API counts in the samples_approved stat of POST /shop/stats, for its product and campaign too (spec: Samples; POST /shop/stats, stat keys)', async () => {
    mutating()
    const target = (await toReview()).find((r) => r.campaign_id !== null) ?? (await toReview())[0]!
    const otherProduct = state.world.shopData[mainShop.shop_id]!.products.find((p) => p.product_id !== target.sampled_product)!.product_id
    const before = {
      all: await statToday('samples_approved'),
      product: await statToday('samples_approved', { product_id: target.sampled_product }),
      other: await statToday('samples_approved', { product_id: otherProduct }),
      campaign: target.campaign_id === null ? null : await statToday('samples_approved', { campaign_id: target.campaign_id }),
      funnelApproved: (await ok('getSampleFunnel', {})).funnel[1].count,
    }
    const res = await ok('approveSampleRequests', { apply_ids: [target.apply_id, 'no-such-apply-id'] })
    expect(res.success_count).toBe(1)
    expect(await statToday('samples_approved')).toBe(before.all + 1)
    expect(await statToday('samples_approved', { product_id: target.sampled_product })).toBe(before.product + 1)
    expect(await statToday('samples_approved', { product_id: otherProduct })).toBe(before.other)
    if (target.campaign_id !== null) expect(await statToday('samples_approved', { campaign_id: target.campaign_id })).toBe(before.campaign! + 1)
    expect((await ok('getSampleFunnel', {})).funnel[1].count).toBe(before.funnelApproved + 1)
    // A reject is not an approval.
    const other = (await toReview())[0]!
    await ok('rejectSampleRequests', { apply_ids: [other.apply_id] })
    expect(await statToday('samples_approved')).toBe(before.all + 1)
  })

  it('samples: a DM sent through POST /affiliate/message/dm counts in dms_sent (not in open_plan_cards_sent or followup_dms_sent); a refused one counts nowhere (spec: Samples; Account and shop: SPS; POST /shop/stats)', async () => {
    mutating()
    const keys = ['dms_sent', 'open_plan_cards_sent', 'followup_dms_sent'] as const
    const read = async (shop = mainShop.shop_id) => Object.fromEntries(await Promise.all(keys.map(async (k) => [k, await statToday(k, {}, shop)] as const)))
    const before = await read()
    await ok('sendCreatorDm', { creator_id: state.world.creators[4]!.creator_id, message: 'Loved your video' })
    await ok('sendCreatorDm', { handle: `@${state.world.creators[7]!.handle}`, message: 'Want a sample?' })
    expect(await read()).toEqual({ ...before, dms_sent: before.dms_sent + 2 })
    const restrictedBefore = await read(restrictedShop.shop_id)
    const refused = await op('sendCreatorDm', { creator_id: state.world.creators[4]!.creator_id, message: 'hi' }, { shop: restrictedShop.shop_id })
    expect(refused.status).toBe(403)
    expect(await read(restrictedShop.shop_id)).toEqual(restrictedBefore)
  })

  it('emails: a draft sent later by update counts in emails_sent, and emails_sent with its campaign_id counts its emails even after an earlier campaign is deleted (spec: Email campaigns and senders; POST /shop/stats: emails_sent respects campaign_id)', async () => {
    mutating()
    const handles = emailableOutsiders(3)
    const before = await statToday('emails_sent')
    const draft = await ok('createEmailCampaign', { title: 'Later', recipients: { handles } })
    expect(await statToday('emails_sent')).toBe(before)
    const sent = await ok('updateEmailCampaign', { campaign_id: draft.campaign_id, status: 'sent' })
    expect(sent.emails_sent).toBe(handles.length)
    expect(await statToday('emails_sent')).toBe(before + handles.length)
    expect(await statToday('emails_sent', { campaign_id: draft.campaign_id })).toBe(handles.length)
    // Deleting another campaign moves no email from one campaign to another.
    const earlier = state.world.shopData[mainShop.shop_id]!.emailCampaigns[0]!.campaign_id
    expect(earlier).not.toBe(draft.campaign_id)
    await ok('deleteEmailCampaign', { campaign_id: earlier })
    expect(await statToday('emails_sent')).toBe(before + handles.length)
    expect(await statToday('emails_sent', { campaign_id: draft.campaign_id })).toBe(handles.length)
  })

  it('automations: deleting an automation leaves the DMs of the others counted under their own campaign_id in dms_sent (spec: Outreach automations; POST /shop/stats: DMs respect campaign_id)', async () => {
    mutating()
    const quarter = { date_range: { from: localDate(Date.parse(NOW) - 90 * 86_400_000), to: TODAY } }
    const dms = async (campaign_id: string) => (await ok('getShopStats', { ...quarter, stats: ['dms_sent'], campaign_id })).stats[0].total_count as number
    const [first, ...rest] = (await ok('listAutomations', {})).automations as Array<{ campaign_id: string }>
    const before = await Promise.all(rest.map((a) => dms(a.campaign_id)))
    expect(before.some((n) => n > 0)).toBe(true)
    const total = (await ok('getShopStats', { ...quarter, stats: ['dms_sent'] })).stats[0].total_count
    await ok('deleteAutomation', { campaign_id: first!.campaign_id })
    expect(await Promise.all(rest.map((a) => dms(a.campaign_id)))).toEqual(before)
    expect((await ok('getShopStats', { ...quarter, stats: ['dms_sent'] })).stats[0].total_count).toBe(total)
  })

  it('samples: an ignored request is hidden from a handle search unless sample_status is [ignore]; unignore brings it back (spec: States: sample request ignored)', async () => {
    mutating()
    const target = (await toReview())[0]!
    const search = { handle: target.handle }
    expect((await ok('listSampleRequests', { page_size: 100, filters: search })).results.map((r: any) => r.apply_id)).toContain(target.apply_id)
    await ok('ignoreSampleRequests', { apply_ids: [target.apply_id] })
    expect((await ok('listSampleRequests', { page_size: 100, filters: search })).results.map((r: any) => r.apply_id)).not.toContain(target.apply_id)
    const ignored = (await ok('listSampleRequests', { page_size: 100, filters: { ...search, sample_status: ['ignore'] } })).results
    expect(ignored.find((r: any) => r.apply_id === target.apply_id)).toMatchObject({ status: 'To Review' })
    await ok('unignoreSampleRequests', { apply_ids: [target.apply_id] })
    expect((await ok('listSampleRequests', { page_size: 100, filters: search })).results.map((r: any) => r.apply_id)).toContain(target.apply_id)
  })
})

/**
 * One idempotent write of the spec's list: `setup` makes what it needs (without a key) and returns
 * the body; `observe` reads the state it changes, through the API where the spec has a read endpoint.
 */
interface IdempotentWrite {
  operationId: string
  setup: () => Promise<Params>
  observe: () => Promise<unknown>
}

/** The main shop's data as requests leave it: the world's, with the outreach records of the state. */
const shopData = () => ({ ...state.world.shopData[mainShop.shop_id]!, ...outreachRecords(state, mainShop.shop_id) })
const automationIds = async () => ((await ok('listAutomations', {})).automations as Array<{ campaign_id: string }>).map((a) => a.campaign_id)
const automation = async (id: string) => ((await ok('listAutomations', {})).automations as Array<Record<string, any>>).find((a) => a.campaign_id === id)
const groupIds = async () => ((await ok('listGroups', {})).groups as Array<{ group_id: string }>).map((g) => g.group_id)
const automationBody = (overrides: Params = {}): Params => ({
  title: 'Replay probe',
  message_type: 'dm',
  outreach_audience: { type: 'new_affiliates' },
  dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }],
  ...overrides,
})
/** A list's size read through the API: the audience_count of an automation aimed at the list (null once the list is gone). */
let probe = ''
async function probeList(title: string) {
  probe = (await ok('createAutomation', automationBody({ outreach_audience: { type: 'list', list: title } }))).campaign_id
}
const listSize = async () => (await automation(probe))!.audience_count
let target: Record<string, any> = {}
const sampleRow = async () => (await sampleRows()).find((r) => r.apply_id === target.apply_id)
// Email campaigns, senders, creator briefs and community campaigns have no read endpoint in the spec:
// their state is read from the mock's records.
const records = (collection: 'emailCampaigns' | 'emailSenders' | 'briefs' | 'communityCampaigns') => (shopData()[collection] as ReadonlyArray<Record<string, any>>).map((r) => ({ ...r }))

const WRITES: IdempotentWrite[] = [
  { operationId: 'createAutomation', setup: async () => automationBody(), observe: automationIds },
  {
    operationId: 'updateAutomation',
    setup: async () => {
      target = { campaign_id: (await automationIds())[0] }
      return { campaign_id: target.campaign_id, title: 'Renamed by a replayed key' }
    },
    observe: async () => {
      const a = await automation(target.campaign_id)
      return { title: a!.title, updated_at: a!.updated_at }
    },
  },
  { operationId: 'deleteAutomation', setup: async () => ({ campaign_id: (await automationIds())[0] }), observe: automationIds },
  {
    operationId: 'createEmailCampaign',
    setup: async () => ({ title: 'Replayed send', recipients: { handles: emailableOutsiders(2) }, send_now: true }),
    observe: async () => ({ emails_sent: await statToday('emails_sent'), campaigns: records('emailCampaigns').length }),
  },
  {
    operationId: 'updateEmailCampaign',
    setup: async () => {
      const draft = await ok('createEmailCampaign', { title: 'Draft', recipients: { handles: emailableOutsiders(2) } })
      return { campaign_id: draft.campaign_id, status: 'sent' }
    },
    observe: async () => statToday('emails_sent'),
  },
  {
    operationId: 'deleteEmailCampaign',
    setup: async () => ({ campaign_id: shopData().emailCampaigns[0]!.campaign_id }),
    observe: async () => records('emailCampaigns').map((c) => c.campaign_id),
  },
  { operationId: 'createCustomEmailSender', setup: async () => ({ email: 'replay@brand.example', name: 'Replay' }), observe: async () => records('emailSenders').map((s) => s.sender_id) },
  { operationId: 'createGroup', setup: async () => ({ name: 'Replayed group', filters: { include_tags: ['VIP'] } }), observe: groupIds },
  { operationId: 'deleteGroup', setup: async () => ({ group_id: (await groupIds())[0] }), observe: groupIds },
  {
    operationId: 'createList',
    setup: async () => {
      const list = shopData().lists[0]!
      await probeList(list.title)
      const crm = new Set(shopData().affiliates.map((a) => a.handle))
      const fresh = state.world.creators.filter((c) => !list.handles.includes(c.handle) && !crm.has(c.handle)).slice(0, 3).map((c) => c.handle)
      return { title: list.title, handles: fresh }
    },
    observe: listSize,
  },
  {
    operationId: 'mergeLists',
    setup: async () => {
      const [into, from] = shopData().lists
      expect(from!.handles.some((h) => !into!.handles.includes(h))).toBe(true)
      await probeList(into!.title)
      return { source_titles: [from!.title], target_title: into!.title }
    },
    observe: listSize,
  },
  {
    operationId: 'deleteList',
    setup: async () => {
      await probeList(shopData().lists[0]!.title)
      return { title: shopData().lists[0]!.title }
    },
    observe: listSize,
  },
  { operationId: 'createCreatorBrief', setup: async () => ({ title: 'Replayed brief', type: 'static', video_mode: 'auto' }), observe: async () => records('briefs').map((b) => b.brief_id) },
  {
    operationId: 'updateCreatorBrief',
    setup: async () => ({ brief_id: shopData().briefs[0]!.brief_id, title: 'Retitled by a replayed key' }),
    observe: async () => records('briefs').map((b) => [b.title, b.updated_at]),
  },
  { operationId: 'deleteCreatorBrief', setup: async () => ({ brief_id: shopData().briefs[0]!.brief_id }), observe: async () => records('briefs').map((b) => b.brief_id) },
  { operationId: 'createCommunityCampaign', setup: async () => ({ title: 'Replayed race', type: 'race' }), observe: async () => records('communityCampaigns').map((c) => c.campaign_id) },
  {
    operationId: 'updateCommunityCampaign',
    setup: async () => ({ campaign_id: shopData().communityCampaigns[0]!.campaign_id, title: 'Retitled by a replayed key' }),
    observe: async () => records('communityCampaigns').map((c) => [c.title, c.updated_at]),
  },
  { operationId: 'deleteCommunityCampaign', setup: async () => ({ campaign_id: shopData().communityCampaigns[0]!.campaign_id }), observe: async () => records('communityCampaigns').map((c) => c.campaign_id) },
  {
    operationId: 'approveSampleRequests',
    setup: async () => {
      target = (await toReview())[0]!
      return { apply_ids: [target.apply_id] }
    },
    observe: async () => ({ row: await sampleRow(), approvedToday: await statToday('samples_approved'), toReview: await countSamples({ sample_status: ['To Review'] }) }),
  },
  {
    operationId: 'rejectSampleRequests',
    setup: async () => {
      target = (await toReview())[0]!
      return { apply_ids: [target.apply_id] }
    },
    observe: async () => ({ row: await sampleRow(), toReview: await countSamples({ sample_status: ['To Review'] }) }),
  },
  {
    operationId: 'ignoreSampleRequests',
    setup: async () => {
      target = (await toReview())[0]!
      return { apply_ids: [target.apply_id] }
    },
    observe: async () => ({ shown: await countSamples(), ignored: await countSamples({ sample_status: ['ignore'] }), funnel: (await ok('getSampleFunnel', {})).total_count }),
  },
  {
    operationId: 'unignoreSampleRequests',
    setup: async () => {
      target = (await ok('listSampleRequests', { page_size: 100, filters: { sample_status: ['ignore'] } })).results[0]
      return { apply_ids: [target.apply_id] }
    },
    observe: async () => ({ shown: await countSamples(), ignored: await countSamples({ sample_status: ['ignore'] }), funnel: (await ok('getSampleFunnel', {})).total_count }),
  },
  { operationId: 'sendCreatorDm', setup: async () => ({ creator_id: state.world.creators[9]!.creator_id, message: 'Once only' }), observe: async () => statToday('dms_sent') },
]

describe('idempotency: replaying every idempotent write with its Idempotency-Key (spec: Idempotency; States and transitions)', () => {
  it('idempotency: the table covers exactly the contract\'s writes that take the Idempotency-Key header (spec: Idempotency: write endpoints)', () => {
    const idempotent = state.contract.operations.filter((o) => o.idempotent).map((o) => o.operationId).sort()
    expect(WRITES.map((w) => w.operationId).sort()).toEqual(idempotent)
    expect(idempotent).toHaveLength(23)
  })

  it.each(WRITES.map((w) => [w.operationId, w] as const))(
    'idempotency: %s replayed with its key a minute later answers the same status and bytes and changes the state once (spec: Idempotency)',
    async (operationId, write) => {
      mutating()
      const body = await write.setup()
      const headers = { 'Idempotency-Key': `review-6-${operationId}` }
      const before = await write.observe()
      const first = await op(operationId, body, { headers })
      expect(first.status, first.text).toBeLessThan(300)
      const once = await write.observe()
      expect(once, 'the first write changes the state').not.toEqual(before)
      // A re-run a minute later would stamp other times, ids or counts into the answer and the state.
      state.clock.advance(60_000)
      const replay = await op(operationId, body, { headers })
      expect(replay.status).toBe(first.status)
      expect(replay.text).toBe(first.text)
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
      expect(await write.observe()).toEqual(once)
      const record = await fetch(`${baseUrl}/idempotency/${headers['Idempotency-Key']}`, { headers: { 'x-api-key': 'demo-key', 'x-shop-id': mainShop.shop_id } })
      expect(await record.json()).toEqual({ idempotency: { status: 'completed', response_status: first.status, response_body: first.json } })
    },
  )
})
