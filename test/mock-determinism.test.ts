/**
 * Every answer is a function of the seed, `today`, the state and the mock clock only (issue 15,
 * items 4 and 5): two mocks given the same sequence answer the same bytes; the same read twice on a
 * running clock is byte-identical where the spec does not tie the answer to the moment; and the
 * documented input forms are accepted in every form of an operation.
 */
import { describe, expect, it } from 'vitest'
import { createMockState, type MockState } from '../mock/index.ts'
import { minimalCall, readingOperations } from '../mock/testing.ts'
import { createInProcessClient } from './support/in-process.ts'
import { createServer } from '../mock/server.ts'

const OPTIONS = { seed: 7, scale: 'small', today: '2026-11-20', now: '2026-11-20T15:20:00.000Z', rateLimit: false } as const
/** The second mock's: its world built apart (mock/world.ts shares a frozen world between states of one seed), as another process's would be. */
const OWN_WORLD = { ...OPTIONS, freezeWorld: false } as const

/** Every reading operation answered once, as `operationId status body` lines. */
async function readAll(state: MockState): Promise<string[]> {
  const client = createInProcessClient(state)
  const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
  const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
  const out: string[] = []
  for (const op of readingOperations(state.contract)) {
    const answer = await client.call(op, { ...minimalCall(state.contract, op, state.today), headers })
    out.push(`${op.operationId} ${answer.status} ${answer.text}`)
  }
  return out
}

describe('determinism: answers depend on seed, today, state and clock only (issue 15)', () => {
  it('two mocks with the same seed, today and frozen clock answer a sequence of reads, writes and reads again byte for byte', async () => {
    const sequence = async (state: MockState) => {
      const before = await readAll(state)
      const client = createInProcessClient(state)
      const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
      const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id }
      const writes = [
        ['createList', { title: 'determinism', handles: [] }],
        ['createDashboard', { name: 'Determinism board' }],
        ['createCreatorBrief', { type: 'static', title: 'brief', video_mode: 'auto' }],
        ['createCommunityCampaign', { title: 'race', type: 'race' }],
        ['createAutomation', { title: 'hello', message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'Hi' }] }],
      ] as const
      const written: string[] = []
      for (const [id, body] of writes) written.push((await client.call(state.contract.byId.get(id)!, { headers, body: JSON.stringify(body) })).text)
      return [...before, ...written, ...(await readAll(state))]
    }
    const first = await sequence(createMockState(OPTIONS))
    const second = await sequence(createMockState(OWN_WORLD))
    expect(first.length).toBeGreaterThan(100)
    expect(second).toEqual(first)
  })

  it('two listening servers with the same seed, today and frozen clock answer every reading operation, writes and the reads again byte for byte over HTTP', async () => {
    const servers = [createServer({ stateOptions: OPTIONS }), createServer({ stateOptions: OWN_WORLD })]
    try {
      const bases = await Promise.all(servers.map((s) => s.listen(0, '127.0.0.1')))
      const state = servers[0]!.state
      const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
      const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
      const requests = readingOperations(state.contract).map((op) => ({ op, ...minimalCall(state.contract, op, state.today) }))
      const writes = [
        { path: '/lists/create', body: JSON.stringify({ title: 'over http', handles: [] }) },
        { path: '/dashboards/create', body: JSON.stringify({ name: 'Over HTTP' }) },
        { path: '/creator-briefs/create', body: JSON.stringify({ type: 'static', title: 'b', video_mode: 'auto' }) },
      ]
      const sequence = async (base: string) => {
        const out: string[] = []
        const read = async () => {
          for (const r of requests) {
            const response = await fetch(`${base}${r.path}${r.query ? `?${r.query}` : ''}`, { method: r.op.method, headers, body: r.body })
            out.push(`${r.op.operationId} ${response.status} ${await response.text()}`)
          }
        }
        await read()
        for (const w of writes) out.push(await (await fetch(`${base}${w.path}`, { method: 'POST', headers, body: w.body })).text())
        await read()
        return out
      }
      const [first, second] = [await sequence(bases[0]!), await sequence(bases[1]!)]
      expect(first.length).toBeGreaterThan(100)
      expect(second).toEqual(first)
    } finally {
      await Promise.all(servers.map((s) => s.close()))
    }
  })

  // A fresh machine in another time zone: node reads TZ again when it is set, so a day computed with local-time methods would move.
  it.each(['Pacific/Kiritimati', 'America/Adak', 'Asia/Kathmandu'])('the machine\'s time zone (%s, against UTC) changes no answer: every reading operation, writes and the reads again', async (zone) => {
    const saved = process.env.TZ
    const sequence = async (tz: string) => {
      process.env.TZ = tz
      try {
        const state = createMockState(OWN_WORLD)
        const before = await readAll(state)
        const client = createInProcessClient(state)
        const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
        const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id }
        const created = await client.call(state.contract.byId.get('createDashboard')!, { headers, body: JSON.stringify({ name: 'Zone board' }) })
        state.clock.advance(20 * 3_600_000)
        // The zone is in force (else the test could not fail): its offset is not UTC's.
        return { offset: new Date(Date.UTC(2026, 0, 1, 12)).getTimezoneOffset(), lines: [...before, created.text, ...(await readAll(state))] }
      } finally {
        if (saved === undefined) delete process.env.TZ
        else process.env.TZ = saved
      }
    }
    const { lines: utc } = await sequence('UTC')
    const { lines: there, offset } = await sequence(zone)
    expect(offset).not.toBe(0)
    expect(there.filter((line, i) => line !== utc[i]).map((line) => line.slice(0, 200))).toEqual([])
  })

  it('the same read twice, the clock having moved on a second, is byte-identical (every reading operation)', async () => {
    const state = createMockState(OPTIONS)
    const first = await readAll(state)
    state.clock.advance(1_000)
    const second = await readAll(state)
    const differing = first.filter((line, i) => line !== second[i]).map((line) => line.split(' ')[0])
    // The moment is the answer: /health says when it answered; the activity log has recorded the first reads.
    expect(differing).toEqual(['listAccountActivity', 'getHealth'])
  })
})

describe('input forms: every documented form is accepted in each form of the operation (issue 15; spec: Conventions 4, Off-platform sales correlation)', () => {
  const state = createMockState(OPTIONS)
  const client = createInProcessClient(state)
  const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
  const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id }
  const call = (id: string, input: { body?: unknown; query?: string }) =>
    client.call(state.contract.byId.get(id)!, { headers, query: input.query, body: input.body === undefined ? undefined : JSON.stringify(input.body) })
  const data = (text: string) => JSON.parse(text).data

  it('halo: date_from/date_to instead of date_range, in the POST body as in the GET query, give the same report', async () => {
    const canonical = await call('getHaloReport', { body: { date_range: { from: '2026-10-01', to: '2026-10-31' } } })
    const flatPost = await call('getHaloReport', { body: { date_from: '2026-10-01', date_to: '2026-10-31' } })
    const flatGet = await call('getHaloReportGet', { query: 'date_from=2026-10-01&date_to=2026-10-31' })
    expect(canonical.status).toBe(200)
    expect(flatPost.status, flatPost.text).toBe(200)
    expect(flatGet.status, flatGet.text).toBe(200)
    expect(data(flatPost.text)).toEqual(data(canonical.text))
    expect(data(flatGet.text)).toEqual(data(canonical.text))
  })

  it.each([
    ['listAdCampaigns', { date_range: { from: '2026-10-01', to: '2026-10-31' }, page_size: 3, sort_by: 'budget' }, { dateRange: { from: '2026-10-01', to: '2026-10-31' }, pageSize: 3, sortBy: 'budget' }],
    ['listAdCreatives', { posted_date: { from: '2026-01-01', to: '2026-10-31' }, page_size: 3 }, { date_range: { from: '2026-01-01', to: '2026-10-31' }, pageSize: 3 }],
    ['listSocialCampaigns', { date_range: { from: '2026-10-01', to: '2026-10-31' }, page_size: 3 }, { dateRange: { from: '2026-10-01', to: '2026-10-31' }, pageSize: 3 }],
  ] as const)('%s: camelCase and legacy keys give the canonical answer', async (id, canonicalBody, aliasBody) => {
    const canonical = await call(id, { body: canonicalBody })
    const alias = await call(id, { body: aliasBody })
    expect(canonical.status, canonical.text).toBe(200)
    expect(alias.text).toBe(canonical.text)
  })

  it('every /v1/ads alias and GET form answers as its canonical operation (with no body)', async () => {
    const aliases = state.contract.operations.filter((op) => op.aliasOf)
    expect(aliases.length).toBeGreaterThan(4)
    const differing: string[] = []
    for (const alias of aliases) {
      const canonical = state.contract.byId.get(alias.aliasOf!)!
      if (canonical.hasBody && canonical.requestSchema && (canonical.operation as any).requestBody?.required) continue
      const a = await client.call(alias, { headers, body: alias.hasBody ? '{}' : undefined })
      const b = await client.call(canonical, { headers, body: canonical.hasBody ? '{}' : undefined })
      if (a.text !== b.text || a.status !== b.status) differing.push(`${alias.operationId} ${a.status} vs ${canonical.operationId} ${b.status}`)
    }
    expect(differing).toEqual([])
  })
})
