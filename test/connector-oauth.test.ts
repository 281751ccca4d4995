/**
 * spec: Authentication 6 (OAuth 2.0 authorization code with PKCE; per-shop, per-tool consent). The
 * connector in-process as MSW handlers, every negative case of issue 17 with the RFC's error:
 * RFC 8414 / 9728 discovery, RFC 7591 registration, RFC 7636 PKCE, RFC 6749 4.1.2.1 and 5.2 errors,
 * RFC 7009 revocation, refresh-token reuse, consent scoping, bad JSON-RPC.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createConnectorHandlers } from '../mock/connector/index.ts'
import { connectorTools, type ConnectorTool } from '../mock/connector/tools.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { loadContract } from '../openapi/index.ts'
import { consent, createBrowser, pkcePair } from './connector-helpers.ts'

const MCP_BASE = 'https://mcp.example.com'
const API_BASE = 'https://api.example.com'
const REDIRECT = 'https://assistant.example.org/callback'
const state = createMockState({ seed: 11, now: '2026-04-01T08:00:00.000Z', rateLimit: false })
const server = setupServer(...createConnectorHandlers(state, { baseUrl: MCP_BASE }), ...createHandlers(state, { baseUrl: API_BASE }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => state.clock.set('2026-04-01T08:00:00.000Z'))

const user = state.connector.data.users[0]!
const [shopA, shopB] = state.world.shops.filter((s) => s.is_active)

async function register(meta: Record<string, unknown> = {}) {
  const response = await fetch(`${MCP_BASE}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Negative Tests', redirect_uris: [REDIRECT], ...meta }) })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

function authorizeUrl(clientId: string, params: Record<string, string | null> = {}): string {
  const url = new URL(`${MCP_BASE}/oauth/authorize`)
  const all: Record<string, string | null> = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 'st-1', code_challenge_method: 'S256', resource: `${MCP_BASE}/mcp`, ...params }
  for (const [k, v] of Object.entries(all)) if (v !== null) url.searchParams.set(k, v)
  return url.href
}

const token = (form: Record<string, string>) =>
  fetch(`${MCP_BASE}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any>, headers: r.headers }))

/** Registers, consents to `shops` and `tools`, and returns the code with its verifier. */
async function codeFor({ shops = [shopA!.shop_id], tools = ['getShopSps', 'listAccountShops'] } = {}) {
  const { body: client } = await register()
  const { verifier, challenge } = pkcePair()
  const back = await consent(createBrowser(), authorizeUrl(client.client_id, { code_challenge: challenge }), { email: user.email, password: user.password, shops, tools })
  return { clientId: client.client_id as string, verifier, code: back.searchParams.get('code')!, back }
}

async function tokensFor(options?: { shops?: string[]; tools?: string[] }) {
  const { clientId, verifier, code } = await codeFor(options)
  const answer = await token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT })
  expect(answer.status).toBe(200)
  return { clientId, access: answer.body.access_token as string, refresh: answer.body.refresh_token as string }
}

let rpcId = 0
async function rpc(access: string | null, method: string, params: unknown = {}, raw?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  if (access) headers.authorization = `Bearer ${access}`
  const response = await fetch(`${MCP_BASE}/mcp`, { method: 'POST', headers, body: raw ?? JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, any>) : null }
}

describe('connector discovery (RFC 8414, RFC 9728, MCP authorization)', () => {
  it('serves authorization-server metadata with S256 only and public clients', async () => {
    const meta = (await (await fetch(`${MCP_BASE}/.well-known/oauth-authorization-server`)).json()) as Record<string, any>
    expect(meta).toMatchObject({ issuer: MCP_BASE, authorization_endpoint: `${MCP_BASE}/oauth/authorize`, token_endpoint: `${MCP_BASE}/oauth/token`, registration_endpoint: `${MCP_BASE}/oauth/register`, revocation_endpoint: `${MCP_BASE}/oauth/revoke` })
    expect(meta.code_challenge_methods_supported).toEqual(['S256'])
    expect(meta.token_endpoint_auth_methods_supported).toEqual(['none'])
  })
  it('serves protected-resource metadata for the MCP endpoint and answers 401 with resource_metadata without a token', async () => {
    const prm = (await (await fetch(`${MCP_BASE}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, any>
    expect(prm).toMatchObject({ resource: `${MCP_BASE}/mcp`, authorization_servers: [MCP_BASE] })
    const answer = await rpc(null, 'tools/list')
    expect(answer.status).toBe(401)
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${MCP_BASE}/.well-known/oauth-protected-resource/mcp"`)
  })
})

describe('connector dynamic client registration (RFC 7591)', () => {
  it('registers a public client', async () => {
    const { status, body } = await register()
    expect(status).toBe(201)
    expect(body).toMatchObject({ client_name: 'Negative Tests', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })
    expect(body.client_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(body).not.toHaveProperty('client_secret')
  })
  it.each([
    [{ redirect_uris: ['http://evil.example.com/cb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://a.example.com/cb#frag'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    [{ grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
  ])('refuses %j with %s', async (meta, error) => {
    const { status, body } = await register(meta)
    expect(status).toBe(400)
    expect(body.error).toBe(error)
  })
  it('accepts loopback http redirect URIs (RFC 8252 7.3)', async () => {
    expect((await register({ redirect_uris: ['http://127.0.0.1:9999/cb', 'http://localhost/cb', 'http://[::1]:1/cb'] })).status).toBe(201)
  })
})

describe('connector /authorize (RFC 6749 4.1, RFC 7636, RFC 8707)', () => {
  const redirected = async (url: string) => {
    const response = await fetch(url, { redirect: 'manual' })
    expect(response.status).toBe(302)
    return new URL(response.headers.get('location')!)
  }
  it('refuses a missing code_challenge with invalid_request, state echoed', async () => {
    const { body } = await register()
    const back = await redirected(authorizeUrl(body.client_id, { code_challenge: null }))
    expect(back.searchParams.get('error')).toBe('invalid_request')
    expect(back.searchParams.get('state')).toBe('st-1')
  })
  it('refuses the plain method (S256 only)', async () => {
    const { body } = await register()
    const back = await redirected(authorizeUrl(body.client_id, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }))
    expect(back.searchParams.get('error')).toBe('invalid_request')
    expect(back.searchParams.get('error_description')).toContain('S256')
  })
  it('refuses another resource with invalid_target', async () => {
    const { body } = await register()
    const back = await redirected(authorizeUrl(body.client_id, { code_challenge: pkcePair().challenge, resource: 'https://other.example.com/mcp' }))
    expect(back.searchParams.get('error')).toBe('invalid_target')
  })
  it('never redirects to an unregistered redirect URI or for an unknown client', async () => {
    const { body } = await register()
    const mismatch = await fetch(authorizeUrl(body.client_id, { code_challenge: pkcePair().challenge, redirect_uri: 'https://assistant.example.org/other' }), { redirect: 'manual' })
    expect(mismatch.status).toBe(400)
    expect(mismatch.headers.get('location')).toBeNull()
    const unknown = await fetch(authorizeUrl('00000000-0000-4000-8000-000000000000', { code_challenge: pkcePair().challenge }), { redirect: 'manual' })
    expect(unknown.status).toBe(400)
    expect(await unknown.text()).toContain('No application is registered with this client_id')
  })
  it('deny returns access_denied to the client with its state', async () => {
    const { body } = await register()
    const back = await consent(createBrowser(), authorizeUrl(body.client_id, { code_challenge: pkcePair().challenge }), { email: user.email, password: user.password, shops: [], tools: [], decision: 'deny' })
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('state')).toBe('st-1')
    expect(back.searchParams.get('iss')).toBe(MCP_BASE)
  })
  it('a wrong password does not sign in', async () => {
    const { body } = await register()
    await expect(consent(createBrowser(), authorizeUrl(body.client_id, { code_challenge: pkcePair().challenge }), { email: user.email, password: 'nope', shops: [shopA!.shop_id], tools: ['getShopSps'] })).rejects.toThrow(/401/)
  })
})

describe('connector token endpoint (RFC 6749 5.2, RFC 7636 4.6)', () => {
  it('a wrong verifier is invalid_grant', async () => {
    const { clientId, code } = await codeFor()
    const answer = await token({ grant_type: 'authorization_code', code, code_verifier: pkcePair().verifier, client_id: clientId, redirect_uri: REDIRECT })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('invalid_grant')
    expect(answer.headers.get('cache-control')).toBe('no-store')
  })
  it('a missing verifier is invalid_request', async () => {
    const { clientId, code } = await codeFor()
    expect((await token({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT })).body.error).toBe('invalid_request')
  })
  it('a reused code is invalid_grant and revokes the tokens it issued', async () => {
    const { clientId, verifier, code } = await codeFor()
    const form = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT }
    const first = await token(form)
    expect(first.status).toBe(200)
    expect((await rpc(first.body.access_token, 'tools/list')).status).toBe(200)
    const second = await token(form)
    expect(second.body.error).toBe('invalid_grant')
    expect((await rpc(first.body.access_token, 'tools/list')).status).toBe(401)
  })
  it('a code expires after 10 minutes on the mock clock', async () => {
    const { clientId, verifier, code } = await codeFor()
    state.clock.advance(10 * 60_000 + 1)
    const answer = await token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT })
    expect(answer.body).toMatchObject({ error: 'invalid_grant', error_description: 'Authorization code expired' })
  })
  it('a code is bound to its redirect URI and its client', async () => {
    const { clientId, verifier, code } = await codeFor()
    expect((await token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: 'https://assistant.example.org/other' })).body.error).toBe('invalid_grant')
    const { body: other } = await register()
    expect((await token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: other.client_id, redirect_uri: REDIRECT })).body.error).toBe('invalid_grant')
  })
  it('an unknown client is invalid_client (401), an unknown grant type unsupported_grant_type', async () => {
    const unknown = await token({ grant_type: 'authorization_code', code: 'x', code_verifier: pkcePair().verifier, client_id: 'nobody', redirect_uri: REDIRECT })
    expect(unknown.status).toBe(401)
    expect(unknown.body.error).toBe('invalid_client')
    expect((await token({ grant_type: 'password', client_id: 'nobody' })).body.error).toBe('unsupported_grant_type')
    expect((await token({})).body.error).toBe('invalid_request')
  })
  it('refresh rotates; a reused refresh token revokes the whole family', async () => {
    const { clientId, refresh } = await tokensFor()
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId })
    expect(rotated.status).toBe(200)
    expect(rotated.body.refresh_token).not.toBe(refresh)
    expect((await rpc(rotated.body.access_token, 'tools/list')).status).toBe(200)
    const reused = await token({ grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId })
    expect(reused.body.error).toBe('invalid_grant')
    expect((await rpc(rotated.body.access_token, 'tools/list')).status).toBe(401)
    expect((await token({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token, client_id: clientId })).body.error).toBe('invalid_grant')
  })
  it('an access token expires after an hour on the mock clock', async () => {
    const { access } = await tokensFor()
    state.clock.advance(60 * 60_000)
    const answer = await rpc(access, 'tools/list')
    expect(answer.status).toBe(401)
    expect(answer.headers.get('www-authenticate')).toContain('The access token expired')
  })
})

describe('connector revocation (RFC 7009; the user revokes a connection)', () => {
  it('revoking the refresh token (RFC 7009) stops its access token', async () => {
    const { clientId, access, refresh } = await tokensFor()
    const response = await fetch(`${MCP_BASE}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: refresh, client_id: clientId, token_type_hint: 'refresh_token' }) })
    expect(response.status).toBe(200)
    expect((await rpc(access, 'tools/list')).status).toBe(401)
  })
  it('a connection whose client revoked both its tokens (RFC 7009) is shown as revoked, with no Revoke button', async () => {
    const { clientId, access, refresh } = await tokensFor()
    const connectionOf = () => Object.values(state.connector.data.connections).find((c) => c.connection_id === Object.values(state.connector.data.families).find((f) => f.client_id === clientId)!.connection_id)!
    const row = async () => {
      const browser = createBrowser()
      await browser.open(`${MCP_BASE}/oauth/connections`)
      const page = await browser.open(`${MCP_BASE}/oauth/sign-in`, new URLSearchParams({ next: 'connections', email: user.email, password: user.password }))
      return page.html.split('<tr>').find((r) => r.includes(connectionOf().connection_id) || r.includes(`revoked by the application ${state.clock.now().toISOString().slice(0, 10)}`))
    }
    expect(await row()).toContain('>Revoke</button>')
    for (const token of [access, refresh]) {
      const response = await fetch(`${MCP_BASE}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, client_id: clientId }) })
      expect(response.status).toBe(200)
    }
    const ended = await row()
    expect(ended).toContain(`revoked by the application ${state.clock.now().toISOString().slice(0, 10)}`)
    expect(ended).not.toContain('Revoke</button>')
    expect(connectionOf().revoked_at).toBeNull()
  })
  it('the connections page revokes a connection with immediate effect', async () => {
    const { access } = await tokensFor()
    const browser = createBrowser()
    let page = await browser.open(`${MCP_BASE}/oauth/connections`)
    page = await browser.open(`${MCP_BASE}/oauth/sign-in`, new URLSearchParams({ next: 'connections', email: user.email, password: user.password }))
    expect(page.html).toContain('Old Reporting Bot')
    expect(page.html).toContain('revoked')
    const connection = Object.values(state.connector.data.connections).filter((c) => c.client_name === 'Negative Tests' && !c.revoked_at).at(-1)!
    page = await browser.open(`${MCP_BASE}/oauth/connections/revoke`, new URLSearchParams({ connection_id: connection.connection_id }))
    expect(page.status).toBe(200)
    expect(state.connector.data.connections[connection.connection_id]!.revoked_at).toBe(state.clock.now().toISOString())
    expect((await rpc(access, 'tools/list')).status).toBe(401)
  })
})

describe('connector consent groups (the page has no script: the server expands them on Allow)', () => {
  const grantOf = async (options: { shops: string[]; tools: string[] }) => {
    const { clientId } = await tokensFor(options)
    const family = Object.values(state.connector.data.families).find((f) => f.client_id === clientId)!
    return state.connector.data.connections[family.connection_id]!
  }
  const catalogue = () => connectorTools(loadContract())
  it.each([
    ['All shops + All read tools', { shops: ['@all'], tools: ['@read'] }, (t: ConnectorTool) => t.kind === 'read'],
    ['one shop + All tools', { shops: [], tools: ['@all'] }, () => true],
    ['an area and one tool of another', { shops: [], tools: ['@area:Dashboards', 'getShopSps'] }, (t: ConnectorTool) => t.area === 'Dashboards' || t.name === 'getShopSps'],
  ])('%s', async (_label, { shops, tools }, expected) => {
    const connection = await grantOf({ shops: shops.length ? shops : [shopA!.shop_id], tools })
    expect(connection.shops).toEqual(shops.includes('@all') ? state.world.shops.filter((s) => s.account_id === user.account_id).map((s) => s.shop_id) : [shopA!.shop_id])
    expect(connection.tools).toEqual(catalogue().filter(expected).map((t) => t.name))
  })
  it('an unknown group or area grants nothing: the consent page comes back (400)', async () => {
    await expect(tokensFor({ tools: ['@area:Nowhere', '@write'] })).rejects.toThrow(/consent answer: 400/)
  })
})

describe('connector consent scoping and MCP errors', () => {
  it('lists only consented tools and refuses the others and other shops', async () => {
    const { access } = await tokensFor({ shops: [shopA!.shop_id], tools: ['getShopSps'] })
    const list = await rpc(access, 'tools/list')
    expect(list.body!.result.tools.map((t: { name: string }) => t.name)).toEqual(['getShopSps'])
    const unconsented = await rpc(access, 'tools/call', { name: 'listAccountShops', arguments: {} })
    expect(unconsented.body!.result).toMatchObject({ isError: true, structuredContent: { error: 'Forbidden: this connection is not allowed to use the tool listAccountShops' } })
    const otherShop = await rpc(access, 'tools/call', { name: 'getShopSps', arguments: { shop_id: shopB!.shop_id } })
    expect(otherShop.body!.result).toMatchObject({ isError: true, structuredContent: { error: 'Forbidden: this connection does not have access to this shop' } })
    const ok = await rpc(access, 'tools/call', { name: 'getShopSps', arguments: { shop_id: shopA!.shop_id } })
    expect(ok.body!.result.isError).toBeUndefined()
    expect(ok.body!.result.structuredContent.data.sps).toEqual(expect.any(Number))
  })
  it('concurrent requests of two connections each see their own consent (servers are reused between requests)', async () => {
    const one = await tokensFor({ tools: ['getShopSps'] })
    const two = await tokensFor({ tools: ['listAccountShops', 'getShopStats'] })
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => rpc(i % 2 ? two.access : one.access, 'tools/list')))
    answers.forEach((a, i) => expect(a.body!.result.tools.map((t: { name: string }) => t.name).sort()).toEqual(i % 2 ? ['getShopStats', 'listAccountShops'] : ['getShopSps']))
  })
  it('a tool call gets the REST validation error word for word', async () => {
    const { access } = await tokensFor({ tools: ['getShopStats'] })
    const answer = await rpc(access, 'tools/call', { name: 'getShopStats', arguments: { shop_id: shopA!.shop_id, stats: ['no_such_stat'] } })
    const rest = await fetch(`${API_BASE}/shop/stats`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopA!.shop_id }, body: JSON.stringify({ stats: ['no_such_stat'] }) })
    expect(answer.body!.result.isError).toBe(true)
    expect(answer.body!.result.content[0].text).toBe(await rest.text())
    expect(answer.body!.result._meta['shoptwin/status']).toBe(rest.status)
  })
  it('a tool refuses arguments its inputSchema does not take, where the API never sees their type (path parameter, key, GET arguments, blank shop_id)', async () => {
    const { access } = await tokensFor({ tools: ['getIdempotencyRecord', 'listAccountActivity', 'createGroup'] })
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['getIdempotencyRecord', { shop_id: shopA!.shop_id, key: 12345 }, 'key must be string'],
      ['createGroup', { shop_id: shopA!.shop_id, idempotency_key: 7, name: 'G' }, 'idempotency_key must be string'],
      ['listAccountActivity', { page_size: 'ten' }, 'page_size must be integer'],
      ['getIdempotencyRecord', { shop_id: '', key: 'k-1' }, 'Missing shop_id argument (the shop to act on)'],
    ]
    for (const [name, args, error] of cases) {
      const answer = await rpc(access, 'tools/call', { name, arguments: args })
      expect(answer.body!.result).toMatchObject({ isError: true, structuredContent: { error }, _meta: { 'shoptwin/status': 400 } })
    }
    // The path parameter's format is the API's to refuse, with the spec's message.
    const badKey = await rpc(access, 'tools/call', { name: 'getIdempotencyRecord', arguments: { shop_id: shopA!.shop_id, key: 'not a key!' } })
    expect(badKey.body!.result.structuredContent).toEqual({ error: 'Invalid idempotency key format' })
  })
  it.each([
    ['not JSON', '{"jsonrpc": "2.0", "id": 1, "method": '],
    ['not JSON-RPC', '{"hello": "world"}'],
    ['an array of numbers', '[1, 2, 3]'],
  ])('bad JSON-RPC (%s) gets a JSON-RPC error, never a 5xx', async (_, raw) => {
    const { access } = await tokensFor()
    const answer = await rpc(access, 'x', {}, raw)
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.status).toBeLessThan(500)
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } })
  })
  it('GET and DELETE on the MCP endpoint get 405 (stateless: no SSE stream, no session to end)', async () => {
    const { access } = await tokensFor()
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${MCP_BASE}/mcp`, { method, headers: { authorization: `Bearer ${access}`, accept: 'text/event-stream' } })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('POST, OPTIONS')
    }
  })
  it('an unknown method gets JSON-RPC method-not-found', async () => {
    const { access } = await tokensFor()
    const answer = await rpc(access, 'resources/list')
    expect(answer.body!.error.code).toBe(-32601)
  })
})
