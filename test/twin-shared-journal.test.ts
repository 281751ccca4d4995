/**
 * The request journal and the traces of a twin shared by replicas (issue 23 with issue 28's traces):
 * one contract for the in-memory stores and the Redis ones; then two replicas on one store, each a
 * standalone server on loopback: what a client sent to one is in the other's `GET /__admin/requests`,
 * a trace id one answered opens on the other (API and console feed), a clear or a reset on one holds
 * on both, and no secret reaches the store.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockState, type MockState, type MockStateOptions } from '../mock/index.ts'
import { createServer, type MockServer } from '../mock/server.ts'
import { REDACTED, type JournalEntry } from '../mock/stores/journal.ts'
import type { Trace, TraceSummary } from '../mock/trace/types.ts'
import { fetchOf } from './support/in-process.ts'
import { redisCommand, startRedis, type TestRedis } from './support/redis.ts'
import { inProcessReplica, TWIN_NOW } from './support/twin.ts'

const NOW = TWIN_NOW
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const SECRET_KEY = 'demo-key'
let redis: TestRedis
let twins = 0

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

/** A replica of twin `name` on the test's Redis, rate limit off (a fresh twin name unless given). */
const replica = (name = `j${++twins}`, options: Pick<MockStateOptions, 'trace' | 'responseCache'> = {}): Promise<MockState> => inProcessReplica(redis.url, name, { rateLimit: false, ...options })
const memory = async () => createMockState({ seed: 42, scale: 'small', today: '2026-03-10', now: NOW, rateLimit: false })

/** Where the admin API reads traces (the shared store's, else the replica's own). */
const tracesOf = (s: MockState) => s.twin.traces ?? s.traces
const entry = (i: number, extra: Partial<JournalEntry> = {}) => ({ time: NOW, method: 'GET', path: `/p/${i}`, query: {}, headers: { 'x-n': String(i) }, body: null, operationId: i % 2 ? 'odd' : 'even', status: 200, ...extra })

describe('journal and traces: one contract, in memory and on Redis', () => {
  for (const [kind, make] of [
    ['memory', memory],
    ['redis', () => replica()],
  ] as const) {
    it(`${kind}: the journal keeps what the client sent in order, secrets redacted, filtered by operation, the newest \`limit\`, at most 1,000`, async () => {
      const state = await make()
      const shop = state.world.shops[0]!.shop_id
      const f = fetchOf(state)
      await f('POST', '/shop/products?tag=a&tag=b', { search: 'mug' }, shop, { authorization: 'Bearer s3cret', cookie: 'sid=s3cret' })
      await f('GET', '/shop/sps', undefined, shop)
      const entries = await state.admin.requests()
      expect(entries.map((e) => [e.method, e.path, e.operationId, e.status])).toEqual([
        ['POST', '/shop/products', 'listShopProducts', 200],
        ['GET', '/shop/sps', 'getShopSps', 200],
      ])
      expect(entries[0]).toMatchObject({ time: NOW, query: { tag: ['a', 'b'] }, body: { search: 'mug' } })
      expect(entries[0]!.headers).toMatchObject({ 'x-api-key': REDACTED, authorization: REDACTED, cookie: REDACTED, 'x-shop-id': shop })
      expect(JSON.stringify(entries)).not.toMatch(/demo-key|s3cret/)
      expect(entries[1]!.id).toBeGreaterThan(entries[0]!.id)
      expect((await state.admin.requests({ operationId: 'getShopSps' })).map((e) => e.path)).toEqual(['/shop/sps'])
      expect((await state.admin.requests({ limit: 1 })).map((e) => e.path)).toEqual(['/shop/sps'])

      await state.admin.clearRequests()
      expect(await state.admin.requests()).toEqual([])
      for (let i = 0; i < 1005; i++) state.journal.record(entry(i))
      const kept = await state.admin.requests()
      expect(kept).toHaveLength(1000)
      expect(kept[0]!.path).toBe('/p/5')
      expect(kept.at(-1)!.path).toBe('/p/1004')
      expect((await state.admin.requests({ operationId: 'odd', limit: 2 })).map((e) => e.path)).toEqual(['/p/1001', '/p/1003'])
      await state.twin.close()
    })

    it(`${kind}: a trace is read back as it was made, byte for byte; the list filters; a reset empties journal and traces`, async () => {
      const state = await make()
      const shop = state.world.shops[0]!.shop_id
      const f = fetchOf(state)
      const ok = await f('GET', '/shop/sps', undefined, shop)
      const bad = await f('POST', '/affiliate/crm/list', { page_size: 'ten' }, shop)
      expect(bad.status).toBe(400)
      const [okId, badId] = [ok.headers.get('x-shoptwin-trace')!, bad.headers.get('x-shoptwin-trace')!]
      const read = (await tracesOf(state).get(badId)) as Trace
      // What the replica itself holds, and what every replica reads from the store: the same JSON.
      expect(JSON.stringify(read)).toBe(JSON.stringify(state.traces.get(badId)))
      expect(read.response.body).toEqual(JSON.parse(bad.text))
      expect(read.request.headers['x-api-key']).toBe(REDACTED)
      expect(JSON.stringify(await tracesOf(state).get(okId))).toBe(JSON.stringify(state.traces.get(okId)))
      expect((await tracesOf(state).list()).map((t: TraceSummary) => t.id)).toEqual([okId, badId])
      expect((await tracesOf(state).list({ status: '4xx' })).map((t: TraceSummary) => t.id)).toEqual([badId])
      expect((await tracesOf(state).list({ after: okId })).map((t: TraceSummary) => t.id)).toEqual([badId])
      expect(await tracesOf(state).get('999999999')).toBeUndefined()

      await state.exclusive(() => state.admin.reset())
      expect(await state.admin.requests()).toEqual([])
      expect(await tracesOf(state).list()).toEqual([])
      expect(await tracesOf(state).get(badId)).toBeUndefined()
      await f('GET', '/shop/sps', undefined, shop)
      expect(await state.admin.requests()).toHaveLength(1)
      await state.twin.close()
    })
  }
})

/** How many answer bodies the store keeps for the traces of twin `name` (generation 0). */
const storedBodies = async (name: string) => Number((await redisCommand(redis.socket, 'HLEN', `st:{tw:${name}}:g0:tr:bodies`)).slice(1))

describe('traces of cached answers on Redis', () => {
  it('a cached answer is stored once for the traces that refer to it, dropped with the last of them, and sent again when the store no longer has it', async () => {
    const name = `cached${++twins}`
    const state = await replica(name, { trace: { size: 4 }, responseCache: true })
    const shop = state.world.shops[0]!.shop_id
    const f = fetchOf(state)
    const bodies = () => storedBodies(name)
    const cachedList = async () => {
      const answer = await f('POST', '/affiliate/crm/list', { page_size: 5, page_number: 1 }, shop)
      return { id: answer.headers.get('x-shoptwin-trace')!, text: answer.text }
    }
    const read = async (id: string) => (await tracesOf(state).get(id)) as Trace
    const first = [await cachedList(), await cachedList(), await cachedList()]
    for (const { id, text } of first) {
      expect((await read(id)).response.body).toEqual(JSON.parse(text))
      expect(JSON.stringify(await read(id))).toBe(JSON.stringify(state.traces.get(id)))
    }
    expect(await bodies()).toBe(1)
    // Four answers of their own push the three out of the ring: their body goes with them.
    for (let i = 0; i < 4; i++) await f('POST', '/affiliate/crm/list', { page_size: `n${i}` }, shop)
    expect(await read(first[0]!.id)).toBeUndefined()
    expect(await bodies()).toBe(0)
    // The replica still took it for sent: this trace finds it gone (its answer's body is not kept), and the next one sends it again.
    const lost = await cachedList()
    expect((await read(lost.id)).response.body).toBeNull()
    const again = await cachedList()
    expect((await read(again.id)).response.body).toEqual(JSON.parse(again.text))
    expect(await bodies()).toBe(1)
    await state.twin.close()
  })
})

describe('traces of answers computed again on Redis', () => {
  it('an answer computed again with the same bytes (response cache off) is stored once for its traces too; each trace reads back its own answer', async () => {
    const name = `recomputed${++twins}`
    const state = await replica(name, { trace: { size: 50 }, responseCache: false })
    const shop = state.world.shops[0]!.shop_id
    const f = fetchOf(state)
    const bodies = () => storedBodies(name)
    // Each page asked again is computed again (new bytes, the same content); no page comes back after another.
    const pages = [1, 1, 1, 2, 2, 3]
    const answers = []
    for (const page of pages) {
      const answer = await f('POST', '/affiliate/crm/list', { page_size: 5, page_number: page }, shop)
      answers.push({ id: answer.headers.get('x-shoptwin-trace')!, text: answer.text })
    }
    for (const { id, text } of answers) expect(((await tracesOf(state).get(id)) as Trace).response.body).toEqual(JSON.parse(text))
    expect(new Set(answers.map((a) => a.text)).size).toBe(3)
    expect(await bodies()).toBe(3)
    await state.twin.close()
  })
})

describe('two replicas, one journal and one set of traces', () => {
  let a: MockServer
  let b: MockServer
  let urlA: string
  let urlB: string
  let shop: string
  const send = (base: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json', 'x-api-key': SECRET_KEY, 'x-shop-id': shop, authorization: 'Bearer t0ken-s3cret' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const journal = async (base: string, query = '') => ((await (await fetch(`${base}/__admin/requests${query}`)).json()) as { requests: JournalEntry[] }).requests

  beforeAll(async () => {
    const name = `pair${++twins}`
    a = createServer({ state: await replica(name) })
    b = createServer({ state: await replica(name) })
    urlA = await a.listen(0, '127.0.0.1')
    urlB = await b.listen(0, '127.0.0.1')
    shop = a.state.world.shops[0]!.shop_id
  })
  afterAll(async () => {
    for (const s of [a, b]) {
      await s?.close()
      await s?.state.twin.close()
    }
  })

  it('what a client sent to either replica is in the journal of both, in the order it sent it, at once (no wait)', async () => {
    await fetch(`${urlA}/__admin/requests`, { method: 'DELETE' })
    const sent: string[] = []
    for (let i = 0; i < 12; i++) {
      const path = `/shop/products?n=${i}`
      sent.push(`${i % 2 ? 'B' : 'A'} ${i}`)
      expect((await send(i % 2 ? urlB : urlA, path, { search: `s${i}` })).status).toBe(200)
    }
    // A path no operation has is journaled too, by the replica that got it.
    expect((await send(urlB, '/no/such/path')).status).toBe(404)
    for (const base of [urlA, urlB]) {
      const entries = await journal(base)
      expect(entries.map((e) => (e.path === '/shop/products' ? `${Number(e.query.n) % 2 ? 'B' : 'A'} ${e.query.n}` : e.path))).toEqual([...sent, '/no/such/path'])
      expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length)
      expect(JSON.stringify(entries)).not.toMatch(/demo-key|t0ken-s3cret/)
    }
    expect((await journal(urlB, '?operation=listShopProducts&limit=2')).map((e) => e.query.n)).toEqual(['10', '11'])
  })

  it('a trace id answered by one replica opens on the other (GET /__admin/traces/<id>) and is in its list', async () => {
    const answer = await send(urlA, '/affiliate/crm/list', { page_size: 'ten' })
    const id = answer.headers.get('x-shoptwin-trace')!
    const onB = await fetch(`${urlB}/__admin/traces/${id}`)
    expect(onB.status).toBe(200)
    const trace = (await onB.json()) as Trace
    expect(trace).toEqual(JSON.parse(JSON.stringify(a.state.traces.get(id))))
    expect(trace.decisions.map((d) => d.step)).toContain('validation')
    const idB = (await send(urlB, '/shop/sps')).headers.get('x-shoptwin-trace')!
    expect(idB).not.toBe(id)
    expect(((await (await fetch(`${urlA}/__admin/traces/${idB}`)).json()) as Trace).path).toBe('/shop/sps')
    const listed = ((await (await fetch(`${urlA}/__admin/traces?limit=2`)).json()) as { traces: TraceSummary[] }).traces
    expect(listed.map((t) => t.id)).toEqual([id, idB])
    expect((await fetch(`${urlB}/__admin/traces/98765432`)).status).toBe(404)
  })

  it("the console's feed on one replica shows the other's answers as they come", async () => {
    const controller = new AbortController()
    const stream = await fetch(`${urlB}/__admin/console/events`, { signal: controller.signal })
    const reader = stream.body!.getReader()
    let text = ''
    const idA = (await send(urlA, '/shop/sps')).headers.get('x-shoptwin-trace')!
    // Terminates: the feed polls every 100 ms; the deadline bounds the wait.
    const deadline = Date.now() + 10_000
    while (!text.includes(`"id":"${idA}"`) && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value)
    expect(text).toContain(`"id":"${idA}"`)
    expect(text).toContain('event: exchanges')
    controller.abort()
  })

  it.skipIf(!existsSync(CHROMIUM) && !process.env.CI)("the console page on one replica lists both replicas' answers, each replica's in its order, and opens the other's trace", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'] })
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
      const problems: string[] = []
      page.on('pageerror', (e) => problems.push(String(e)))
      await page.goto(`${urlB}/__admin/console`)
      await page.waitForSelector('.conn.on')
      // Alternating replicas: their ids come from blocks of their own, so they do not rise with the order.
      const ids: string[] = []
      for (let i = 0; i < 4; i++) ids.push((await send(i % 2 ? urlB : urlA, '/shop/sps')).headers.get('x-shoptwin-trace')!)
      const bad = await send(urlA, '/affiliate/crm/list', { page_size: 'ten' })
      ids.push(bad.headers.get('x-shoptwin-trace')!)
      expect(Number(ids[1])).not.toBe(Number(ids[0]) + 1)
      await page.waitForFunction((want) => want.every((id) => [...document.querySelectorAll('.row .id')].some((e) => e.textContent === id)), ids)
      // Each replica's answers in their order (the two replicas' entries reach the store in batches, so
      // they interleave in the order they arrived there, not always the order of the answers).
      const shown = (await page.locator('.row .id').allInnerTexts()).filter((id) => ids.includes(id))
      expect(shown.filter((id) => [ids[0], ids[2], ids[4]].includes(id))).toEqual([ids[0], ids[2], ids[4]])
      expect(shown.filter((id) => [ids[1], ids[3]].includes(id))).toEqual([ids[1], ids[3]])
      await page.locator('.row', { has: page.locator('.id', { hasText: new RegExp(`^${ids[4]}$`) }) }).click()
      await page.waitForSelector('.decision.failed')
      const text = await page.locator('.trace').innerText()
      expect(text).toContain('page_size must be integer')
      expect(text).not.toContain(SECRET_KEY)
      mkdirSync('test-results', { recursive: true })
      await page.screenshot({ path: 'test-results/console-shared-twin.png', fullPage: true })
      expect(problems).toEqual([])
    } finally {
      await browser.close()
    }
  }, 60_000)

  it('DELETE /__admin/requests on one replica clears the journal of both; a reset on one empties journal and traces on both', async () => {
    await send(urlA, '/shop/sps')
    await send(urlB, '/shop/sps')
    expect((await fetch(`${urlB}/__admin/requests`, { method: 'DELETE' })).status).toBe(200)
    expect(await journal(urlA)).toEqual([])
    const kept = (await send(urlB, '/shop/sps')).headers.get('x-shoptwin-trace')!
    expect((await journal(urlA)).map((e) => e.path)).toEqual(['/shop/sps'])

    expect((await fetch(`${urlA}/__admin/reset`, { method: 'POST', body: '{}' })).status).toBe(200)
    for (const base of [urlA, urlB]) {
      expect(await journal(base)).toEqual([])
      expect(((await (await fetch(`${base}/__admin/traces`)).json()) as { traces: unknown[] }).traces).toEqual([])
      expect((await fetch(`${base}/__admin/traces/${kept}`)).status).toBe(404)
    }
    await send(urlB, '/shop/sps')
    expect((await journal(urlA)).map((e) => e.path)).toEqual(['/shop/sps'])
  })

  it('no secret reaches the store: the append-only file holds every command it applied', async () => {
    await send(urlA, '/shop/products', { search: 'x' })
    await journal(urlB)
    const dir = join(redis.dir, 'appendonlydir')
    const written = readdirSync(dir)
      .map((file) => readFileSync(join(dir, file), 'latin1'))
      .join('')
    expect(written).toContain('/shop/products')
    expect(written).toContain(REDACTED)
    expect(written).not.toContain(SECRET_KEY)
    expect(written).not.toContain('t0ken-s3cret')
  })

  it('the metrics count the appends apart from the pipelines that carried them', async () => {
    const metrics = (await (await fetch(`${urlA}/__admin/metrics`)).json()) as Record<string, number>
    expect(metrics.journal_entries).toBeGreaterThan(0)
    expect(metrics.trace_entries).toBeGreaterThan(0)
    expect(metrics.append_flushes).toBeGreaterThan(0)
    expect(metrics.append_flushes).toBeLessThanOrEqual(metrics.journal_entries + metrics.trace_entries + metrics.activity_entries + metrics.head_reports)
  })
})
