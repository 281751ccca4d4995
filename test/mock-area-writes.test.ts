/**
 * The samples, social, ads, halo and events states change only through named writes (issue 16, item
 * 2): the generated world stays as built (frozen, an in-place edit would throw), every write reaches
 * `onWrite` with a plain-data input, and replaying those writes in order on a fresh mock of the same
 * seed and clock gives the same answers.
 */
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { boostsState } from '../mock/areas/ads.ts'
import { haloConfigState, haloState } from '../mock/areas/halo.ts'
import { membershipsState } from '../mock/areas/social.ts'
import type { AreaState, WriteRecord } from '../mock/context.ts'
import { eventsState } from '../mock/events.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { samplesState } from '../mock/lib/sample-requests.ts'

const BASE = 'https://writes.example.com'
const NOW = '2026-03-10T12:00:00.000Z'
const DEFINITIONS: ReadonlyArray<AreaState<any, any>> = [samplesState, eventsState, membershipsState, boostsState, haloState, haloConfigState]

function mock(options: { freezeWorld?: boolean; onWrite?: (write: WriteRecord) => void } = {}) {
  const state = createMockState({ seed: 42, now: NOW, rateLimit: false, strict: true, ...options })
  const handlers = createHandlers(state, { baseUrl: BASE, log: () => {} })
  const shopId = state.world.shops[0]!.shop_id
  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId }
    const request = new Request(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const response = (await getResponse(handlers, request))!
    return { status: response.status, text: await response.text() }
  }
  return { state, shopId, call }
}

/** Writes of every area through the API and the control API, as a client and a test would make them. */
async function writeEverything({ state, shopId, call }: ReturnType<typeof mock>): Promise<void> {
  const data = state.world.shopData[shopId]!
  const toReview = data.sampleRequests.filter((r) => r.status === 'To Review' && !r.ignored).map((r) => r.apply_id)
  const creator = state.world.creators[data.affiliates[0]!.creator_index]!
  const ok = async (path: string, body: unknown) => expect((await call('POST', path, body)).status).toBe(200)
  await ok('/affiliate/samples/approve', { apply_ids: toReview.slice(0, 2) })
  await ok('/affiliate/samples/reject', { apply_ids: toReview.slice(2, 3) })
  await ok('/affiliate/samples/ignore', { apply_ids: toReview.slice(3, 4), perma_ignore_affiliates: [{ creator_id: creator.creator_id, handle: creator.handle }] })
  await ok('/affiliate/samples/unignore', { apply_ids: toReview.slice(3, 4) })
  await ok('/affiliate/message/dm', { creator_id: creator.creator_id, message: 'Hello' })
  state.clock.advance(60_000)
  await state.admin.run('samples/arrive', { shop_id: shopId, creator_id: creator.creator_id })
  const program = data.programs.find((p) => p.status === 'active' && p.approval_mode === 'manual')!
  const joined = (await state.admin.run('social/join', { shop_id: shopId, program_id: program.program_id, handle: 'new.creator' })) as { creator_id: string }
  await state.admin.run('social/approve', { shop_id: shopId, creator_id: joined.creator_id })
  const session = data.boostSessions.find((s) => s.active)!
  await state.admin.run('ads/boost-stop', { shop_id: shopId, session_id: session.session_id })
  await state.admin.run('halo/config', { refresh_ms: 5_000 })
  await state.admin.run('halo/availability', { shop_id: shopId, platform: 'marketplace', available: false })
  await state.admin.run('halo/drop-snapshot', { shop_id: shopId })
}

/** What the areas answer about the state those writes leave. */
async function readEverything({ call }: ReturnType<typeof mock>): Promise<string[]> {
  const today = { from: '2026-03-10', to: '2026-03-10' }
  const answers = [
    await call('POST', '/affiliate/samples/list', { page_size: 50, filters: { sample_status: ['To Review', 'Ready to Ship', 'Rejected'] } }),
    await call('POST', '/affiliate/samples/list', { page_size: 50, filters: { sample_status: ['ignore'] } }),
    await call('POST', '/affiliate/samples/funnel', {}),
    await call('POST', '/shop/stats', { date_range: today, stats: ['samples_approved', 'sample_requests', 'dms_sent'] }),
    await call('POST', '/social/programs/creators', { page_size: 100 }),
    await call('POST', '/ads/boosted-creatives', { include_ended: true, page_size: 100 }),
    await call('GET', '/halo-effect/product-links'),
  ]
  for (const answer of answers) expect(answer.status, answer.text).toBe(200)
  return answers.map((a) => a.text)
}

describe('area writes (issue 16, item 2: one state model)', () => {
  it('writes: samples, social, ads and halo writes leave the frozen world as built', async () => {
    const m = mock({ freezeWorld: true })
    const data = m.state.world.shopData[m.shopId]!
    expect(Object.isFrozen(data.sampleRequests[0])).toBe(true)
    const before = JSON.stringify([data.sampleRequests, data.permaIgnoredCreators, data.programCreators, data.boostSessions, data.stores])
    await writeEverything(m)
    expect(JSON.stringify([data.sampleRequests, data.permaIgnoredCreators, data.programCreators, data.boostSessions, data.stores])).toBe(before)
  })

  it('writes: each reaches onWrite by area and name, its input plain data', async () => {
    const writes: WriteRecord[] = []
    await writeEverything(mock({ onWrite: (w) => writes.push(w) }))
    expect(writes.map((w) => `${w.area}.${w.name}`)).toEqual([
      'samples.approve',
      'samples.reject',
      'samples.ignore',
      'samples.unignore',
      'samples.sendDm',
      'events.record',
      'samples.arrive',
      'social.join',
      'social.approve',
      'ads.stop',
      'halo.config.set',
      'halo.setAvailable',
      'halo.dropSnapshot',
    ])
    for (const w of writes) expect(JSON.parse(JSON.stringify(w.input))).toEqual(w.input)
  })

  it('writes: replaying the reported writes in order on a fresh mock gives the same answers', async () => {
    const writes: WriteRecord[] = []
    const original = mock({ onWrite: (w) => writes.push(w) })
    await writeEverything(original)
    const replica = mock()
    replica.state.clock.set(original.state.clock.now())
    const definition = (area: string) => DEFINITIONS.find((d) => d.area === area)!
    // Inputs travel as JSON, as they would to another replica.
    for (const w of writes) replica.state.write(definition(w.area), w.name, JSON.parse(JSON.stringify(w.input)))
    expect(await readEverything(replica)).toEqual(await readEverything(original))
  })
})
