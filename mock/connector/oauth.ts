/**
 * The connector's authorization server (spec: Authentication 6): RFC 8414 metadata, RFC 7591 dynamic
 * registration of public clients, the authorization code flow with PKCE S256 only (RFC 7636) behind a
 * sign-in and consent page, the token endpoint with refresh-token rotation, RFC 7009 revocation, and
 * the user's connections page. Errors follow RFC 6749 4.1.2.1 (redirected) and 5.2 (JSON). Requests are
 * read as RFC 6749 3.1 has them read (mock/connector/params.ts): form bodies where the RFCs say form,
 * JSON where RFC 7591 says JSON, each parameter at most once, an empty one as omitted; a refusal names
 * the parameter, the media type or the header it refuses.
 */
import { describeAjvError } from '../../openapi/index.ts'
import { isLoopbackHostLiteral } from '../lib/loopback.ts'
import { compareText } from '../lib/sort.ts'
import type { MockState } from '../state.ts'
import { chosenShops, chosenTools, connectionsPage, consentPage, errorPage, signInPage } from './pages.ts'
import { FORM_TYPE, mediaTypeProblem, oauthText, paramInQuery, quoted, readParams, repeatedProblem, type OAuthParams } from './params.ts'
import { digest, newId, newSecret, s256 } from './secrets.ts'
import { connectionEnded, ConnectorOperationError, own, type AuthorizationRequest, type ConnectorClient, type ConnectorUser } from './store.ts'
import { connectorTools } from './tools.ts'

/** Lifetimes on the mock clock. */
export const LIFETIMES = {
  /** spec (issue 17): codes expire after 10 minutes. */
  codeMs: 10 * 60_000,
  accessMs: 60 * 60_000,
  refreshMs: 30 * 24 * 60 * 60_000,
  requestMs: 30 * 60_000,
  sessionMs: 12 * 60 * 60_000,
} as const

export const SESSION_COOKIE = 'shoptwin_session'
const PKCE_PART = /^[A-Za-z0-9\-._~]{43,128}$/

/** Where the connector's pieces are, from its base URL (an origin). */
export interface ConnectorUrls {
  issuer: string
  mcp: string
  authorize: string
  token: string
  register: string
  revoke: string
  signIn: string
  connections: string
  resourceMetadata: string
  authorizationServerMetadata: string
}

export function connectorUrls(baseUrl: string): ConnectorUrls {
  const base = baseUrl.replace(/\/$/, '')
  return {
    issuer: base,
    mcp: `${base}/mcp`,
    authorize: `${base}/oauth/authorize`,
    token: `${base}/oauth/token`,
    register: `${base}/oauth/register`,
    revoke: `${base}/oauth/revoke`,
    signIn: `${base}/oauth/sign-in`,
    connections: `${base}/oauth/connections`,
    resourceMetadata: `${base}/.well-known/oauth-protected-resource/mcp`,
    authorizationServerMetadata: `${base}/.well-known/oauth-authorization-server`,
  }
}

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }

export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...NO_STORE, ...headers } })

/** A metadata document (RFC 8414 3.2, RFC 9728 3.2): cacheable for a minute, so without no-store's Pragma. */
export const metadataResponse = (body: unknown): Response => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=60' } })

/** RFC 6749 5.2: `{error, error_description}`, the description in 5.2's characters; invalid_client is 401. */
export const oauthError = (error: string, description: string, status = error === 'invalid_client' ? 401 : 400, headers: Record<string, string> = {}): Response =>
  jsonResponse(status, { error, error_description: oauthText(description) }, headers)

/** What each endpoint reads (RFC 6749 3.1: others are ignored; these at most once, but RFC 8707's `resource`). */
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'resource', 'scope', 'request_id'] as const
const TOKEN_PARAMS = ['grant_type', 'client_id', 'client_secret', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'resource', 'scope'] as const
const REVOKE_PARAMS = ['token', 'token_type_hint', 'client_id', 'client_secret'] as const
const SIGN_IN_FIELDS = ['email', 'password', 'request_id', 'next'] as const
const CONSENT_FIELDS = ['request_id', 'decision', 'shop', 'tool'] as const
const RESOURCE = ['resource']

/**
 * A form body as `reads` of it, or what is wrong with it: another media type (`what must be
 * application/x-www-form-urlencoded (rfc), not ...`), a parameter given twice.
 */
async function readForm(request: Request, what: string, rfc: string | null, reads: readonly string[], repeatable: readonly string[] = []): Promise<OAuthParams | { problem: string }> {
  const problem = mediaTypeProblem(request, what, FORM_TYPE, rfc)
  if (problem) return { problem }
  const { params, repeated } = readParams(new URLSearchParams(await request.text()), reads, repeatable)
  return repeated ? { problem: repeatedProblem(repeated) } : params
}

/**
 * The body of a token or revocation request (RFC 6749 4.1.3, 6; RFC 7009 2.1: form fields in the body),
 * or its refusal: invalid_request naming the media type, a parameter given twice, or one of them in the URL query.
 */
async function oauthForm(request: Request, what: string, rfc: string, reads: readonly string[]): Promise<OAuthParams | Response> {
  const inQuery = paramInQuery(request.url, reads)
  if (inQuery) return oauthError('invalid_request', `${inQuery} is in the URL query: ${what.replace(/^The /, 'the ')}'s parameters go in its body, application/x-www-form-urlencoded (${rfc})`)
  const form = await readForm(request, what, rfc, reads, RESOURCE)
  return 'problem' in form ? oauthError('invalid_request', form.problem) : form
}

/**
 * An HTML page: no script, no outside resource, never framed (clickjacking). Forms post only back
 * here, and (the consent page) to the client's redirect origin: CSP form-action also covers the
 * redirect that follows a form submission.
 */
const html = (status: number, body: string, { formTarget }: { formTarget?: string } = {}): Response =>
  new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      ...NO_STORE,
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${formTarget ? ` ${formTarget}` : ''}; frame-ancestors 'none'; base-uri 'none'`,
      'x-frame-options': 'DENY',
    },
  })

/**
 * An authorization request's error before its redirect URI is known to be the client's: shown to the
 * user, never redirected (RFC 6749 4.1.2.1). A caller that accepts JSON and not HTML is no browser: it
 * gets the same error in OAuth's JSON (RFC 6749 5.2), still 400. mcp-remote asks a cached client's
 * authorization URL this way before it opens a browser, and registers again on `invalid_client`, as it
 * must after an in-memory twin restarted (given the page, it opened it and waited; inferred: RFC 6749
 * says only that the user is informed).
 */
const shown = (request: Request, title: string, detail: string, error: 'invalid_request' | 'invalid_client' = 'invalid_request'): Response =>
  acceptsJsonOnly(request.headers.get('accept')) ? oauthError(error, detail, 400) : html(400, errorPage(title, detail))

/** An Accept header that names JSON and neither HTML nor a wildcard (a browser's names `text/html`; curl's is the wildcard). */
const acceptsJsonOnly = (accept: string | null): boolean => {
  // A range with q=0 is one the caller does not accept (RFC 9110 12.4.2).
  const types = (accept ?? '')
    .toLowerCase()
    .split(',')
    .flatMap((range) => {
      const [type, ...params] = range.split(';').map((part) => part.trim())
      return params.some((param) => /^q=0(\.0{0,3})?$/.test(param)) ? [] : [type!]
    })
  return types.includes('application/json') && !types.some((type) => type === 'text/html' || type === '*/*' || type === 'text/*')
}

const redirect = (location: string, headers: Record<string, string> = {}, status = 302): Response => new Response(null, { status, headers: { location, ...NO_STORE, ...headers } })

/** RFC 6749 4.1.2.1: an error sent back to the client's redirect URI, with `state` and `iss` (RFC 9207). */
function redirectError(redirectUri: string, error: string, description: string, state: string | null, issuer: string): Response {
  const url = new URL(redirectUri)
  url.searchParams.set('error', error)
  url.searchParams.set('error_description', oauthText(description))
  if (state !== null) url.searchParams.set('state', state)
  url.searchParams.set('iss', issuer)
  return redirect(url.href)
}

/**
 * An http loopback redirect URI split where RFC 8252 7.3 lets it vary, its port: the host as written
 * and what follows the port, as written (null for any other URI, or one no URL parser takes). The host
 * is a loopback IP literal or localhost written in full (mock/lib/loopback.ts): RFC 8252 7.3 builds
 * these URIs "with the loopback IP literal" (127.0.0.1, [::1]); every address of 127.0.0.0/8 is loopback
 * (RFC 1122 3.2.1.3), so the request "never leaves the device" (8.3) from 127.0.0.2 either; localhost is
 * NOT RECOMMENDED (8.3) but works alike, and MCP authorization takes "localhost" redirect URIs. No userinfo.
 */
function loopbackRedirect(uri: string): { host: string; rest: string } | null {
  const match = /^http:\/\/(\[[^\]/?#@]*\]|[^/?#@:[\]]*)(?::\d*)?([/?#].*)?$/s.exec(uri)
  if (!match || !isLoopbackHostLiteral(match[1]!) || !URL.canParse(uri)) return null
  return { host: match[1]!, rest: match[2] ?? '' }
}

/** https anywhere, http only on a loopback host; no fragment (RFC 6749 3.1.2; RFC 8252 7.3). */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== 'string') return 'redirect_uris must be strings'
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `redirect URI ${quoted(uri)} is not an absolute URL`
  }
  if (url.hash) return `redirect URI ${quoted(uri)} must not have a fragment`
  if (url.protocol === 'https:') return null
  if (url.protocol === 'http:' && loopbackRedirect(uri)) return null
  return `redirect URI ${quoted(uri)} must use https, or http on a loopback host written in full: 127.0.0.1 (or another 127.x.x.x), [::1], localhost (RFC 8252 7.3)`
}

/**
 * Whether a redirect URI of an authorization request is one the client registered: the same string
 * (RFC 6749 3.1.2.3: simple string comparison), or (RFC 8252 7.3, OAuth 2.1 8.4.2: "MUST allow any port
 * to be specified at the time of the request for loopback IP redirect URIs") an http loopback URI that
 * differs from a registered one in its port alone, the rest compared as strings: the host as written
 * (`127.1` is not `127.0.0.1`, `localhost` not `127.0.0.1`), then path and query. Native clients (CLI
 * and desktop assistants) listen on a port the system gives them and register the URI without it, or
 * with another. `localhost` is held to the same rule (inferred: clients use it, and the registration
 * takes it).
 */
export function isRegisteredRedirect(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true
  const asked = loopbackRedirect(given)
  if (!asked) return false
  return registered.some((uri) => {
    const known = loopbackRedirect(uri)
    return known !== null && known.host === asked.host && known.rest === asked.rest
  })
}

const sameResource = (a: string, b: string): boolean => a.replace(/\/$/, '') === b.replace(/\/$/, '')

/** RFC 8707 2: every `resource` given must be the one this server issues tokens for (the MCP endpoint). */
const resourceProblem = (resources: readonly string[], mcp: string): string | null => {
  const other = resources.find((r) => !sameResource(r, mcp))
  return other === undefined ? null : `resource ${quoted(other)} is not this server's: tokens are for ${mcp}`
}

/**
 * RFC 6749 2.3, 5.2: the connector's clients are public (token_endpoint_auth_method none), so a client
 * that authenticates is using a method it does not support: invalid_client, 401 with WWW-Authenticate
 * of the scheme used when it came in the Authorization header.
 */
function clientAuthenticationRefusal(request: Request, params: OAuthParams, issuer: string): Response | null {
  const header = request.headers.get('authorization')
  const PUBLIC = "The connector's clients are public (token_endpoint_auth_method none)"
  if (header !== null) {
    // The scheme only when credentials follow it: a header that is one bare value may be the secret itself.
    const scheme = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}(?= )/.exec(header.trim())?.[0]
    return oauthError('invalid_client', `${PUBLIC}: send client_id in the body and no Authorization header (this request used ${scheme ?? 'one without a scheme'})`, 401, { 'www-authenticate': `${scheme ?? 'Basic'} realm="${issuer}"` })
  }
  if (params.get('client_secret') !== null) return oauthError('invalid_client', `${PUBLIC}: none has a client_secret; send client_id alone`)
  return null
}

function cookieOf(request: Request, name: string): string | null {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return v.join('=')
  }
  return null
}

/** The authorization server over a mock state. */
export function createAuthorizationServer(state: MockState, urls: ConnectorUrls) {
  const store = () => state.connector
  const nowIso = () => state.clock.now().toISOString()
  const later = (ms: number) => new Date(state.clock.now().getTime() + ms).toISOString()
  const tools = () => connectorTools(state.contract)
  const accountShops = (user: ConnectorUser) => state.world.shops.filter((s) => s.account_id === user.account_id)

  async function sessionUser(request: Request): Promise<ConnectorUser | undefined> {
    const cookie = cookieOf(request, SESSION_COOKIE)
    if (!cookie) return undefined
    const session = own(store().data.sessions, await digest(cookie))
    if (!session || Date.parse(session.expires_at) <= state.clock.now().getTime()) return undefined
    return store().data.users.find((u) => u.user_id === session.user_id)
  }

  const metadata = () => ({
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    // RFC 8414 2 (RECOMMENDED): no scopes. Consent picks shops and tools; a client that finds no list
    // guesses one (mcp-remote asks for "openid email profile"), an empty one tells it to send none.
    scopes_supported: [],
    service_documentation: `${urls.issuer}/oauth/connections`,
  })

  const resourceMetadata = () => ({
    resource: urls.mcp,
    authorization_servers: [urls.issuer],
    bearer_methods_supported: ['header'],
    // RFC 9728 2 (RECOMMENDED); MCP authorization's scope selection reads this one first.
    scopes_supported: [],
    resource_name: 'Shop Analytics assistant connector (shoptwin)',
  })

  const validRegistration = state.contract.validators.compile('connector:ClientRegistrationRequest', { $ref: '#/components/schemas/ClientRegistrationRequest' })

  /** RFC 7591 3.1: public clients only. */
  async function register(request: Request): Promise<Response> {
    // RFC 7591 3: the metadata is application/json. RFC 7591 3.2.2 has no code for another body: this
    // is invalid_client_metadata, the code its clients handle (inferred).
    const typeProblem = mediaTypeProblem(request, 'The registration request', 'application/json', 'RFC 7591 3')
    if (typeProblem) return oauthError('invalid_client_metadata', typeProblem)
    let meta: Record<string, unknown>
    try {
      meta = JSON.parse(await request.text()) as Record<string, unknown>
      if (!meta || typeof meta !== 'object' || Array.isArray(meta)) throw new Error()
    } catch {
      return oauthError('invalid_client_metadata', 'The body must be a JSON object of client metadata')
    }
    const uris = meta.redirect_uris
    if (!Array.isArray(uris) || uris.length === 0) return oauthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array')
    for (const uri of uris) {
      const problem = redirectUriProblem(uri)
      if (problem) return oauthError('invalid_redirect_uri', problem)
    }
    const method = meta.token_endpoint_auth_method ?? 'none'
    if (method !== 'none') return oauthError('invalid_client_metadata', 'token_endpoint_auth_method must be none: the connector registers public clients (PKCE, no secret)')
    const grants = (meta.grant_types ?? ['authorization_code', 'refresh_token']) as unknown
    if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) return oauthError('invalid_client_metadata', 'grant_types may only hold authorization_code and refresh_token')
    // RFC 7591 2.1: response_types code goes with grant_types authorization_code, the one flow the connector has.
    // A value listed twice is refused like a parameter given twice (inferred: RFC 7591 does not say).
    const twice = (list: unknown[]) => list.find((v, i) => list.indexOf(v) !== i) as string | undefined
    if (twice(grants)) return oauthError('invalid_client_metadata', `grant_types lists ${quoted(twice(grants)!)} twice`)
    if (!grants.includes('authorization_code')) return oauthError('invalid_client_metadata', 'grant_types must include authorization_code: the connector\'s clients use the authorization code flow (RFC 7591 2.1)')
    const responses = (meta.response_types ?? ['code']) as unknown
    if (!Array.isArray(responses) || responses.some((r) => r !== 'code')) return oauthError('invalid_client_metadata', 'response_types may only hold code')
    if (twice(responses)) return oauthError('invalid_client_metadata', `response_types lists ${quoted(twice(responses)!)} twice`)
    if (!responses.includes('code')) return oauthError('invalid_client_metadata', 'response_types must include code: the connector\'s clients use the authorization code flow (RFC 7591 2.1)')
    if (meta.client_name !== undefined && (typeof meta.client_name !== 'string' || meta.client_name.length > 100)) return oauthError('invalid_client_metadata', 'client_name must be a string of at most 100 characters')
    // Every other field as the contract describes it (ClientRegistrationRequest): the URI-typed ones
    // (client_uri...) absolute URIs, the strings strings. RFC 7591 3.2.2: invalid_client_metadata.
    if (!validRegistration(meta)) {
      const error = validRegistration.errors![0]!
      return oauthError(error.instancePath.startsWith('/redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata', describeAjvError(error, 'body'))
    }
    const client: ConnectorClient = {
      client_id: newId(),
      client_name: (meta.client_name as string | undefined)?.trim() || 'Unnamed application',
      redirect_uris: uris as string[],
      client_id_issued_at: Math.floor(state.clock.now().getTime() / 1000),
      grant_types: grants as string[],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(typeof meta.client_uri === 'string' ? { client_uri: meta.client_uri } : {}),
      ...(typeof meta.software_id === 'string' ? { software_id: meta.software_id } : {}),
      ...(typeof meta.software_version === 'string' ? { software_version: meta.software_version } : {}),
    }
    return jsonResponse(201, store().apply('registerClient', client))
  }

  function renderConsent(requestId: string, pending: AuthorizationRequest, user: ConnectorUser, options: { error?: string; checked?: { shops: string[]; tools: string[] }; status?: number } = {}): Response {
    const client = own(store().data.clients, pending.client_id)!
    return html(
      options.status ?? 200,
      consentPage({ action: urls.authorize, requestId, client, redirectUri: pending.redirect_uri, user, shops: accountShops(user), tools: tools(), ...(options.checked ? { checked: options.checked } : {}), ...(options.error ? { error: options.error } : {}) }),
      { formTarget: new URL(pending.redirect_uri).origin },
    )
  }

  /**
   * GET /oauth/authorize: the client's request checked, then sign-in or consent. `?request_id=` shows a
   * pending request again. `changesState` false (a HEAD): the same page, the request not kept.
   */
  async function authorize(request: Request, { changesState = true }: { changesState?: boolean } = {}): Promise<Response> {
    const { params: q, repeated } = readParams(new URL(request.url).searchParams, AUTHORIZE_PARAMS, RESOURCE)
    // Which request or client, and where to send errors, must be unambiguous before anything is redirected.
    if (repeated === 'request_id' || repeated === 'client_id' || repeated === 'redirect_uri') return shown(request, 'Invalid request', repeatedProblem(repeated))
    const user = await sessionUser(request)
    const pendingId = q.get('request_id')
    if (pendingId) {
      const pending = own(store().data.requests, await digest(pendingId))
      if (!pending || Date.parse(pending.expires_at) <= state.clock.now().getTime()) return shown(request, 'Request expired', 'This authorization request is unknown, expired or already answered.')
      if (!user || user.user_id !== pending.user_id) return html(200, signInPage({ action: urls.signIn, fields: { request_id: pendingId }, client: own(store().data.clients, pending.client_id)! }))
      return renderConsent(pendingId, pending, user)
    }
    // Errors before the redirect URI is known to be the client's are shown, never redirected (RFC 6749 4.1.2.1).
    const clientId = q.get('client_id')
    if (!clientId) return shown(request, 'Invalid request', 'client_id is missing')
    const client = own(store().data.clients, clientId)
    if (!client) return shown(request, 'Unknown application', 'No application is registered with this client_id', 'invalid_client')
    const givenUri = q.get('redirect_uri')
    if (givenUri === null && client.redirect_uris.length !== 1) return shown(request, 'Invalid request', 'redirect_uri is missing')
    const redirectUri = givenUri ?? client.redirect_uris[0]!
    if (!isRegisteredRedirect(client.redirect_uris, redirectUri)) return shown(request, 'Invalid redirect', 'redirect_uri does not match any URI this application registered (a loopback http URI may differ in its port alone: RFC 8252 7.3)')
    // A state given twice is not echoed: which one the client would check is not known (inferred).
    const stateParam = repeated === 'state' ? null : q.get('state')
    const fail = (error: string, description: string) => redirectError(redirectUri, error, description, stateParam, urls.issuer)
    if (repeated) return fail('invalid_request', repeatedProblem(repeated))
    const responseType = q.get('response_type')
    if (responseType === null) return fail('invalid_request', 'response_type is required: code')
    if (responseType !== 'code') return fail('unsupported_response_type', `response_type ${quoted(responseType)} is not supported: only code (the authorization code flow; OAuth 2.1 has no implicit grant)`)
    const challenge = q.get('code_challenge')
    if (!challenge) return fail('invalid_request', 'code_challenge is required (PKCE with S256)')
    const method = q.get('code_challenge_method')
    if (method === null) return fail('invalid_request', 'code_challenge_method is required: S256 (without it RFC 7636 4.3 means plain, which is not supported)')
    if (method !== 'S256') return fail('invalid_request', `code_challenge_method ${quoted(method)} is not supported: S256 only (plain is not supported)`)
    if (!/^[A-Za-z0-9\-_]{43}$/.test(challenge)) return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the verifier')
    const resources = q.getAll('resource')
    const wrongResource = resourceProblem(resources, urls.mcp)
    if (wrongResource) return fail('invalid_target', wrongResource)
    const requestId = newSecret('req_')
    const started: AuthorizationRequest = {
      request_hash: await digest(requestId),
      client_id: client.client_id,
      redirect_uri: redirectUri,
      state: stateParam,
      code_challenge: challenge,
      resource: resources[0] ?? null,
      scope: q.get('scope'),
      user_id: user?.user_id ?? null,
      created_at: nowIso(),
      expires_at: later(LIFETIMES.requestMs),
    }
    // A HEAD gets the page's head: the request_id the page would carry never reaches anyone, so nothing is kept.
    const pending = changesState ? store().apply('startAuthorization', started) : started
    if (!user) return html(200, signInPage({ action: urls.signIn, fields: { request_id: requestId }, client }))
    return renderConsent(requestId, pending, user)
  }

  /** POST /oauth/sign-in: email and password; on success a session cookie and back to where the user was. */
  async function signIn(request: Request): Promise<Response> {
    const form = await readForm(request, 'The sign-in form', null, SIGN_IN_FIELDS)
    if ('problem' in form) return html(400, errorPage('Invalid request', form.problem))
    const requestId = form.get('request_id')
    const nextField = form.get('next')
    if (nextField !== null && nextField !== 'connections') return html(400, errorPage('Invalid request', 'next must be connections'))
    const next = nextField === 'connections' || !requestId ? urls.connections : `${urls.authorize}?request_id=${encodeURIComponent(requestId)}`
    const fields: Record<string, string> = requestId ? { request_id: requestId } : { next: 'connections' }
    const pending = requestId ? own(store().data.requests, await digest(requestId)) : undefined
    const client = pending ? own(store().data.clients, pending.client_id) : undefined
    const again = (status: number, error: string) => html(status, signInPage({ action: urls.signIn, fields, ...(client ? { client } : {}), error }))
    const missing = (['email', 'password'] as const).find((name) => form.get(name) === null)
    if (missing) return again(400, `${missing} is missing`)
    const email = form.get('email')!.trim().toLowerCase()
    const user = store().data.users.find((u) => u.email.toLowerCase() === email && u.password === form.get('password'))
    if (!user) return again(401, 'Email or password is not right')
    const session = newSecret('ses_')
    try {
      store().apply('signIn', { session_hash: await digest(session), user_id: user.user_id, now: nowIso(), expires_at: later(LIFETIMES.sessionMs), request_hash: requestId ? await digest(requestId) : null })
    } catch (error) {
      if (error instanceof ConnectorOperationError) return html(400, errorPage('Request expired', error.message))
      throw error
    }
    const secure = urls.issuer.startsWith('https:') ? '; Secure' : ''
    return redirect(next, { 'set-cookie': `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${LIFETIMES.sessionMs / 1000}${secure}` }, 303)
  }

  /** POST /oauth/authorize: the consent form's answer. */
  async function decide(request: Request): Promise<Response> {
    const form = await readForm(request, 'The consent answer', null, CONSENT_FIELDS, ['shop', 'tool'])
    if ('problem' in form) return html(400, errorPage('Invalid request', form.problem))
    const requestId = form.get('request_id')
    if (requestId === null) return html(400, errorPage('Invalid request', 'request_id is missing: POST /oauth/authorize takes the answer of the consent page; an authorization request is a GET'))
    const requestHash = await digest(requestId)
    const pending = own(store().data.requests, requestHash)
    if (!pending || Date.parse(pending.expires_at) <= state.clock.now().getTime()) return html(400, errorPage('Request expired', 'This authorization request is unknown, expired or already answered.'))
    const user = await sessionUser(request)
    // The answer counts only from the browser that signed in for this request (no cross-site posting).
    if (!user || user.user_id !== pending.user_id) return html(403, errorPage('Not signed in', 'Sign in again from the application to answer this request.'))
    const fail = (error: string, description: string) => redirectError(pending.redirect_uri, error, description, pending.state, urls.issuer)
    const decision = form.get('decision')
    const checked = { shops: form.getAll('shop'), tools: form.getAll('tool') }
    if (decision !== 'allow' && decision !== 'deny') return renderConsent(requestId, pending, user, { status: 400, error: decision === null ? 'decision is missing: allow or deny' : 'decision must be allow or deny', checked })
    if (decision === 'deny') {
      store().apply('denyConsent', { request_hash: requestHash, now: nowIso() })
      return fail('access_denied', 'The user denied the request')
    }
    // The form's groups ("All shops", "All read tools", an area...) expand here: the page has no script.
    const shops = chosenShops(form.getAll('shop'), accountShops(user))
    const toolNames = chosenTools(form.getAll('tool'), tools())
    if (shops.length === 0 || toolNames.length === 0) return renderConsent(requestId, pending, user, { status: 400, error: 'Choose at least one shop and one tool, or deny.', checked })
    const code = newSecret('code_')
    store().apply('approveConsent', { request_hash: requestHash, code_hash: await digest(code), connection_id: newId(), shops, tools: toolNames, now: nowIso(), code_expires_at: later(LIFETIMES.codeMs) })
    const url = new URL(pending.redirect_uri)
    url.searchParams.set('code', code)
    if (pending.state !== null) url.searchParams.set('state', pending.state)
    url.searchParams.set('iss', urls.issuer)
    return redirect(url.href)
  }

  async function issueTokens(): Promise<{ access: string; refresh: string; access_hash: string; refresh_hash: string; now: string; access_expires_at: string; refresh_expires_at: string }> {
    const access = newSecret('stw_at_')
    const refresh = newSecret('stw_rt_')
    return { access, refresh, access_hash: await digest(access), refresh_hash: await digest(refresh), now: nowIso(), access_expires_at: later(LIFETIMES.accessMs), refresh_expires_at: later(LIFETIMES.refreshMs) }
  }

  /**
   * RFC 6749 3.3, 5.1: a token whose scope differs from the one requested names the scope granted. A
   * requested scope is ignored (the connector has none: consent picks shops and tools), so a client
   * that asked for one is told the empty scope it got, as GitHub does (`scope=`).
   */
  const tokenAnswer = (t: { access: string; refresh: string }, scopeRequested: boolean) =>
    jsonResponse(200, { access_token: t.access, token_type: 'Bearer', expires_in: LIFETIMES.accessMs / 1000, refresh_token: t.refresh, ...(scopeRequested ? { scope: '' } : {}) })

  /** POST /oauth/token (RFC 6749 4.1.3, 6; RFC 7636 4.5). */
  async function token(request: Request): Promise<Response> {
    const form = await oauthForm(request, 'The token request', 'RFC 6749 4.1.3', TOKEN_PARAMS)
    if (form instanceof Response) return form
    const grant = form.get('grant_type')
    if (!grant) return oauthError('invalid_request', 'grant_type is required')
    if (grant !== 'authorization_code' && grant !== 'refresh_token') return oauthError('unsupported_grant_type', `grant_type ${quoted(grant)} is not supported: authorization_code or refresh_token`)
    // Before client_id: a client authenticating with Basic has its client_id in the header.
    const authentication = clientAuthenticationRefusal(request, form, urls.issuer)
    if (authentication) return authentication
    const clientId = form.get('client_id')
    if (!clientId) return oauthError('invalid_request', 'client_id is required (public clients identify themselves with it)')
    if (!own(store().data.clients, clientId)) return oauthError('invalid_client', 'Unknown client_id')
    const wrongResource = resourceProblem(form.getAll('resource'), urls.mcp)
    try {
      if (grant === 'authorization_code') {
        const code = form.get('code')
        const verifier = form.get('code_verifier')
        const redirectUri = form.get('redirect_uri')
        if (!code) return oauthError('invalid_request', 'code is required')
        if (!verifier) return oauthError('invalid_request', 'code_verifier is required (PKCE)')
        if (!PKCE_PART.test(verifier)) return oauthError('invalid_request', 'code_verifier must be 43-128 characters of [A-Za-z0-9-._~]')
        const codeHash = await digest(code)
        const stored = own(store().data.codes, codeHash)
        if (!redirectUri) return oauthError('invalid_request', 'redirect_uri is required')
        if (stored && !stored.used_at && stored.client_id === clientId && (await s256(verifier)) !== stored.code_challenge) return oauthError('invalid_grant', 'code_verifier does not match the code_challenge')
        // RFC 8707 2.2: the one resource this server issues tokens for is the MCP endpoint (the authorization request's, if it named one).
        if (wrongResource) return oauthError('invalid_target', wrongResource)
        const t = await issueTokens()
        // The operation gets the digests only: its input is loggable.
        store().apply('redeemCode', { code_hash: codeHash, client_id: clientId, redirect_uri: redirectUri, family_id: newId(), access_hash: t.access_hash, refresh_hash: t.refresh_hash, now: t.now, access_expires_at: t.access_expires_at, refresh_expires_at: t.refresh_expires_at })
        return tokenAnswer(t, !!stored?.scope)
      }
      const refresh = form.get('refresh_token')
      if (!refresh) return oauthError('invalid_request', 'refresh_token is required')
      if (wrongResource) return oauthError('invalid_target', wrongResource)
      const t = await issueTokens()
      store().apply('rotateRefresh', { refresh_hash: await digest(refresh), client_id: clientId, access_hash: t.access_hash, new_refresh_hash: t.refresh_hash, now: t.now, access_expires_at: t.access_expires_at, refresh_expires_at: t.refresh_expires_at })
      // RFC 6749 6: a refresh without scope asks for the scope first granted (none), so only one with a scope is told.
      return tokenAnswer(t, form.get('scope') !== null)
    } catch (error) {
      if (error instanceof ConnectorOperationError) return oauthError(error.code, error.message)
      throw error
    }
  }

  /** POST /oauth/revoke (RFC 7009 2.1, 2.2: 200 whether or not the token was known). */
  async function revoke(request: Request): Promise<Response> {
    // token_type_hint is read only to be given once: the server finds the token by itself, so any hint is ignored (RFC 7009 2.1 allows it).
    const form = await oauthForm(request, 'The revocation request', 'RFC 7009 2.1', REVOKE_PARAMS)
    if (form instanceof Response) return form
    const tokenValue = form.get('token')
    if (!tokenValue) return oauthError('invalid_request', 'token is required')
    const authentication = clientAuthenticationRefusal(request, form, urls.issuer)
    if (authentication) return authentication
    const clientId = form.get('client_id')
    if (!clientId) return oauthError('invalid_request', 'client_id is required')
    if (!own(store().data.clients, clientId)) return oauthError('invalid_client', 'Unknown client_id')
    const tokenHash = await digest(tokenValue)
    const stored = own(store().data.tokens, tokenHash)
    // RFC 7009 2.1: the server "verifies whether the token was issued to the client making the revocation request. If this validation fails, the request is refused".
    if (stored && own(store().data.families, stored.family_id)?.client_id !== clientId) return oauthError('invalid_request', 'The token was issued to another client: a client revokes only its own tokens (RFC 7009 2.1)')
    store().apply('revokeToken', { token_hash: tokenHash, client_id: clientId, now: nowIso() })
    return new Response(null, { status: 200, headers: NO_STORE })
  }

  /** GET /oauth/connections: the signed-in user's connections (sign-in first). */
  async function connections(request: Request): Promise<Response> {
    const user = await sessionUser(request)
    if (!user) return html(200, signInPage({ action: urls.signIn, fields: { next: 'connections' } }))
    const { data } = store()
    const list = Object.values(data.connections)
      .filter((c) => c.user_id === user.user_id)
      .map((c) => ({ ...c, ended: connectionEnded(data, c) }))
      .sort((a, b) => Number(!!a.ended) - Number(!!b.ended) || compareText(b.created_at, a.created_at))
    return html(200, connectionsPage({ user, connections: list, shops: accountShops(user), action: `${urls.connections}/revoke` }))
  }

  /** POST /oauth/connections/revoke: the user's revocation, effective on the next call. */
  async function revokeConnection(request: Request): Promise<Response> {
    const user = await sessionUser(request)
    if (!user) return html(403, errorPage('Not signed in', 'Sign in to manage your connections.'))
    const form = await readForm(request, 'The revoke form', null, ['connection_id'])
    if ('problem' in form) return html(400, errorPage('Invalid request', form.problem))
    const id = form.get('connection_id')
    if (id === null) return html(400, errorPage('Invalid request', 'connection_id is missing'))
    const connection = own(store().data.connections, id)
    if (!connection || connection.user_id !== user.user_id) return html(404, errorPage('Unknown connection', 'No such connection on your account.'))
    store().apply('revokeConnection', { connection_id: id, now: nowIso() })
    return redirect(urls.connections, {}, 303)
  }

  return { metadata, resourceMetadata, register, authorize, signIn, decide, token, revoke, connections, revokeConnection }
}

export type AuthorizationServer = ReturnType<typeof createAuthorizationServer>
