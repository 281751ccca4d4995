/**
 * The standalone server (supertest against 127.0.0.1, port 0): rate limits under concurrency,
 * the control API, routing, the CLI and graceful shutdown.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import request from 'supertest'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createServer, type MockServer } from '../mock/index.ts'
import { isLoopback } from '../mock/server.ts'
import { createClock } from '../mock/clock.ts'
import { createRateLimiter } from '../mock/stores/rate-limiter.ts'
import { contractProblem } from '../mock/testing.ts'

const NOW = '2026-04-02T10:00:00.000Z'
let mock: MockServer
let url: string
let shopId: string
let otherShopId: string

beforeAll(async () => {
  mock = createServer({ stateOptions: { seed: 11, now: NOW } })
  url = await mock.listen(0, '127.0.0.1')
  ;[shopId, otherShopId] = mock.state.world.shops.filter((s) => s.is_active).map((s) => s.shop_id)
})
afterAll(() => mock.close())
beforeEach(() => {
  mock.state.reset()
  mock.state.clock.set(NOW)
  mock.state.rateLimit = true
})

const sps = (shop = shopId, key = 'demo-key') => request(url).get('/shop/sps').set('x-api-key', key).set('x-shop-id', shop)

describe('rate limit (spec: Limits)', () => {
  it('rate limit: 50 requests fired at once get exactly 10 successes in that second, the rest 429 with Retry-After', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => sps()))
    const ok = responses.filter((r) => r.status === 200)
    const limited = responses.filter((r) => r.status === 429)
    expect(ok).toHaveLength(10)
    expect(limited).toHaveLength(40)
    for (const r of limited) {
      expect(r.headers['retry-after']).toBe('1')
      expect(r.body.error).toMatch(/Too many requests/)
      expect(contractProblem(mock.state.contract, mock.state.contract.byId.get('getShopSps')!, r.status, r.text)).toBeUndefined()
    }
  })
  it('rate limit: the window slides with the mock clock: a second later 10 more pass', async () => {
    await Promise.all(Array.from({ length: 10 }, () => sps()))
    expect((await sps()).status).toBe(429)
    mock.state.clock.advance(999)
    expect((await sps()).status).toBe(429)
    mock.state.clock.advance(1)
    const next = await Promise.all(Array.from({ length: 12 }, () => sps()))
    expect(next.filter((r) => r.status === 200)).toHaveLength(10)
  })
  it('rate limit: measured per shop and per key', async () => {
    await Promise.all(Array.from({ length: 10 }, () => sps()))
    expect((await sps()).status).toBe(429)
    expect((await sps(otherShopId)).status).toBe(200)
    expect((await sps(shopId, 'demo-enterprise-key')).status).toBe(200)
  })
  it('rate limit: the off switch lets everything through', async () => {
    mock.state.rateLimit = false
    const responses = await Promise.all(Array.from({ length: 50 }, () => sps()))
    expect(responses.every((r) => r.status === 200)).toBe(true)
  })
  it('rate limit: 1,000,000 per day per key and shop, then 429 until the next UTC day', () => {
    const clock = createClock({ start: '2026-04-02T00:00:00Z' })
    // 10/s can only reach 864,000 in a day, so the daily cap is checked with the per-second cap lifted.
    const limiter = createRateLimiter(clock, { perSecond: Infinity })
    let allowed = 0
    for (let i = 0; i < 1_000_000; i++) {
      if (limiter.take('k', 's').allowed) allowed++
      clock.advance(50)
    }
    expect(allowed).toBe(1_000_000)
    const refused = limiter.take('k', 's')
    expect(refused).toMatchObject({ allowed: false, window: 'day' })
    expect(limiter.take('k', 'other-shop').allowed).toBe(true)
    clock.set('2026-04-04T00:00:00Z')
    expect(limiter.take('k', 's').allowed).toBe(true)
  })
})

describe('control API (/__admin/)', () => {
  it('admin: served only to loopback clients unless enabled', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a)).toBe(true)
    for (const a of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.1', 'fe80::1', undefined]) expect(isLoopback(a)).toBe(false)
  })
  it('admin: GET /__admin/world lists the keys and shops', async () => {
    const res = await request(url).get('/__admin/world')
    expect(res.status).toBe(200)
    expect(res.body.keys.map((k: { key: string }) => k.key)).toEqual(expect.arrayContaining(['demo-key', 'demo-enterprise-key', 'demo-limited-key']))
    expect(res.body.shops.map((s: { shop_id: string }) => s.shop_id)).toContain(shopId)
  })
  it('admin: clock read, set and advance', async () => {
    expect((await request(url).get('/__admin/clock')).body).toEqual({ now: NOW, frozen: true })
    expect((await request(url).post('/__admin/clock').send({ now: '2026-06-01T00:00:00Z' })).body.now).toBe('2026-06-01T00:00:00.000Z')
    expect((await request(url).post('/__admin/clock').send({ advance_ms: 1500 })).body.now).toBe('2026-06-01T00:00:01.500Z')
    expect((await request(url).post('/__admin/clock').send({ now: 'yesterday' })).status).toBe(400)
    const health = await request(url).get('/health')
    expect(health.body.time).toBe('2026-06-01T00:00:01.500Z')
  })
  it('admin: faults answer 5xx for N requests', async () => {
    const created = await request(url).post('/__admin/faults').send({ route: 'GET /shop/sps', status: 503, count: 1 })
    expect(created.status).toBe(201)
    expect((await sps()).status).toBe(503)
    expect((await sps()).status).toBe(200)
    expect((await request(url).post('/__admin/faults').send({ status: 'x' })).status).toBe(400)
  })
  it('admin: the requests journal shows what was sent, key redacted', async () => {
    await request(url).post('/shop/products').set('x-api-key', 'demo-key').set('x-shop-id', shopId).send({ search: 'a' })
    const res = await request(url).get('/__admin/requests')
    const entry = res.body.requests.at(-1)
    expect(entry).toMatchObject({ method: 'POST', path: '/shop/products', body: { search: 'a' }, status: 200, operationId: 'listShopProducts' })
    expect(entry.headers['x-api-key']).toBe('REDACTED')
  })
  it('admin: reset with a new seed builds another world and clears the stores', async () => {
    await sps()
    const res = await request(url).post('/__admin/reset').send({ seed: 12 })
    expect(res.body.seed).toBe(12)
    expect(mock.state.world.shops[0].shop_id).not.toBe(shopId)
    expect((await request(url).get('/__admin/requests')).body.requests).toEqual([])
    mock.state.reset({ seed: 11 })
  })
  it('admin: an area action answers; an unknown control action is 404 {error} naming it', async () => {
    expect(mock.state.admin.actions()).toContain('samples/arrive')
    expect((await request(url).post('/__admin/samples/arrive').send({})).status).toBeLessThan(300)
    const res = await request(url).post('/__admin/samples/no-such-action').send({})
    expect(res.status).toBe(404)
    expect(res.body.error).toContain('samples/no-such-action')
  })
})

describe('routing and transport', () => {
  it('server: an unknown path is 404 {error}', async () => {
    const res = await request(url).get('/nope').set('x-api-key', 'demo-key')
    expect(res.status).toBe(404)
    expect(res.body.error).toContain('/nope')
  })
  it('server: malformed JSON over the wire is 400, not 5xx', async () => {
    const res = await request(url).post('/shop/products').set('x-api-key', 'demo-key').set('x-shop-id', shopId).set('content-type', 'application/json').send('{"search":')
    expect(res.status).toBe(400)
  })
  it('server: the same answer routing by map or by MSW scanning every handler', async () => {
    const scan = createServer({ state: mock.state, routing: 'scan' })
    const scanUrl = await scan.listen(0)
    try {
      const a = await request(url).post('/shop/products').set('x-api-key', 'demo-key').set('x-shop-id', shopId).send({})
      const b = await request(scanUrl).post('/shop/products').set('x-api-key', 'demo-key').set('x-shop-id', shopId).send({})
      expect(b.text).toBe(a.text)
      expect((await request(scanUrl).get('/idempotency/abc').set('x-api-key', 'demo-key').set('x-shop-id', shopId)).status).toBe(404)
    } finally {
      await scan.close()
    }
  })
  it('server: close() lets in-flight requests finish', async () => {
    const other = createServer({ stateOptions: { seed: 11, now: NOW, rateLimit: false } })
    const otherUrl = await other.listen(0)
    // The handler holds the request open until the test releases it: no wall-clock sleeps.
    let entered!: () => void
    let release!: () => void
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve))
    const gate = new Promise<void>((resolve) => (release = resolve))
    other.state.handlers.set('getHealth', async ({ now }) => {
      entered()
      await gate
      return { status: 200, body: { status: 'ok', time: now.toISOString() } }
    })
    const pending = request(otherUrl).get('/health').then((r) => r)
    await handlerEntered
    let closed = false
    const closing = other.close().then(() => (closed = true))
    await new Promise((r) => setImmediate(r))
    expect(closed).toBe(false)
    release()
    const res = await pending
    await closing
    expect(res.status).toBe(200)
    expect(other.server.listening).toBe(false)
  })
})

describe('CLI (npm start / shoptwin serve)', () => {
  it('cli: serve prints the keys and shop ids and exits 0 on SIGTERM', async () => {
    const cli = fileURLToPath(new URL('../mock/cli.ts', import.meta.url))
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--seed', '7', '--rate-limit', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      let out = ''
      child.stdout.setEncoding('utf8')
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk
          if (out.includes('Control API')) resolve()
        })
        child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)))
      })
      expect(out).toContain('demo-key')
      expect(out).toContain('demo-limited-key')
      expect(out).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/)
      expect(out).toContain('rate limit off')
      const listening = /listening on (http:\/\/\S+)/.exec(out)![1]
      expect((await request(listening).get('/health')).status).toBe(200)
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      const [code] = await exited
      expect(code).toBe(0)
    } finally {
      // Never leave the server running when an assertion above fails.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  })
})
