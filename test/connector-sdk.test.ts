/**
 * spec: What the service does (the assistant connector); Authentication 6. A real MCP client, not
 * ours: the official SDK's Client, StreamableHTTPClientTransport and its OAuth client flow discover,
 * register, authorize (the consent form submitted as a browser would), exchange, call tools,
 * refresh, get revoked and fail afterwards, against the standalone server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { auth, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createConnectorHandlers } from '../mock/connector/index.ts'
import { createMockState, type MockState } from '../mock/state.ts'
import { createServer, type MockServer } from '../mock/server.ts'
import { consent, createBrowser } from './connector-helpers.ts'

const REDIRECT = 'http://127.0.0.1:8976/callback'

class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  authorizationUrl: URL | undefined
  get redirectUrl() {
    return REDIRECT
  }
  get clientMetadata() {
    return { client_name: 'SDK Test Assistant', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
  }
  state() {
    return 'state-xyz'
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(v: string) {
    this.verifier = v
  }
  codeVerifier() {
    return this.verifier
  }
}

let mock: MockServer
let httpBase: string
// In-process: the same connector as MSW handlers on its own origin; the SDK's transport uses global fetch.
const MSW_BASE = 'https://mcp.example.com'
const mswState = createMockState({ seed: 7, now: '2026-03-02T10:00:00.000Z', rateLimit: false })
const msw = setupServer(...createConnectorHandlers(mswState, { baseUrl: MSW_BASE }))
beforeAll(async () => {
  mock = createServer({ stateOptions: { seed: 7, now: '2026-03-02T10:00:00.000Z', rateLimit: false } })
  httpBase = await mock.listen(0, '127.0.0.1')
  msw.listen({ onUnhandledFrame: 'bypass' })
})
afterAll(async () => {
  msw.close()
  await mock.close()
})

let base: string
async function connect(provider: MemoryProvider) {
  const client = new Client({ name: 'sdk-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }))
  return client
}

describe('connector: the MCP SDK client end to end (spec: Authentication 6)', () => {
  it.each([
    ['over HTTP (shoptwin serve)', () => ({ url: httpBase, state: mock.state })],
    ['in-process (MSW handlers)', () => ({ url: MSW_BASE, state: mswState })],
  ] as Array<[string, () => { url: string; state: MockState }]>)('%s: discovers, registers, signs in and consents, exchanges, calls a read and an idempotent write tool, refreshes, is revoked and fails after', async (_, where) => {
    const { url, state } = where()
    base = url
    const user = state.connector.data.users[0]!
    const [shopA, shopB] = state.world.shops.filter((s) => s.is_active)
    const provider = new MemoryProvider()

    // 1. No token: the SDK reads the 401's resource_metadata, discovers, registers and "redirects".
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
    const client = new Client({ name: 'sdk-test', version: '1.0.0' })
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.info?.client_id).toBeTruthy()
    const authUrl = provider.authorizationUrl!
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authUrl.searchParams.get('resource')).toBe(`${base}/mcp`)

    // 2. The user signs in and consents to one shop and three tools.
    const back = await consent(createBrowser(), authUrl.href, { email: user.email, password: user.password, shops: [shopA!.shop_id], tools: ['listAccountShops', 'getShopSps', 'createList'] })
    expect(back.origin + back.pathname).toBe(REDIRECT)
    expect(back.searchParams.get('state')).toBe('state-xyz')
    await transport.finishAuth(back.searchParams.get('code')!)
    expect(provider.saved?.access_token).toBeTruthy()

    // 3. Tools: exactly the consented ones; a read and an idempotent write.
    const connected = await connect(provider)
    const { tools } = await connected.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['createList', 'getShopSps', 'listAccountShops'])
    const sps = await connected.callTool({ name: 'getShopSps', arguments: { shop_id: shopA!.shop_id } })
    expect(sps.isError).toBeFalsy()
    expect((sps.structuredContent as { data: { sps: number } }).data.sps).toEqual(expect.any(Number))
    const args = { shop_id: shopA!.shop_id, idempotency_key: 'sdk-list-1', title: 'SDK list', handles: [state.world.creators[0]!.handle] }
    const first = await connected.callTool({ name: 'createList', arguments: args })
    const replay = await connected.callTool({ name: 'createList', arguments: args })
    expect(first.isError).toBeFalsy()
    expect(replay.structuredContent).toEqual(first.structuredContent)
    expect(replay._meta?.['shoptwin/idempotent-replayed']).toBe(true)
    // A shop outside the consent is refused with the connector's message.
    const other = await connected.callTool({ name: 'getShopSps', arguments: { shop_id: shopB!.shop_id } })
    expect(other.isError).toBe(true)
    expect(other.structuredContent).toEqual({ error: 'Forbidden: this connection does not have access to this shop' })
    await connected.close()

    // 4. Refresh through the SDK's auth(): a new access token, the old refresh token spent.
    const before = provider.saved!
    const result = await auth(provider, { serverUrl: `${base}/mcp` })
    expect(result).toBe('AUTHORIZED')
    expect(provider.saved!.access_token).not.toBe(before.access_token)
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token)
    const again = await connect(provider)
    expect((await again.listTools()).tools).toHaveLength(3)
    await again.close()

    // 5. The user revokes the connection (control API): the next call gets 401.
    const connection = Object.values(state.connector.data.connections).find((c) => c.client_id === provider.info!.client_id)!
    await state.admin.run('connector/revoke-connection', { connection_id: connection.connection_id })
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
    // ... and the SDK client cannot connect any more: its refresh is refused as invalid_grant.
    await expect(connect(provider)).rejects.toThrow(/Refresh token revoked/)

    // Both writes and the refusal are in the activity log, under the client's name; no token in it.
    const log = (await state.admin.run('connector/activity', { actor_kind: 'connector' })) as { data: Array<{ tool: string; status: number; idempotent_replay: boolean; actor: { client_name: string } }> }
    const mine = log.data.filter((e) => e.actor.client_name === 'SDK Test Assistant')
    expect(mine.filter((e) => e.tool === 'createList').map((e) => e.idempotent_replay).sort()).toEqual([false, true])
    expect(mine.some((e) => e.tool === 'getShopSps' && e.status === 403)).toBe(true)
    expect(JSON.stringify(log)).not.toContain(before.access_token)
  })
})
