/**
 * Concurrency (issue 8, Robustness), against a real server on 127.0.0.1: one Idempotency-Key
 * raced by 100 creates, the per-second rate limit under 150 concurrent requests, and racing
 * dashboard updates on one `expected_updated_at`. The mock clock is frozen: "in one second" is
 * exact, and nothing sleeps on the wall clock.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createServer, type MockServer } from '../mock/index.ts'
import { IN_FLIGHT_MESSAGE } from '../mock/pipeline/idempotency.ts'
import { contractProblem } from '../mock/testing.ts'

const NOW = '2026-03-10T12:00:00.000Z'
let mock: MockServer
let url: string
let shopA: string
let shopB: string

beforeAll(async () => {
  mock = createServer({ stateOptions: { seed: 42, now: NOW, rateLimit: false }, log: () => {} })
  url = await mock.listen(0, '127.0.0.1')
  ;[shopA, shopB] = mock.state.world.shops.filter((s) => s.is_active).map((s) => s.shop_id)
})
afterAll(() => mock.close())
beforeEach(() => {
  mock.state.reset()
  mock.state.clock.set(NOW)
  mock.state.rateLimit = false
})

interface Answer {
  status: number
  text: string
  headers: Headers
}

async function call(method: string, path: string, { key = 'demo-key', shop = shopA, body, headers = {} }: { key?: string; shop?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-shop-id': shop, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  return { status: response.status, text: await response.text(), headers: response.headers }
}

const expectContract = (operationId: string, answer: Answer) => expect(contractProblem(mock.state.contract, mock.state.contract.byId.get(operationId)!, answer.status, answer.text)).toBeUndefined()
const automationCount = async (shop = shopA) => JSON.parse((await call('POST', '/automations/list', { shop, body: {} })).text).data.total_count as number
const newAutomation = { title: 'Race day outreach', message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]!' }] }

describe('concurrency: one Idempotency-Key raced by 100 creates (spec: Idempotency)', () => {
  it('idempotency: 100 concurrent POST /automations/create with one key create exactly one automation; every other answer is the byte-identical replay or a 409', async () => {
    const [before, beforeOtherShop] = [await automationCount(), await automationCount(shopB)]
    const answers = await Promise.all(Array.from({ length: 100 }, () => call('POST', '/automations/create', { body: newAutomation, headers: { 'idempotency-key': 'race-create-1' } })))
    const originals = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null)
    const replays = answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')
    const inFlight = answers.filter((a) => a.status === 409)
    expect(originals).toHaveLength(1)
    expect(replays.length + inFlight.length).toBe(99)
    for (const replay of replays) {
      expect(replay.status).toBe(201)
      expect(replay.text).toBe(originals[0].text)
    }
    for (const conflict of inFlight) expect(JSON.parse(conflict.text)).toEqual({ error: IN_FLIGHT_MESSAGE })
    for (const answer of answers) expectContract('createAutomation', answer)
    expect(await automationCount()).toBe(before + 1)
    expect(await automationCount(shopB)).toBe(beforeOtherShop)

    const record = JSON.parse((await call('GET', '/idempotency/race-create-1')).text)
    expect(record.idempotency).toMatchObject({ status: 'completed', response_status: 201 })
    expect(JSON.stringify(record.idempotency.response_body)).toBe(originals[0].text)
  })

  it('idempotency: while the first create is still running, the 99 others get 409 in flight; afterwards the key replays the one automation (spec: Idempotency: 409 for up to 60 seconds)', async () => {
    // The real create, held open until the test releases it (a slow backend), so the race is certain.
    const realCreate = mock.state.handlers.get('createAutomation')!
    let entries = 0
    let release!: () => void
    let entered!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const firstEntered = new Promise<void>((resolve) => (entered = resolve))
    mock.state.handlers.set('createAutomation', async (ctx) => {
      entries++
      entered()
      await gate
      return realCreate(ctx)
    })
    try {
      const before = await automationCount()
      const headers = { 'idempotency-key': 'race-create-2' }
      const first = call('POST', '/automations/create', { body: newAutomation, headers })
      await firstEntered
      const others = await Promise.all(Array.from({ length: 99 }, () => call('POST', '/automations/create', { body: newAutomation, headers })))
      expect(others.map((a) => a.status)).toEqual(Array(99).fill(409))
      for (const answer of others) {
        expect(JSON.parse(answer.text)).toEqual({ error: IN_FLIGHT_MESSAGE })
        expectContract('createAutomation', answer)
      }
      expect(JSON.parse((await call('GET', '/idempotency/race-create-2')).text).idempotency).toEqual({ status: 'processing' })
      release()
      const original = await first
      expect(original.status).toBe(201)
      const replay = await call('POST', '/automations/create', { body: newAutomation, headers })
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
      expect(replay.text).toBe(original.text)
      expect(entries).toBe(1)
      expect(await automationCount()).toBe(before + 1)
    } finally {
      release()
      mock.state.handlers.set('createAutomation', realCreate)
    }
  })
})

describe('idempotency: one key, two operations (spec: Idempotency)', () => {
  it('idempotency: a key first used on POST /affiliate/message/dm is refused with 400 on POST /automations/create, not answered with the DM\'s cached response', async () => {
    const headers = { 'idempotency-key': 'reused-across-operations' }
    const dm = await call('POST', '/affiliate/message/dm', { body: { creator_id: 'nobody', message: 'hi' }, headers })
    expect(dm.status).toBeLessThan(500)
    const before = await automationCount()
    const create = await call('POST', '/automations/create', { body: newAutomation, headers })
    expect(create.status).toBe(400)
    expect(JSON.parse(create.text)).toEqual({ error: 'Idempotency-Key already used for POST /affiliate/message/dm on this shop; use a new key for another operation' })
    expectContract('createAutomation', create)
    expect(await automationCount()).toBe(before)
    // The first operation still replays its own answer, and the record is unchanged.
    const replay = await call('POST', '/affiliate/message/dm', { body: { creator_id: 'nobody', message: 'hi' }, headers })
    expect(replay.text).toBe(dm.text)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
  })
})

describe('concurrency: the per-second rate limit under concurrent load (spec: Limits)', () => {
  it('rate limit: 50 concurrent requests per (key, shop) in one second get exactly 10 non-429 answers each; other keys and shops are counted apart', async () => {
    mock.state.rateLimit = true
    const pairs = [
      { key: 'demo-key', shop: shopA },
      { key: 'demo-key', shop: shopB },
      { key: 'demo-enterprise-key', shop: shopA },
    ]
    // A mix of reads, idempotent writes and invalid requests: every request counts, whatever its answer.
    const requests = [
      (p: (typeof pairs)[number]) => call('GET', '/shop/sps', p),
      (p: (typeof pairs)[number]) => call('POST', '/shop/products', { ...p, body: {} }),
      (p: (typeof pairs)[number]) => call('POST', '/affiliate/samples/approve', { ...p, body: { apply_ids: [] } }),
      (p: (typeof pairs)[number]) => call('POST', '/shop/products', { ...p, body: { sort_by: 42 } }),
    ]
    const operationOf = ['getShopSps', 'listShopProducts', 'approveSampleRequests', 'listShopProducts']
    const fired = pairs.flatMap((pair, p) => Array.from({ length: 50 }, (_, i) => ({ p, op: operationOf[i % 4], answer: requests[i % 4](pair) })))
    const answers = await Promise.all(fired.map(async (f) => ({ ...f, answer: await f.answer })))
    for (let p = 0; p < pairs.length; p++) {
      const mine = answers.filter((a) => a.p === p)
      expect(mine).toHaveLength(50)
      expect(mine.filter((a) => a.answer.status !== 429)).toHaveLength(10)
      for (const { answer, op } of mine) {
        expectContract(op, answer)
        if (answer.status === 429) {
          expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
          expect(JSON.parse(answer.text).error).toMatch(/10 per second/)
        }
      }
    }
    // The window is the mock clock's: one second later each pair has 10 more, and no more.
    mock.state.clock.advance(1000)
    const next = await Promise.all(pairs.flatMap((pair) => Array.from({ length: 15 }, () => call('GET', '/shop/sps', pair))))
    expect(next.filter((a) => a.status === 200)).toHaveLength(30)
  })
})

describe('concurrency: racing dashboard updates (spec: Dashboards; Errors 412)', () => {
  async function openBoard() {
    const opened = await fetch(`${url}/__admin/dashboards/open`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ shop_id: shopA }) })
    expect(opened.status).toBe(200)
    const list = JSON.parse((await call('POST', '/dashboards/list', { body: {} })).text)
    const board = list.data.dashboards[0] as { id: string; updated_at: string }
    expect(board).toBeDefined()
    return board
  }

  it('dashboards: two concurrent updates with the same expected_updated_at give one 200 and one 412', async () => {
    const board = await openBoard()
    const [a, b] = await Promise.all(['Racer A', 'Racer B'].map((name) => call('POST', '/dashboards/update', { body: { dashboard_id: board.id, name, expected_updated_at: board.updated_at } })))
    expect([a.status, b.status].sort()).toEqual([200, 412])
    for (const answer of [a, b]) expectContract('updateDashboard', answer)
    const winner = a.status === 200 ? a : b
    const stored = JSON.parse((await call('POST', '/dashboards/get', { body: { dashboard_id: board.id } })).text).data
    expect(stored.name).toBe(JSON.parse(winner.text).data.name)
    expect(Date.parse(stored.updated_at)).toBeGreaterThan(Date.parse(board.updated_at))
  })

  it('dashboards: of 10 concurrent updates on one expected_updated_at exactly one wins, the other 9 get 412, with the clock frozen', async () => {
    const board = await openBoard()
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call('POST', '/dashboards/update', { body: { dashboard_id: board.id, name: `Racer ${i}`, expected_updated_at: board.updated_at } })))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 412)).toHaveLength(9)
    for (const answer of answers) expectContract('updateDashboard', answer)
  })
})
