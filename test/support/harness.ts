/**
 * The in-process harness most area tests share: a strict mock state (any response that does not
 * match the contract becomes a 500), its MSW handlers (and the control API) on an MSW server, and a
 * `call` that sends a request and checks the answer, success or error, against the contract.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, expect } from 'vitest'
import { createAdminHandlers, createHandlers, createMockState } from '../../mock/index.ts'
import { contractProblem } from '../../mock/testing.ts'

export type Method = 'GET' | 'POST' | 'DELETE'
export type Params = Record<string, unknown>

export interface HarnessOptions {
  baseUrl?: string
  /** The mock clock's start (frozen). */
  now?: string
  seed?: number
}

/** `?a=1&b=x&b=y` from params (arrays as repeated keys). */
export function queryString(params: Params): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v))
  }
  const text = search.toString()
  return text ? `?${text}` : ''
}

export function mockHarness({ baseUrl = 'https://api.example.com', now = '2026-03-10T12:00:00.000Z', seed = 42 }: HarnessOptions = {}) {
  const state = createMockState({ seed, now, rateLimit: false, strict: true })
  const mainShop = state.world.shops[0]!
  const server = setupServer(...createHandlers(state, { baseUrl, log: () => {} }), ...createAdminHandlers(state, { baseUrl }))
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
  afterAll(() => server.close())

  // Tests that change the state mark it; the next test then starts from a fresh world at `now`.
  let dirty = false
  const mutating = () => {
    dirty = true
  }
  beforeEach(() => {
    state.clock.set(now)
    if (dirty) state.reset()
    dirty = false
  })

  /** Calls an operation (POST/DELETE body or GET query) and checks the response against the contract. */
  async function call(method: Method, path: string, params: Params | string = {}, { shop = mainShop.shop_id as string | null, headers = {} as Record<string, string> } = {}) {
    const op = state.contract.operations.find((o) => o.method === method && o.path === path)!
    expect(op, `${method} ${path} is an operation of the contract`).toBeDefined()
    const query = method === 'GET' ? (typeof params === 'string' ? (params ? `?${params}` : '') : queryString(params)) : ''
    const res = await fetch(`${baseUrl}${path}${query}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', ...(shop === null ? {} : { 'x-shop-id': shop }), ...headers },
      ...(method === 'GET' ? {} : { body: JSON.stringify(params) }),
    })
    const text = await res.text()
    expect(contractProblem(state.contract, op, res.status, text)).toBeUndefined()
    return { status: res.status, text, headers: res.headers, json: JSON.parse(text) as any }
  }

  /** POST with the main shop; the response checked against the contract. */
  const post = (path: string, body: unknown) => call('POST', path, body as Params)

  /** A control-API action (`POST /__admin/<action>`): `{result}` on success, `{error}` on refusal. */
  async function admin(action: string, body: unknown) {
    mutating()
    const res = await fetch(`${baseUrl}/__admin/${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const json = (await res.json()) as any
    return { status: res.status, json: res.ok ? json.result : json }
  }

  return { state, server, baseUrl, mainShop, call, post, admin, mutating }
}
