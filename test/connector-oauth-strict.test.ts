/**
 * spec: Authentication 6 (OAuth 2.0 authorization code with PKCE). The connector's authorization server
 * is no more lenient than the RFCs it follows, and a refusal names what it refuses: RFC 6749 3.1 (a
 * parameter at most once, one without a value as omitted), 4.1.3 / 6 and RFC 7009 2.1 (form bodies
 * only), RFC 7591 3 (JSON only), 5.2 (invalid_client 401 with WWW-Authenticate when the client used
 * the Authorization header; the error_description's characters), RFC 7009 2.1 (another client's
 * token), RFC 8707 (resource on refresh, repeated), RFC 6750 3 (the challenge's error codes), and
 * the browser forms (sign-in, consent, connections). A table per rule, then generated requests: every
 * parameter every endpoint reads repeated, sent empty, sent in the query, with the wrong media type or
 * an Authorization header, each answer valid against the contract. A real flow still succeeds.
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
const state = createMockState({ seed: 23, now: '2026-06-01T09:00:00.000Z', rateLimit: false })
const unexpected: unknown[] = []
const connector = createConnector(state, { baseUrl: BASE, log: (error) => unexpected.push(error) })
const operations = indexConnectorOperations(state.contract.doc)
const user = state.connector.data.users[0]!
const shop = state.world.shops.find((s) => s.account_id === user.account_id && s.is_active)!
const SEED = Number(process.env.FUZZ_SEED ?? 20260601)
const RUNS = Number(process.env.FUZZ_RUNS ?? 150)

const FORM_TYPE = 'application/x-www-form-urlencoded'
const FORM = { 'content-type': FORM_TYPE }
const JSON_TYPE = { 'content-type': 'application/json' }
/** RFC 6749 5.2: error_description is %x20-21 / %x23-5B / %x5D-7E. */
const OAUTH_TEXT = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/

interface Answer {
  status: number
  headers: Headers
  text: string
  json: Record<string, any> | undefined
  /** Where a redirect goes (the client's redirect URI, with its error). */
  location: URL | null
}

/** What is wrong with an answer against its operation's entry in the contract, if anything. */
function contractProblem(method: string, path: string, answer: Answer): string | undefined {
  const op = operations.find((o) => o.method === method && o.path === path)
  if (!op) return `${method} ${path} is not a connector operation`
  const key = responseKeyOf(op, answer.status)
  if (!key) return `${op.operationId}: ${answer.status} is not documented`
  const documented = op.operation.responses[key] as { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }
  for (const [name, header] of Object.entries(documented.headers ?? {})) if (header.required && !answer.headers.has(name)) return `${op.operationId} ${answer.status}: no ${name} header`
  if (!documented.content) return answer.text ? `${op.operationId} ${answer.status}: a body where none is documented` : undefined
  const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim()
  if (!(type in documented.content)) return `${op.operationId} ${answer.status}: ${type || 'untyped'}, documented ${Object.keys(documented.content).join(', ')}`
  const validate = state.contract.validators.response(op, answer.status, type)!
  return validate(type === 'application/json' ? JSON.parse(answer.text) : answer.text) ? undefined : `${op.operationId} ${answer.status}: ${JSON.stringify(validate.errors?.[0])} in ${answer.text.slice(0, 200)}`
}

/** One request to the in-process connector; its answer checked against the contract. */
async function send(method: string, pathAndQuery: string, init: { headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {}): Promise<Answer> {
  const url = new URL(pathAndQuery, BASE)
  const response = await connector.handle(new Request(url, { method, headers: init.headers ?? {}, ...(init.body !== undefined ? { body: init.body } : {}) }))
  const text = await response.text()
  const type = response.headers.get('content-type') ?? ''
  const answer: Answer = { status: response.status, headers: response.headers, text, json: type.startsWith('application/json') && text ? JSON.parse(text) : undefined, location: response.headers.get('location') ? new URL(response.headers.get('location')!) : null }
  const problem = contractProblem(method, url.pathname, answer)
  expect(problem, `${method} ${pathAndQuery}`).toBeUndefined()
  expect(answer.status, `${method} ${pathAndQuery}: ${text.slice(0, 200)}`).toBeLessThan(500)
  return answer
}

const formText = (fields: Array<[string, string]> | Record<string, string>) => new URLSearchParams(fields).toString()
const post = (path: string, fields: Array<[string, string]> | Record<string, string>, headers: Record<string, string> = {}) => send('POST', path, { headers: { ...FORM, ...headers }, body: formText(fields) })

async function register(meta: Record<string, unknown> = {}): Promise<string> {
  const answer = await send('POST', '/oauth/register', { headers: JSON_TYPE, body: JSON.stringify({ client_name: 'Strict checks', redirect_uris: [REDIRECT], ...meta }) })
  expect(answer.status).toBe(201)
  return answer.json!.client_id as string
}

const connectorFetch = ((input: string | URL | Request, init?: RequestInit) => connector.handle(new Request(input, init))) as typeof fetch

/** The authorization request's parameters (a fresh PKCE pair). */
function authorizeParams(clientId: string): { fields: Array<[string, string]>; verifier: string } {
  const { verifier, challenge } = pkcePair()
  return { verifier, fields: [['response_type', 'code'], ['client_id', clientId], ['redirect_uri', REDIRECT], ['code_challenge', challenge], ['code_challenge_method', 'S256'], ['state', 'st-1'], ['resource', MCP], ['scope', 'tools']] }
}

/** A code through the real pages, with what redeems it. */
async function codeFor(clientId?: string): Promise<{ clientId: string; code: string; verifier: string }> {
  const id = clientId ?? (await register())
  const { fields, verifier } = authorizeParams(id)
  const back = await consent(createBrowser(connectorFetch), `${BASE}/oauth/authorize?${formText(fields)}`, { email: user.email, password: user.password, shops: [shop.shop_id], tools: ['listAccountShops'] })
  return { clientId: id, code: back.searchParams.get('code')!, verifier }
}

const redeemFields = ({ clientId, code, verifier }: { clientId: string; code: string; verifier: string }): Array<[string, string]> => [
  ['grant_type', 'authorization_code'], ['code', code], ['code_verifier', verifier], ['client_id', clientId], ['redirect_uri', REDIRECT],
]

async function tokensFor(clientId?: string): Promise<{ clientId: string; access: string; refresh: string }> {
  const code = await codeFor(clientId)
  const answer = await post('/oauth/token', redeemFields(code))
  expect(answer.status, answer.text).toBe(200)
  return { clientId: code.clientId, access: answer.json!.access_token, refresh: answer.json!.refresh_token }
}

const toolsList = (access: string, headers: Record<string, string> = {}, query = '') =>
  send('POST', `/mcp${query}`, { headers: { ...JSON_TYPE, accept: 'application/json, text/event-stream', authorization: `Bearer ${access}`, ...headers }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })

/** A pending authorization's request_id (not signed in). */
async function pendingRequest(): Promise<string> {
  const page = await send('GET', `/oauth/authorize?${formText(authorizeParams(await register()).fields)}`)
  return hiddenFields(page.text).request_id!
}

/** The session cookie of the user signed in with `fields` (`request_id`, or `next: connections`). */
async function sessionCookie(fields: Record<string, string>): Promise<string> {
  const signedIn = await post('/oauth/sign-in', { ...fields, email: user.email, password: user.password })
  expect(signedIn.status).toBe(303)
  return signedIn.headers.get('set-cookie')!.split(';')[0]!
}

/** A pending authorization, signed in: its request_id and the browser's session cookie. */
async function signedInRequest(): Promise<{ requestId: string; cookie: string }> {
  const requestId = await pendingRequest()
  return { requestId, cookie: await sessionCookie({ request_id: requestId }) }
}

/** The redirect's error, checked: RFC 6749 4.1.2.1 with iss (RFC 9207). */
function redirectedError(answer: Answer): { error: string | null; description: string; state: string | null } {
  expect(answer.status, answer.text).toBe(302)
  expect(answer.location!.href.startsWith(REDIRECT)).toBe(true)
  const q = answer.location!.searchParams
  expect(q.get('iss')).toBe(BASE)
  expect(q.get('error_description') ?? '').toMatch(OAUTH_TEXT)
  return { error: q.get('error'), description: q.get('error_description') ?? '', state: q.get('state') }
}

function oauthRefusal(answer: Answer, status: number, error: string, description: RegExp): void {
  expect([answer.status, answer.json?.error], answer.text).toEqual([status, error])
  expect(answer.json!.error_description).toMatch(description)
  expect(answer.json!.error_description).toMatch(OAUTH_TEXT)
  expect(answer.headers.get('cache-control')).toBe('no-store')
}

describe('token endpoint (RFC 6749 3.1, 3.2, 4.1.3, 5.2, 6; RFC 8707)', () => {
  it.each<[string, Record<string, string>, RegExp]>([
    ['application/json', JSON_TYPE, /^The token request must be application\/x-www-form-urlencoded \(RFC 6749 4\.1\.3\), not application\/json$/],
    ['text/plain', { 'content-type': 'text/plain' }, /, not text\/plain$/],
    ['no Content-Type', {}, /, not a body without Content-Type$/],
    ['multipart/form-data', { 'content-type': 'multipart/form-data; boundary=x' }, /, not multipart\/form-data$/],
  ])('a body that is %s: invalid_request naming the media type', async (_label, headers, description) => {
    const code = await codeFor()
    const fields = Object.fromEntries(redeemFields(code))
    const text = headers['content-type'] === 'application/json' ? JSON.stringify(fields) : formText(fields)
    // A string body would get text/plain from the Request; bytes get no Content-Type.
    const body = headers['content-type'] ? text : new TextEncoder().encode(text)
    oauthRefusal(await send('POST', '/oauth/token', { headers, body }), 400, 'invalid_request', description)
    // Refused before anything: the code still redeems.
    expect((await post('/oauth/token', redeemFields(code))).status).toBe(200)
  })

  it.each(['grant_type', 'client_id', 'code', 'code_verifier', 'redirect_uri'])('%s given twice: invalid_request naming it, the code not spent', async (name) => {
    const code = await codeFor()
    const fields = redeemFields(code)
    const twice: Array<[string, string]> = [...fields, [name, name === 'grant_type' ? 'refresh_token' : fields.find(([k]) => k === name)![1]]]
    oauthRefusal(await post('/oauth/token', twice), 400, 'invalid_request', new RegExp(`^${name} is given more than once`))
    expect((await post('/oauth/token', fields)).status).toBe(200)
  })

  it('refresh_token given twice: invalid_request naming it', async () => {
    const { clientId, refresh } = await tokensFor()
    oauthRefusal(await post('/oauth/token', [['grant_type', 'refresh_token'], ['refresh_token', refresh], ['refresh_token', 'stw_rt_other'], ['client_id', clientId]]), 400, 'invalid_request', /^refresh_token is given more than once/)
  })

  it('a parameter without a value is omitted: resource= redeems, grant_type= is missing', async () => {
    const code = await codeFor()
    expect((await post('/oauth/token', [...redeemFields(code), ['resource', '']])).status).toBe(200)
    oauthRefusal(await post('/oauth/token', [['grant_type', ''], ['client_id', code.clientId]]), 400, 'invalid_request', /^grant_type is required/)
  })

  it('parameters in the URL query instead of the body: invalid_request naming the first', async () => {
    const code = await codeFor()
    oauthRefusal(await send('POST', `/oauth/token?${formText(redeemFields(code))}`, { headers: FORM, body: '' }), 400, 'invalid_request', /^grant_type is in the URL query: the token request's parameters go in its body/)
  })

  it.each([
    ['Basic', `Basic ${Buffer.from('client:').toString('base64')}`, 'Basic'],
    ['Bearer', 'Bearer stw_at_x', 'Bearer'],
  ])('client authentication through the Authorization header (%s): 401 invalid_client with WWW-Authenticate of that scheme', async (_label, authorization, scheme) => {
    const code = await codeFor()
    const answer = await post('/oauth/token', redeemFields(code), { authorization })
    oauthRefusal(answer, 401, 'invalid_client', /public \(token_endpoint_auth_method none\).*Authorization header/)
    expect(answer.headers.get('www-authenticate')).toMatch(new RegExp(`^${scheme} realm="${BASE}"$`))
  })

  it('client_secret_basic (client_id in the header only) is invalid_client naming the header, not a missing client_id', async () => {
    const code = await codeFor()
    const answer = await post('/oauth/token', redeemFields(code).filter(([k]) => k !== 'client_id'), { authorization: `Basic ${Buffer.from(`${code.clientId}:`).toString('base64')}` })
    oauthRefusal(answer, 401, 'invalid_client', /\(this request used Basic\)$/)
  })

  it('an Authorization header that is one bare value (perhaps a secret) is refused without echoing it', async () => {
    const code = await codeFor()
    const answer = await post('/oauth/token', redeemFields(code), { authorization: 'stw_secret_value' })
    oauthRefusal(answer, 401, 'invalid_client', /\(this request used one without a scheme\)$/)
    expect(answer.headers.get('www-authenticate')).toBe(`Basic realm="${BASE}"`)
    expect(answer.text).not.toContain('stw_secret_value')
  })

  it('a client_secret (client_secret_post) from a public client: 401 invalid_client', async () => {
    const code = await codeFor()
    const answer = await post('/oauth/token', [...redeemFields(code), ['client_secret', 'not-issued']])
    oauthRefusal(answer, 401, 'invalid_client', /public \(token_endpoint_auth_method none\).*client_secret/)
    expect(answer.headers.get('www-authenticate')).toBeNull()
    expect(answer.text).not.toContain('not-issued')
  })

  it('resource (RFC 8707): another one on refresh is invalid_target; repeated, each must be the MCP endpoint', async () => {
    const { clientId, refresh } = await tokensFor()
    oauthRefusal(await post('/oauth/token', [['grant_type', 'refresh_token'], ['refresh_token', refresh], ['client_id', clientId], ['resource', 'https://other.example/mcp']]), 400, 'invalid_target', /^resource 'https:\/\/other\.example\/mcp' is not this server's: tokens are for https:\/\/mcp\.example\.com\/mcp/)
    const code = await codeFor()
    oauthRefusal(await post('/oauth/token', [...redeemFields(code), ['resource', MCP], ['resource', 'https://other.example/mcp']]), 400, 'invalid_target', /'https:\/\/other\.example\/mcp'/)
    expect((await post('/oauth/token', [...redeemFields(code), ['resource', MCP], ['resource', MCP]])).status).toBe(200)
  })

  it('a value echoed in a refusal keeps to the characters RFC 6749 5.2 allows, and is cut short', async () => {
    const answer = await post('/oauth/token', { grant_type: `pass"word\\é${'x'.repeat(200)}`, client_id: 'c' })
    oauthRefusal(answer, 400, 'unsupported_grant_type', /^grant_type 'pass'word\?\?x+\.\.\.' is not supported/)
  })
})

describe('revocation endpoint (RFC 7009 2.1, 2.2.1)', () => {
  it.each<[string, Record<string, string>, RegExp]>([
    ['application/json', JSON_TYPE, /^The revocation request must be application\/x-www-form-urlencoded \(RFC 7009 2\.1\), not application\/json$/],
    ['text/plain', { 'content-type': 'text/plain' }, /, not text\/plain$/],
  ])('a body that is %s: invalid_request, the token still live', async (_label, headers, description) => {
    const { clientId, access } = await tokensFor()
    const fields = { token: access, client_id: clientId }
    oauthRefusal(await send('POST', '/oauth/revoke', { headers, body: headers['content-type'] === 'application/json' ? JSON.stringify(fields) : formText(fields) }), 400, 'invalid_request', description)
    expect((await toolsList(access)).status).toBe(200)
  })

  it.each(['token', 'client_id', 'token_type_hint'])('%s given twice: invalid_request naming it', async (name) => {
    const { clientId, access } = await tokensFor()
    const fields: Array<[string, string]> = [['token', access], ['client_id', clientId], ['token_type_hint', 'access_token']]
    oauthRefusal(await post('/oauth/revoke', [...fields, [name, fields.find(([k]) => k === name)![1]]]), 400, 'invalid_request', new RegExp(`^${name} is given more than once`))
    expect((await toolsList(access)).status).toBe(200)
  })

  it('a token issued to another client is refused (RFC 7009 2.1), not reported revoked, and keeps working', async () => {
    const { access } = await tokensFor()
    const other = await register()
    oauthRefusal(await post('/oauth/revoke', { token: access, client_id: other }), 400, 'invalid_request', /^The token was issued to another client/)
    expect((await toolsList(access)).status).toBe(200)
  })

  it('client authentication through the Authorization header: 401 invalid_client with WWW-Authenticate', async () => {
    const { clientId, access } = await tokensFor()
    const answer = await post('/oauth/revoke', { token: access, client_id: clientId }, { authorization: `Basic ${Buffer.from(`${clientId}:`).toString('base64')}` })
    oauthRefusal(answer, 401, 'invalid_client', /Authorization header/)
    expect(answer.headers.get('www-authenticate')).toBe(`Basic realm="${BASE}"`)
  })
})

describe('registration endpoint (RFC 7591 2, 3)', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
  ])('client metadata sent as %s: invalid_client_metadata naming the media type', async (_label, type) => {
    const answer = await send('POST', '/oauth/register', { headers: { 'content-type': type }, body: JSON.stringify({ redirect_uris: [REDIRECT] }) })
    expect([answer.status, answer.json!.error]).toEqual([400, 'invalid_client_metadata'])
    expect(answer.json!.error_description).toBe(`The registration request must be application/json (RFC 7591 3), not ${type}`)
  })

  it.each([
    [{ grant_types: [] }, /^grant_types must include authorization_code/],
    [{ grant_types: ['refresh_token'] }, /^grant_types must include authorization_code/],
    [{ response_types: [] }, /^response_types must include code/],
    [{ grant_types: ['authorization_code', 'authorization_code'] }, /^grant_types lists 'authorization_code' twice$/],
    [{ response_types: ['code', 'code'] }, /^response_types lists 'code' twice$/],
  ])('%j: invalid_client_metadata (a client of the code flow, each value once)', async (meta, description) => {
    const answer = await send('POST', '/oauth/register', { headers: JSON_TYPE, body: JSON.stringify({ redirect_uris: [REDIRECT], ...meta }) })
    expect([answer.status, answer.json!.error]).toEqual([400, 'invalid_client_metadata'])
    expect(answer.json!.error_description).toMatch(description)
  })

  it('a redirect URI echoed in a refusal is ASCII without double quotes', async () => {
    const answer = await send('POST', '/oauth/register', { headers: JSON_TYPE, body: JSON.stringify({ redirect_uris: ['not "a" url é'] }) })
    expect(answer.json!.error).toBe('invalid_redirect_uri')
    expect(answer.json!.error_description).toBe(`redirect URI 'not 'a' url ?' is not an absolute URL`)
  })
})

describe('authorization endpoint (RFC 6749 3.1, 4.1.1, 4.1.2.1; RFC 8707)', () => {
  const authorize = (fields: Array<[string, string]>) => send('GET', `/oauth/authorize?${formText(fields)}`)
  const without = (fields: Array<[string, string]>, name: string) => fields.filter(([k]) => k !== name)

  it.each(['client_id', 'redirect_uri'])('%s given twice: an error page naming it, never a redirect', async (name) => {
    const { fields } = authorizeParams(await register())
    const answer = await authorize([...fields, [name, fields.find(([k]) => k === name)![1]]])
    expect(answer.status).toBe(400)
    expect(answer.location).toBeNull()
    expect(answer.text).toContain(`${name} is given more than once`)
  })

  it.each(['response_type', 'code_challenge', 'code_challenge_method', 'state', 'scope'])('%s given twice: invalid_request on the redirect naming it (a state given twice is not echoed)', async (name) => {
    const { fields } = authorizeParams(await register())
    const { error, description, state: echoed } = redirectedError(await authorize([...fields, [name, fields.find(([k]) => k === name)![1]]]))
    expect([error, echoed]).toEqual(['invalid_request', name === 'state' ? null : 'st-1'])
    expect(description).toMatch(new RegExp(`^${name} is given more than once`))
  })

  it('resource (RFC 8707) may repeat, each the MCP endpoint: another is invalid_target naming it', async () => {
    const { fields } = authorizeParams(await register())
    expect((await authorize([...fields, ['resource', MCP]])).status).toBe(200)
    const { error, description } = redirectedError(await authorize([...fields, ['resource', 'https://other.example/mcp']]))
    expect(error).toBe('invalid_target')
    expect(description).toMatch(/^resource 'https:\/\/other\.example\/mcp' is not this server's/)
  })

  it('a parameter without a value is omitted: redirect_uri= takes the one registered, resource= none, state= is not echoed', async () => {
    const { fields } = authorizeParams(await register())
    const emptied = (name: string) => fields.map(([k, v]): [string, string] => [k, k === name ? '' : v])
    expect((await authorize(emptied('redirect_uri'))).status).toBe(200)
    expect((await authorize(emptied('resource'))).status).toBe(200)
    const noChallenge = emptied('state').filter(([k]) => k !== 'code_challenge')
    expect(redirectedError(await authorize(noChallenge)).state).toBeNull()
  })

  it('response_type missing is invalid_request; token (implicit, gone in OAuth 2.1) unsupported_response_type naming it', async () => {
    const { fields } = authorizeParams(await register())
    const missing = redirectedError(await authorize(without(fields, 'response_type')))
    expect(missing.error).toBe('invalid_request')
    expect(missing.description).toMatch(/^response_type is required/)
    const implicit = redirectedError(await authorize([...without(fields, 'response_type'), ['response_type', 'token']]))
    expect(implicit.error).toBe('unsupported_response_type')
    expect(implicit.description).toMatch(/^response_type 'token' is not supported: only code/)
  })

  it('code_challenge_method missing names the default it would mean (plain, RFC 7636 4.3)', async () => {
    const { fields } = authorizeParams(await register())
    const { error, description } = redirectedError(await authorize(without(fields, 'code_challenge_method')))
    expect(error).toBe('invalid_request')
    expect(description).toMatch(/^code_challenge_method is required: S256/)
  })
})

describe('browser forms: sign-in, consent, connections (refusals name the field; form bodies only)', () => {
  it('sign-in: a JSON body, a field twice, a field missing, next that is not connections: 400 pages naming them, no session', async () => {
    const { requestId } = await signedInRequest()
    const cases: Array<[init: { headers: Record<string, string>; body: string }, words: string]> = [
      [{ headers: JSON_TYPE, body: JSON.stringify({ request_id: requestId, email: user.email, password: user.password }) }, 'The sign-in form must be application/x-www-form-urlencoded, not application/json'],
      [{ headers: FORM, body: formText([['request_id', requestId], ['email', user.email], ['email', 'other@example.com'], ['password', user.password]]) }, 'email is given more than once'],
      [{ headers: FORM, body: formText({ request_id: requestId, password: user.password }) }, 'email is missing'],
      [{ headers: FORM, body: formText({ request_id: requestId, email: user.email, password: '' }) }, 'password is missing'],
      [{ headers: FORM, body: formText({ next: 'https://evil.example/', email: user.email, password: user.password }) }, 'next must be connections'],
    ]
    for (const [init, words] of cases) {
      const answer = await send('POST', '/oauth/sign-in', init)
      expect([answer.status, answer.headers.get('set-cookie')], words).toEqual([400, null])
      expect(answer.text).toContain(words)
    }
  })

  it('consent: a JSON body, decision twice or neither allow nor deny, request_id missing: 400 pages naming them; the request stays answerable', async () => {
    const { requestId, cookie } = await signedInRequest()
    const allow = { request_id: requestId, decision: 'allow', shop: shop.shop_id, tool: 'listAccountShops' }
    const cases: Array<[init: { headers: Record<string, string>; body: string }, words: string]> = [
      [{ headers: { ...JSON_TYPE, cookie }, body: JSON.stringify(allow) }, 'The consent answer must be application/x-www-form-urlencoded, not application/json'],
      [{ headers: { ...FORM, cookie }, body: formText([...Object.entries(allow), ['decision', 'deny']]) }, 'decision is given more than once'],
      [{ headers: { ...FORM, cookie }, body: formText({ ...allow, decision: 'maybe' }) }, 'decision must be allow or deny'],
      [{ headers: { ...FORM, cookie }, body: formText({ client_id: 'x', response_type: 'code' }) }, 'request_id is missing: POST /oauth/authorize takes the answer of the consent page; an authorization request is a GET'],
    ]
    for (const [init, words] of cases) {
      const answer = await send('POST', '/oauth/authorize', init)
      expect([answer.status, answer.location], words).toEqual([400, null])
      expect(answer.text).toContain(words)
    }
    const answered = await post('/oauth/authorize', allow, { cookie })
    expect(answered.status).toBe(302)
    expect(answered.location!.searchParams.get('code')).toMatch(/.+/)
  })

  it('connections revoke: a JSON body, connection_id missing or twice: 400 naming them, nothing revoked', async () => {
    const { clientId, access } = await tokensFor()
    const cookie = await sessionCookie({ next: 'connections' })
    const id = Object.values(state.connector.data.connections).find((c) => c.client_id === clientId)!.connection_id
    const cases: Array<[init: { headers: Record<string, string>; body: string }, words: string]> = [
      [{ headers: { ...JSON_TYPE, cookie }, body: JSON.stringify({ connection_id: id }) }, 'The revoke form must be application/x-www-form-urlencoded, not application/json'],
      [{ headers: { ...FORM, cookie }, body: '' }, 'connection_id is missing'],
      [{ headers: { ...FORM, cookie }, body: formText([['connection_id', id], ['connection_id', 'other']]) }, 'connection_id is given more than once'],
    ]
    for (const [init, words] of cases) {
      const answer = await send('POST', '/oauth/connections/revoke', init)
      expect(answer.status, words).toBe(400)
      expect(answer.text).toContain(words)
    }
    expect((await toolsList(access)).status).toBe(200)
  })
})

describe('MCP endpoint challenge (RFC 6750 3, 3.1; RFC 9728 5.1)', () => {
  /** The challenge's auth-params, each a quoted-string without an inner quote (RFC 9110 11.2). */
  const challengeParams = (header: string): Record<string, string> => {
    expect(header).toMatch(/^Bearer (?:[a-z_]+="[^"\\]*"(?:, |$))+$/)
    return Object.fromEntries([...header.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]))
  }

  it('another scheme (Basic) is no Bearer token at all: 401, the challenge without an error code, the body naming the scheme', async () => {
    const answer = await toolsList('', { authorization: 'Basic dXNlcjpwYXNz' })
    expect(answer.status).toBe(401)
    expect(challengeParams(answer.headers.get('www-authenticate')!)).toEqual({ resource_metadata: `${BASE}/.well-known/oauth-protected-resource/mcp` })
    expect(answer.json!.error_description).toMatch(/^The Authorization header uses Basic: the MCP endpoint takes Bearer <access token>/)
  })

  it('an Authorization header that is one bare value (the token without its scheme): 401 without an error code, the value not echoed', async () => {
    const { access } = await tokensFor()
    const answer = await toolsList('', { authorization: access })
    expect(answer.status).toBe(401)
    expect(challengeParams(answer.headers.get('www-authenticate')!)).toEqual({ resource_metadata: `${BASE}/.well-known/oauth-protected-resource/mcp` })
    expect(answer.json!.error_description).toBe('The Authorization header has no scheme: the MCP endpoint takes Bearer <access token>')
  })

  it.each([
    ['Bearer without a token', 'Bearer'],
    ['a token of characters a bearer token does not have', 'Bearer a b'],
    ['two Authorization headers', 'Bearer stw_at_a, Bearer stw_at_b'],
  ])('a malformed Bearer header (%s): 400 invalid_request, with the challenge saying so', async (_label, authorization) => {
    const answer = await toolsList('', { authorization })
    expect([answer.status, answer.json!.error]).toEqual([400, 'invalid_request'])
    const params = challengeParams(answer.headers.get('www-authenticate')!)
    expect(params.error).toBe('invalid_request')
    expect(params.error_description).toMatch(OAUTH_TEXT)
  })

  it('a token in the query beside the header is two methods (400 invalid_request); in the query alone it is no token (401) and the body says where it goes', async () => {
    const { access } = await tokensFor()
    const both = await toolsList(access, {}, `?access_token=${access}`)
    expect([both.status, both.json!.error]).toEqual([400, 'invalid_request'])
    expect(both.json!.error_description).toMatch(/more than one method/)
    const queryOnly = await send('POST', `/mcp?access_token=${access}`, { headers: { ...JSON_TYPE, accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
    expect(queryOnly.status).toBe(401)
    expect(queryOnly.json!.error_description).toMatch(/^The access token goes in the Authorization header \(Bearer\), not the URL query/)
    expect(queryOnly.text).not.toContain(access)
  })
})

describe('metadata documents (RFC 8414 3, RFC 9728 3)', () => {
  it('are cacheable: Cache-Control max-age without a Pragma: no-cache that says the opposite', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const answer = await send('GET', path)
      expect([answer.headers.get('cache-control'), answer.headers.get('pragma')], path).toEqual(['max-age=60', null])
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Generated: every endpoint, every parameter it reads, the ways clients get a request wrong

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

/** Sends `valid` as `sent` changes it (the body as bytes, so that a request without a type has none). */
function sendMutated(valid: Valid, sent: Sent): Promise<Answer> {
  const query = valid.method === 'GET' ? [...sent.params, ...sent.query] : sent.query
  const type = sent.type ?? valid.type
  const text = type === 'application/json' ? JSON.stringify(Object.fromEntries(sent.params)) : formText(sent.params)
  const headers = { ...sent.headers, ...(type ? { 'content-type': type } : {}) }
  return send(valid.method, `${valid.path}${query.length ? `?${formText(query)}` : ''}`, { headers, ...(valid.method === 'POST' ? { body: new TextEncoder().encode(text) } : {}) })
}

const sendValid = (valid: Valid) => sendMutated(valid, { query: [], params: valid.params, headers: valid.headers })

/** A fresh valid request of each endpoint (what it needs is made anew: a code, tokens, a pending request). */
const endpoints: Record<string, () => Promise<Valid>> = {
  async authorize() {
    const { fields } = authorizeParams(await register())
    return { endpoint: 'authorize', method: 'GET', path: '/oauth/authorize', params: fields, headers: {}, kind: 'authorize', reads: fields.map(([k]) => k), success: 200 }
  },
  async signIn() {
    const params: Array<[string, string]> = [['request_id', await pendingRequest()], ['email', user.email], ['password', user.password]]
    return { endpoint: 'signIn', method: 'POST', path: '/oauth/sign-in', params, headers: {}, type: FORM_TYPE, kind: 'page', reads: ['request_id', 'email', 'password'], success: 303 }
  },
  async consent() {
    const requestId = await pendingRequest()
    const cookie = await sessionCookie({ request_id: requestId })
    const params: Array<[string, string]> = [['request_id', requestId], ['decision', 'allow'], ['shop', shop.shop_id], ['tool', 'listAccountShops']]
    return { endpoint: 'consent', method: 'POST', path: '/oauth/authorize', params, headers: { cookie }, type: FORM_TYPE, kind: 'page', reads: ['request_id', 'decision'], success: 302 }
  },
  async tokenForCode() {
    const c = await codeFor()
    const params: Array<[string, string]> = [['grant_type', 'authorization_code'], ['code', c.code], ['code_verifier', c.verifier], ['client_id', c.clientId], ['redirect_uri', REDIRECT], ['resource', MCP]]
    return { endpoint: 'tokenForCode', method: 'POST', path: '/oauth/token', params, headers: {}, type: FORM_TYPE, kind: 'oauth', reads: params.map(([k]) => k), success: 200 }
  },
  async tokenForRefresh() {
    const t = await tokensFor()
    const params: Array<[string, string]> = [['grant_type', 'refresh_token'], ['refresh_token', t.refresh], ['client_id', t.clientId], ['resource', MCP]]
    return { endpoint: 'tokenForRefresh', method: 'POST', path: '/oauth/token', params, headers: {}, type: FORM_TYPE, kind: 'oauth', reads: params.map(([k]) => k), success: 200 }
  },
  async revoke() {
    const t = await tokensFor()
    const params: Array<[string, string]> = [['token', t.refresh], ['token_type_hint', 'refresh_token'], ['client_id', t.clientId]]
    return { endpoint: 'revoke', method: 'POST', path: '/oauth/revoke', params, headers: {}, type: FORM_TYPE, kind: 'oauth', reads: params.map(([k]) => k), success: 200 }
  },
  async revokeConnection() {
    const t = await tokensFor()
    const cookie = await sessionCookie({ next: 'connections' })
    const id = Object.values(state.connector.data.connections).find((c) => c.client_id === t.clientId)!.connection_id
    return { endpoint: 'revokeConnection', method: 'POST', path: '/oauth/connections/revoke', params: [['connection_id', id]], headers: { cookie }, type: FORM_TYPE, kind: 'page', reads: ['connection_id'], success: 303 }
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
      const answer = await sendMutated(valid, { ...base, params: [...valid.params, [name, mutation.same ? value : `${value}x`]] })
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
      const emptied = await sendMutated(valid, { ...base, params: valid.params.map(([k, v]): [string, string] => [k, k === name ? '' : v]) })
      const twin = await endpoints[valid.endpoint]!()
      const omitted = await sendMutated(twin, { query: [], params: twin.params.filter(([k]) => k !== name), headers: twin.headers })
      expect([emptied.status, refusal(emptied)], label).toEqual([omitted.status, refusal(omitted)])
      return emptied.status >= 400 || (emptied.location?.searchParams.has('error') ?? false)
    }
    case 'query': {
      if (valid.method === 'GET') return false
      const answer = await sendMutated(valid, { ...base, query: [[name, value]], params: others })
      // A page's form reads its body only: a field in the query is not there (what its absence means is the page's).
      if (valid.kind !== 'oauth') return false
      refused(answer, 400, 'invalid_request', `${name} is in the URL query`)
      return true
    }
    case 'type': {
      if (valid.method === 'GET') return false
      const answer = await sendMutated(valid, { ...base, type: mutation.type })
      const words = `must be ${FORM_TYPE}${valid.kind === 'oauth' ? ` (RFC ${valid.path === '/oauth/revoke' ? '7009 2.1' : '6749 4.1.3'})` : ''}, not ${mutation.type || 'a body without Content-Type'}`
      refused(answer, 400, valid.kind === 'oauth' ? 'invalid_request' : null, words)
      return true
    }
    case 'authorization': {
      if (valid.kind !== 'oauth') return false
      const answer = await sendMutated(valid, { ...base, headers: { ...valid.headers, authorization: `${mutation.scheme} ${Buffer.from('client:').toString('base64')}` } })
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
      fc.asyncProperty(fc.constantFrom('text/plain', FORM_TYPE, 'multipart/form-data', 'application/jsonx', ''), async (type) => {
        const answer = await send('POST', '/oauth/register', { headers: type ? { 'content-type': type } : {}, body: new TextEncoder().encode(JSON.stringify({ redirect_uris: [REDIRECT] })) })
        expect(answer.json).toEqual({ error: 'invalid_client_metadata', error_description: `The registration request must be application/json (RFC 7591 3), not ${type || 'a body without Content-Type'}` })
      }),
      { seed: SEED, numRuns: 10 },
    )
  })

  it('the whole flow as a client makes it still succeeds: register, authorize, sign-in, consent, token, refresh, revoke (a form with a charset, an unknown hint ignored, unknown parameters ignored even repeated)', async () => {
    const clientId = await register()
    const { fields, verifier } = authorizeParams(clientId)
    const page = await send('GET', `/oauth/authorize?${formText([...fields, ['prompt', 'consent'], ['prompt', 'login']])}`)
    expect(page.status).toBe(200)
    const requestId = hiddenFields(page.text).request_id!
    const cookie = await sessionCookie({ request_id: requestId })
    const charset = { 'content-type': `${FORM_TYPE}; charset=UTF-8` }
    const consented = await post('/oauth/authorize', [['request_id', requestId], ['decision', 'allow'], ['shop', shop.shop_id], ['tool', 'listAccountShops'], ['tool', 'getShopSps']], { ...charset, cookie })
    expect([consented.status, consented.location!.searchParams.get('iss')]).toEqual([302, BASE])
    const issued = await post('/oauth/token', [['grant_type', 'authorization_code'], ['code', consented.location!.searchParams.get('code')!], ['code_verifier', verifier], ['client_id', clientId], ['redirect_uri', REDIRECT], ['resource', MCP], ['unknown', '1'], ['unknown', '2']], charset)
    expect(issued.json!.token_type).toBe('Bearer')
    const refreshed = await post('/oauth/token', [['grant_type', 'refresh_token'], ['refresh_token', issued.json!.refresh_token], ['client_id', clientId], ['resource', `${MCP}/`]], charset)
    expect(refreshed.status).toBe(200)
    expect((await post('/oauth/revoke', [['token', refreshed.json!.access_token], ['token_type_hint', 'id_token'], ['client_id', clientId]], charset)).status).toBe(200)
    expect((await post('/oauth/revoke', [['token', refreshed.json!.refresh_token], ['client_id', clientId]])).status).toBe(200)
    expect((await toolsList(refreshed.json!.access_token)).status).toBe(401)
    expect(unexpected).toEqual([])
  })
})

describe('RFC 8252 7.3: a loopback redirect URI may differ from the registered one in its port alone', () => {
  /** An authorization through the real pages with `redirect`, for a client that registered `registered`; the consent's redirect or the page refusing. */
  async function authorizeWith(registered: string[], redirect: string) {
    const clientId = await register({ redirect_uris: registered })
    const { verifier, challenge } = pkcePair()
    const query = formText([['response_type', 'code'], ['client_id', clientId], ['redirect_uri', redirect], ['code_challenge', challenge], ['code_challenge_method', 'S256'], ['state', 'st-8252']])
    const first = await send('GET', `/oauth/authorize?${query}`)
    if (first.status !== 200) return { clientId, verifier, refused: first }
    const back = await consent(createBrowser(connectorFetch), `${BASE}/oauth/authorize?${query}`, { email: user.email, password: user.password, shops: [shop.shop_id], tools: ['listAccountShops'] })
    return { clientId, verifier, back }
  }

  it.each([
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:54321/callback'],
    [['http://127.0.0.1:3118/callback'], 'http://127.0.0.1:40123/callback'],
    [['http://[::1]/cb'], 'http://[::1]:61000/cb'],
    [['http://localhost/callback', 'http://127.0.0.1/callback'], 'http://localhost:57470/callback'],
    [['http://localhost:3000/callback'], 'http://localhost:57470/callback'],
    [['http://[::1]:8080/cb'], 'http://[::1]:61000/cb'],
    [['http://127.0.0.2/callback'], 'http://127.0.0.2:50123/callback'],
  ])('registered %j, the request at %s: the code goes to the port the client listens on, and redeems with that URI', async (registered, redirect) => {
    const redeem = async (uri: string) => {
      const { clientId, verifier, back } = await authorizeWith(registered, redirect)
      expect(back!.origin + back!.pathname).toBe(redirect)
      expect(back!.searchParams.get('state')).toBe('st-8252')
      return post('/oauth/token', [['grant_type', 'authorization_code'], ['code', back!.searchParams.get('code')!], ['code_verifier', verifier], ['client_id', clientId], ['redirect_uri', uri]])
    }
    expect((await redeem(redirect)).json).toMatchObject({ token_type: 'Bearer' })
    // RFC 6749 4.1.3: the token request repeats the authorization request's URI, port and all.
    const otherPort = new URL(redirect)
    otherPort.port = '9'
    expect((await redeem(otherPort.href)).json).toMatchObject({ error: 'invalid_grant' })
  })

  it.each([
    [['https://assistant.example.org/callback'], 'https://assistant.example.org:8443/callback', 'https: exact'],
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:54321/other', 'another path'],
    [['http://127.0.0.1/callback'], 'http://localhost:54321/callback', 'another loopback host'],
    [['http://127.0.0.1/callback?a=1'], 'http://127.0.0.1:5/callback?a=2', 'another query'],
    [['http://127.0.0.1/callback'], 'http://user@127.0.0.1:5/callback', 'a userinfo'],
    [['http://127.0.0.1/callback'], 'http://127.0.0.2:5/callback', 'another address of 127.0.0.0/8'],
    [['http://127.0.0.1/callback'], 'http://127.1:5/callback', '127.0.0.1 shortened (a name to RFC 3986)'],
    [['http://127.0.0.1/callback'], 'http://2130706433:5/callback', '127.0.0.1 as one number'],
    [['http://127.0.0.1/callback'], 'http://[::ffff:127.0.0.1]:5/callback', 'IPv4-mapped'],
    [['http://[::1]/cb'], 'http://[0:0:0:0:0:0:0:1]:5/cb', '[::1] spelled in full'],
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:5/x/../callback', 'a path the parser would shorten'],
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:5/%63allback', 'a path written otherwise'],
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:99999/callback', 'a port no parser takes'],
    [['http://localhost/callback'], 'http://LOCALHOST:5/callback', 'the host in other letters'],
  ])('registered %j, the request at %s (%s): refused on the error page, never redirected', async (registered, redirect) => {
    const { refused } = await authorizeWith(registered, redirect)
    expect(refused!.status).toBe(400)
    expect(refused!.location).toBeNull()
    expect(refused!.text).toContain('does not match any URI this application registered')
  })

  it.each(['http://127.0.0.2/callback', 'http://127.255.255.254:8080/cb', 'http://[::1]/cb', 'http://localhost:3000/callback'])('%s registers: a loopback host (127.0.0.0/8 is loopback, RFC 1122 3.2.1.3)', async (uri) => {
    await register({ redirect_uris: [uri] })
  })

  it.each(['http://[::ffff:127.0.0.1]/callback', 'http://127.1/callback', 'http://127.0.0.01/callback', 'http://2130706433/callback', 'http://0x7f.0.0.1/callback', 'http://[0:0:0:0:0:0:0:1]/cb', 'http://127.0.0.1.nip.io/callback', 'http://localhost.example.com/callback', 'HTTP://127.0.0.1/cb'])('%s is refused: not a loopback host written in full (invalid_redirect_uri naming the forms)', async (uri) => {
    const answer = await send('POST', '/oauth/register', { headers: JSON_TYPE, body: JSON.stringify({ redirect_uris: [uri] }) })
    expect([answer.status, answer.json!.error]).toEqual([400, 'invalid_redirect_uri'])
    expect(answer.json!.error_description).toContain('must use https, or http on a loopback host written in full: 127.0.0.1 (or another 127.x.x.x), [::1], localhost (RFC 8252 7.3)')
  })
})
