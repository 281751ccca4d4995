/**
 * spec: What the service does: the connector "gives AI assistants the same access", and "Actions by
 * API key or connector are recorded in the account's activity log". One world behind both doors, and
 * the OAuth endpoints checked by an independent client library (oauth4webapi).
 */
import * as oauth from 'oauth4webapi'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createConnectorHandlers } from '../mock/connector/index.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { consent, createBrowser } from './connector-helpers.ts'

const MCP_BASE = 'https://mcp.example.com'
const API_BASE = 'https://api.example.com'
const REDIRECT = 'https://assistant.example.org/cb'
const state = createMockState({ seed: 3, now: '2026-05-10T12:00:00.000Z', rateLimit: false, strict: true })
const server = setupServer(...createConnectorHandlers(state, { baseUrl: MCP_BASE }), ...createHandlers(state, { baseUrl: API_BASE }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
const user = state.connector.data.users[0]!
const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!

/** The whole dance with oauth4webapi: discovery, DCR, PKCE, consent, code exchange. */
async function connectWithOauth4webapi(tools: string[]) {
  const issuer = new URL(MCP_BASE)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2' }))
  const client = (await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { client_name: 'oauth4webapi agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }))) as oauth.Client
  const verifier = oauth.generateRandomCodeVerifier()
  const url = new URL(as.authorization_endpoint!)
  const expectedState = oauth.generateRandomState()
  for (const [k, v] of Object.entries({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: expectedState, resource: `${MCP_BASE}/mcp` })) url.searchParams.set(k, v)
  const back = await consent(createBrowser(), url.href, { email: user.email, password: user.password, shops: [shop.shop_id], tools })
  const params = oauth.validateAuthResponse(as, client, back, expectedState)
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier))
  return { as, client, tokens }
}

async function callTool(access: string, name: string, args: Record<string, unknown>) {
  const response = await fetch(`${MCP_BASE}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  })
  return ((await response.json()) as { result: { isError?: boolean; structuredContent: any } }).result
}

const rest = (path: string, body: unknown) =>
  fetch(`${API_BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))

describe('connector with an independent OAuth client (oauth4webapi)', () => {
  it('discovery, registration, PKCE, code exchange, refresh and RFC 7009 revocation all pass its checks', async () => {
    const { as, client, tokens } = await connectWithOauth4webapi(['getShopSps'])
    expect(tokens.token_type).toBe('bearer')
    expect(tokens.expires_in).toBe(3600)
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!))
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    expect((await callTool(refreshed.access_token, 'getShopSps', { shop_id: shop.shop_id })).isError).toBeUndefined()
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token!))
    const after = await fetch(`${MCP_BASE}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${refreshed.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
    expect(after.status).toBe(401)
    // The reused (rotated) refresh token is refused the way oauth4webapi understands: an OAuth error response.
    await expect(oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!))).rejects.toMatchObject({ error: 'invalid_grant' })
  })
})

describe('connector: one world behind both doors (spec: What the service does)', () => {
  it('a list created through MCP is appended to over REST; a dashboard made over REST is listed through MCP; both in the activity log with their actors', async () => {
    const { tokens } = await connectWithOauth4webapi(['createList', 'listDashboards'])
    const [h1, h2] = state.world.creators.slice(0, 2).map((c) => c.handle)
    const made = await callTool(tokens.access_token, 'createList', { shop_id: shop.shop_id, title: 'Both doors', handles: [h1] })
    expect(made.structuredContent.data).toMatchObject({ title: 'Both doors', creator_count: 1 })
    const appended = await rest('/lists/create', { title: 'Both doors', handles: [h2] })
    expect(appended.body.data).toMatchObject({ title: 'Both doors', creator_count: 2 })

    const board = await rest('/dashboards/create', { name: 'Made over REST' })
    expect(board.status).toBe(201)
    const boards = await callTool(tokens.access_token, 'listDashboards', { shop_id: shop.shop_id })
    expect(boards.structuredContent.data.dashboards.map((d: { name: string }) => d.name)).toContain('Made over REST')

    const log = (await state.admin.run('connector/activity', { shop_id: shop.shop_id, from: '2026-05-10', to: '2026-05-10' })) as { data: any[] }
    const byMcp = log.data.find((e) => e.operation_id === 'createList' && e.actor.kind === 'connector')
    const byKey = log.data.find((e) => e.operation_id === 'createDashboard')
    expect(byMcp).toMatchObject({ tool: 'createList', status: 201, actor: { client_name: 'oauth4webapi agent' }, idempotent_replay: false })
    expect(byKey).toMatchObject({ tool: null, status: 201, actor: { kind: 'api_key', label: expect.stringContaining('Demo key') } })
    expect(byKey.actor.key_id).toMatch(/^key_[0-9a-f]{8}$/)
    // Keys and tokens never appear in the log.
    const text = JSON.stringify(state.connector.data)
    for (const secret of ['demo-key', tokens.access_token, tokens.refresh_token!]) expect(text).not.toContain(secret)
  })
  it('the activity log pages and filters by actor kind, shop and date range', async () => {
    const all = (await state.admin.run('connector/activity', { page_size: 2 })) as { data: any[]; has_more: boolean; total_count: number }
    expect(all.data).toHaveLength(2)
    expect(all.has_more).toBe(true)
    const connector = (await state.admin.run('connector/activity', { actor_kind: 'connector', page_size: 100 })) as { data: any[] }
    expect(connector.data.every((e) => e.actor.kind === 'connector')).toBe(true)
    // The fixtures' earlier connections left entries days before today.
    const old = (await state.admin.run('connector/activity', { to: '2026-05-09', page_size: 100 })) as { data: any[] }
    expect(old.data.length).toBeGreaterThan(0)
    expect(old.data.every((e) => e.time < '2026-05-10')).toBe(true)
  })
  it('GET /account/activity (inferred) reads the same log over REST, paged and filtered, valid against the contract (strict)', async () => {
    const get = (query: string, key = 'demo-key') => fetch(`${API_BASE}/account/activity?${query}`, { headers: { 'x-api-key': key } }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    const page = await get('actor_kind=connector&page_size=3&page_number=1')
    expect(page.status).toBe(200)
    expect(page.body.data).toHaveLength(3)
    expect(page.body.data.every((e: any) => e.actor.kind === 'connector')).toBe(true)
    expect(page.body.total_count).toBeGreaterThan(3)
    const byShop = await get(`shop_id=${shop.shop_id}&from=2026-05-10&to=2026-05-10&page_size=100`)
    expect(byShop.body.data.map((e: any) => e.operation_id)).toEqual(expect.arrayContaining(['createList', 'createDashboard']))
    expect((await get('page_size=101')).status).toBe(400)
    expect((await get('actor_kind=robot')).status).toBe(400)
    // The read itself is an action by API key, recorded like any other.
    const latest = await get('page_size=1')
    expect(latest.body.data[0]).toMatchObject({ operation_id: 'listAccountActivity', actor: { kind: 'api_key' } })
  })
})
