/**
 * The connector's MCP endpoint: the official SDK's low-level `Server` over its web-standard Streamable
 * HTTP transport (stateless, JSON answers), one per request, holding the tools the connection's consent
 * allows. A tool call runs the operation's REST pipeline (validation, rate limit, idempotency, plan and
 * tier gates, the area handler, the activity log) with the connection's grant in place of a key.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import { createPipeline, requestContext, type RequestHeaders } from '../pipeline/index.ts'
import { serializeBody, type ApiResult } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { ApiKeyRecord } from '../world.ts'
import type { Connection, ConnectorUser } from './store.ts'
import { argumentProblem, connectorTools, type ConnectorTool } from './tools.ts'
import { TRACE_HEADER } from '../trace/types.ts'
import { jsonResponse } from './oauth.ts'

const INTERNAL_ORIGIN = 'http://shoptwin.internal'

/**
 * The SDK, loaded on the first MCP request: with zod it is some 170 modules, a third of what a
 * server start would load, and most servers never see an assistant.
 */
const loadSdk = async () => {
  const [{ Server }, { WebStandardStreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema, SUPPORTED_PROTOCOL_VERSIONS }, { isJsonContentType }, { readRequestBody }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/mediaType.js'),
    import('@modelcontextprotocol/sdk/server/requestBody.js'),
  ])
  return { Server, WebStandardStreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, isJsonContentType, readRequestBody }
}
let sdk: ReturnType<typeof loadSdk> | undefined

/** Who a valid access token speaks for. */
export interface ConnectorPrincipal {
  connection: Connection
  user: ConnectorUser
  authInfo: AuthInfo
}

export const MCP_MESSAGES = {
  toolNotAllowed: (tool: string) => `Forbidden: this connection is not allowed to use the tool ${tool}`,
  shopNotAllowed: 'Forbidden: this connection does not have access to this shop',
  missingShop: 'Missing shop_id argument (the shop to act on)',
  unknownTool: (tool: string) => `Unknown tool: ${tool}`,
} as const

function headersOf(values: Record<string, string>): RequestHeaders {
  const names = Object.keys(values).sort()
  return {
    get: (name) => values[name.toLowerCase()] ?? null,
    forEach: (fn) => names.forEach((n) => fn(values[n]!, n)),
  }
}


/** The REST answer as an MCP tool result: the same JSON as structured content and as text. */
function toolResult(result: ApiResult): CallToolResult {
  const text = result.status === 204 ? '' : serializeBody(result)
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  const meta: Record<string, unknown> = { 'shoptwin/status': result.status }
  const headers = result.headers ?? {}
  if (headers['idempotent-replayed'] === 'true') meta['shoptwin/idempotent-replayed'] = true
  if (headers['retry-after']) meta['shoptwin/retry-after'] = Number(headers['retry-after'])
  if (headers[TRACE_HEADER]) meta['shoptwin/trace'] = headers[TRACE_HEADER]
  return {
    content: [{ type: 'text', text }],
    ...(body && typeof body === 'object' && !Array.isArray(body) ? { structuredContent: body as Record<string, unknown> } : {}),
    ...(result.status >= 400 ? { isError: true } : {}),
    _meta: meta,
  }
}

/** The MCP endpoint over a mock state. */
export function createMcpEndpoint(state: MockState, { log }: { log?: (error: unknown) => void } = {}) {
  const pipeline = createPipeline(log ? { log } : {})

  function refuse(principal: ConnectorPrincipal, tool: ConnectorTool | undefined, name: string, shopId: string | null, status: number, message: string): CallToolResult {
    const { connection } = principal
    state.activity.record({
      time: state.clock.now().toISOString(),
      actor: { kind: 'connector', client_id: connection.client_id, client_name: connection.client_name, connection_id: connection.connection_id },
      shop_id: shopId,
      operation_id: tool?.op.operationId ?? name,
      tool: name,
      status,
      idempotent_replay: false,
    })
    return toolResult({ status, body: { error: message } })
  }

  /** Runs one tool call through the REST pipeline; `traces` receives the trace id of its answer. Throws (code -32602) for a tool that does not exist. */
  async function callTool(principal: ConnectorPrincipal, name: string, args: Record<string, unknown>, traces?: string[]): Promise<CallToolResult> {
    const { connection, user } = principal
    const tool = connectorTools(state.contract).find((t) => t.name === name)
    const shopArg = typeof args.shop_id === 'string' ? args.shop_id : null
    if (!tool) {
      refuse(principal, undefined, name, shopArg, 404, MCP_MESSAGES.unknownTool(name))
      // MCP tools, Error handling (every version): an unknown tool is a protocol error, -32602 with these
      // words; thrown with its code, the SDK answers it as it is (an McpError would prefix its message).
      throw Object.assign(new Error(MCP_MESSAGES.unknownTool(name)), { code: -32602 })
    }
    if (!connection.tools.includes(name)) return refuse(principal, tool, name, shopArg, 403, MCP_MESSAGES.toolNotAllowed(name))
    if (tool.shopArgument) {
      if (shopArg === null || shopArg.trim() === '') return refuse(principal, tool, name, null, 400, MCP_MESSAGES.missingShop)
      if (!connection.shops.some((s) => s.toLowerCase() === shopArg.trim().toLowerCase())) return refuse(principal, tool, name, shopArg, 403, MCP_MESSAGES.shopNotAllowed)
    }
    const problem = argumentProblem(state.contract, tool, args)
    if (problem) return refuse(principal, tool, name, shopArg, 400, problem)
    const { op } = tool
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (tool.shopArgument) headers['x-shop-id'] = shopArg!
    const body: Record<string, unknown> = {}
    let path = op.path
    const params: Record<string, string> = {}
    for (const [key, value] of Object.entries(args)) {
      if (key === 'shop_id' && tool.shopArgument) continue
      if (key === 'idempotency_key' && op.idempotent) {
        headers['idempotency-key'] = String(value)
        continue
      }
      if (op.pathParams.some((p) => p.name === key)) {
        params[key] = String(value)
        path = path.replace(`{${key}}`, encodeURIComponent(String(value)))
        continue
      }
      body[key] = value
    }
    const url = new URL(`${INTERNAL_ORIGIN}${path}`)
    if (op.method === 'GET') for (const [k, v] of Object.entries(body)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v))
    // The connection's grant stands in for a key: its shops and tools, the account's tier, and a rate
    // limit of its own (spec: Limits are per key, measured per shop).
    const grant: ApiKeyRecord = {
      key: `connector:${connection.connection_id}`,
      label: connection.client_name,
      tier: user.tier,
      routes: connectorTools(state.contract).filter((t) => connection.tools.includes(t.name)).map((t) => t.op.permission),
      shops: connection.shops,
    }
    state.connector.apply('touchConnection', { connection_id: connection.connection_id, now: state.clock.now().toISOString() })
    const result = await pipeline(
      requestContext(state, op, op, {
        method: op.method,
        headers: headersOf(headers),
        url,
        params,
        bodyText: op.method === 'GET' ? '' : JSON.stringify(body),
        apiKey: grant,
        connector: { connection_id: connection.connection_id, client_id: connection.client_id, client_name: connection.client_name },
      }),
    )
    const trace = result.headers?.[TRACE_HEADER]
    if (trace) traces?.push(trace)
    return toolResult(result)
  }

  /** A Server whose handlers find the principal of each request in its auth info. */
  function createMcpServer({ Server, CallToolRequestSchema, ListToolsRequestSchema }: Awaited<ReturnType<typeof loadSdk>>): Server {
    const server = new Server(
      { name: 'shoptwin-connector', title: 'Shop Analytics assistant connector (shoptwin)', version: '1.0.0' },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: 'Tools act on the shops this connection was allowed at consent; pass shop_id (from listAccountShops). Every call is recorded in the account activity log.',
      },
    )
    const principalOf = (extra: { authInfo?: AuthInfo }) => extra.authInfo?.extra?.principal as ConnectorPrincipal
    const tracesOf = (extra: { authInfo?: AuthInfo }) => extra.authInfo?.extra?.traces as string[] | undefined
    server.setRequestHandler(ListToolsRequestSchema, (_, extra) => {
      const { connection } = principalOf(extra)
      return {
        tools: connectorTools(state.contract)
          .filter((t) => connection.tools.includes(t.name))
          .map((t) => ({
            name: t.name,
            title: t.title,
            description: t.description,
            inputSchema: t.inputSchema,
            annotations: { title: t.title, readOnlyHint: t.kind === 'read', destructiveHint: t.kind === 'write' && t.op.method === 'DELETE', idempotentHint: t.kind === 'read' || t.op.idempotent, openWorldHint: false },
          })),
      }
    })
    server.setRequestHandler(CallToolRequestSchema, (req, extra) => callTool(principalOf(extra), req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>, tracesOf(extra)))
    return server
  }

  // Servers between requests: a stateless transport serves one request, but a Server can be connected
  // to the next one once closed (building a Server costs about as much as the rest of a tool call).
  const idle: Server[] = []

  /** Answers one MCP request (POST, GET or DELETE on the endpoint) for an authenticated principal. */
  async function handle(request: Request, principal: ConnectorPrincipal): Promise<Response> {
    const loaded = await (sdk ??= loadSdk())
    const checked = await protocolCheck(request, loaded)
    if (checked instanceof Response) return checked
    const server = idle.pop() ?? createMcpServer(loaded)
    const transport = new loaded.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    try {
      // The tool calls of this request name their traces here: the answer carries them in x-shoptwin-trace.
      const traces: string[] = []
      const authInfo = { ...principal.authInfo, extra: { principal, traces } }
      const response = await invalidParamsAnswered(await transport.handleRequest(request, checked === undefined ? { authInfo } : { authInfo, parsedBody: checked.parsed }))
      if (!traces.length) return response
      const headers = new Headers(response.headers)
      headers.set(TRACE_HEADER, traces.join(', '))
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
    } finally {
      await server.close()
      if (idle.length < 16) idle.push(server)
    }
  }

  return { handle, callTool }
}

/** The one protocol version with JSON-RPC batches: 2025-03-26 added them, 2025-06-18 removed them. */
export const BATCHING_PROTOCOL_VERSION = '2025-03-26'

const isInitialize = (message: unknown): boolean => message !== null && typeof message === 'object' && (message as { method?: unknown }).method === 'initialize'

/** An HTTP request refused as a whole: 400 and JSON-RPC -32600 Invalid Request without an id, as the SDK refuses its batches. */
const invalidRequest = (message: string): Response => jsonResponse(400, { jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: ${message}` }, id: null })

/**
 * A JSON array body (a JSON-RPC batch) where MCP has none: the SDK runs any batch, whatever the version;
 * and an unsupported MCP-Protocol-Version on initialize, which the SDK took (Streamable HTTP, 2025-06-18:
 * "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond
 * with 400 Bad Request": any request, initialize too, inferred), refused with the SDK's own answer.
 * - 2025-06-18 removed batching (changelog, Major changes 1; Streamable HTTP: "The body of the POST
 *   request MUST be a single JSON-RPC request, notification, or response"), and 2025-11-25 kept it out;
 *   2024-11-05 had none (2025-03-26 added it). The version is the MCP-Protocol-Version header, or
 *   2025-03-26 without one (Streamable HTTP, 2025-06-18: the server "SHOULD assume protocol version
 *   2025-03-26"); an unsupported one is left to the SDK's 400, which names it.
 * - In no version is initialize batched (lifecycle, 2025-03-26: "The initialize request MUST NOT be part
 *   of a JSON-RPC batch"; the SDK refuses it beside other messages, not alone).
 * - An empty array is no batch (JSON-RPC 2.0 6: Invalid Request); the SDK answered it 202.
 * The refusal is 400 with -32600 Invalid Request and a null id, as the SDK answers a batch over its size
 * (inferred: the MCP spec names no status or code for it). The SDK's own refusals that come before it
 * parses the body (Accept 406, Content-Type 415, size 413, parse error) stay first. A body this reads
 * and lets through is handed to the SDK parsed (`parsed`).
 */
async function protocolCheck(request: Request, sdk: Awaited<ReturnType<typeof loadSdk>>): Promise<Response | { parsed: unknown } | undefined> {
  if (request.method !== 'POST') return undefined
  const accept = request.headers.get('accept') ?? ''
  if (!accept.includes('application/json') || !accept.includes('text/event-stream') || !sdk.isJsonContentType(request.headers.get('content-type'))) return undefined
  let parsed: unknown
  try {
    const body = await sdk.readRequestBody(request.clone())
    if (body.tooLarge) return undefined
    parsed = JSON.parse(body.text)
  } catch {
    return undefined
  }
  const header = request.headers.get('mcp-protocol-version')
  const unsupported = header !== null && !sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(header)
  if (!Array.isArray(parsed)) {
    // The SDK reads the header after initialize only, and took any on initialize itself.
    if (unsupported && isInitialize(parsed)) return jsonResponse(400, { jsonrpc: '2.0', error: { code: -32000, message: `Bad Request: Unsupported protocol version: ${header} (supported versions: ${sdk.SUPPORTED_PROTOCOL_VERSIONS.join(', ')})` }, id: null })
    return { parsed }
  }
  if (parsed.some(isInitialize)) return invalidRequest('initialize must not be part of a JSON-RPC batch (MCP lifecycle): send it alone')
  if (unsupported) return { parsed }
  const version = header ?? BATCHING_PROTOCOL_VERSION
  if (version !== BATCHING_PROTOCOL_VERSION) return invalidRequest(`JSON-RPC batches are not part of MCP ${version} (only 2025-03-26 has them): send one message per POST`)
  if (parsed.length === 0) return invalidRequest('an empty batch (JSON-RPC 2.0: a batch has at least one message)')
  return { parsed }
}

/** `params.name: expected string` (zod's `record` is a JSON object). */
const issueText = ({ path = [], expected, message }: { path?: unknown[]; expected?: string; message?: string }) =>
  `${['params', ...path.slice(path[0] === 'params' ? 1 : 0)].join('.')}: ${expected ? `expected ${expected === 'record' ? 'object' : expected}` : (message ?? 'invalid')}`

/** A JSON-RPC error as the SDK writes it for params its schema refused: -32603, the message the zod issues as JSON. */
const SCHEMA_REFUSAL = /"error":\{"code":-32603,"message":"\[/

/**
 * Params a method's schema refuses (`tools/call` without a name, `arguments: "x"`, `initialize` without
 * params) are the caller's error, -32602 Invalid params (JSON-RPC 2.0 5.1), but the SDK answers -32603
 * Internal error with the zod issues dumped as JSON in the message (modelcontextprotocol/typescript-sdk
 * issue 2284, open). The answer is rewritten: -32602 and the issues in one line (`Invalid params:
 * params.name: expected string`). Any other answer is passed on as it came.
 */
async function invalidParamsAnswered(response: Response): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return response
  const text = await response.text()
  const answer = () => new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers })
  if (!SCHEMA_REFUSAL.test(text)) return answer()
  const messages = JSON.parse(text) as unknown
  let rewritten = false
  for (const message of Array.isArray(messages) ? messages : [messages]) {
    const error = (message as { error?: { code?: number; message?: string } }).error
    if (error?.code !== -32603 || !error.message?.startsWith('[')) continue
    let issues: Array<{ path?: unknown[]; message?: string; expected?: string }>
    try {
      issues = JSON.parse(error.message) as typeof issues
    } catch {
      continue
    }
    if (!Array.isArray(issues) || !issues.every((i) => i && typeof i === 'object' && Array.isArray(i.path))) continue
    error.code = -32602
    error.message = `Invalid params: ${issues.map(issueText).join('; ')}`
    rewritten = true
  }
  if (!rewritten) return answer()
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  return new Response(JSON.stringify(messages), { status: response.status, statusText: response.statusText, headers })
}
