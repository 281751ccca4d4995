/**
 * spec: What the service does; Authentication 6. The connector's operations in the contract
 * (`x-shoptwin-door: connector`, openapi/src/connector-door.ts) say what the connector really answers:
 * every documented answer of every connector operation is produced here by the in-process connector
 * and checked against its entry (status documented, media type documented, JSON body valid, required
 * headers present, no body where none is documented). A typed client (openapi-fetch over
 * openapi/types.ts) then drives discovery, registration and the token endpoint.
 */
import createClient from 'openapi-fetch'
import { afterAll, describe, expect, it } from 'vitest'
import { createConnector } from '../mock/connector/index.ts'
import { createMockState, createServer } from '../mock/index.ts'
import { indexConnectorOperations, indexOperations, responseKeyOf, type ConnectorOperationInfo } from '../openapi/index.ts'
import type { paths } from '../openapi/types.ts'
import { consent, createBrowser, hiddenFields, pkcePair } from './connector-helpers.ts'

const BASE = 'http://127.0.0.1:4010'
const REDIRECT = 'https://assistant.example.org/callback'
const state = createMockState({ seed: 17, now: '2026-05-04T10:00:00.000Z', rateLimit: false })
const connector = createConnector(state, { baseUrl: BASE, log: () => {} })
const { contract } = state
const operations = indexConnectorOperations(contract.doc)
const user = state.connector.data.users[0]!
const shop = state.world.shops.find((s) => s.account_id === user.account_id && s.is_active)!

/** fetch over the in-process connector. */
const connectorFetch = (async (input: RequestInfo | URL, init?: RequestInit) => connector.handle(new Request(input, init))) as typeof fetch

/** `operationId status` of every answer checked, to compare with what the contract documents. */
const seen = new Set<string>()

function operationOf(method: string, url: string): ConnectorOperationInfo {
  const path = new URL(url).pathname
  const op = operations.find((o) => o.method === method && o.path === path)
  if (!op) throw new Error(`${method} ${path} is not a connector operation of the contract`)
  return op
}

/** Sends a request to the connector and checks its answer against the operation's contract entry. */
async function call(method: string, path: string, init: { body?: string; headers?: Record<string, string>; base?: string } = {}): Promise<{ status: number; text: string; json: any; headers: Headers }> {
  const url = `${init.base ?? BASE}${path}`
  // `base`: a listening server (fetch), for what only the server does; else the in-process connector.
  const request = new Request(url, { method, headers: init.headers ?? {}, ...(init.body !== undefined ? { body: init.body } : {}) })
  const response = init.base ? await fetch(request) : await connector.handle(request)
  const text = await response.text()
  const op = operationOf(method, url.split('?')[0]!)
  const key = responseKeyOf(op, response.status)
  expect(key, `${op.operationId} answered ${response.status}, which the contract does not document: ${text.slice(0, 200)}`).toBeDefined()
  const documented = op.operation.responses[key!] as { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
  if (documented.content) {
    expect(Object.keys(documented.content), `${op.operationId} ${response.status}: content type ${type}`).toContain(type)
    const validate = contract.validators.response(op, response.status, type)!
    const value = type === 'application/json' ? JSON.parse(text) : text
    expect(validate(value), `${op.operationId} ${response.status}: ${JSON.stringify(validate.errors)} in ${text.slice(0, 300)}`).toBe(true)
  } else {
    expect(text, `${op.operationId} ${response.status} has a body, the contract documents none`).toBe('')
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required) expect(response.headers.has(name), `${op.operationId} ${response.status}: header ${name}`).toBe(true)
  }
  seen.add(`${op.operationId} ${response.status}`)
  return { status: response.status, text, json: type === 'application/json' && text ? JSON.parse(text) : undefined, headers: response.headers }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const formOf = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

async function register(): Promise<string> {
  const { json } = await call('POST', '/oauth/register', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Contract check', redirect_uris: [REDIRECT] }) })
  return json.client_id as string
}

/** A code through the real pages (sign-in, consent), with the verifier that redeems it. */
async function codeFor(clientId: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair()
  const authorize = `${BASE}/oauth/authorize?${formOf({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's1' })}`
  const back = await consent(createBrowser(connectorFetch), authorize, { email: user.email, password: user.password, shops: [shop.shop_id], tools: ['listAccountShops'] })
  return { code: back.searchParams.get('code')!, verifier }
}

describe('contract: the connector operations (x-shoptwin-door: connector)', () => {
  it('are on their own server, marked x-inferred with the standard they follow, and left out of the API index (87 operations)', () => {
    expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'DELETE /mcp', 'GET /.well-known/oauth-authorization-server', 'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/mcp',
      'GET /mcp', 'GET /oauth/authorize', 'GET /oauth/connections', 'POST /mcp', 'POST /oauth/authorize', 'POST /oauth/connections/revoke',
      'POST /oauth/register', 'POST /oauth/revoke', 'POST /oauth/sign-in', 'POST /oauth/token',
    ])
    for (const op of operations) {
      expect(op.operation['x-inferred'], op.operationId).toBe(true)
      expect(op.standard, op.operationId).not.toBe('')
      expect((contract.doc.paths[op.path] as unknown as { servers: Array<{ url: string }> }).servers.map((s) => s.url)).toEqual(['https://mcp.example.com'])
    }
    const api = indexOperations(contract.doc)
    expect(api).toHaveLength(87)
    expect(api.some((o) => o.path === '/mcp' || o.path.startsWith('/oauth/') || o.path.startsWith('/.well-known/'))).toBe(false)
    expect(contract.operations).toHaveLength(87)
    expect(api.find((o) => o.operationId === 'listAccountActivity')?.inferred).toBe(true)
  })
})

describe('connector: its real answers validate against the contract entries', () => {
  it('discovery: RFC 8414 and RFC 9728 metadata documents', async () => {
    const server = await call('GET', '/.well-known/oauth-authorization-server')
    expect(server.json.code_challenge_methods_supported).toEqual(['S256'])
    await call('GET', '/.well-known/oauth-protected-resource/mcp')
    await call('GET', '/.well-known/oauth-protected-resource')
  })

  it('registration (RFC 7591): 201 with the client, 400 invalid_redirect_uri and invalid_client_metadata', async () => {
    expect(await register()).toMatch(/.+/)
    const badUri = await call('POST', '/oauth/register', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'] }) })
    expect(badUri.json.error).toBe('invalid_redirect_uri')
    const secret = await call('POST', '/oauth/register', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }) })
    expect(secret.json.error).toBe('invalid_client_metadata')
  })

  it('authorization pages: sign-in page, error page, redirected error, sign-in (303, 401, 400), consent answers (302, 400, 403)', async () => {
    const clientId = await register()
    const { challenge } = pkcePair()
    const start = (extra: Record<string, string>) => `/oauth/authorize?${formOf({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge_method: 'S256', state: 's', ...extra })}`
    const page = await call('GET', start({ code_challenge: challenge }))
    expect(page.status).toBe(200)
    const requestId = hiddenFields(page.text).request_id!
    expect((await call('GET', `/oauth/authorize?${formOf({ client_id: 'nobody' })}`)).status).toBe(400)
    // The same errors in OAuth's JSON to a caller that asks for JSON only (mcp-remote's check of a cached registration).
    const unknownClient = await call('GET', `/oauth/authorize?${formOf({ client_id: 'nobody' })}`, { headers: { accept: 'application/json' } })
    expect([unknownClient.status, unknownClient.json.error]).toEqual([400, 'invalid_client'])
    const noClient = await call('GET', '/oauth/authorize', { headers: { accept: 'application/json' } })
    expect([noClient.status, noClient.json.error]).toEqual([400, 'invalid_request'])
    const noPkce = await call('GET', start({}))
    expect(noPkce.status).toBe(302)
    expect(new URL(noPkce.headers.get('location')!).searchParams.get('error')).toBe('invalid_request')

    expect((await call('POST', '/oauth/sign-in', { headers: FORM, body: formOf({ request_id: requestId, email: user.email, password: 'wrong' }) })).status).toBe(401)
    expect((await call('POST', '/oauth/sign-in', { headers: FORM, body: formOf({ request_id: 'req_unknown', email: user.email, password: user.password }) })).status).toBe(400)
    const signedIn = await call('POST', '/oauth/sign-in', { headers: FORM, body: formOf({ request_id: requestId, email: user.email, password: user.password }) })
    expect(signedIn.status).toBe(303)
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!

    expect((await call('POST', '/oauth/authorize', { headers: FORM, body: formOf({ request_id: requestId, decision: 'allow', shop: shop.shop_id, tool: 'listAccountShops' }) })).status).toBe(403)
    expect((await call('POST', '/oauth/authorize', { headers: { ...FORM, cookie }, body: formOf({ request_id: requestId, decision: 'allow' }) })).status).toBe(400)
    const allowed = await call('POST', '/oauth/authorize', { headers: { ...FORM, cookie }, body: formOf({ request_id: requestId, decision: 'allow', shop: shop.shop_id, tool: 'listAccountShops' }) })
    expect(allowed.status).toBe(302)
    expect(new URL(allowed.headers.get('location')!).searchParams.get('code')).toMatch(/.+/)
  })

  it('token endpoint: 200 tokens, and each RFC 6749 5.2 error with its status', async () => {
    const clientId = await register()
    const { code, verifier } = await codeFor(clientId)
    const token = (fields: Record<string, string>) => call('POST', '/oauth/token', { headers: FORM, body: formOf(fields) })
    const redeem = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT }
    const errors: Array<[fields: Record<string, string>, status: number, error: string]> = [
      [{ client_id: clientId }, 400, 'invalid_request'],
      [{ grant_type: 'password', client_id: clientId }, 400, 'unsupported_grant_type'],
      [{ ...redeem, client_id: 'unknown-client' }, 401, 'invalid_client'],
      [{ ...redeem, code_verifier: pkcePair().verifier }, 400, 'invalid_grant'],
      [{ ...redeem, resource: 'https://elsewhere.example/mcp' }, 400, 'invalid_target'],
    ]
    for (const [fields, status, error] of errors) {
      const answer = await token(fields)
      expect([answer.status, answer.json.error]).toEqual([status, error])
    }
    const tokens = await token(redeem)
    expect(tokens.status).toBe(200)
    expect(tokens.headers.get('cache-control')).toBe('no-store')
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token, client_id: clientId })
    expect(refreshed.status).toBe(200)
    // The code is spent: a second redemption is invalid_grant.
    expect((await token(redeem)).json.error).toBe('invalid_grant')
  })

  it('revocation (RFC 7009): 200 with no body, 400 invalid_request, 401 invalid_client', async () => {
    const clientId = await register()
    const revoke = (fields: Record<string, string>) => call('POST', '/oauth/revoke', { headers: FORM, body: formOf(fields) })
    expect((await revoke({ token: 'stw_at_unknown', client_id: clientId })).status).toBe(200)
    expect((await revoke({ client_id: clientId })).json.error).toBe('invalid_request')
    expect((await revoke({ token: 'stw_at_unknown', client_id: 'unknown-client' })).status).toBe(401)
  })

  it('MCP endpoint: 200 JSON-RPC, 202 notification, 400 parse error, 401 challenge, 403 rebinding, 406, 415, and 405 for GET and DELETE', async () => {
    const clientId = await register()
    const { code, verifier } = await codeFor(clientId)
    const tokens = (await call('POST', '/oauth/token', { headers: FORM, body: formOf({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT }) })).json
    const bearer = { ...JSON_RPC, authorization: `Bearer ${tokens.access_token}` }
    const challenge = await call('POST', '/mcp', { headers: JSON_RPC, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
    expect(challenge.status).toBe(401)
    expect(challenge.headers.get('www-authenticate')).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`)
    const list = await call('POST', '/mcp', { headers: bearer, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
    expect(list.status).toBe(200)
    expect(list.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['listAccountShops'])
    expect((await call('POST', '/mcp', { headers: bearer, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).status).toBe(202)
    expect((await call('POST', '/mcp', { headers: bearer, body: '{not json' })).status).toBe(400)
    expect((await call('POST', '/mcp', { headers: { ...bearer, origin: 'https://evil.example' }, body: '{"jsonrpc":"2.0","id":2,"method":"ping"}' })).status).toBe(403)
    expect((await call('POST', '/mcp', { headers: { ...bearer, accept: 'application/json' }, body: '{"jsonrpc":"2.0","id":3,"method":"ping"}' })).status).toBe(406)
    expect((await call('POST', '/mcp', { headers: { ...bearer, 'content-type': 'text/plain' }, body: '{"jsonrpc":"2.0","id":4,"method":"ping"}' })).status).toBe(415)
    expect((await call('GET', '/mcp', { headers: bearer })).status).toBe(405)
    expect((await call('DELETE', '/mcp', { headers: bearer })).status).toBe(405)
  })

  it('connections page (200, signed in or not) and its revoke (303, 400, 403, 404)', async () => {
    expect((await call('GET', '/oauth/connections')).status).toBe(200)
    const signedIn = await call('POST', '/oauth/sign-in', { headers: FORM, body: formOf({ next: 'connections', email: user.email, password: user.password }) })
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!
    const page = await call('GET', '/oauth/connections', { headers: { cookie } })
    const connectionId = /name="connection_id" value="([^"]+)"/.exec(page.text)![1]!
    expect((await call('POST', '/oauth/connections/revoke', { headers: FORM, body: formOf({ connection_id: connectionId }) })).status).toBe(403)
    expect((await call('POST', '/oauth/connections/revoke', { headers: { ...FORM, cookie }, body: formOf({ connection_id: 'no-such-connection' }) })).status).toBe(404)
    expect((await call('POST', '/oauth/connections/revoke', { headers: { ...FORM, cookie }, body: '' })).status).toBe(400)
    expect((await call('POST', '/oauth/connections/revoke', { headers: { ...FORM, cookie }, body: formOf({ connection_id: connectionId }) })).status).toBe(303)
  })

  it("a body over shoptwin serve's 10 MiB: 413 in the connector's words on each of its POSTs (JSON-RPC on /mcp, OAuth's invalid_request elsewhere)", async () => {
    const server = createServer({ state, log: () => {} })
    const base = await server.listen(0, '127.0.0.1')
    try {
      const big = 'x'.repeat(10 * 1024 * 1024 + 1)
      for (const path of ['/oauth/register', '/oauth/authorize', '/oauth/sign-in', '/oauth/token', '/oauth/revoke', '/oauth/connections/revoke', '/mcp']) {
        const answer = await call('POST', path, { base, headers: path === '/oauth/register' || path === '/mcp' ? JSON_RPC : FORM, body: big })
        expect(answer.status).toBe(413)
        expect(answer.json).toEqual(path === '/mcp' ? { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Payload Too Large: Request body must not exceed 10485760 bytes' } } : { error: 'invalid_request', error_description: 'Request body larger than 10485760 bytes' })
      }
    } finally {
      await server.close()
    }
  })

  describe('MCP protocol versions: JSON-RPC batches in 2025-03-26 only (2025-06-18 changelog), MCP-Protocol-Version (Streamable HTTP, 2025-06-18)', () => {
    let bearer: Record<string, string>
    const tokenOnce = async () => {
      if (bearer) return bearer
      const clientId = await register()
      const { code, verifier } = await codeFor(clientId)
      const tokens = (await call('POST', '/oauth/token', { headers: FORM, body: formOf({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT }) })).json
      return (bearer = { ...JSON_RPC, authorization: `Bearer ${tokens.access_token}` })
    }
    const toolCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'listAccountShops', arguments: {} } })
    const mcp = async (body: unknown, headers: Record<string, string> = {}) => call('POST', '/mcp', { headers: { ...(await tokenOnce()), ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) })
    const invalidRequest = { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) } }

    it.each(['2025-06-18', '2025-11-25', '2024-11-05'])('a batch under %s: 400, -32600 Invalid Request naming the version, and none of its tool calls runs', async (version) => {
      const before = (await state.activity.entries()).length
      const answer = await mcp([toolCall(1), toolCall(2)], { 'mcp-protocol-version': version })
      expect(answer.status).toBe(400)
      expect(answer.json).toEqual(invalidRequest)
      expect(answer.json.error.message).toContain(`not part of MCP ${version}`)
      expect((await state.activity.entries()).length).toBe(before)
    })

    it('a batch under 2025-03-26, or without the header (2025-03-26 assumed): 200, one answer a message', async () => {
      for (const headers of [{ 'mcp-protocol-version': '2025-03-26' }, {}] as Array<Record<string, string>>) {
        const answer = await mcp([toolCall(1), { jsonrpc: '2.0', id: 2, method: 'ping' }], headers)
        expect(answer.status).toBe(200)
        expect(answer.json.map((m: { id: number }) => m.id).sort()).toEqual([1, 2])
      }
    })

    it('one message under 2025-06-18 and 2025-11-25 is answered', async () => {
      for (const version of ['2025-06-18', '2025-11-25']) expect((await mcp(toolCall(1), { 'mcp-protocol-version': version })).json.result.isError).toBeUndefined()
    })

    it('in every version: an empty batch, and initialize in a batch (alone too), are -32600 (JSON-RPC 2.0 6; MCP lifecycle)', async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'batcher', version: '1' } } }
      const empty = await mcp([])
      expect([empty.status, empty.json]).toEqual([400, invalidRequest])
      for (const headers of [{}, { 'mcp-protocol-version': '2025-03-26' }, { 'mcp-protocol-version': '1999-01-01' }] as Array<Record<string, string>>) {
        const alone = await mcp([initialize], headers)
        expect([alone.status, alone.json]).toEqual([400, invalidRequest])
        expect(alone.json.error.message).toContain('initialize must not be part of a JSON-RPC batch')
      }
    })

    it('an unsupported MCP-Protocol-Version is 400 naming it, one message, a batch or initialize (Streamable HTTP: MUST respond with 400 Bad Request)', async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'versioned', version: '1' } } }
      for (const body of [toolCall(1), [toolCall(1), toolCall(2)], initialize]) {
        const answer = await mcp(body, { 'mcp-protocol-version': '2099-01-01' })
        expect(answer.status).toBe(400)
        expect(answer.json.error).toMatchObject({ code: -32000, message: expect.stringContaining('Unsupported protocol version: 2099-01-01') })
      }
    })

    it("the SDK's refusals before the body is read stay first: 406 and 415 for a batch under 2025-06-18, 413 for a body over 4 MiB, -32700 for one that is not JSON", async () => {
      const batch = [toolCall(1), toolCall(2)]
      expect((await mcp(batch, { 'mcp-protocol-version': '2025-06-18', accept: 'application/json' })).status).toBe(406)
      expect((await mcp(batch, { 'mcp-protocol-version': '2025-06-18', 'content-type': 'text/plain' })).status).toBe(415)
      const large = await mcp(`[${' '.repeat(4 * 1024 * 1024)}]`, { 'mcp-protocol-version': '2025-06-18' })
      expect([large.status, large.json.error.code]).toEqual([413, -32000])
      expect((await mcp('[{', { 'mcp-protocol-version': '2025-06-18' })).json.error.code).toBe(-32700)
    })
  })

  afterAll(() => {
    // Every answer the contract documents (5XX aside) was produced and checked above.
    const documented = operations.flatMap((op) => Object.keys(op.operation.responses).filter((k) => /^\d{3}$/.test(k)).map((k) => `${op.operationId} ${k}`))
    expect(documented.filter((d) => !seen.has(d))).toEqual([])
  })
})

describe('connector: a typed client (openapi-fetch over openapi/types.ts) against it', () => {
  it('discovers, registers, and exchanges a code through the typed paths', async () => {
    const client = createClient<paths>({ baseUrl: BASE, fetch: connectorFetch })
    const metadata = await client.GET('/.well-known/oauth-authorization-server')
    expect(metadata.data?.code_challenge_methods_supported).toEqual(['S256'])
    const registered = await client.POST('/oauth/register', { body: { client_name: 'Typed client', redirect_uris: [REDIRECT] } })
    const clientId = registered.data!.client_id
    const { code, verifier } = await codeFor(clientId)
    const form = { bodySerializer: (body: unknown) => new URLSearchParams(body as Record<string, string>).toString(), headers: FORM }
    const tokens = await client.POST('/oauth/token', { ...form, body: { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT } })
    expect(tokens.data?.token_type).toBe('Bearer')
    const reused = await client.POST('/oauth/token', { ...form, body: { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT } })
    expect(reused.error?.error).toBe('invalid_grant')
    const revoked = await client.POST('/oauth/revoke', { ...form, body: { token: tokens.data!.refresh_token, token_type_hint: 'refresh_token', client_id: clientId } })
    expect(revoked.response.status).toBe(200)
  })
})
