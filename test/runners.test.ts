/**
 * shoptwin's MSW handlers under the test runners client developers use (Jest 30 node and
 * jest-fixed-jsdom, Vitest node/jsdom/happy-dom, node:test, Mocha; tried by hand from the packed
 * tarball, on Node 24 and 22). What those runs found that is ours, checked here without the runners:
 *
 * - happy-dom's `fetch` (vitest `environment: 'happy-dom'`) enforces CORS itself: for a request from
 *   its page (http://localhost:3000) to the API's origin with `x-api-key` it first sends a preflight
 *   OPTIONS, which MSW's interceptor hands to our handlers, and throws "Cross-Origin Request Blocked"
 *   unless the 204 carries `Access-Control-Allow-Origin` (and, when present, an
 *   `Access-Control-Allow-Methods` naming the method). The MSW OPTIONS answer had `Allow` alone, so
 *   every call of every test failed there; the standalone server always sent the CORS headers.
 * - A runner waits for the process's event loop (node:test, Mocha without --exit; Jest says "did not
 *   exit one second after the test run"): nothing the handlers do may leave a timer or handle behind
 *   once `server.close()` has run.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { getResponse } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandlers, createMockState, createServer, type MockServer } from '../mock/index.ts'

const BASE = 'https://api.example.com'
const PAGE_ORIGIN = 'http://localhost:3000' // happy-dom's default page URL under vitest

/** The preflights a client's calls cause: method, path, the non-safelisted headers it sends. */
const CALLS: Array<[method: string, path: string, headers: string[]]> = [
  ['GET', '/account/shops', ['x-api-key']],
  ['GET', '/shop/sps', ['x-api-key', 'x-shop-id']],
  ['POST', '/lists/create', ['content-type', 'idempotency-key', 'x-api-key', 'x-shop-id']],
  ['POST', '/dashboards/update', ['content-type', 'prefer', 'x-api-key', 'x-shop-id']],
  ['DELETE', '/lists/delete', ['content-type', 'x-api-key', 'x-shop-id']],
]

/**
 * Why a preflight answer lets the request through, as the Fetch standard's CORS-preflight fetch
 * decides it (4.8; happy-dom checks the status, the origin and the methods of it): undefined when it does.
 */
function preflightProblem(status: number, headers: Headers, method: string, requested: string[]): string | undefined {
  if (status < 200 || status > 299) return `status ${status}`
  const origin = headers.get('access-control-allow-origin')
  if (origin !== '*' && origin !== PAGE_ORIGIN) return `Access-Control-Allow-Origin ${origin}`
  const methods = (headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim().toUpperCase()).filter(Boolean)
  if (methods.length > 0 && !methods.includes('*') && !methods.includes(method)) return `Access-Control-Allow-Methods ${methods.join(', ')} lacks ${method}`
  const allowed = (headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim().toLowerCase())
  const missing = requested.filter((h) => h !== 'content-type' && !allowed.includes(h) && !allowed.includes('*'))
  // content-type is safelisted only for the three form types; application/json needs allowing too.
  if (!allowed.includes('content-type') && requested.includes('content-type')) missing.unshift('content-type')
  return missing.length ? `Access-Control-Allow-Headers lacks ${missing.join(', ')}` : undefined
}

const preflight = (method: string, requested: string[]) => ({
  origin: PAGE_ORIGIN,
  'access-control-request-method': method,
  'access-control-request-headers': requested.join(','),
})

describe('CORS preflights under a DOM that checks them (happy-dom)', () => {
  const state = createMockState({ seed: 42, scale: 'small', today: '2026-11-20', now: '2026-11-20T10:00:00Z' })
  const handlers = createHandlers(state, { baseUrl: BASE })
  let server: MockServer
  let url: string
  beforeAll(async () => {
    server = createServer({ stateOptions: { seed: 42, scale: 'small', today: '2026-11-20', now: '2026-11-20T10:00:00Z' } })
    url = await server.listen(0, '127.0.0.1')
  })
  afterAll(() => server.close())

  it.each(CALLS)('MSW: the preflight of %s %s lets the request through, with the standalone server\'s headers', async (method, path, requested) => {
    const answer = (await getResponse(handlers, new Request(BASE + path, { method: 'OPTIONS', headers: preflight(method, requested) })))!
    expect(answer, 'the handlers answer the preflight').toBeDefined()
    expect(preflightProblem(answer.status, answer.headers, method, requested)).toBeUndefined()
    const served = await fetch(url + path, { method: 'OPTIONS', headers: preflight(method, requested) })
    expect(preflightProblem(served.status, served.headers, method, requested)).toBeUndefined()
    expect(Object.fromEntries(answer.headers)).toEqual(Object.fromEntries([...served.headers].filter(([name]) => name !== 'date' && name !== 'connection' && name !== 'keep-alive')))
  })

  it('a preflight changes nothing and is not rate-limited: eleven in a burst, then the request itself is still answered', async () => {
    const before = state.version
    for (let i = 0; i < 11; i++) {
      const answer = (await getResponse(handlers, new Request(`${BASE}/shop/sps`, { method: 'OPTIONS', headers: preflight('GET', ['x-api-key', 'x-shop-id']) })))!
      expect(answer.status).toBe(204)
    }
    expect(state.version).toBe(before)
    const shop = state.world.shops[0].shop_id
    const real = (await getResponse(handlers, new Request(`${BASE}/shop/sps`, { headers: { 'x-api-key': 'demo-key', 'x-shop-id': shop } })))!
    expect(real.status).toBe(200)
  })
})

describe('nothing keeps a runner alive once the MSW server is closed', () => {
  // A child Node, as node:test and Mocha run a file: the suite's kinds of call (a read, paging, a keyed
  // write and its replay, a 412, a 429 burst, the halo build on the twin's clock), then server.close().
  const SCRIPT = `
    import { setupServer } from 'msw/node'
    import { createHandlers, createMockState } from './mock/index.ts'
    const BASE = 'https://api.example.com'
    const state = createMockState({ seed: 42, scale: 'small', today: '2026-11-20', now: '2026-11-20T10:00:00Z' })
    const server = setupServer(...createHandlers(state, { baseUrl: BASE }))
    server.listen({ onUnhandledFrame: 'error' })
    const shop = state.world.shops[0].shop_id
    const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop }
    const post = (path, body, extra = {}) => fetch(BASE + path, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) })
    const statuses = []
    statuses.push((await fetch(BASE + '/account/shops', { headers })).status)
    statuses.push((await post('/spark/list', { page_size: 5, page_number: 2 })).status)
    statuses.push((await post('/lists/create', { title: 't', handles: [] }, { 'idempotency-key': 'k1' })).status)
    statuses.push((await post('/lists/create', { title: 't', handles: [] }, { 'idempotency-key': 'k1' })).status)
    const board = (await (await post('/dashboards/create', { name: 'W' })).json()).data
    state.clock.advance(1000)
    await post('/dashboards/update', { dashboard_id: board.id, name: 'M' })
    statuses.push((await post('/dashboards/update', { dashboard_id: board.id, name: 'Y', expected_updated_at: board.updated_at })).status)
    await state.admin.run('halo/drop-snapshot', { shop_id: shop })
    state.clock.advance(1000)
    const halo = async () => (await (await post('/halo-effect', { date_range: { from: '2026-10-01', to: '2026-10-31' } })).json()).data.platforms.storefront.status
    statuses.push(await halo())
    state.clock.advance(31_000)
    statuses.push(await halo())
    statuses.push(Math.max(...(await Promise.all(Array.from({ length: 12 }, () => fetch(BASE + '/shop/sps', { headers }).then((r) => r.status))))))
    state.reset()
    server.close()
    // Sockets and pipes of stdio aside: a Timeout, an Interval or a MessagePort would hold the loop.
    const left = process.getActiveResourcesInfo().filter((r) => !/^(TTYWrap|PipeWrap|TCPSocketWrap|FSReqCallback|Immediate)$/.test(r))
    process.on('exit', () => console.log(JSON.stringify({ statuses, left })))
  `

  it('the event loop is empty after server.close(): the process exits at once (no "did not exit", no --exit needed)', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: root, timeout: 60_000 })
    const out = JSON.parse(stdout.trim().split('\n').pop()!)
    expect(out.statuses).toEqual([200, 200, 201, 201, 412, 'refreshing', 'ok', 429])
    expect(out.left).toEqual([])
    // It exited by itself, its event loop empty: a handle left open would keep it running until execFile's timeout killed it, a rejection. No
    // clock in it: a timed assertion fails on a shared machine for the wrong reason.
  }, 90_000)
})
