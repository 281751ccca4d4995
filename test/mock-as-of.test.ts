/**
 * Today's records appear as the mock's clock passes them (issue 15, item 3; spec: States and
 * transitions): the world holds each shop's whole last day and is read as of the clock's now
 * (fixtures/as-of.ts). A frozen clock shows the same records every time; writes made before the
 * clock passes a record's moment are still there after it (the area states are made again from the
 * new view with the writes replayed).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { shopDataAt } from '../fixtures/as-of.ts'
import { createWorld } from '../fixtures/index.ts'
import type { SampleRequest, ShopData } from '../fixtures/index.ts'
import { createOperationRoutes, type OperationRoute } from '../mock/handlers.ts'
import { createMockState, type MockState } from '../mock/index.ts'
import { outreachState } from '../mock/lib/outreach.ts'
import { sampleRequestsOf } from '../mock/lib/sample-requests.ts'

const TODAY = '2026-11-20'
const MORNING = '2026-11-20T06:00:00.000Z'
const HOUR = 3_600_000

const mainShop = (state: MockState) => state.world.shops[0]!.shop_id
const data = (state: MockState): ShopData => state.world.shopData[mainShop(state)]!

const routesOf = new WeakMap<MockState, OperationRoute[]>()

async function call(state: MockState, path: string, body: unknown): Promise<{ status: number; text: string; json: any }> {
  let routes = routesOf.get(state)
  if (!routes) routesOf.set(state, (routes = createOperationRoutes(state)))
  const route = routes.find((r) => r.op.path === path && r.op.method === 'POST' && !r.op.aliasOf)!
  const result = await route.run({ method: 'POST', url: new URL(`https://api.test${path}`), headers: new Headers({ 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': mainShop(state) }), bodyText: JSON.stringify(body) })
  const text = typeof result.body === 'string' ? result.body : JSON.stringify(result.body)
  return { status: result.status, text, json: JSON.parse(text) }
}

/** The lists whose records appear at a time of their own: the list, a record's id, its time. */
const APPEARING: Array<[keyof ShopData, (r: any) => string, (r: any) => string]> = [
  ['videos', (v) => v.video_id, (v) => v.posted_at],
  ['slideshows', (v) => v.video_id, (v) => v.posted_at],
  ['lives', (l) => l.live_id, (l) => l.started_at],
  ['sampleRequests', (r) => r.apply_id, (r) => r.timestamp],
  ['refundableSamples', (r) => r.apply_id, (r) => r.sample_shipped],
  ['exclusions', (e) => `${e.campaign_id}/${e.video_id}`, (e) => e.created_at],
  ['boostSessions', (b) => b.session_id, (b) => b.created_at],
  ['socialAds', (a) => a.ad_id, (a) => a.pushed_time],
  ['programCreators', (m) => `${m.program_id}/${m.creator_id}`, (m) => m.joined_at],
]

describe('the world as of the clock (issue 15; fixtures/as-of.ts)', () => {
  it('shows no record of today before its time, and shows it once the clock has passed it', () => {
    const state = createMockState({ seed: 42, today: TODAY, now: MORNING, rateLimit: false })
    const full = createWorld({ seed: 42, today: TODAY })
    const morningMs = Date.parse(MORNING)
    const eveningMs = morningMs + 17 * HOUR
    const idsOf = (shopData: ShopData) => new Set(APPEARING.flatMap(([list, id]) => (shopData[list] as readonly object[]).map((r) => `${list}:${id(r as never)}`)))
    // Every record of the generated world that appears between the morning and the evening.
    const appearing = full.shops.flatMap((shop) =>
      APPEARING.flatMap(([list, id, time]) =>
        (full.shopData[shop.shop_id]![list] as readonly object[]).filter((r) => Date.parse(time(r as never)) > morningMs && Date.parse(time(r as never)) <= eveningMs).map((r) => ({ shop: shop.shop_id, key: `${list}:${id(r as never)}` })),
      ),
    )
    expect(appearing.length).toBeGreaterThan(5)
    const morning = new Map(state.world.shops.map((shop) => [shop.shop_id, idsOf(state.world.shopData[shop.shop_id]!)]))
    const eventsBefore = data(state).events.count
    for (const { shop, key } of appearing) expect(morning.get(shop)!.has(key), key).toBe(false)

    state.clock.advance(17 * HOUR) // 23:00 UTC
    const evening = new Map(state.world.shops.map((shop) => [shop.shop_id, idsOf(state.world.shopData[shop.shop_id]!)]))
    for (const { shop, key } of appearing) expect(evening.get(shop)!.has(key), key).toBe(true)
    for (const [shop, ids] of morning) for (const key of ids) expect(evening.get(shop)!.has(key), key).toBe(true)
    expect(data(state).events.count).toBeGreaterThan(eventsBefore)
  })

  it('rolls a record back to its state at the instant: a sample request before its latest step of the day', () => {
    const world = createWorld({ seed: 42, today: TODAY })
    const full = world.shopData[world.shops[0]!.shop_id]!
    // The request with the latest step of the day, seen just before that step.
    const steps = ['sample_approved', 'sample_shipped', 'sample_received', 'sample_posted'] as const
    const withStepToday = full.sampleRequests.flatMap((r) => steps.filter((s) => r[s] && r[s]!.startsWith(TODAY)).map((s) => ({ r, s })))
    expect(withStepToday.length).toBeGreaterThan(0)
    const { r, s } = withStepToday[0]!
    const before = Date.parse(r[s]!) - 1
    const seen = shopDataAt(world, full, before).data.sampleRequests.find((x) => x.apply_id === r.apply_id) as SampleRequest
    expect(seen[s]).toBeNull()
    expect(seen.status).not.toBe(r.status)
    expect(shopDataAt(world, full, Date.parse(r[s]!)).data.sampleRequests.find((x) => x.apply_id === r.apply_id)).toBe(r)
  })

  it('answers the same bytes on a frozen clock, and the same as a second mock of the same seed and clock', async () => {
    const a = createMockState({ seed: 42, today: TODAY, now: '2026-11-20T15:20:00.000Z', rateLimit: false })
    // Its world built apart (mock/world.ts shares a frozen world between states of one seed), as another process's would be.
    const b = createMockState({ seed: 42, today: TODAY, now: '2026-11-20T15:20:00.000Z', rateLimit: false, freezeWorld: false })
    const body = { page_size: 50, page_number: 1, search_params: {} }
    const first = await call(a, '/affiliate/samples/list', body)
    expect(first.status).toBe(200)
    expect((await call(a, '/affiliate/samples/list', body)).text).toBe(first.text)
    expect((await call(b, '/affiliate/samples/list', body)).text).toBe(first.text)
  })

  it('keeps the writes made before the clock passed a record of the day (replayed on the new view)', async () => {
    const state = createMockState({ seed: 42, today: TODAY, now: MORNING, rateLimit: false })
    const created = await call(state, '/dashboards/create', { name: 'Made in the morning' })
    expect(created.status).toBe(201)
    const versionBefore = state.version
    state.clock.advance(17 * HOUR)
    expect(data(state).events.count).toBeGreaterThan(0)
    expect(state.version).toBeGreaterThan(versionBefore)
    const listed = await call(state, '/dashboards/list', {})
    expect(listed.json.data.dashboards.map((d: { id: string }) => d.id)).toContain(created.json.data.id)
    // The replayed write gave the board the same id and times.
    const got = await call(state, '/dashboards/get', { dashboard_id: created.json.data.id })
    expect(got.json.data).toEqual(created.json.data)
  })

  it('makes the states that hold records of the day again from the new view, with their writes replayed; keeps the others', async () => {
    const state = createMockState({ seed: 42, today: TODAY, now: MORNING, rateLimit: false })
    const shopId = mainShop(state)
    const requests = () => new Map(sampleRequestsOf(state, shopId).map((r) => [r.apply_id, r]))
    const toApprove = [...requests().values()].find((r) => r.status === 'To Review' && !r.ignored)!.apply_id
    expect((await call(state, '/affiliate/samples/approve', { apply_ids: [toApprove] })).json.data.success_count).toBe(1)
    const outreachBefore = state.read(outreachState)
    const full = createWorld({ seed: 42, today: TODAY }).shopData[shopId]!
    // The requests with a step (requested, approved, shipped...) between the morning and the evening.
    const STEPS = ['timestamp', 'sample_approved', 'sample_shipped', 'sample_received', 'sample_posted'] as const
    const inDay = (iso: string | null) => iso !== null && Date.parse(iso) > Date.parse(MORNING) && Date.parse(iso) <= Date.parse(MORNING) + 17 * HOUR
    const moving = full.sampleRequests.filter((r) => r.apply_id !== toApprove && STEPS.some((step) => inDay(r[step])))
    expect(moving.length).toBeGreaterThan(0)
    const seenBefore = requests()
    for (const r of moving) expect(seenBefore.get(r.apply_id)).not.toEqual(r)

    state.clock.advance(17 * HOUR)
    const after = requests()
    // The day's requests and steps since the morning are there (the samples state was made again)...
    for (const r of moving) if (STEPS.every((step) => !r[step] || Date.parse(r[step]!) <= Date.parse(MORNING) + 17 * HOUR)) expect(after.get(r.apply_id), r.apply_id).toEqual(r)
    // ...and the approval made in the morning too (replayed on it).
    expect(after.get(toApprove)!.status).toBe('Ready to Ship')
    // A state that reads no record of the day is kept as it was.
    expect(state.read(outreachState)).toBe(outreachBefore)
  })

  it('shows the world as of the clock\'s instant whatever came before: the clock moves and the shops read between them do not change what an instant shows (a replayed log reads less)', () => {
    const world = createWorld({ seed: 42, today: TODAY })
    const shopIds = world.shops.map((s) => s.shop_id)
    // Instants where something changes, and around them: today's records and events, and the events of
    // a day weeks back (a clock set back before the two days the timeline starts from).
    const weeksBack = Date.parse('2026-10-02T00:00:00.000Z')
    const moments = shopIds.flatMap((id) => {
      const log = world.shopData[id]!.events
      const at = [...log.at.subarray(0, log.count)]
      return [...at.filter((m) => m >= weeksBack && m < weeksBack + 86_400_000).slice(0, 6), ...at.filter((m) => m > Date.parse(MORNING)).slice(0, 6)]
    })
    const records = world.shopData[shopIds[0]!]!.sampleRequests.flatMap((r) => [r.timestamp, r.sample_approved, r.sample_shipped].filter((t): t is string => t !== null).map(Date.parse)).filter((m) => m > Date.parse(MORNING) - 86_400_000)
    const instants = [...new Set([...moments, ...records.slice(0, 8)].flatMap((m) => [m - 1, m, m + 1]))]
    expect(instants.length).toBeGreaterThan(30)
    const digest = (data: ShopData) => JSON.stringify({ events: data.events.count, ...Object.fromEntries(APPEARING.map(([list, id]) => [list, (data[list] as unknown[]).map((r) => JSON.stringify([id(r), r]))])) })
    fc.assert(
      fc.property(fc.array(fc.record({ at: fc.constantFrom(...instants), read: fc.option(fc.nat(shopIds.length - 1)) }), { minLength: 1, maxLength: 8 }), (steps) => {
        const state = createMockState({ seed: 42, today: TODAY, now: MORNING, rateLimit: false })
        for (const step of steps) {
          state.clock.set(step.at)
          if (step.read !== null) void state.world.shopData[shopIds[step.read]!]!.events
        }
        const at = steps.at(-1)!.at
        for (const id of shopIds) expect(digest(state.world.shopData[id]!), `${id} at ${new Date(at).toISOString()}`).toBe(digest(shopDataAt(world, world.shopData[id]!, at).data))
      }),
      { numRuns: 15, seed: 15, endOnFailure: true },
    )
  })
})

