/**
 * `GET /spark/list`'s `search_params` (spec: Sponsored-video codes, "also GET with query parameters")
 * travels as JSON text (`content: application/json`) or, as the contract says with
 * `x-nested-brackets`, as nested brackets: the form a generator that reads `style: deepObject` but
 * not `content` writes (qs, Rails, PHP). Each bracketed request answers byte for byte as the POST
 * with the same body, refusals included (same validation, same messages).
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandlers, createMockState } from '../mock/index.ts'

const BASE = 'https://api.example.com'
const state = createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z', rateLimit: false })
const server = setupServer(...createHandlers(state, { baseUrl: BASE }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
const shop = state.world.shops.find((s) => s.plan === 'scale' && s.is_active)!
const headers = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id, 'content-type': 'application/json' }

const cases: Array<[string, string, Record<string, unknown>]> = [
  ['nested range and [] array', 'search_params[shared_time][from]=2025-06-01&search_params[shared_time][to]=2026-03-01&search_params[status][]=DELIVERING&search_params[status][]=LEARNING&search_params[sort_by]=gmv', { shared_time: { from: '2025-06-01', to: '2026-03-01' }, status: ['DELIVERING', 'LEARNING'], sort_by: 'gmv' }],
  ['indexed array and a boolean', 'search_params[status][1]=LEARNING&search_params[status][0]=DELIVERING&search_params[expired]=false', { status: ['DELIVERING', 'LEARNING'], expired: false }],
  ['repeated key', 'search_params[status]=DELIVERING&search_params[status]=LEARNING&search_params[handle]=a', { status: ['DELIVERING', 'LEARNING'], handle: 'a' }],
  ['video ids', 'search_params[video_ids][]=v1&search_params[auth_time][from]=2025-01-01&search_params[auth_time][to]=2026-03-01', { video_ids: ['v1'], auth_time: { from: '2025-01-01', to: '2026-03-01' } }],
  ['a range without its end (refused)', 'search_params[shared_time][from]=2026-01-01', { shared_time: { from: '2026-01-01' } }],
  ['not a date (refused)', 'search_params[post_time][from]=soon&search_params[post_time][to]=2026-01-01', { post_time: { from: 'soon', to: '2026-01-01' } }],
  ['an unknown status (refused)', 'search_params[status][]=NOPE', { status: ['NOPE'] }],
  ['a reversed range (refused)', 'search_params[auth_time][from]=2026-03-01&search_params[auth_time][to]=2026-01-01', { auth_time: { from: '2026-03-01', to: '2026-01-01' } }],
  ['an object where a string goes (refused)', 'search_params[handle][x]=1', { handle: { x: '1' } }],
  ['a prototype name as a key (refused or ignored, never a crash)', 'search_params[__proto__][x]=1&search_params[handle]=a', JSON.parse('{"__proto__": {"x": "1"}, "handle": "a"}')],
]

describe('GET /spark/list: search_params as nested brackets reads as the POST body', () => {
  it.each(cases)('%s', async (_, query, searchParams) => {
    const get = await fetch(`${BASE}/spark/list?${query}`, { headers })
    const post = await fetch(`${BASE}/spark/list`, { method: 'POST', headers, body: JSON.stringify({ search_params: searchParams }) })
    const [getText, postText] = [await get.text(), await post.text()]
    expect(get.status).toBeLessThan(500)
    expect({ status: get.status, body: getText }).toEqual({ status: post.status, body: postText })
  })
  it('the contract says so (x-nested-brackets on the JSON parameter)', () => {
    const param = state.contract.byId.get('listSparkCodesGet')!.query.find((p) => p.name === 'search_params')!
    expect(param).toMatchObject({ json: true, nestedBrackets: true })
  })
})
