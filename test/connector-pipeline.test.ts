/**
 * spec: Limits; Authentication 4-5; Idempotency. A tool call goes through the same pipeline as the
 * REST request: the rate limit per shop, plan gates, the account's Enterprise tier, idempotency; and
 * the connector itself is free on every plan. In-process: the connector's fetch handler.
 */
import { describe, expect, it } from 'vitest'
import { createConnector } from '../mock/connector/index.ts'
import { createMockState, type MockState } from '../mock/state.ts'
import { consent, createBrowser, pkcePair } from './connector-helpers.ts'

const BASE = 'https://mcp.example.com'
const REDIRECT = 'https://agent.example.com/cb'

async function connected(state: MockState, tools: string[]) {
  const connector = createConnector(state, { baseUrl: BASE })
  const f = ((input: string | URL | Request, init?: RequestInit) => connector.handle(new Request(input, init))) as typeof fetch
  const user = state.connector.data.users[0]!
  const client = (await (await f(`${BASE}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Pipeline', redirect_uris: [REDIRECT] }) })).json()) as { client_id: string }
  const { verifier, challenge } = pkcePair()
  const url = new URL(`${BASE}/oauth/authorize`)
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' })) url.searchParams.set(k, v)
  const back = await consent(createBrowser(f), url.href, { email: user.email, password: user.password, shops: state.world.shops.map((s) => s.shop_id), tools })
  const tokens = (await (await f(`${BASE}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT }) })).json()) as { access_token: string }
  /** One JSON-RPC message (or a batch) on the MCP endpoint, its answer parsed. */
  const rpc = async (message: unknown): Promise<any> => {
    const response = await f(`${BASE}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(message) })
    return response.json()
  }
  const call = async (name: string, args: Record<string, unknown>) =>
    ((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })) as { result: { isError?: boolean; structuredContent: any; _meta: Record<string, unknown> } }).result
  return Object.assign(call, { rpc })
}

describe('connector tool calls through the REST pipeline', () => {
  it('rate limit: the 11th call in one second on one shop gets 429 with retry-after (spec: Limits)', async () => {
    const state = createMockState({ seed: 2, now: '2026-07-01T10:00:00.000Z', rateLimit: true })
    const call = await connected(state, ['getShopSps'])
    const shop = state.world.shops[0]!.shop_id
    const answers = []
    for (let i = 0; i < 11; i++) answers.push(await call('getShopSps', { shop_id: shop }))
    expect(answers.slice(0, 10).every((a) => !a.isError)).toBe(true)
    expect(answers[10]).toMatchObject({ isError: true, _meta: { 'shoptwin/status': 429, 'shoptwin/retry-after': expect.any(Number) } })
    // Another shop has its own window.
    expect((await call('getShopSps', { shop_id: state.world.shops[1]!.shop_id })).isError).toBeUndefined()
    state.clock.advance(1000)
    expect((await call('getShopSps', { shop_id: shop })).isError).toBeUndefined()
  })

  it('plan gate: an ads tool on a shop not on an active paid plan gets the spec message (spec: Authentication 5); reads on it work (the connector is free on every plan)', async () => {
    const state = createMockState({ seed: 2, now: '2026-07-01T10:00:00.000Z', rateLimit: false })
    const call = await connected(state, ['listAdCampaigns', 'getShopSps'])
    const inactive = state.world.shops.find((s) => !s.is_active)!
    const answer = await call('listAdCampaigns', { shop_id: inactive.shop_id, date_range: { from: '2026-06-01', to: '2026-06-30' } })
    expect(answer).toMatchObject({ isError: true, structuredContent: { error: 'This shop is not on an active paid plan' } })
    expect((await call('getShopSps', { shop_id: inactive.shop_id })).isError).toBeUndefined()
  })

  it("Enterprise tools follow the account's tier (spec: Authentication 4)", async () => {
    const state = createMockState({ seed: 2, now: '2026-07-01T10:00:00.000Z', rateLimit: false })
    const call = await connected(state, ['listEnterpriseBrands'])
    const args = { shop_id: state.world.shops[0]!.shop_id, region: 'us' }
    expect((await call('listEnterpriseBrands', args)).isError).toBeUndefined()
    await state.admin.run('connector/account-tier', { tier: 'standard' })
    expect(await call('listEnterpriseBrands', args)).toMatchObject({ isError: true, structuredContent: { error: 'This endpoint requires an Enterprise plan' } })
  })

  it('idempotency: a replay with the same idempotency_key returns the first answer and is marked in the log (spec: Idempotency)', async () => {
    const state = createMockState({ seed: 2, now: '2026-07-01T10:00:00.000Z', rateLimit: false })
    const call = await connected(state, ['createGroup', 'createList'])
    const args = { shop_id: state.world.shops[0]!.shop_id, idempotency_key: 'grp-1', title: 'Replayed', handles: [state.world.creators[0]!.handle] }
    const first = await call('createList', args)
    const second = await call('createList', { ...args, handles: [state.world.creators[1]!.handle] })
    expect(second.structuredContent).toEqual(first.structuredContent)
    expect(second._meta['shoptwin/idempotent-replayed']).toBe(true)
    const log = state.connector.data.activity.filter((e) => e.tool === 'createList' && e.actor.kind === 'connector' && e.actor.client_name === 'Pipeline')
    expect(log.map((e) => e.idempotent_replay)).toEqual([false, true])
  })
})

describe('connector: params a method does not take are the caller\'s error, -32602 (JSON-RPC 2.0 5.1)', () => {
  // The SDK answers them -32603 Internal error with its zod issues dumped in the message (modelcontextprotocol/typescript-sdk issue 2284).
  it.each([
    [{ method: 'tools/call', params: {} }, 'Invalid params: params.name: expected string'],
    [{ method: 'tools/call', params: { name: 'getShopSps', arguments: 'x' } }, 'Invalid params: params.arguments: expected object'],
    [{ method: 'tools/list', params: { cursor: 5 } }, 'Invalid params: params.cursor: expected string'],
    [{ method: 'initialize', params: {} }, 'Invalid params: params.protocolVersion: expected string; params.capabilities: expected object; params.clientInfo: expected object'],
  ])('%j: -32602 and one line naming the params', async (request, message) => {
    const call = await connected(createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z' }), ['getShopSps'])
    expect(await call.rpc({ jsonrpc: '2.0', id: 7, ...request })).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message } })
  })

  it('a tool that does not exist is a protocol error: -32602 "Unknown tool: <name>" (MCP tools, Error handling), and the call is in the activity log', async () => {
    const state = createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z' })
    const call = await connected(state, ['getShopSps'])
    expect(await call.rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'invalid_tool_name', arguments: {} } })).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Unknown tool: invalid_tool_name' } })
    expect(state.connector.data.activity.at(-1)).toMatchObject({ tool: 'invalid_tool_name', status: 404 })
  })

  it('in a batch, the refused message is rewritten and the others answered as they were', async () => {
    const call = await connected(createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z' }), ['getShopSps'])
    const answers = (await call.rpc([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ])) as Array<{ id: number; error?: { code: number }; result?: { tools: unknown[] } }>
    expect(answers.find((a) => a.id === 1)!.error!.code).toBe(-32602)
    expect(answers.find((a) => a.id === 2)!.result!.tools.length).toBe(1)
  })
})
