/**
 * Examples of the assistant connector's operations (openapi/src/connector-door.ts): one request and
 * an answer per documented response, written after what mock/connector answers on
 * https://mcp.example.com (the connector's pages and redirects hold one-time values, so these are
 * written, not recorded). test/contract-examples.test.ts validates each against its schema.
 */
import type { Schema } from './dsl.ts'

const MCP = 'https://mcp.example.com'
const CLIENT_ID = '5f0c6d2e-8a51-4c39-9b1e-0d7e4f2a9c13'
const REDIRECT = 'http://127.0.0.1:33418/callback'
const tooLarge = { body: { error: 'invalid_request', error_description: 'Request body larger than 10485760 bytes' } }
const REQUEST_ID = 'b2f1c0de-4a7e-4c1f-8f53-2e9d6a1b7c40'
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

const page = (title: string, text: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`

interface ExampleAnswer {
  body?: unknown
  byType?: Record<string, unknown>
  location?: string
}

interface ConnectorExample {
  summary: string
  /** The request body (JSON or form fields). */
  body?: unknown
  /** Query parameter values. */
  query?: Record<string, unknown>
  /** Answers by status: a body (`byType`: one per content type, for a response with more than one), or the Location header of a redirect. */
  responses: Record<string, ExampleAnswer>
}

const metadata = {
  issuer: MCP,
  authorization_endpoint: `${MCP}/oauth/authorize`,
  token_endpoint: `${MCP}/oauth/token`,
  registration_endpoint: `${MCP}/oauth/register`,
  revocation_endpoint: `${MCP}/oauth/revoke`,
  response_types_supported: ['code'],
  response_modes_supported: ['query'],
  grant_types_supported: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_methods_supported: ['none'],
  revocation_endpoint_auth_methods_supported: ['none'],
  code_challenge_methods_supported: ['S256'],
  authorization_response_iss_parameter_supported: true,
  scopes_supported: [],
  service_documentation: `${MCP}/oauth/connections`,
}
const resourceMetadata = { resource: `${MCP}/mcp`, authorization_servers: [MCP], bearer_methods_supported: ['header'], scopes_supported: [], resource_name: 'Shop Analytics assistant connector (shoptwin)' }
const serverError = { body: { error: 'server_error', error_description: 'An unexpected error in the connector' } }
const notOffered = { body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to this endpoint' } } }

export const connectorExamples: Record<string, ConnectorExample> = {
  getConnectorAuthorizationServerMetadata: { summary: 'The authorization server\'s metadata', responses: { '200': { body: metadata }, '5XX': serverError } },
  getConnectorResourceMetadata: { summary: 'The MCP endpoint\'s protected-resource metadata', responses: { '200': { body: resourceMetadata }, '5XX': serverError } },
  getConnectorResourceMetadataAtRoot: { summary: 'The same document at the well-known root', responses: { '200': { body: resourceMetadata }, '5XX': serverError } },
  registerConnectorClient: {
    summary: 'A desktop assistant registers itself with a loopback redirect URI',
    body: { client_name: 'Desktop assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
    responses: {
      '201': { body: { client_id: CLIENT_ID, client_name: 'Desktop assistant', redirect_uris: [REDIRECT], client_id_issued_at: 1773144000, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' } },
      '400': { body: { error: 'invalid_redirect_uri', error_description: 'A redirect URI must be https, or http on a loopback host' } },
      '413': tooLarge,
      '5XX': serverError,
    },
  },
  startConnectorAuthorization: {
    summary: 'The client sends the user\'s browser to sign in and consent',
    query: { response_type: 'code', client_id: CLIENT_ID, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'af0ifjsldkj', resource: `${MCP}/mcp` },
    responses: {
      '200': { body: page('Sign in', 'Sign in to allow Desktop assistant to use your shops.') },
      '302': { location: `${REDIRECT}?error=invalid_request&error_description=code_challenge_method%20'plain'%20is%20not%20supported%3A%20S256%20only&state=af0ifjsldkj&iss=${encodeURIComponent(MCP)}` },
      '400': {
        byType: {
          'text/html': page('Authorization error', 'This redirect URI is not registered for the client.'),
          'application/json': { error: 'invalid_client', error_description: 'No application is registered with this client_id' },
        },
      },
      '5XX': serverError,
    },
  },
  answerConnectorConsent: {
    summary: 'The user allows two tools on one shop',
    body: { request_id: REQUEST_ID, decision: 'allow', shop: ['e6acfe78-27b9-4559-978b-66835b4bbe1e'], tool: ['getShopStats', 'listSampleRequests'] },
    responses: {
      '302': { location: `${REDIRECT}?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&iss=${encodeURIComponent(MCP)}` },
      '400': { body: page('Allow Desktop assistant?', 'Choose at least one shop and one tool.') },
      '403': { body: page('Sign in', 'Sign in as the user of this request.') },
      '413': tooLarge,
      '5XX': serverError,
    },
  },
  signInToConnector: {
    summary: 'The account\'s user signs in, then goes back to the pending request',
    body: { email: 'owner@brand.example', password: 'correct horse battery staple', request_id: REQUEST_ID },
    responses: {
      '303': { location: `${MCP}/oauth/authorize?request_id=${REQUEST_ID}` },
      '400': { body: page('Authorization error', 'This authorization request is unknown or expired.') },
      '401': { body: page('Sign in', 'Email or password is not right.') },
      '413': tooLarge,
      '5XX': serverError,
    },
  },
  requestConnectorToken: {
    summary: 'The code and its PKCE verifier exchanged for tokens',
    body: { grant_type: 'authorization_code', code: 'SplxlOBeZQQYbYS6WxSbIA', code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: CLIENT_ID, resource: `${MCP}/mcp` },
    responses: {
      '200': { body: { access_token: 'mcp_at_2YotnFZFEjr1zCsicMWpAA', token_type: 'Bearer', expires_in: 3600, refresh_token: 'mcp_rt_tGzv3JOkF0XG5Qx2TlKWIA' } },
      '400': { body: { error: 'invalid_grant', error_description: 'The code is unknown, spent or expired' } },
      '401': { body: { error: 'invalid_client', error_description: 'Unknown client_id' } },
      '413': tooLarge,
      '5XX': serverError,
    },
  },
  revokeConnectorToken: {
    summary: 'The client revokes its refresh token (and so its grant)',
    body: { token: 'mcp_rt_tGzv3JOkF0XG5Qx2TlKWIA', token_type_hint: 'refresh_token', client_id: CLIENT_ID },
    responses: {
      '400': { body: { error: 'invalid_request', error_description: 'token is required' } },
      '401': { body: { error: 'invalid_client', error_description: 'Unknown client_id' } },
      '413': tooLarge,
      '5XX': serverError,
    },
  },
  listConnectorConnections: { summary: 'The signed-in user\'s connections', responses: { '200': { body: page('Connected assistants', 'Desktop assistant: 1 shop, 2 tools, connected 2026-03-10. Revoke') }, '5XX': serverError } },
  revokeConnectorConnection: {
    summary: 'The user revokes a connection',
    body: { connection_id: '0d9c1b7a-6f3e-4e21-a5d8-93b2c4e7f610' },
    responses: {
      '303': { location: `${MCP}/oauth/connections` },
      '400': { body: page('Invalid request', 'connection_id is missing') },
      '403': { body: page('Sign in', 'Sign in to manage your connections.') },
      '404': { body: page('Not found', 'No such connection on your account.') },
      '413': tooLarge,
      '5XX': serverError,
    },
  },
  callConnectorMcp: {
    summary: 'A tool call: the shop\'s SPS',
    body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'getShopSps', arguments: { shop_id: 'e6acfe78-27b9-4559-978b-66835b4bbe1e' } } },
    responses: {
      '200': { body: { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: '{"data":{"sps":4.6}}' }], structuredContent: { data: { sps: 4.6 } }, isError: false } } },
      '400': { body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } },
      '401': { body: { error: 'invalid_token', error_description: 'The access token is expired' } },
      '403': { body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Forbidden: the Origin is not a loopback origin' } } },
      '406': { body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable: the client must accept both application/json and text/event-stream' } } },
      '413': { body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Payload Too Large: Request body must not exceed 4194304 bytes' } } },
      '415': { body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unsupported Media Type: the body must be application/json' } } },
      '5XX': serverError,
    },
  },
  openConnectorMcpStream: { summary: 'No server-to-client stream', responses: { '405': notOffered, '5XX': serverError } },
  endConnectorMcpSession: { summary: 'No session to end', responses: { '405': notOffered, '5XX': serverError } },
}

const examplesOf = (summary: string, value: unknown): Schema => ({ demo: { summary, value } })

/** The response with its example: on each of its content types, or on the Location header of a redirect. */
function withResponseExample(response: Schema, summary: string, answer: ExampleAnswer): Schema {
  const out: Schema = { ...response }
  if (answer.body !== undefined || answer.byType !== undefined) {
    const content = response.content as Record<string, Schema>
    out.content = Object.fromEntries(Object.entries(content).map(([type, media]) => [type, { ...media, examples: examplesOf(summary, answer.byType ? answer.byType[type] : answer.body) }]))
  }
  if (answer.location !== undefined) {
    const headers = response.headers as Record<string, Schema>
    out.headers = { ...headers, Location: { ...headers.Location, example: answer.location } }
  }
  return out
}

/** The connector's paths with every operation's examples (a copy). */
export function withConnectorExamples(paths: Record<string, Record<string, Schema>>): Record<string, Record<string, Schema>> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, op]) => {
          const example = connectorExamples[op.operationId as string]
          if (!example) throw new Error(`${String(op.operationId)}: no connector example`)
          const out: Schema = { ...op }
          if (example.body !== undefined) {
            const requestBody = op.requestBody as Schema
            const content = requestBody.content as Record<string, Schema>
            out.requestBody = { ...requestBody, content: Object.fromEntries(Object.entries(content).map(([type, media]) => [type, { ...media, examples: examplesOf(example.summary, example.body) }])) }
          }
          if (example.query) {
            out.parameters = (op.parameters as Schema[]).map((p) => (p.in === 'query' && (p.name as string) in example.query! ? { ...p, examples: examplesOf(example.summary, example.query![p.name as string]) } : p))
          }
          const responses = op.responses as Record<string, Schema>
          out.responses = Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, example.responses[status] ? withResponseExample(response, example.summary, example.responses[status]!) : response]))
          return [method, out]
        }),
      ),
    ]),
  )
}
