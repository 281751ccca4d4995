/**
 * Model-based testing of write sequences (issue 15, item 2): random sequences of valid and invalid
 * writes and reads (create, delete, same-key replay, replay after expiry through the clock, the
 * control API's reset), each checked against a small model of what exists, and for liveness: every
 * request answered within its time limit, and `/health` 200 after each sequence.
 * `npm run fuzz:stateful` runs many more sequences (STATEFUL_RUNS, STATEFUL_SEED).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMockState, type MockState } from '../mock/index.ts'
import { BRIEF_LIMIT_REACHED, MAX_BRIEFS } from '../mock/areas/outreach/briefs.ts'
import { createInProcessClient, type InProcessClient } from './support/in-process.ts'

const RUNS = Number(process.env.STATEFUL_RUNS ?? 100)
const SEED = Number(process.env.STATEFUL_SEED ?? 15)
/** The run's time grows with RUNS (44 ms a sequence alone, 95 ms on a shared 2-core machine: 380 s at 4,000): 600 s, or 250 ms a sequence past that. */
const TEST_TIMEOUT_MS = Math.max(600_000, RUNS * 250)
const DAY = 24 * 3600_000

interface Model {
  lists: Set<string>
  boards: Map<string, string>
  briefs: string[]
  /** Idempotent answers by key, with the clock time they were made (spec: Idempotency: 24 hours). */
  replays: Map<string, { at: number; request: { op: string; body: string }; text: string; status: number }>
  now: number
}

interface Real {
  state: MockState
  client: InProcessClient
  shopId: string
  call(op: string, body?: unknown, key?: string): Promise<{ status: number; text: string; json: any }>
}

const headersFor = (shopId: string, key?: string) => ({ 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId, ...(key ? { 'idempotency-key': key } : {}) })

function freshModel(real: Real): Model {
  const data = real.state.world.shopData[real.shopId]!
  return { lists: new Set(data.lists.map((l) => l.title)), boards: new Map(), briefs: data.briefs.map((b) => b.brief_id), replays: new Map(), now: real.state.clock.now().getTime() }
}

const title = fc.constantFrom('alpha', 'beta', 'gamma', 'Delta list', 'ε')
const key = fc.constantFrom('k-1', 'k-2', 'k-3', 'retry-A')

class CreateList implements fc.AsyncCommand<Model, Real> {
  readonly title: string
  readonly key: string | undefined
  constructor(title: string, key: string | undefined) {
    this.title = title; this.key = key
  }
  check = () => true
  async run(m: Model, r: Real) {
    const body = { title: this.title, handles: [] }
    const replay = this.key ? m.replays.get(this.key) : undefined
    const a = await r.call('createList', body, this.key)
    if (replay && replay.request.op === 'createList' && replay.request.body === JSON.stringify(body)) {
      // spec: Idempotency: a replay returns the original status and body byte for byte, no second effect.
      expect({ status: a.status, text: a.text }).toEqual({ status: replay.status, text: replay.text })
      return
    }
    if (replay) return // same key, other request: the service's answer is not shown; only liveness matters.
    expect(a.status, a.text).toBeLessThan(300)
    m.lists.add(this.title)
    if (this.key) m.replays.set(this.key, { at: m.now, request: { op: 'createList', body: JSON.stringify(body) }, text: a.text, status: a.status })
  }
  toString = () => `createList(${this.title}${this.key ? `, key ${this.key}` : ''})`
}

class DeleteList implements fc.AsyncCommand<Model, Real> {
  readonly title: string
  constructor(title: string) {
    this.title = title
  }
  check = () => true
  async run(m: Model, r: Real) {
    const a = await r.call('deleteList', { title: this.title })
    // spec: Lists: a list is identified by its title; an unknown one is not there to delete.
    expect(a.status, a.text).toBe(m.lists.has(this.title) ? 200 : 404)
    m.lists.delete(this.title)
  }
  toString = () => `deleteList(${this.title})`
}

class CreateBoard implements fc.AsyncCommand<Model, Real> {
  readonly name: string
  constructor(name: string) {
    this.name = name
  }
  check = () => true
  async run(m: Model, r: Real) {
    const a = await r.call('createDashboard', { name: this.name })
    // spec: Dashboards: a name used by another board of the shop is 409 (compared without case: inferred).
    if ([...m.boards.values()].some((n) => n.toLowerCase() === this.name.toLowerCase())) return void expect(a.status, a.text).toBe(409)
    expect(a.status, a.text).toBe(201)
    m.boards.set(a.json.data.id, this.name)
  }
  toString = () => `createDashboard(${this.name})`
}

class DeleteBoard implements fc.AsyncCommand<Model, Real> {
  readonly pick: number
  constructor(pick: number) {
    this.pick = pick
  }
  check = (m: Readonly<Model>) => m.boards.size > 0
  async run(m: Model, r: Real) {
    const id = [...m.boards.keys()][this.pick % m.boards.size]!
    const a = await r.call('deleteDashboard', { dashboard_id: id })
    expect(a.status, a.text).toBe(200)
    m.boards.delete(id)
    expect((await r.call('deleteDashboard', { dashboard_id: id })).status).toBe(404)
  }
  toString = () => `deleteDashboard(#${this.pick})`
}

class CreateBriefs implements fc.AsyncCommand<Model, Real> {
  readonly count: number
  constructor(count: number) {
    this.count = count
  }
  check = () => true
  async run(m: Model, r: Real) {
    for (let i = 0; i < this.count; i++) {
      const a = await r.call('createCreatorBrief', { type: 'static', title: 'b', video_mode: 'auto' })
      // spec: Creator briefs: at most 500 per shop.
      if (m.briefs.length >= MAX_BRIEFS) expect(a.json).toEqual({ error: BRIEF_LIMIT_REACHED })
      else {
        expect(a.status, a.text).toBe(201)
        m.briefs.push(a.json.data.brief_id)
      }
    }
  }
  toString = () => `createCreatorBrief × ${this.count}`
}

class InvalidWrite implements fc.AsyncCommand<Model, Real> {
  readonly op: string
  readonly body: unknown
  constructor(op: string, body: unknown) {
    this.op = op; this.body = body
  }
  check = () => true
  async run(_m: Model, r: Real) {
    const a = await r.call(this.op, this.body)
    expect(a.status, a.text).toBe(400)
    expect(typeof a.json.error).toBe('string')
  }
  toString = () => `${this.op}(${JSON.stringify(this.body)})`
}

class AdvanceClock implements fc.AsyncCommand<Model, Real> {
  readonly ms: number
  constructor(ms: number) {
    this.ms = ms
  }
  check = () => true
  async run(m: Model, r: Real) {
    r.state.clock.advance(this.ms)
    m.now += this.ms
    for (const [k, record] of m.replays) {
      const a = await r.client.call(r.state.contract.byId.get('getIdempotencyRecord')!, { path: `/idempotency/${k}`, headers: headersFor(r.shopId) })
      // spec: Idempotency: the record expires after 24 hours, then lookup returns 404.
      if (m.now - record.at >= DAY) {
        expect(a.status, a.text).toBe(404)
        m.replays.delete(k)
      } else expect(a.status, a.text).toBe(200)
    }
  }
  toString = () => `clock + ${this.ms} ms`
}

class Reset implements fc.AsyncCommand<Model, Real> {
  check = () => true
  async run(m: Model, r: Real) {
    r.state.reset()
    Object.assign(m, freshModel(r))
  }
  toString = () => 'reset'
}

const commands = [
  fc.tuple(title, fc.option(key, { nil: undefined })).map(([t, k]) => new CreateList(t, k)),
  title.map((t) => new DeleteList(t)),
  fc.constantFrom('Board A', 'Board B', 'board a').map((n) => new CreateBoard(n)),
  fc.nat().map((n) => new DeleteBoard(n)),
  fc.integer({ min: 1, max: 60 }).map((n) => new CreateBriefs(n)),
  fc.constantFrom(
    ['createList', { title: 'x' }], ['createDashboard', { name: '' }], ['createDashboard', {}], ['deleteDashboard', {}],
    ['createCreatorBrief', { type: 'dynamic' }], ['createList', { title: 'x', handles: 'nope' }],
  ).map(([op, body]) => new InvalidWrite(op as string, body)),
  fc.constantFrom(60_000, 3600_000, 12 * 3600_000, 25 * 3600_000).map((ms) => new AdvanceClock(ms)),
  fc.constant(new Reset()),
]

function realFor(state: MockState): Real {
  const client = createInProcessClient(state, { timeoutMs: 2_000 })
  const shopId = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!.shop_id
  return {
    state, client, shopId,
    async call(op, body, idempotencyKey) {
      const answer = await client.call(state.contract.byId.get(op)!, { headers: headersFor(shopId, idempotencyKey), body: body === undefined ? undefined : JSON.stringify(body) })
      return { status: answer.status, text: answer.text, json: JSON.parse(answer.text) }
    },
  }
}

describe('stateful: random write sequences against a model (issue 15; spec: Idempotency, Rules of the named resources, Limits)', () => {
  it(`${RUNS} sequences of up to 40 commands: every answer as the model says, every request answered, /health 200 after each`, async () => {
    let sequences = 0
    let commandsRun = 0
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: 'medium' }), async (cmds) => {
        const state = createMockState({ seed: 42, scale: 'small', now: '2026-11-20T15:20:00.000Z', rateLimit: false })
        const real = realFor(state)
        await fc.asyncModelRun(() => ({ model: freshModel(real), real }), cmds)
        const health = await real.client.call(state.contract.byId.get('getHealth')!)
        expect(health.status).toBe(200)
        sequences++
        commandsRun += [...cmds].length
      }),
      { numRuns: RUNS, seed: SEED },
    )
    console.log(`stateful: ${sequences} sequences, ${commandsRun} commands (seed ${SEED})`)
  }, TEST_TIMEOUT_MS)
})
