/**
 * The control API (`/__admin/*`) under bad input, on a real listening twin: a refused call is a 4xx
 * `{error}` naming the problem and changes nothing; no call, whatever its body, leaves the twin unable to
 * answer. Found by sending a fuzzer's bodies: `POST /__admin/clock {"advance_ms": 1e20}` moved the clock
 * past the dates JavaScript has and every later request was a 500; `POST /__admin/reset {"scale":
 * "huge"}` was a 500 and kept the scale, so every later reset failed too. A table of those cases, then
 * generated bodies for every write of the control API (FUZZ_SEED, FUZZ_RUNS).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminMethods } from '../mock/admin.ts'
import { createMockState, createServer, type MockServer } from '../mock/index.ts'

const NOW = '2026-03-10T12:00:00.000Z'
const state = createMockState({ seed: 42, now: NOW, rateLimit: false })
const SEED = Number(process.env.FUZZ_SEED ?? 20261127)
const RUNS = Number(process.env.FUZZ_RUNS ?? 200)

let mock: MockServer
let base: string
beforeAll(async () => {
  mock = createServer({ state, log: () => {} })
  base = await mock.listen(0, '127.0.0.1')
})
afterAll(() => mock.close())

const post = async (path: string, body: string) => {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.status, text: await res.text() }
}
const settings = () => ({ seed: state.seed, scale: state.scale, today: state.today, now: state.clock.nowMs(), frozen: state.clock.frozen })
/** The twin answers an operation: the account's shops, then one shop's SPS. */
async function answers(): Promise<string | undefined> {
  const health = await fetch(`${base}/health`)
  if (health.status !== 200) return `GET /health: ${health.status} ${await health.text()}`
  const shops = await fetch(`${base}/account/shops`, { headers: { 'x-api-key': 'demo-key' } })
  if (shops.status !== 200) return `GET /account/shops: ${shops.status} ${await shops.text()}`
  const shop = ((await shops.json()) as { data: Array<{ shop_id: string; is_active?: boolean }> }).data[0]!.shop_id
  const sps = await fetch(`${base}/shop/sps`, { headers: { 'x-api-key': 'demo-key', 'x-shop-id': shop } })
  return sps.status < 500 ? undefined : `GET /shop/sps: ${sps.status} ${await sps.text()}`
}

describe('control API: bad input is refused and changes nothing', () => {
  const refused: Array<[path: string, body: unknown, error: RegExp]> = [
    ['/__admin/clock', { advance_ms: 1e20 }, /^the clock stays between 1970-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z/],
    ['/__admin/clock', { advance_ms: -1e14 }, /the clock stays between/],
    ['/__admin/clock', { now: '+275760-09-13T00:00:00.000Z' }, /would put it at \+275760-09-13/],
    ['/__admin/clock', { now: '1969-12-31T23:59:59Z' }, /would put it at 1969-12-31T23:59:59.000Z/],
    ['/__admin/clock', { now: '2026-06-01T00:00:00Z', advance_ms: 1e20 }, /the clock stays between/],
    ['/__admin/clock', { now: 'yesterday' }, /^now must be an ISO date-time$/],
    ['/__admin/clock', { advance: 1000 }, /^the clock takes now, advance_ms, running, real_time; unknown field: advance$/],
    ['/__admin/reset', { scale: 'huge' }, /^scale must be one of small, default, large, certification; got "huge"$/],
    ['/__admin/reset', { seed: 1e308 }, /^seed must be an integer from -9007199254740991 to 9007199254740991$/],
    ['/__admin/reset', { seed: '7' }, /^seed must be an integer/],
    ['/__admin/reset', { today: '2026-02-30' }, /^today must be a calendar date YYYY-MM-DD; got "2026-02-30"$/],
    ['/__admin/reset', { today: 20260310 }, /^today must be a calendar date/],
    ['/__admin/reset', { seed: 7, sede: 8 }, /^a reset takes seed, scale, today; unknown field: sede$/],
  ]
  it.each(refused)('POST %s %j: 400 {error}, the clock and the world as they were, the twin answering', async (path, body, error) => {
    const before = settings()
    const answer = await post(path, JSON.stringify(body))
    expect(answer.status, answer.text).toBe(400)
    expect(JSON.parse(answer.text).error).toMatch(error)
    expect(settings()).toEqual(before)
    expect(await answers()).toBeUndefined()
  })

  it.each(['requests', 'traces'])('GET /__admin/%s?limit=abc and ?limit=-1: 400 {error}; ?limit=0 and ?limit=2 answer', async (list) => {
    for (const bad of ['abc', '-1', '1.5']) {
      const res = await fetch(`${base}/__admin/${list}?limit=${bad}`)
      expect(res.status, bad).toBe(400)
      expect(((await res.json()) as { error: string }).error).toBe('limit must be a non-negative integer')
    }
    for (const good of ['0', '2']) expect((await fetch(`${base}/__admin/${list}?limit=${good}`)).status, good).toBe(200)
  })

  it('the bounds themselves are accepted: the clock at 1970-01-01T00:00:00Z and at 9999-12-31T23:59:59.999Z, a reset to another scale and day', async () => {
    expect((await post('/__admin/clock', JSON.stringify({ now: '1970-01-01T00:00:00Z' }))).status).toBe(200)
    expect(await answers()).toBeUndefined()
    expect((await post('/__admin/clock', JSON.stringify({ now: '9999-12-31T23:59:59.999Z' }))).status).toBe(200)
    expect(await answers()).toBeUndefined()
    expect((await post('/__admin/reset', JSON.stringify({ seed: 7, scale: 'small', today: '2026-02-28' }))).status).toBe(200)
    expect(settings()).toMatchObject({ seed: 7, scale: 'small', today: '2026-02-28' })
    expect(await answers()).toBeUndefined()
    await post('/__admin/clock', JSON.stringify({ now: NOW }))
    await post('/__admin/reset', JSON.stringify({ seed: 42, scale: 'default', today: '2026-03-10' }))
  })
})

describe('in process: the same refusals', () => {
  it('createMockState refuses a day that does not exist and a clock out of range, in a line that says which', () => {
    expect(() => createMockState({ seed: 1, today: '2026-02-30' })).toThrow('today must be a calendar date YYYY-MM-DD; got "2026-02-30"')
    expect(() => createMockState({ seed: 1, now: 1e20 })).toThrow(/^the clock stays between 1970-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z/)
    const clock = createMockState({ seed: 1, now: NOW }).clock
    expect(() => clock.advance(1e20)).toThrow(RangeError)
    expect(clock.now().toISOString()).toBe(NOW)
  })
})

describe('control API: generated bodies (FUZZ_SEED, FUZZ_RUNS)', () => {
  // Every write of the control API (reset, clock, faults, each area's action), with the fields they read and others.
  const writes = adminMethods(state.admin).filter(([, method]) => method === 'POST').map(([path]) => path)
  const field = fc.constantFrom('seed', 'scale', 'today', 'now', 'advance_ms', 'running', 'real_time', 'route', 'status', 'count', 'shop_id', 'refresh_ms', 'id', 'x')
  const value = fc.oneof(
    fc.integer(),
    fc.constantFrom(0, -1, 1e20, -1e20, 1e308, 8.64e15, 2 ** 53, 0.5, 86_400_000, 500, 599, 600),
    fc.constantFrom('small', 'huge', '2026-02-30', '2026-03-10', '1969-12-31T23:59:59Z', '+275760-09-13T00:00:00.000Z', '9999-12-31T23:59:59.999Z', 'GET /shop/sps', '*', '', '__proto__'),
    fc.string({ maxLength: 12 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
  )
  const body = fc.oneof(
    { arbitrary: fc.dictionary(field, value, { maxKeys: 4 }).map((o) => JSON.stringify(o)), weight: 6 },
    { arbitrary: fc.constantFrom('', 'null', '[]', '"x"', '{', '{"a":1}', '1e999', '{"__proto__":{"seed":1}}'), weight: 1 },
  )

  it(`${RUNS} calls of every write (${writes.length}): never a 5xx, a refusal is JSON {error}, the twin answers after each`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), body, async (path, text) => {
        const answer = await post(path, text)
        const problems: string[] = []
        if (answer.status >= 500) problems.push(`a ${answer.status}: ${answer.text.slice(0, 200)}`)
        if (answer.status >= 400 && typeof (JSON.parse(answer.text) as { error?: unknown }).error !== 'string') problems.push(`not {error}: ${answer.text.slice(0, 200)}`)
        // A fault added on purpose answers 5xx: cleared before the twin is asked.
        await fetch(`${base}/__admin/faults`, { method: 'DELETE' })
        const broken = await answers()
        if (broken) problems.push(`then ${broken}`)
        expect(problems, `POST ${path} ${text}`).toEqual([])
      }),
      { seed: SEED, numRuns: RUNS },
    )
  }, 60_000 + RUNS * 500)
})
