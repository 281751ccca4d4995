/**
 * spec: Authentication 6 (OAuth 2.0 authorization code with PKCE). Generated requests on every OAuth
 * endpoint of the connector: a valid request (register, authorize, sign-in, consent, token for a code
 * and for a refresh, revoke, connections revoke), then one of the ways clients get a request wrong,
 * on one parameter the endpoint reads: given twice (with the same or another value), given without a
 * value, moved into the URL query, a body of another media type, an Authorization header. The answer
 * is the RFC's refusal naming the parameter, the media type or the header (RFC 6749 3.1, 4.1.2.1,
 * 4.1.3, 5.2; RFC 7009 2.1; RFC 7591 3; RFC 8707), never a 5xx or a success; a parameter without a
 * value is answered as if omitted; each answer is valid against the contract; the valid request still
 * succeeds after a refusal (nothing spent). Then the whole flow, as a client makes it. FUZZ_SEED,
 * FUZZ_RUNS.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createConnector } from '../mock/connector/index.ts'
import { createMockState } from '../mock/index.ts'
import { indexConnectorOperations, responseKeyOf } from '../openapi/index.ts'
import { consent, createBrowser, hiddenFields, pkcePair } from './connector-helpers.ts'

const BASE = 'https://mcp.example.com'
const MCP = `${BASE}/mcp`
const REDIRECT = 'https://assistant.example.org/callback'
const SEED = Number(process.env.FUZZ_SEED ?? 20260602)
const RUNS = Number(process.env.FUZZ_RUNS ?? 150)
const state = createMockState({ seed: 29, now: '2026-06-02T09:00:00.000Z', rateLimit: false })
const unexpected: unknown[] = []
const connector = createConnector(state, { baseUrl: BASE, log: (error) => unexpected.push(error) })
const operations = indexConnectorOperations(state.contract.doc)
const user = state.connector.data.users[0]!
const shop = state.world.shops.find((s) => s.account_id === user.account_id && s.is_active)!
/** RFC 6749 5.2: error_description is %x20-21 / %x23-5B / %x5D-7E. */
const OAUTH_TEXT = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/
const FORM = 'application/x-www-form-urlencoded'

interface Answer {
  status: number
  headers: Headers
  text: string
  json: Record<string, any> | undefined
  location: URL | null
}

/** What is wrong with an answer against its operation's contract entry (status, media type, body, required headers). */
function contractProblem(method: string, path: string, answer: Answer): string | undefined {
  const op = operations.find((o) => o.method === method && o.path === path)!
  const key = responseKeyOf(op, answer.status)
  if (!key) return `${op.operationId}: ${answer.status} is not documented`
  const documented = op.operation.responses[key] as { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }
  for (const [name, header] of Object.entries(documented.headers ?? {})) if (header.required && !answer.headers.has(name)) return `${op.operationId} ${answer.status}: no ${name} header`
  if (!documented.content) return answer.text ? `${op.operationId} ${answer.status}: a body where none is documented` : undefined
  const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim()
  if (!(type in documented.content)) return `${op.operationId} ${answer.status}: ${type || 'untyped'}, documented ${Object.keys(documented.content).join(', ')}`
  const validate = state.contract.validators.response(op, answer.status, type)!
  return validate(type === 'application/json' ? JSON.parse(answer.text) : answer.text) ? undefined : `${op.operationId} ${answer.status}: ${JSON.stringify(validate.errors?.[0])}`
}

/** A request as parts a mutation can change. */
interface Valid {
  endpoint: string
  method: 'GET' | 'POST'
  path: string
  /** The parameters, in the query (GET) or the body (POST). */
  params: Array<[string, string]>
  headers: Record<string, string>
  /** The media type the endpoint takes (POST). */
  type?: string
  /** How it refuses: OAuth JSON (RFC 6749 5.2), the authorization endpoint (a page or the redirect), a page of the connector. */
  kind: 'oauth' | 'authorize' | 'page'
  /** The parameters it reads (RFC 6749 3.1: these at most once). */
  reads: string[]
  success: number
}

interface Sent {
  query: Array<[string, string]>
  params: Array<[string, string]>
  headers: Record<string, string>
  /** The body's media type as sent ('' for none); undefined: the endpoint's own. */
  type?: string
}

async function send(valid: Valid, sent: Sent): Promise<Answer> {
  const query = valid.method === 'GET' ? [...sent.params, ...sent.query] : sent.query
  const url = `${BASE}${valid.path}${query.length ? `?${new URLSearchParams(query)}` : ''}`
  const type = sent.type ?? valid.type
  const text = type === 'application/json' ? JSON.stringify(Object.fromEntries(sent.params)) : new URLSearchParams(sent.params).toString()
  const init: RequestInit = { method: valid.method, headers: { ...sent.headers, ...(type ? { 'content-type': type } : {}) } }
  // Bytes, so that a request without a type has none (a string body would get text/plain).
  if (valid.method === 'POST') init.body = new TextEncoder().encode(text)
  const response = await connector.handle(new Request(url, init))
  const body = await response.text()
  const answer: Answer = { status: response.status, headers: response.headers, text: body, json: (response.headers.get('content-type') ?? '').startsWith('application/json') && body ? JSON.parse(body) : undefined, location: response.headers.get('location') ? new URL(response.headers.get('location')!) : null }
  expect(contractProblem(valid.method, valid.path, answer), `${valid.method} ${url} ${text}`).toBeUndefined()
  expect(answer.status, `${valid.method} ${url}: ${body.slice(0, 200)}`).toBeLessThan(500)
  return answer
}

const sendValid = (valid: Valid) => send(valid, { query: [], params: valid.params, headers: valid.headers })
const connectorFetch = ((input: string | URL | Request, init?: RequestInit) => connector.handle(new Request(input, init))) as typeof fetch
const FORM_HEADERS = { 'content-type': FORM }

async function register(): Promise<string> {
  const response = await connector.handle(new Request(`${BASE}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Generated checks', redirect_uris: [REDIRECT] }) }))
  return ((await response.json()) as { client_id: string }).client_id
}

function authorizeFields(clientId: string): { fields: Array<[string, string]>; verifier: string } {
  const { verifier, challenge } = pkcePair()
  return { verifier, fields: [['response_type', 'code'], ['client_id', clientId], ['redirect_uri', REDIRECT], ['code_challenge', challenge], ['code_challenge_method', 'S256'], ['state', 'st-1'], ['resource', MCP], ['scope', 'tools']] }
}

async function code(): Promise<{ clientId: string; code: string; verifier: string }> {
  const clientId = await register()
  const { fields, verifier } = authorizeFields(clientId)
  const back = await consent(createBrowser(connectorFetch), `${BASE}/oauth/authorize?${new URLSearchParams(fields)}`, { email: user.email, password: user.password, shops: [shop.shop_id], tools: ['listAccountShops'] })
  return { clientId, code: back.searchParams.get('code')!, verifier }
}

async function tokens(): Promise<{ clientId: string; access: string; refresh: string }> {
  const c = await code()
  const response = await connector.handle(new Request(`${BASE}/oauth/token`, { method: 'POST', headers: FORM_HEADERS, body: new URLSearchParams({ grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, client_id: c.clientId, redirect_uri: REDIRECT }) }))
  const body = (await response.json()) as { access_token: string; refresh_token: string }
  return { clientId: c.clientId, access: body.access_token, refresh: body.refresh_token }
}

async function pendingRequest(): Promise<string> {
  const clientId = await register()
  const page = await connector.handle(new Request(`${BASE}/oauth/authorize?${new URLSearchParams(authorizeFields(clientId).fields)}`))
  return hiddenFields(await page.text()).request_id!
}

async function signIn(fields: Record<string, string>): Promise<string> {
  const response = await connector.handle(new Request(`${BASE}/oauth/sign-in`, { method: 'POST', headers: FORM_HEADERS, body: new URLSearchParams({ ...fields, email: user.email, password: user.password }) }))
  return response.headers.get('set-cookie')!.split(';')[0]!
}

/** A fresh valid request of each endpoint (what it needs is made anew: a code, tokens, a pending request). */
const endpoints: Record<string, () => Promise<Valid>> = {
  async authorize() {
    const { fields } = authorizeFields(await register())
    return { endpoint: 'authorize', method: 'GET', path: '/oauth/authorize', params: fields, headers: {}, kind: 'authorize', reads: fields.map(([k]) => k), success: 200 }
  },
  async signIn() {
    const params: Array<[string, string]> = [['request_id', await pendingRequest()], ['email', user.email], ['password', user.password]]
    return { endpoint: 'signIn', method: 'POST', path: '/oauth/sign-in', params, headers: {}, type: FORM, kind: 'page', reads: ['request_id', 'email', 'password'], success: 303 }
  },
  async consent() {
    const requestId = await pendingRequest()
    const cookie = await signIn({ request_id: requestId })
    const params: Array<[string, string]> = [['request_id', requestId], ['decision', 'allow'], ['shop', shop.shop_id], ['tool', 'listAccountShops']]
    return { endpoint: 'consent', method: 'POST', path: '/oauth/authorize', params, headers: { cookie }, type: FORM, kind: 'page', reads: ['request_id', 'decision'], success: 302 }
  },
  async tokenForCode() {
    const c = await code()
    const params: Array<[string, string]> = [['grant_type', 'authorization_code'], ['code', c.code], ['code_verifier', c.verifier], ['client_id', c.clientId], ['redirect_uri', REDIRECT], ['resource', MCP]]
    return { endpoint: 'tokenForCode', method: 'POST', path: '/oauth/token', params, headers: {}, type: FORM, kind: 'oauth', reads: params.map(([k]) => k), success: 200 }
  },
  async tokenForRefresh() {
    const t = await tokens()
    const params: Array<[string, string]> = [['grant_type', 'refresh_token'], ['refresh_token', t.refresh], ['client_id', t.clientId], ['resource', MCP]]
    return { endpoint: 'tokenForRefresh', method: 'POST', path: '/oauth/token', params, headers: {}, type: FORM, kind: 'oauth', reads: params.map(([k]) => k), success: 200 }
  },
  async revoke() {
    const t = await tokens()
    const params: Array<[string, string]> = [['token', t.refresh], ['token_type_hint', 'refresh_token'], ['client_id', t.clientId]]
    return { endpoint: 'revoke', method: 'POST', path: '/oauth/revoke', params, headers: {}, type: FORM, kind: 'oauth', reads: params.map(([k]) => k), success: 200 }
  },
  async revokeConnection() {
    const t = await tokens()
    const cookie = await signIn({ next: 'connections' })
    const id = Object.values(state.connector.data.connections).find((c) => c.client_id === t.clientId)!.connection_id
    return { endpoint: 'revokeConnection', method: 'POST', path: '/oauth/connections/revoke', params: [['connection_id', id]], headers: { cookie }, type: FORM, kind: 'page', reads: ['connection_id'], success: 303 }
  },
}

type Mutation =
  | { kind: 'repeat'; same: boolean }
  | { kind: 'empty' }
  | { kind: 'query' }
  | { kind: 'type'; type: string }
  | { kind: 'authorization'; scheme: string }

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  fc.boolean().map((same): Mutation => ({ kind: 'repeat', same })),
  fc.constant<Mutation>({ kind: 'empty' }),
  fc.constant<Mutation>({ kind: 'query' }),
  fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', '', 'application/x-www-form-urlencoded-x').map((type): Mutation => ({ kind: 'type', type })),
  fc.constantFrom('Basic', 'Bearer', 'DPoP').map((scheme): Mutation => ({ kind: 'authorization', scheme })),
)

/** The words of a refusal: the error description (JSON or the redirect's) or the page's alert. */
function refusal(answer: Answer): { error: string | null; words: string } {
  if (answer.json) return { error: answer.json.error ?? null, words: answer.json.error_description ?? '' }
  if (answer.location) return { error: answer.location.searchParams.get('error'), words: answer.location.searchParams.get('error_description') ?? '' }
  const alert = /role="alert">([^<]*)</.exec(answer.text)?.[1] ?? ''
  return { error: null, words: alert.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))) }
}

/** Checks the answer to `valid` mutated by `mutation` on `name`; returns whether the request was refused (so the valid one must still succeed). */
async function check(valid: Valid, mutation: Mutation, name: string): Promise<boolean> {
  const others = valid.params.filter(([k]) => k !== name)
  const value = valid.params.find(([k]) => k === name)?.[1] ?? ''
  const base: Sent = { query: [], params: valid.params, headers: valid.headers }
  const label = `${valid.endpoint}: ${JSON.stringify(mutation)} on ${name}`
  const refused = (answer: Answer, status: number, error: string | null, words: string | RegExp) => {
    const got = refusal(answer)
    expect([answer.status, got.error], `${label}: ${answer.text.slice(0, 200)} ${answer.location?.href ?? ''}`).toEqual([status, error])
    if (typeof words === 'string') expect(got.words, label).toContain(words)
    else expect(got.words, label).toMatch(words)
    expect(got.words, label).toMatch(OAUTH_TEXT)
  }
  switch (mutation.kind) {
    case 'repeat': {
      const answer = await send(valid, { ...base, params: [...valid.params, [name, mutation.same ? value : `${value}x`]] })
      if (name === 'resource') {
        // RFC 8707 2: resource may repeat; each value must be the MCP endpoint.
        if (mutation.same) return expect(answer.status, label).toBe(valid.success), false
        if (valid.kind === 'authorize') refused(answer, 302, 'invalid_target', /^resource '.*' is not this server's/)
        else refused(answer, 400, 'invalid_target', /^resource '.*' is not this server's/)
        return true
      }
      const words = `${name} is given more than once`
      if (valid.kind === 'oauth') refused(answer, 400, 'invalid_request', words)
      else if (valid.kind === 'authorize' && !['client_id', 'redirect_uri'].includes(name)) refused(answer, 302, 'invalid_request', words)
      else refused(answer, 400, null, words)
      return true
    }
    case 'empty': {
      // RFC 6749 3.1: "Parameters sent without a value MUST be treated as if they were omitted from the request."
      const emptied = await send(valid, { ...base, params: valid.params.map(([k, v]): [string, string] => [k, k === name ? '' : v]) })
      const twin = await endpoints[valid.endpoint]!()
      const omitted = await send(twin, { query: [], params: twin.params.filter(([k]) => k !== name), headers: twin.headers })
      expect([emptied.status, refusal(emptied)], label).toEqual([omitted.status, refusal(omitted)])
      return emptied.status >= 400 || (emptied.location?.searchParams.has('error') ?? false)
    }
    case 'query': {
      if (valid.method === 'GET') return false
      const answer = await send(valid, { ...base, query: [[name, value]], params: others })
      // A page's form reads its body only: a field in the query is not there (what its absence means is the page's).
      if (valid.kind !== 'oauth') return false
      refused(answer, 400, 'invalid_request', `${name} is in the URL query`)
      return true
    }
    case 'type': {
      if (valid.method === 'GET') return false
      const answer = await send(valid, { ...base, type: mutation.type })
      const words = `must be ${FORM}${valid.kind === 'oauth' ? ` (RFC ${valid.path === '/oauth/revoke' ? '7009 2.1' : '6749 4.1.3'})` : ''}, not ${mutation.type || 'a body without Content-Type'}`
      refused(answer, 400, valid.kind === 'oauth' ? 'invalid_request' : null, words)
      return true
    }
    case 'authorization': {
      if (valid.kind !== 'oauth') return false
      const answer = await send(valid, { ...base, headers: { ...valid.headers, authorization: `${mutation.scheme} ${Buffer.from('client:').toString('base64')}` } })
      refused(answer, 401, 'invalid_client', `(this request used ${mutation.scheme})`)
      expect(answer.headers.get('www-authenticate'), label).toBe(`${mutation.scheme} realm="${BASE}"`)
      return true
    }
  }
}

describe('connector OAuth endpoints: generated wrong requests get the RFC refusal naming what is wrong', () => {
  it(`every endpoint, every parameter it reads: repeated, empty, in the query, another media type, an Authorization header (FUZZ_SEED ${SEED}, FUZZ_RUNS ${RUNS})`, { timeout: 120_000 + RUNS * 400 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(endpoints)), mutationArbitrary, fc.nat(), async (endpoint, mutation, pick) => {
        const valid = await endpoints[endpoint]!()
        const name = valid.reads[pick % valid.reads.length]!
        if (await check(valid, mutation, name)) {
          // Nothing was spent by the refusal: the valid request still succeeds.
          expect((await sendValid(valid)).status, `${endpoint} after ${JSON.stringify(mutation)} on ${name}`).toBe(valid.success)
        }
        expect(unexpected).toEqual([])
      }),
      { seed: SEED, numRuns: RUNS },
    )
  })

  it('registration: a body of another media type is invalid_client_metadata naming it (RFC 7591 3)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('text/plain', FORM, 'multipart/form-data', 'application/jsonx', ''), async (type) => {
        const init: RequestInit = { method: 'POST', headers: type ? { 'content-type': type } : {}, body: new TextEncoder().encode(JSON.stringify({ redirect_uris: [REDIRECT] })) }
        const response = await connector.handle(new Request(`${BASE}/oauth/register`, init))
        const answer: Answer = { status: response.status, headers: response.headers, text: await response.text(), json: undefined, location: null }
        answer.json = JSON.parse(answer.text)
        expect(contractProblem('POST', '/oauth/register', answer)).toBeUndefined()
        expect(answer.json).toEqual({ error: 'invalid_client_metadata', error_description: `The registration request must be application/json (RFC 7591 3), not ${type || 'a body without Content-Type'}` })
      }),
      { seed: SEED, numRuns: 10 },
    )
  })

  it('the whole flow as a client makes it still succeeds: register, authorize, sign-in, consent, token, refresh, revoke (a form with a charset, an unknown hint ignored, unknown parameters ignored)', async () => {
    const clientId = await register()
    const { fields, verifier } = authorizeFields(clientId)
    const page = await send({ endpoint: 'authorize', method: 'GET', path: '/oauth/authorize', params: [...fields, ['prompt', 'consent'], ['prompt', 'login']], headers: {}, kind: 'authorize', reads: [], success: 200 }, { query: [], params: [...fields, ['prompt', 'consent'], ['prompt', 'login']], headers: {} })
    expect(page.status).toBe(200)
    const requestId = hiddenFields(page.text).request_id!
    const cookie = await signIn({ request_id: requestId })
    const consented = await connector.handle(new Request(`${BASE}/oauth/authorize`, { method: 'POST', headers: { 'content-type': `${FORM}; charset=UTF-8`, cookie }, body: new URLSearchParams([['request_id', requestId], ['decision', 'allow'], ['shop', shop.shop_id], ['tool', 'listAccountShops'], ['tool', 'getShopSps']]) }))
    const back = new URL(consented.headers.get('location')!)
    expect([consented.status, back.searchParams.get('iss')]).toEqual([302, BASE])
    const form = (path: string, params: Array<[string, string]>) => connector.handle(new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': `${FORM};charset=UTF-8` }, body: new URLSearchParams(params).toString() }))
    const issued = (await (await form('/oauth/token', [['grant_type', 'authorization_code'], ['code', back.searchParams.get('code')!], ['code_verifier', verifier], ['client_id', clientId], ['redirect_uri', REDIRECT], ['resource', MCP], ['unknown', '1'], ['unknown', '2']])).json()) as Record<string, string>
    expect(issued.token_type).toBe('Bearer')
    const refreshed = (await (await form('/oauth/token', [['grant_type', 'refresh_token'], ['refresh_token', issued.refresh_token!], ['client_id', clientId], ['resource', `${MCP}/`]])).json()) as Record<string, string>
    expect(refreshed.access_token).toMatch(/.+/)
    expect((await form('/oauth/revoke', [['token', refreshed.access_token!], ['token_type_hint', 'id_token'], ['client_id', clientId]])).status).toBe(200)
    expect((await form('/oauth/revoke', [['token', refreshed.refresh_token!], ['client_id', clientId]])).status).toBe(200)
    const listed = await connector.handle(new Request(MCP, { method: 'POST', headers: { authorization: `Bearer ${refreshed.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }))
    expect(listed.status).toBe(401)
    expect(unexpected).toEqual([])
  })
})
