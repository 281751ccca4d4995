/**
 * The standalone server: node:http → the same pipeline as the MSW handlers → node response. Requests
 * are routed by method and path to the one operation (scanning all ~100 handlers per request costs
 * more), which runs straight on node's parsed request (no fetch Request or Response, no MSW matching);
 * the control API goes through MSW's getResponse, the connector through its fetch handler.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { HttpHandler } from 'msw'
import { getResponse } from './lib/msw.ts'
import { adminMethods, createAdminHandlers } from './admin.ts'
import { HOST_FIELD } from './lib/host-field.ts'
import { rebindingProblem } from './lib/loopback.ts'
import { CONNECTOR_METHODS, connectorBodyTooLarge, connectorMethodRefusal, createConnector, ownsPath, withCors, type Connector } from './connector/index.ts'
import { createOperationRoutes, operationRouter } from './handlers.ts'
import { allowedMethods, answeredAs, CORS_HEADERS, isMethodToken, methodRefusal, pathMethods, preflightHeaders, RECOGNISED_METHODS } from './methods.ts'
import type { RequestHeaders } from './pipeline/index.ts'
import { apiError, serializeBody, toResponse, type ApiResult } from './respond.ts'
import { createMockState, type MockState, type MockStateOptions } from './state.ts'
import { redactHeaders } from './stores/journal.ts'
import { StoreUnavailable } from './twin/ops.ts'
import { noOperation } from './trace/unmatched.ts'
import { CONSOLE_PAGE_ROUTES, serveConsole } from './console/serve.ts'
import { unlessReadThisTurn } from './lib/sockets.ts'

// node:http as its CommonJS object: an ESM import of it reads every export, and its WebSocket,
// MessageEvent and CloseEvent getters load Node's fetch (undici), some 25-60 ms of a start.
const { createServer: createHttpServer, STATUS_CODES } = process.getBuiltinModule('node:http')

/** The origin requests are rebuilt on before they reach the handlers. */
const INTERNAL_ORIGIN = 'http://shoptwin.internal'
const MAX_BODY_BYTES = 10 * 1024 * 1024

export interface ServerOptions {
  /** An existing state, or options for a new one. */
  state?: MockState
  stateOptions?: MockStateOptions
  /** Serve /__admin/ to non-loopback clients too (default false). */
  remoteAdmin?: boolean
  /** `map` (default): route by method and path to one handler; `scan`: let MSW scan every handler. */
  routing?: 'map' | 'scan'
  log?: (error: unknown) => void
}

export interface MockServer {
  state: MockState
  server: Server
  /** Listens (port 4010, host 127.0.0.1 by default); resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  close(options?: { graceMs?: number }): Promise<void>
  /** The base URL once listening. */
  readonly url: string | undefined
}

/**
 * The request body (undefined for GET and HEAD), read with 'data' and 'end' events: an async
 * iterator over the request costs promises, stream listeners and ticks on every request. Past the
 * limit the rest is read and dropped: stopping early would reset the connection before the client
 * could read the 413.
 */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    let ended = false
    // Each comes once per request: `on`, as `once` would wrap every listener again.
    req.on('end', () => {
      ended = true
      if (size > MAX_BODY_BYTES) reject(apiError(413, `Request body larger than ${MAX_BODY_BYTES} bytes`, { connection: 'close' }))
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
    })
    req.on('error', reject)
    // A client gone before the end of its body. (Not made after 'end': an Error records a stack.)
    req.on('close', () => ended || reject(new Error('Request closed before its body ended')))
  })
}

/** True for 127.0.0.0/8 and ::1 (also IPv4-mapped). */
export const isLoopback = (address: string | undefined): boolean => !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))

const ADMIN_LOOPBACK_ONLY = 'The control API is only served to loopback clients (start with --remote-admin to allow others)'

const isAdminPath = (path: string): boolean => path === '/__admin' || path.startsWith('/__admin/')

const utf8 = new TextDecoder()
/** The body as text, decoded as fetch's `request.text()` decodes it (UTF-8, a leading BOM dropped). */
const textOf = (body: Buffer | undefined): string => (body && body.length ? utf8.decode(body) : '')

/** node's parsed headers as the pipeline reads them; repeated values joined as fetch's Headers joins them. */
function nodeHeaders(raw: IncomingHttpHeaders): RequestHeaders {
  const valueOf = (value: string | string[]) => (typeof value === 'string' ? value : value.join(', '))
  return {
    get(name) {
      const value = raw[name.toLowerCase()]
      return value === undefined ? null : valueOf(value)
    },
    // In name order, as fetch's Headers iterates.
    forEach(fn) {
      for (const name of Object.keys(raw).sort()) {
        const value = raw[name]
        if (value !== undefined) fn(valueOf(value), name)
      }
    },
  }
}

function fetchHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  return headers
}

/**
 * Writes a pipeline result as `toResponse` + `send` would: the CORS headers, the result's own (names
 * lower-cased), `content-type: application/json` unless set, no body on 204.
 */
const EMPTY = new Uint8Array(0)

function sendResult(res: ServerResponse, result: ApiResult): void {
  if (result.dropConnection) return void res.socket?.destroy()
  const { status } = result
  // A fetch Response refuses these: the same 500 as on the MSW path.
  if (status < 200 || status > 599 || !Number.isInteger(status)) throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`)
  const headers: Record<string, string> = { ...CORS_HEADERS }
  if (result.headers) for (const name in result.headers) headers[name.toLowerCase()] = result.headers[name]!
  headers['content-type'] ??= 'application/json'
  // Encoded once (a cached answer carries its bytes already).
  const body = status === 204 ? EMPTY : (result.rawBytes ?? Buffer.from(serializeBody(result), 'utf8'))
  headers['content-length'] = String(body.length)
  res.writeHead(status, headers)
  res.end(body)
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  if (response.type === 'error') return void res.socket?.destroy()
  const body = Buffer.from(await response.arrayBuffer())
  const headers: Record<string, string> = { ...CORS_HEADERS }
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  headers['content-length'] = String(body.length)
  res.writeHead(response.status, headers)
  res.end(body)
}

/**
 * The connector's and the control API's routes on a shared store (mock/twin/): caught up with the log
 * first; a route that may change the twin (anything but a HEAD, or a GET of the control API or of
 * OAuth metadata) runs as one write, and its answer, read whole under the lease, is sent once the
 * write is committed (a replica killed between its answer and its commit would otherwise lose what it
 * said it did). The metrics answer without the store, so an operator sees a replica that lost it. The
 * REST operations do this in their pipeline. In memory: as it is.
 */
async function sharedTwin(state: MockState, method: string, path: string, answer: () => Promise<Response>): Promise<Response> {
  if (!state.twin.shared || (method === 'GET' && path === '/__admin/metrics')) return answer()
  await state.sync()
  // A HEAD changes nothing (the connector answers it as its GET without the GET's effects): a read.
  if (method === 'HEAD' || (method === 'GET' && (isAdminPath(path) || path.startsWith('/.well-known/')))) return answer()
  return state.exclusive(async () => whole(await answer()))
}

/** The same answer with its body read (a body still being written would outlive the write). */
async function whole(response: Response): Promise<Response> {
  if (response.type === 'error') return response
  const body = response.body === null ? null : await response.arrayBuffer()
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/** A request target in the absolute form (`http://host/path?q`; RFC 9112 3.2.2: a server MUST accept it). */
const ABSOLUTE_FORM = /^https?:\/\//i

/**
 * What makes a request that node's parser let through malformed (a version other than HTTP/1.x; RFC 9112
 * 3.2: an HTTP/1.1 request without Host, any request with more than one or with an invalid one, MUST be
 * answered 400; an absolute-form target that is not a URL), or undefined.
 */
function requestProblem(req: IncomingMessage): string | undefined {
  // node's parser reads an HTTP/0.9 request line (no version) and any x.y version as HTTP/1 framing.
  if (req.httpVersionMajor !== 1) return `HTTP/${req.httpVersion} is not supported: this server speaks HTTP/1.1 and HTTP/1.0`
  let hosts = 0
  let host = ''
  const raw = req.rawHeaders
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') {
      hosts++
      host = raw[i + 1]!
    }
  }
  if (hosts > 1) return 'More than one Host header: a request carries exactly one (RFC 9112 3.2)'
  if (hosts === 0 && req.httpVersion === '1.1') return 'Missing Host header: an HTTP/1.1 request must carry one (RFC 9112 3.2)'
  if (hosts === 1 && !HOST_FIELD.test(host)) return `Invalid Host header: ${JSON.stringify(host.slice(0, 80))} is not host[:port] (RFC 9112 3.2)`
  const url = req.url ?? '/'
  if (ABSOLUTE_FORM.test(url) && !URL.canParse(url)) return `Malformed request target: ${JSON.stringify(url.slice(0, 80))}`
  return undefined
}

/** An error written straight on a socket (what node's parser refuses, CONNECT): the JSON `{error}`, then the connection closes. */
function rawAnswer({ status, body, headers = {} }: ReturnType<typeof apiError>): string {
  const text = JSON.stringify(body)
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`
}

/** A standalone HTTP server answering through the mock's MSW handlers. */
export function createServer({ state = undefined, stateOptions, remoteAdmin = false, routing = 'map', log }: ServerOptions = {}): MockServer {
  const mockState = state ?? createMockState(stateOptions)
  const routes = createOperationRoutes(mockState, { baseUrl: INTERNAL_ORIGIN, ...(log ? { log } : {}) })
  // MSW handlers, made when a request first needs them (the fast path does not: mock/lib/msw.ts).
  let allHandlers: HttpHandler[] | undefined
  let adminHandlers: HttpHandler[] | undefined
  const router = operationRouter(routes)
  let url: string | undefined
  // The assistant connector on the same listener (`/mcp`, `/oauth/*`, `/.well-known/oauth-*`), its base URL the server's.
  let connector: Connector | undefined

  const restMethods = pathMethods(mockState.contract.operations.map((op) => [op.path, op.method] as const))
  /** The Allow list of an API or control-API path (the console's page too; undefined when unknown); the connector decides its own. */
  const allowOf = (path: string): string[] | undefined => (isAdminPath(path) ? pathMethods([...adminMethods(mockState.admin), ...CONSOLE_PAGE_ROUTES]).allowOf(path) : restMethods.allowOf(path))

  /** A request no operation answered (no such path, or a method the path does not take), in the journal. */
  const journalUnrouted = (req: IncomingMessage, path: string, status: number) =>
    mockState.journal.record({ time: mockState.clock.now().toISOString(), method: req.method ?? 'GET', path, query: {}, headers: redactHeaders(nodeHeaders(req.headers)), body: null, operationId: null, status })

  /**
   * The answer to a method node's parser stops before 'request' (an unknown token; CONNECT, handed
   * over as a tunnel): 405 with Allow on a known path, 404 elsewhere (mock/methods.ts).
   */
  const refuseUnparsed = (method: string, target: string, remoteAddress: string | undefined): ReturnType<typeof apiError> => {
    const path = target.split('?')[0]
    if (isAdminPath(path) && !remoteAdmin && !isLoopback(remoteAddress)) return apiError(403, ADMIN_LOOPBACK_ONLY)
    const connectorAllow = ownsPath(path) ? CONNECTOR_METHODS[path.replace(/\/$/, '') || '/'] : undefined
    const allow = connectorAllow ? allowedMethods(connectorAllow) : path.startsWith('/') ? allowOf(path) : undefined
    return methodRefusal(method, path, allow) ?? apiError(404, `No operation at ${method} ${target}`)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const malformed = requestProblem(req)
      if (malformed) {
        res.shouldKeepAlive = false
        return sendResult(res, apiError(400, malformed))
      }
      // The absolute form is served as its path.
      if (req.url && ABSOLUTE_FORM.test(req.url)) {
        const { pathname, search } = new URL(req.url)
        req.url = `${pathname}${search}`
      }
      const rawUrl = req.url ?? '/'
      const path = rawUrl.split('?')[0]
      const admin = isAdminPath(path)
      if (admin && !remoteAdmin) {
        if (!isLoopback(req.socket.remoteAddress)) return sendResult(res, apiError(403, ADMIN_LOOPBACK_ONLY))
        // A page of another site, through the browser (its Origin) or by a name rebound to 127.0.0.1 (its Host).
        const problem = rebindingProblem(req.headers.host, req.headers.origin)
        if (problem) return sendResult(res, apiError(403, `The control API is only served to pages and clients on loopback (${problem}; start with --remote-admin to allow others)`))
      }
      // The method is decided before any fetch Request is built (undici refuses TRACE and CONNECT): mock/methods.ts.
      const connectorPath = !admin && ownsPath(path)
      const allow = connectorPath ? undefined : allowOf(path)
      if (req.method === 'OPTIONS' && !connectorPath) {
        res.writeHead(204, allow ? preflightHeaders(allow) : { ...CORS_HEADERS, 'access-control-max-age': '600' })
        return res.end()
      }
      // The connector refuses a method in its own words; one a fetch Request cannot carry is refused here.
      const connectorRefusal = connectorPath && !RECOGNISED_METHODS.has(req.method ?? 'GET') ? connectorMethodRefusal(req.method ?? 'GET', path.replace(/\/$/, '') || '/') : undefined
      if (connectorRefusal) return await send(res, withCors(connectorRefusal))
      const called = req.method ?? 'GET'
      // HEAD is answered as GET would be (RFC 9110 9.3.2), its refusals too (their Content-Length is
      // the GET's); node leaves the body out. What it runs knows it is a HEAD, and changes nothing.
      const method = answeredAs(called)
      const refusal = methodRefusal(method, path, allow)
      if (refusal) {
        if (admin || connectorPath) return sendResult(res, refusal)
        journalUnrouted(req, path, refusal.status)
        // A method the path does not take: its trace says which it takes (as for a path no operation has).
        return sendResult(res, mockState.traces.unmatched({ method: called, url: new URL(`${INTERNAL_ORIGIN}${rawUrl}`), headers: nodeHeaders(req.headers), bodyText: '', now: mockState.clock.now() }, noOperation(mockState.contract, called, path), refusal))
      }
      let body: Buffer | undefined
      try {
        body = await readBody(req)
      } catch (error) {
        // The connector's paths refuse in the connector's words (JSON-RPC on /mcp, OAuth's error elsewhere).
        if (connectorPath && (error as { status?: number }).status === 413) return await send(res, withCors(connectorBodyTooLarge(path.replace(/\/$/, '') || '/', MAX_BODY_BYTES)))
        throw error
      }
      const headers = nodeHeaders(req.headers)

      // An operation runs its pipeline on the request as node parsed it, and the result is written as
      // is (no fetch Request, Response or MSW matching per request). A HEAD runs its GET's operation as
      // a HEAD (scanning too: no operation's MSW handler takes HEAD).
      const found = (routing === 'map' || called === 'HEAD') && !admin ? router.find(method, path) : undefined
      if (found) {
        const result = await found.route.run({ method: called, url: new URL(`${INTERNAL_ORIGIN}${rawUrl}`), headers, bodyText: textOf(body), params: found.params })
        return sendResult(res, result)
      }

      if (url && ownsPath(path)) {
        const base = url
        connector ??= createConnector(mockState, { baseUrl: base, ...(log ? { log } : {}) })
        // A HEAD's answer with its GET's body: node leaves it out, and the Content-Length is the GET's.
        const answer = () => connector!.answer(new Request(`${base}${rawUrl}`, { method: called, headers: fetchHeaders(req.headers), body: body && body.length ? new Uint8Array(body) : undefined }))
        return await send(res, await sharedTwin(mockState, called, path, answer))
      }
      const request = new Request(`${INTERNAL_ORIGIN}${rawUrl}`, { method, headers: fetchHeaders(req.headers), body: body && body.length ? new Uint8Array(body) : undefined })
      if (admin) {
        if (serveConsole(mockState, req, res, path)) return
        const response = await sharedTwin(mockState, method, path, async () => (await getResponse((adminHandlers ??= createAdminHandlers(mockState, { baseUrl: INTERNAL_ORIGIN })), request)) ?? toResponse(apiError(404, `No control API route at ${method} ${path}`)))
        return await send(res, response)
      }

      const response = routing === 'scan' ? await getResponse((allHandlers ??= routes.map((r) => r.handler)), request) : undefined
      if (!response) {
        journalUnrouted(req, path, 404)
        const result = apiError(404, `No operation at ${method} ${path}`)
        return sendResult(res, mockState.traces.unmatched({ method: called, url: new URL(`${INTERNAL_ORIGIN}${rawUrl}`), headers, bodyText: textOf(body), now: mockState.clock.now() }, noOperation(mockState.contract, called, path), result))
      }
      await send(res, response)
    } catch (error) {
      const status = (error as { status?: number }).status
      const result =
        error instanceof StoreUnavailable ? apiError(503, error.message) : status && status < 500 ? (error as ReturnType<typeof apiError>) : apiError(500, `Internal error in the mock server: ${(error as Error).message}`)
      if (!res.headersSent) sendResult(res, result)
      else res.destroy()
    }
  }

  // Responses not yet started; at shutdown they end their keep-alive connection (`Connection: close`).
  const pending = new Set<ServerResponse>()
  function settled(this: ServerResponse) {
    pending.delete(this)
  }
  let closing = false
  // node's own answer to an HTTP/1.1 request without Host is a bare 400: `requestProblem` answers it with `{error}`.
  const server = createHttpServer({ requireHostHeader: false }, (req, res) => {
    if (closing) res.shouldKeepAlive = false
    pending.add(res)
    res.on('close', settled)
    void handle(req, res)
  })
  // Keep-alive sockets would hold close() open; idle ones are closed at shutdown.
  server.keepAliveTimeout = 5000
  // node's keep-alive timer runs in the event loop's timers phase, before the poll phase reads the
  // sockets: after a turn that held the loop past the timer (a shop's world built on its first write
  // takes seconds), node destroyed a connection whose next request was already in, unread, and the
  // kernel answered the client's request with a reset (ECONNRESET), though it came well within the
  // `Keep-Alive: timeout=5` advertised. The close waits one turn: bytes read in it keep the connection.
  // (node destroys the socket itself when the server has no 'timeout' listener; node re-arms the timer
  // once a request read meanwhile is answered.)
  server.on('timeout', (socket: Socket) => unlessReadThisTurn(socket, () => socket.destroy()))
  // Requests node's parser refuses (not HTTP, a bad length, headers or URL over its limit) never reach
  // the pipeline; they still get the spec's JSON `{error}` instead of node's empty answer.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') return socket.destroy()
    // A method token node's parser does not know (FOO): 405 with Allow on a known path, 404 elsewhere (mock/methods.ts).
    // Only a well-formed request line (method SP target SP HTTP/1.x): other bytes are not HTTP, a 400.
    const line = error.code === 'HPE_INVALID_METHOD' ? /^(\S+) (\/\S*) HTTP\/1\.[01]\r?\n/.exec((error as { rawPacket?: Buffer }).rawPacket?.toString('latin1') ?? '') : null
    if (line && isMethodToken(line[1]!)) return void socket.end(rawAnswer(refuseUnparsed(line[1]!, line[2]!, (socket as Socket).remoteAddress)))
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
    const message = status === 431 ? 'Request headers (URL included) larger than the server accepts' : status === 408 ? 'Request timed out' : `Malformed HTTP request: ${error.message}`
    socket.end(rawAnswer(apiError(status, message)))
  })
  // An expectation other than 100-continue (node answers it with a bare 417 when nothing listens).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    res.shouldKeepAlive = false
    sendResult(res, apiError(417, `Expect ${JSON.stringify(req.headers.expect ?? '')} is not supported: the only expectation is 100-continue`))
  })
  // CONNECT never reaches 'request' (node hands the socket over for a tunnel): this server opens none.
  server.on('connect', (req: IncomingMessage, socket) => {
    socket.on('error', () => socket.destroy())
    socket.end(rawAnswer(refuseUnparsed('CONNECT', req.url ?? '', (socket as Socket).remoteAddress)))
  })

  return {
    state: mockState,
    server,
    get url() {
      return url
    },
    listen(port = 4010, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          server.off('error', reject)
          const address = server.address() as AddressInfo
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
          url = `http://${shownHost}:${address.port}`
          resolve(url)
        })
      })
    },
    close({ graceMs = 10_000 } = {}) {
      return new Promise((resolve, reject) => {
        if (!server.listening) return resolve()
        // In-flight requests still finish; their sockets then close instead of idling until the keep-alive timeout.
        closing = true
        for (const res of pending) if (!res.headersSent) res.shouldKeepAlive = false
        const force = setTimeout(() => server.closeAllConnections(), graceMs)
        force.unref()
        server.close((error) => {
          clearTimeout(force)
          if (error) reject(error)
          else resolve()
        })
        server.closeIdleConnections()
      })
    },
  }
}
