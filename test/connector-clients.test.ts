/**
 * The MCP ecosystem's own clients against the connector: the exchanges they make, reproduced with
 * fetch (no new dependency), where the connector once answered in a way they tripped on.
 *
 * mcp-remote 0.15.1 (the stdio bridge desktop assistants use) picks the scope to ask for from the
 * resource metadata's `scopes_supported`, then the authorization server's; when neither lists any it
 * guesses OIDC's `openid email profile`, and it repeats that scope on every refresh. The connector has
 * no scopes (consent picks shops and tools), so it says so with empty lists (RFC 9728 2, RFC 8414 2),
 * and a client that asks for a scope anyway is told it got none (RFC 6749 3.3, 5.1).
 *
 * Before it opens a browser for a client registration it cached, mcp-remote asks the authorization URL
 * itself with `Accept: application/json` and registers again when the answer is OAuth's JSON
 * `invalid_client` (400 or 401). An in-memory twin forgets its clients when it restarts: given the HTML
 * error page instead, mcp-remote opened that page in the browser and waited for a sign-in that could
 * not come.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createConnectorHandlers } from '../mock/connector/index.ts'
import { createMockState } from '../mock/index.ts'
import { consent, createBrowser, pkcePair } from './connector-helpers.ts'

const MCP_BASE = 'https://mcp.example.com'
const REDIRECT = 'http://localhost:21137/oauth/callback'
const MCP_REMOTE_FALLBACK_SCOPE = 'openid email profile'
const state = createMockState({ seed: 12, now: '2026-04-01T08:00:00.000Z', rateLimit: false })
const server = setupServer(...createConnectorHandlers(state, { baseUrl: MCP_BASE }))
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const user = state.connector.data.users[0]!
const shop = state.world.shops.find((s) => s.is_active)!

const getJson = async (path: string) => (await (await fetch(`${MCP_BASE}${path}`)).json()) as Record<string, unknown>
const token = async (form: Record<string, string>) => {
  const response = await fetch(`${MCP_BASE}/oauth/token`, { method: 'POST', body: new URLSearchParams(form) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** mcp-remote's sign-in: register, authorize (with `scope` when given), consent, redeem the code. */
async function signIn(scope: string | null) {
  const registered = (await (await fetch(`${MCP_BASE}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'MCP CLI Proxy', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }) })).json()) as { client_id: string }
  const { verifier, challenge } = pkcePair()
  const url = new URL(`${MCP_BASE}/oauth/authorize`)
  const params = { response_type: 'code', client_id: registered.client_id, code_challenge: challenge, code_challenge_method: 'S256', redirect_uri: REDIRECT, state: 'st', ...(scope ? { scope } : {}), resource: `${MCP_BASE}/mcp` }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  const back = await consent(createBrowser(), url.href, { email: user.email, password: user.password, shops: [shop.shop_id], tools: ['getShopSps'] })
  const answer = await token({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, client_id: registered.client_id, redirect_uri: REDIRECT, resource: `${MCP_BASE}/mcp` })
  expect(answer.status).toBe(200)
  return { clientId: registered.client_id, answer: answer.body }
}

describe('connector: what mcp-remote reads (RFC 9728 2, RFC 8414 2, RFC 6749 3.3)', () => {
  it('both metadata documents list no scopes, so a client asks for none rather than guessing OIDC scopes', async () => {
    const resource = await getJson('/.well-known/oauth-protected-resource/mcp')
    const server = await getJson('/.well-known/oauth-authorization-server')
    expect(resource.scopes_supported).toEqual([])
    expect(server.scopes_supported).toEqual([])
    expect(await getJson('/.well-known/oauth-protected-resource')).toEqual(resource)
    // MCP authorization, scope selection: the resource metadata's list joined, and no scope parameter when that is empty.
    expect((resource.scopes_supported as string[]).join(' ')).toBe('')
  })

  it('a code asked for with a scope: the token answer says the scope granted is none', async () => {
    const { answer } = await signIn(MCP_REMOTE_FALLBACK_SCOPE)
    expect(answer.scope).toBe('')
  })

  it('a code asked for without a scope: the token answer has no scope (the one requested is the one granted)', async () => {
    const { answer } = await signIn(null)
    expect(answer).not.toHaveProperty('scope')
    expect(answer.token_type).toBe('Bearer')
  })

  it('a refresh with a scope (mcp-remote repeats it) is told none; one without is not', async () => {
    const { clientId, answer } = await signIn(MCP_REMOTE_FALLBACK_SCOPE)
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: answer.refresh_token as string, client_id: clientId, scope: MCP_REMOTE_FALLBACK_SCOPE })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.scope).toBe('')
    const again = await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token as string, client_id: clientId })
    expect(again.status).toBe(200)
    expect(again.body).not.toHaveProperty('scope')
  })
})

describe('connector: mcp-remote with a client registration the twin no longer knows (a restarted in-memory twin)', () => {
  const authorizeUrl = (clientId: string) => {
    const url = new URL(`${MCP_BASE}/oauth/authorize`)
    const { challenge } = pkcePair()
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256', redirect_uri: REDIRECT, state: 'st', resource: `${MCP_BASE}/mcp` })) url.searchParams.set(k, v)
    return url
  }

  it("its check of the cached client gets OAuth's JSON invalid_client, so it registers again; a browser still gets the page", async () => {
    const url = authorizeUrl('a-client-the-twin-forgot')
    // mcp-remote 0.15.1, NodeOAuthClientProvider.preflightCachedDynamicClientRegistration.
    const preflight = await fetch(url, { redirect: 'manual', headers: { Accept: 'application/json' } })
    expect(preflight.status).toBe(400)
    expect(preflight.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await preflight.json()).toEqual({ error: 'invalid_client', error_description: 'No application is registered with this client_id' })
    const browser = await fetch(url, { redirect: 'manual', headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } })
    expect([browser.status, browser.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8'])
    expect(await browser.text()).toContain('Unknown application')
    // curl's */*, and JSON beside a wildcard: the page, as before.
    for (const accept of ['*/*', 'application/json, */*;q=0.1', 'application/json;q=0, text/html']) expect((await fetch(url, { headers: { Accept: accept } })).headers.get('content-type')).toBe('text/html; charset=utf-8')
    // A range of weight 0 is not accepted (RFC 9110 12.4.2): JSON beside HTML refused by weight is JSON only.
    expect((await fetch(url, { headers: { Accept: 'application/json, text/html;q=0' } })).headers.get('content-type')).toMatch(/^application\/json/)
  })

  it('a client the twin knows: the check is answered as a browser is (not an error), so mcp-remote goes on to the browser', async () => {
    const registered = (await (await fetch(`${MCP_BASE}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'MCP CLI Proxy', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) })).json()) as { client_id: string }
    const preflight = await fetch(authorizeUrl(registered.client_id), { redirect: 'manual', headers: { Accept: 'application/json' } })
    expect(preflight.status).toBe(200)
  })
})
