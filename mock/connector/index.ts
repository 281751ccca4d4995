/**
 * The assistant connector (spec: What the service does; Authentication 6), over the same MockState as
 * the REST mock: `createConnector(state, { baseUrl })` answers fetch Requests (the standalone server
 * routes its paths here), `createConnectorHandlers(state, { baseUrl })` gives the same as MSW handlers.
 * The flow is described in mock/connector/README.md.
 */
import type { HttpHandler } from 'msw'
import { http } from '../lib/msw.ts'
import { LOOPBACK_HOST, rebindingProblem } from '../lib/loopback.ts'
import { allowedMethods } from '../methods.ts'
import type { MockState } from '../state.ts'
import { createMcpEndpoint, type ConnectorPrincipal } from './mcp.ts'
import { connectorUrls, createAuthorizationServer, jsonResponse, metadataResponse, type ConnectorUrls } from './oauth.ts'
import { oauthText } from './params.ts'
import { digest } from './secrets.ts'
import { own } from './store.ts'

export { connectorUrls, type ConnectorUrls } from './oauth.ts'
export { connectorTools, type ConnectorTool } from './tools.ts'
export { readActivity, keyIdOf, type ActivityQuery, type ActivityPage } from './activity.ts'
export * from './store.ts'

export interface ConnectorOptions {
  /** The connector's origin, e.g. `https://mcp.example.com` or the standalone server's URL. */
  baseUrl: string
  /** Where unexpected errors are logged. */
  log?: (error: unknown) => void
}

export interface Connector {
  urls: ConnectorUrls
  /** True for the paths the connector answers (`/.well-known/oauth-*`, `/oauth/*`, `/mcp`). */
  owns(pathname: string): boolean
  /** The connector's answer to a request on one of its paths (a HEAD's without a body). */
  handle(request: Request): Promise<Response>
  /**
   * The same answer with its body, a HEAD's included: its GET's, worked out without what the GET
   * starts (RFC 9110 9.2.1, 9.3.2). The standalone server sends it, and node leaves a HEAD's body out,
   * so that its Content-Length is the GET's (8.6).
   */
  answer(request: Request): Promise<Response>
}

const CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-expose-headers': 'www-authenticate, mcp-session-id, mcp-protocol-version, x-shoptwin-trace',
}

/** The connector's paths and the methods each takes (`/mcp` documents GET and DELETE only to refuse them). */
export const CONNECTOR_METHODS: Readonly<Record<string, readonly string[]>> = {
  '/mcp': ['POST'],
  '/.well-known/oauth-authorization-server': ['GET'],
  '/.well-known/oauth-protected-resource': ['GET'],
  '/.well-known/oauth-protected-resource/mcp': ['GET'],
  '/oauth/register': ['POST'],
  '/oauth/authorize': ['GET', 'POST'],
  '/oauth/sign-in': ['POST'],
  '/oauth/token': ['POST'],
  '/oauth/revoke': ['POST'],
  '/oauth/connections': ['GET'],
  '/oauth/connections/revoke': ['POST'],
}

/**
 * The connector's refusal of a method, decided without a fetch Request (mock/methods.ts): 405 with
 * Allow for a method its known path does not take (JSON-RPC on /mcp, OAuth's error elsewhere), 404 for
 * a method no path takes on an unknown path; undefined when the request may go on.
 */
export function connectorMethodRefusal(method: string, pathname: string): Response | undefined {
  const known = CONNECTOR_METHODS[pathname]
  if (!known) return /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(method) ? undefined : jsonResponse(404, { error: 'not_found', error_description: `No connector endpoint at ${pathname}` })
  if (known.includes(method) || method === 'OPTIONS' || (method === 'HEAD' && known.includes('GET'))) return undefined
  const allow = { allow: allowedMethods(known).join(', ') }
  // MCP Streamable HTTP: a server without a server-to-client stream answers GET with 405; one without
  // sessions may answer DELETE with 405. This one is stateless and sends nothing unasked.
  if (pathname === '/mcp') return jsonResponse(405, { jsonrpc: '2.0', error: { code: -32000, message: `${method} is not supported: this endpoint is stateless, POST JSON-RPC messages` }, id: null }, allow)
  return jsonResponse(405, { error: 'method_not_allowed', error_description: `${method} is not allowed on ${pathname}` }, allow)
}

/**
 * The connector's refusal of a body over the server's limit (`shoptwin serve` reads at most `limit`
 * bytes): on /mcp a JSON-RPC error in the SDK's words for its own limit, elsewhere OAuth's error,
 * `invalid_request` (inferred: RFC 6749 5.2 has no code for a body too large). Connection: close, as
 * the rest of the body is dropped.
 */
export function connectorBodyTooLarge(pathname: string, limit: number): Response {
  const headers = { connection: 'close' }
  if (pathname === '/mcp') return jsonResponse(413, { jsonrpc: '2.0', error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${limit} bytes` }, id: null }, headers)
  return jsonResponse(413, { error: 'invalid_request', error_description: `Request body larger than ${limit} bytes` }, headers)
}

export const ownsPath = (pathname: string): boolean => pathname === '/mcp' || pathname.startsWith('/oauth/') || pathname.startsWith('/.well-known/oauth-')

/** The connector over a mock state. */
export function createConnector(state: MockState, { baseUrl, log = (e) => console.error('shoptwin connector: unexpected error', e) }: ConnectorOptions): Connector {
  const urls = connectorUrls(baseUrl)
  const loopback = LOOPBACK_HOST.test(new URL(urls.issuer).host)
  const as = createAuthorizationServer(state, urls)
  const mcp = createMcpEndpoint(state, { log })

  /**
   * RFC 6750 3 and RFC 9728 5.1: the challenge names the resource metadata; it carries an error code only
   * when the request had a Bearer token (3.1: none for a request without authentication, or with
   * another scheme). The description keeps to the characters of a quoted-string (RFC 6750 3).
   */
  const challenge = (status: 400 | 401, error: 'invalid_request' | 'invalid_token' | null, description: string): Response => {
    const text = oauthText(description)
    const header = error ? `Bearer error="${error}", error_description="${text}", resource_metadata="${urls.resourceMetadata}"` : `Bearer resource_metadata="${urls.resourceMetadata}"`
    return jsonResponse(status, { error: error ?? 'unauthorized', error_description: text }, { 'www-authenticate': header })
  }
  const unauthorized = (description: string): Response => challenge(401, 'invalid_token', description)

  /** The access token of the Authorization header, checked against the state on every call. */
  async function principalOf(request: Request): Promise<ConnectorPrincipal | Response> {
    const header = request.headers.get('authorization')
    // OAuth 2.1 and MCP authorization: the token goes in the header, never in the URL (bearer_methods_supported: header).
    const inQuery = new URL(request.url).searchParams.has('access_token')
    if (header === null) return challenge(401, null, inQuery ? 'The access token goes in the Authorization header (Bearer), not the URL query (OAuth 2.1; MCP authorization)' : 'An access token is required (OAuth 2.1, see resource_metadata)')
    // The scheme is named only when credentials follow it: a header that is one bare value may be the token itself.
    const scheme = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}(?= |$)/.exec(header.trim())?.[0] ?? ''
    if (scheme.toLowerCase() !== 'bearer') return challenge(401, null, `The Authorization header ${/ /.test(header.trim()) && scheme ? `uses ${scheme}` : 'has no scheme'}: the MCP endpoint takes Bearer <access token>`)
    if (inQuery) return challenge(400, 'invalid_request', 'The access token is sent by more than one method (the Authorization header and the URL query): send it in the header only (RFC 6750 3.1)')
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim())
    if (!match) return challenge(400, 'invalid_request', 'The Authorization header must be Bearer followed by one access token (RFC 6750 2.1)')
    const data = state.connector.data
    const token = own(data.tokens, await digest(match[1]!))
    if (!token || token.kind !== 'access') return unauthorized('Unknown access token')
    const family = own(data.families, token.family_id)!
    const connection = own(data.connections, family.connection_id)
    if (token.revoked_at || family.revoked_at || !connection || connection.revoked_at) return unauthorized('The access token was revoked')
    if (Date.parse(token.expires_at) <= state.clock.now().getTime()) return unauthorized('The access token expired')
    if (family.resource !== null && family.resource.replace(/\/$/, '') !== urls.mcp) return unauthorized(`The access token is for another resource (${family.resource})`)
    const user = data.users.find((u) => u.user_id === connection.user_id)
    if (!user) return unauthorized('The connection has no user')
    return {
      connection,
      user,
      authInfo: { token: match[1]!, clientId: family.client_id, scopes: [], expiresAt: Math.floor(Date.parse(token.expires_at) / 1000), resource: new URL(urls.mcp) },
    }
  }

  /** `changesState`: false for a HEAD, answered as this GET (an authorization request is then not kept). */
  async function route(request: Request, pathname: string, changesState: boolean): Promise<Response> {
    const method = request.method
    if (pathname === '/mcp') {
      // MCP transports, Security warning: a server on loopback validates Host and Origin (DNS rebinding).
      const problem = loopback ? rebindingProblem(request.headers.get('host'), request.headers.get('origin')) : null
      if (problem) return jsonResponse(403, { jsonrpc: '2.0', error: { code: -32000, message: problem }, id: null })
      const refusal = connectorMethodRefusal(method, pathname)
      if (refusal) return refusal
      const principal = await principalOf(request)
      if (principal instanceof Response) return principal
      return mcp.handle(request, principal)
    }
    const routes: Record<string, Partial<Record<string, () => Response | Promise<Response>>>> = {
      '/.well-known/oauth-authorization-server': { GET: () => metadataResponse(as.metadata()) },
      '/.well-known/oauth-protected-resource': { GET: () => metadataResponse(as.resourceMetadata()) },
      '/.well-known/oauth-protected-resource/mcp': { GET: () => metadataResponse(as.resourceMetadata()) },
      '/oauth/register': { POST: () => as.register(request) },
      '/oauth/authorize': { GET: () => as.authorize(request, { changesState }), POST: () => as.decide(request) },
      '/oauth/sign-in': { POST: () => as.signIn(request) },
      '/oauth/token': { POST: () => as.token(request) },
      '/oauth/revoke': { POST: () => as.revoke(request) },
      '/oauth/connections': { GET: () => as.connections(request) },
      '/oauth/connections/revoke': { POST: () => as.revokeConnection(request) },
    }
    const methods = routes[pathname]
    if (!methods) return jsonResponse(404, { error: 'not_found', error_description: `No connector endpoint at ${pathname}` })
    const refusal = connectorMethodRefusal(method, pathname)
    if (refusal) return refusal
    return methods[method]!()
  }

  async function answer(request: Request): Promise<Response> {
    const pathname = new URL(request.url).pathname.replace(/\/$/, '') || '/'
    const known = CONNECTOR_METHODS[pathname]
    const allow = known && allowedMethods(known)
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...CORS, ...(allow ? { allow: allow.join(', '), 'access-control-allow-methods': allow.join(', ') } : {}), 'access-control-max-age': '600' } })
    // HEAD is answered as GET would be, refusals included (RFC 9110 9.3.2), and changes nothing (9.2.1).
    const head = request.method === 'HEAD'
    let response: Response
    try {
      response = await route(head ? new Request(request.url, { method: 'GET', headers: request.headers }) : request, pathname, !head)
    } catch (error) {
      log(error)
      response = jsonResponse(500, { error: 'server_error', error_description: `Internal error in the connector: ${(error as Error).message}` })
    }
    return withCors(response)
  }

  return {
    urls,
    owns: ownsPath,
    answer,
    async handle(request) {
      const response = await answer(request)
      if (request.method !== 'HEAD') return response
      // An answer to HEAD has no body (RFC 9110 9.3.2).
      await response.body?.cancel()
      return new Response(null, { status: response.status, headers: response.headers })
    },
  }
}

/** The connector's CORS headers on an answer (those it set itself kept). */
export function withCors(response: Response): Response {
  const headers = new Headers(response.headers)
  for (const [k, v] of Object.entries(CORS)) if (!headers.has(k)) headers.set(k, v)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

/** MSW handlers serving the connector at `baseUrl` (its own origin, like the service's {mcp_url}). */
export function createConnectorHandlers(state: MockState, options: ConnectorOptions): HttpHandler[] {
  const connector = createConnector(state, options)
  const base = options.baseUrl.replace(/\/$/, '')
  return [`${base}/mcp`, `${base}/oauth/*`, `${base}/.well-known/*`].map((path) => http.all(path, ({ request }) => connector.handle(request)))
}
