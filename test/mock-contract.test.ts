/**
 * Every operation of the contract answers, and every answer (success or error) validates against
 * the OpenAPI document with ajv, and is never a 5xx.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OperationInfo } from '../openapi/index.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { contractProblem, minimalCall } from '../mock/testing.ts'

const BASE = 'https://contract.example.com'
const state = createMockState({ seed: 5, now: '2026-02-15T09:30:00.000Z', rateLimit: false })
const { contract } = state
const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
const server = setupServer(...createHandlers(state, { baseUrl: BASE }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

/** A minimal valid request for an operation, built from its schemas. */
function requestFor(op: OperationInfo, headers: Record<string, string> = {}): Request {
  const { path, query, body } = minimalCall(contract, op, state.today)
  return new Request(`${BASE}${path}${query ? `?${query}` : ''}`, { method: op.method, headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id, ...headers }, body })
}

async function check(op: OperationInfo, req: Request, problems: string[], label: string): Promise<number> {
  const response = await fetch(req)
  const text = await response.text()
  if (response.status >= 500) problems.push(`${label} ${op.operationId}: ${response.status} ${text.slice(0, 300)}`)
  const problem = contractProblem(contract, op, response.status, text)
  if (problem) problems.push(`${label} ${problem}`)
  return response.status
}

describe('contract: every response of every operation validates against the OpenAPI document', () => {
  it('contract: a minimal valid request to every operation answers per the contract', async () => {
    const problems: string[] = []
    const implemented: string[] = []
    for (const op of contract.operations) {
      const status = await check(op, requestFor(op), problems, 'valid request:')
      implemented.push(`${op.operationId} ${status}`)
    }
    expect(problems).toEqual([])
    // The account area is the example every other area follows.
    for (const id of ['getHealth', 'listAccountShops', 'getShopSps', 'listShopProducts', 'listShopSkus']) expect(implemented).toContain(`${id} 200`)
    expect(implemented).toContain('getIdempotencyRecord 404')
  })

  it('contract: the pipeline\'s error answers (401, 400 shop header, 403) match every operation\'s documented responses', async () => {
    const problems: string[] = []
    for (const op of contract.operations.filter((o) => o.auth !== 'none')) {
      const noKey = requestFor(op)
      noKey.headers.delete('x-api-key')
      expect(await check(op, noKey, problems, 'no key:')).toBe(401)
      if (op.auth === 'key+shop') {
        const noShop = requestFor(op)
        noShop.headers.delete('x-shop-id')
        expect(await check(op, noShop, problems, 'no shop:')).toBe(400)
        expect(await check(op, requestFor(op, { 'x-shop-id': state.world.foreignShops[0].shop_id }), problems, 'foreign shop:')).toBe(403)
      }
    }
    expect(problems).toEqual([])
  })

  it('contract: Prefer: code=NNN returns each documented error status with a valid body', async () => {
    const problems: string[] = []
    for (const op of contract.operations) {
      for (const status of op.statuses.filter((s) => s >= 400)) {
        const got = await check(op, requestFor(op, { prefer: `code=${status}` }), problems, `Prefer ${status}:`)
        if (got !== status) problems.push(`Prefer ${status}: ${op.operationId} answered ${got}`)
      }
    }
    expect(problems).toEqual([])
  })
})

describe('contract: the pipeline on the real operations (spec: Errors; Versioning; Conventions 4)', () => {
  const inactive = state.world.shops.find((s) => !s.is_active)!
  const has = (id: string) => contract.byId.has(id)
  const post = (path: string, body: unknown, shopId = shop.shop_id) =>
    fetch(`${BASE}${path}`, { method: 'POST', headers: { 'x-api-key': 'demo-key', 'x-shop-id': shopId, 'content-type': 'application/json' }, body: JSON.stringify(body) })

  it.runIf(has('listAdCampaigns'))('ads: 403 This shop is not on an active paid plan for an inactive shop, on the canonical path and under /v1 (spec: Sales-max ads)', async () => {
    for (const path of ['/ads/campaigns', '/v1/ads/campaigns']) {
      const res = await post(path, { date_range: { from: '2026-01-01', to: '2026-01-31' } }, inactive.shop_id)
      expect(res.status).toBe(403)
      expect(await res.text()).toBe('{"error":"This shop is not on an active paid plan"}')
    }
  })
  it.runIf(has('listAdCampaigns'))('ads: 400 Missing date_range (from/to) when the range is absent or partial (spec: Errors)', async () => {
    for (const body of [{}, { date_range: { from: '2026-01-01' } }, { dateRange: { to: '2026-01-01' } }]) {
      const res = await post('/ads/campaigns', body)
      expect(res.status).toBe(400)
      expect(await res.text()).toBe('{"error":"Missing date_range (from/to)"}')
    }
  })
  it.runIf(has('listExcludedCreativesGetV1'))('aliases: /v1 and GET forms reach the canonical handler with the body-shaped input and its page window', async () => {
    const seen: unknown[] = []
    const own = createMockState({ seed: 5, now: '2026-02-15T09:30:00.000Z', rateLimit: false })
    own.handlers.set('listExcludedCreatives', (ctx) => {
      seen.push({ op: ctx.op.operationId, called: ctx.calledOp.operationId, input: ctx.input, page: ctx.page })
      return { status: 200, body: { data: { exclusions: [], total_count: 0, page: ctx.page!.page, page_size: ctx.page!.pageSize, sort_by: 'created_at', sort_direction: 'DESC' } } }
    })
    const ownServer = setupServer(...createHandlers(own, { baseUrl: 'https://alias.example.com' }))
    ownServer.listen({ onUnhandledFrame: 'error' })
    try {
      const res = await fetch('https://alias.example.com/v1/ads/excluded-creatives?page=2&page_size=5&video_ids=a,b', { headers: { 'x-api-key': 'demo-key', 'x-shop-id': own.world.shops[0].shop_id } })
      expect(res.status).toBe(200)
      expect(seen[0]).toMatchObject({ op: 'listExcludedCreatives', called: 'listExcludedCreativesGetV1', input: { page: 2, page_size: 5, video_ids: ['a', 'b'] }, page: { page: 2, pageSize: 5, offset: 5 } })
    } finally {
      ownServer.close()
    }
  })
})
