/**
 * One message per rule (spec: Errors): a `Prefer: code=NNN` answer carries the message the real code
 * path answers with, and the rate limit's message follows the configured limit. The expected texts
 * are written out here, not imported from mock/messages.ts, so a typo there fails these tests.
 */
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { createHandlers, createMockState } from '../mock/index.ts'

const BASE = 'https://messages.example.com'
const NOW = '2026-03-10T17:00:00.000Z'

function mock(options: Parameters<typeof createMockState>[0] = {}) {
  const state = createMockState({ seed: 5, now: NOW, strict: true, ...options })
  const handlers = createHandlers(state, { baseUrl: BASE })
  const shopId = state.world.shops[1]!.shop_id
  async function call(method: string, path: string, { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {}) {
    const request = new Request(BASE + path, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const response = (await getResponse(handlers, request))!
    return { status: response.status, error: ((await response.json()) as { error?: string }).error }
  }
  return { state, shopId, call }
}

describe('error messages: Prefer answers as the real code path does (spec: Errors)', () => {
  it('prefer: code=401 carries the message of a request without an API key', async () => {
    const { call } = mock({ rateLimit: false })
    const real = await call('GET', '/shop/sps', { headers: { 'x-api-key': '' } })
    const preferred = await call('GET', '/shop/sps', { headers: { prefer: 'code=401' } })
    expect(real).toEqual({ status: 401, error: 'Missing API key (x-api-key header)' })
    expect(preferred).toEqual(real)
  })

  it('prefer: code=412 on the dashboard update carries the sentence of a stale expected_updated_at', async () => {
    const { state, shopId, call } = mock({ rateLimit: false })
    const board = state.world.shopData[shopId]!.dashboards.boards[0]!
    const real = await call('POST', '/dashboards/update', { body: { dashboard_id: board.id, name: 'Renamed', expected_updated_at: '2000-01-01T00:00:00.000Z' } })
    expect(real.status).toBe(412)
    expect(real.error).toMatch(/^The dashboard changed since expected_updated_at \(updated_at is now [^)]+\); re-read it and reapply the change$/)
    const preferred = await call('POST', '/dashboards/update', { body: { dashboard_id: board.id }, headers: { prefer: 'code=412' } })
    expect(preferred).toEqual({ status: 412, error: 'The dashboard changed since expected_updated_at; re-read it and reapply the change' })
  })

  it('rate limit: the 429 names the configured per-second limit, and prefer: code=429 says the same (spec: Limits)', async () => {
    const { call } = mock({ rateLimits: { perSecond: 3 } })
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await call('GET', '/shop/sps'))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429])
    expect(answers[3]!.error).toBe('Too many requests: over 3 per second for this key and shop')
    const preferred = await mock({ rateLimits: { perSecond: 3 } }).call('GET', '/shop/sps', { headers: { prefer: 'code=429' } })
    expect(preferred).toEqual({ status: 429, error: 'Too many requests: over 3 per second for this key and shop' })
  })

  it('rate limit: the default limit keeps the spec\'s figure, 10 per second', async () => {
    const { call } = mock()
    const preferred = await call('GET', '/shop/sps', { headers: { prefer: 'code=429' } })
    expect(preferred).toEqual({ status: 429, error: 'Too many requests: over 10 per second for this key and shop' })
  })
})
