/**
 * The forwarding half of `shoptwin proxy`: a node:http reverse proxy that streams each request to the
 * upstream and its answer back, with Host and X-Forwarded-* set, a 502 or 504 `{"error"}` when the
 * upstream fails or is silent, and a copy of both bodies (up to MAX_CAPTURE) for grading. Under
 * `inject` the certification schedule answers some requests itself (proxy/inject.ts); without it the
 * proxy changes nothing but the hop-by-hop headers.
 */
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import type { Contract, OperationInfo } from '../openapi/index.ts'
import type { Adversity } from '../mock/pipeline/certification.ts'
import { MAX_CAPTURE, type ProxyExchange } from './exchange.ts'
import { createRouter } from './router.ts'

/** Decides, per request, whether the proxy produces a situation itself (see inject.ts). */
export interface Injector {
  decide(x: ProxyExchange, op: OperationInfo): Adversity | undefined
}

export interface ProxyServerOptions {
  /** The server behind the proxy: `https://staging.example.com` (a path prefix is kept). */
  upstream: string
  contract: Contract
  /** Milliseconds the upstream may stay silent before the client gets 504. */
  timeoutMs?: number
  injector?: Injector
  /** The clock exchanges are timed on (the client rules read it); default the wall clock. */
  now?: () => number
  /** Called once per exchange, when both sides are done. */
  onExchange(x: ProxyExchange): void
  /** Called when --inject produces a situation on an exchange, before it is applied. */
  onInject?(x: ProxyExchange): void
}

export interface ProxyServer {
  listen(port: number, host?: string): Promise<string>
  /** Stops accepting, waits for exchanges in progress (held writes are released), closes. */
  close(): Promise<void>
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization'])

/** Headers for the next hop: hop-by-hop ones dropped (with those the Connection header names). */
function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const connection = headers.connection
  const named = connection ? new Set(connection.toLowerCase().split(',').map((s) => s.trim()).filter(Boolean)) : undefined
  const out: OutgoingHttpHeaders = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named?.has(name)) out[name] = value
  }
  return out
}

/** Header values as one string each (only set-cookie comes as a list). */
const flat = (headers: IncomingHttpHeaders): Record<string, string> => {
  if (headers['set-cookie'] === undefined) return headers as Record<string, string>
  const out: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

/** Collects chunks up to the capture size. */
class Capture {
  private chunks: Buffer[] = []
  private size = 0
  truncated = false
  add(chunk: Buffer): void {
    if (this.size + chunk.length > MAX_CAPTURE) {
      this.truncated = true
      return
    }
    this.chunks.push(chunk)
    this.size += chunk.length
  }
  buffer(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
  }
  text(): string {
    return this.buffer().toString('utf8')
  }
}

/** The upstream's answer; its body decoded to text only when something reads it (an identical answer is judged on its bytes). */
function answerOf(status: number, headers: Record<string, string>): NonNullable<ProxyExchange['upstream']> {
  let text: string | undefined
  let raw: Buffer = Buffer.alloc(0)
  return {
    status,
    headers,
    truncated: false,
    get raw() {
      return raw
    },
    set raw(bytes: Buffer) {
      raw = bytes
      text = undefined
    },
    get body() {
      return (text ??= raw.toString('utf8'))
    },
  }
}

const errorBody = (message: string) => JSON.stringify({ error: message })

export function createProxyServer({ upstream, contract, timeoutMs = 30_000, injector, now = Date.now, onExchange, onInject }: ProxyServerOptions): ProxyServer {
  const target = new URL(upstream)
  const secure = target.protocol === 'https:'
  const send = secure ? httpsRequest : httpRequest
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true })
  const prefix = target.pathname.replace(/\/$/, '')
  const route = createRouter(contract)
  let seq = 0
  const inProgress = new Set<Promise<void>>()
  /** Writes held past the client's timeout, by shop and Idempotency-Key: a retry releases them. */
  const held = new Map<string, { release(): Promise<void> }>()
  const timers = new Set<NodeJS.Timeout>()

  /** Shop and Idempotency-Key of the requests in flight at the upstream, with the seq of the first. */
  const keysInFlight = new Map<string, number>()

  /** Sends the request on; resolves with the upstream's answer streamed to `res` when given, else captured only. */
  function forward(req: IncomingMessage, x: ProxyExchange, body: Buffer | undefined, res: ServerResponse | undefined, capture: Capture): Promise<IncomingMessage | undefined> {
    const headers = endToEnd(req.headers)
    headers.host = target.host
    const socket = req.socket as Socket
    const prior = req.headers['x-forwarded-for']
    headers['x-forwarded-for'] = prior ? `${prior}, ${socket.remoteAddress ?? ''}` : (socket.remoteAddress ?? '')
    headers['x-forwarded-host'] = req.headers['x-forwarded-host'] ?? req.headers.host ?? ''
    headers['x-forwarded-proto'] = req.headers['x-forwarded-proto'] ?? 'http'
    headers['x-forwarded-port'] = req.headers['x-forwarded-port'] ?? String(socket.localPort ?? '')
    if (body) {
      delete headers['transfer-encoding']
      if (body.length || req.headers['content-length'] !== undefined) headers['content-length'] = String(body.length)
    }
    const key = req.headers['idempotency-key'] === undefined ? undefined : `${req.headers['x-shop-id'] ?? ''} ${req.headers['idempotency-key']}`
    if (key !== undefined) {
      const first = keysInFlight.get(key)
      if (first !== undefined) x.sameKeyInFlight = first
      else keysInFlight.set(key, x.seq)
    }
    return new Promise<IncomingMessage | undefined>((resolve) => {
      let settled = false
      const upstreamReq = send({ protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: `${prefix}${req.url ?? '/'}`, headers, agent })
      // No Nagle on either side: a request's head and body (and an answer's chunks) go as separate
      // writes, and Nagle holding the second for the first's delayed ACK costs ~40 ms an exchange.
      upstreamReq.setNoDelay(true)
      const fail = (message: string, status: 502 | 504) => {
        if (settled) {
          // The answer had begun: the client cannot get a 502 any more, only a cut connection.
          x.upstreamError ??= message
          res?.destroy()
          return
        }
        settled = true
        x.upstreamError = message
        upstreamReq.destroy()
        if (res && !res.headersSent) {
          res.writeHead(status, { 'content-type': 'application/json' })
          res.end(errorBody(`shoptwin proxy: ${message}`))
        }
        resolve(undefined)
      }
      upstreamReq.setTimeout(timeoutMs, () => fail(`the upstream did not answer within ${timeoutMs} ms`, 504))
      upstreamReq.on('error', (error: NodeJS.ErrnoException) => fail(`the upstream failed: ${error.code ?? error.message}`, 502))
      upstreamReq.on('response', (upstreamRes) => {
        settled = true
        const responseHeaders = flat(upstreamRes.headers)
        x.upstream = answerOf(upstreamRes.statusCode ?? 0, responseHeaders)
        if (res && !res.destroyed) res.writeHead(upstreamRes.statusCode ?? 502, endToEnd(upstreamRes.headers))
        upstreamRes.on('data', (chunk: Buffer) => {
          capture.add(chunk)
          if (res && !res.destroyed) res.write(chunk)
        })
        upstreamRes.on('end', () => {
          x.upstream!.raw = capture.buffer()
          x.upstream!.truncated = capture.truncated
          if (res && !res.destroyed) res.end()
          resolve(upstreamRes)
        })
        upstreamRes.on('error', () => undefined)
        upstreamRes.on('aborted', () => {
          x.upstreamError ??= 'the upstream reset the connection mid-answer'
          x.upstream!.raw = capture.buffer()
          x.upstream!.truncated = true
          res?.destroy()
          resolve(upstreamRes)
        })
        upstreamRes.on('close', () => {
          if (!upstreamRes.complete) {
            x.upstreamError ??= 'the upstream reset the connection mid-answer'
            res?.destroy()
            resolve(upstreamRes)
          }
        })
      })
      if (body) upstreamReq.end(body)
      else if (req.readableEnded) upstreamReq.end(Buffer.from(x.requestBody))
      else {
        req.on('data', (chunk: Buffer) => upstreamReq.write(chunk))
        req.on('end', () => upstreamReq.end())
      }
    }).finally(() => {
      if (key !== undefined && keysInFlight.get(key) === x.seq) keysInFlight.delete(key)
    })
  }

  /** Reads the whole request body (under --inject: the schedule decides on write bodies). */
  const readBody = (req: IncomingMessage, capture: Capture, x: ProxyExchange): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      req.removeAllListeners('data')
      req.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        capture.add(chunk)
      })
      req.on('end', () => {
        const body = Buffer.concat(chunks)
        x.requestBody = body.toString('utf8')
        resolve(body)
      })
      req.on('error', reject)
      // A client gone before the end of its body: nothing to forward, nothing to wait for.
      req.on('close', () => req.readableEnded || reject(new Error('the client closed the connection before the end of its request')))
    })

  function answer(res: ServerResponse, x: ProxyExchange, status: number, message: string, headers: Record<string, string> = {}): void {
    x.status = status
    if (res.destroyed) return
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(errorBody(message))
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = now()
    const target = req.url ?? '/'
    const mark = target.indexOf('?')
    const pathname = mark < 0 ? target : target.slice(0, mark)
    const op = route(req.method ?? 'GET', pathname)
    const x: ProxyExchange = {
      seq: ++seq,
      atMs: started,
      durationMs: 0,
      method: req.method ?? 'GET',
      path: pathname,
      query: mark < 0 || mark === target.length - 1 ? '' : target.slice(mark),
      operationId: op?.operationId,
      requestHeaders: flat(req.headers),
      requestBody: '',
      requestTruncated: false,
      status: 0,
      retryAfter: null,
    }
    const requestCapture = new Capture()
    const responseCapture = new Capture()
    // The client's copy of the request body, read as it streams through.
    req.on('data', (chunk: Buffer) => requestCapture.add(chunk))
    let clientDone = false
    res.on('close', () => {
      clientDone = true
      if (!res.writableFinished) x.clientAborted = true
    })
    let adversity: Adversity | undefined
    try {
      // Under --inject the body is read first (the schedule reads write bodies); otherwise it streams.
      const body = injector && op ? await readBody(req, requestCapture, x) : undefined
      adversity = injector && op ? injector.decide(x, op) : undefined
      if (!adversity) await forward(req, x, body, res, responseCapture)
      else await produce(adversity, req, res, x, op!, responseCapture)
    } catch (error) {
      if (req.destroyed && !req.readableEnded) x.clientAborted = true
      else x.upstreamError ??= `the proxy failed: ${(error as Error).message}`
      if (res.destroyed) {
        // The client is gone: nothing to answer.
      } else if (!res.headersSent) answer(res, x, 502, `shoptwin proxy: ${(error as Error).message}`)
      else res.destroy()
    }
    if (!clientDone) await new Promise<void>((resolve) => res.once('close', () => resolve()))
    x.requestBody ||= requestCapture.text()
    x.requestTruncated = requestCapture.truncated
    // What the client saw: the injected answer, a dropped connection (0), or the answer it read to the end.
    // A held write the client gave up on is recorded with the upstream's answer, as the twin records it.
    if (adversity?.kind === 'drop') x.status = 0
    else if (adversity?.kind !== 'status') x.status = res.writableFinished ? res.statusCode : adversity?.kind === 'slow' ? (x.upstream?.status ?? 0) : 0
    const retryAfter = res.getHeader('retry-after')
    x.retryAfter = retryAfter === undefined || x.status === 0 ? null : Number(retryAfter)
    x.durationMs = now() - started
    onExchange(x)
  }

  async function produce(adversity: Adversity, req: IncomingMessage, res: ServerResponse, x: ProxyExchange, op: OperationInfo, capture: Capture): Promise<void> {
    x.injected = adversity.situation
    onInject?.(x)
    const sendable = Buffer.from(x.requestBody)
    if (adversity.kind === 'status') {
      // spec: Idempotency: a 500 after the write acted (applied); a 503 or a 429 before it reached the server.
      if (adversity.apply) await forward(req, x, sendable, undefined, capture)
      answer(res, x, adversity.status, adversity.message, adversity.headers)
      return
    }
    if (adversity.kind === 'drop') {
      if (adversity.apply) await forward(req, x, sendable, undefined, capture)
      x.status = 0
      res.destroy()
      return
    }
    if (adversity.kind === 'before') {
      await adversity.run()
      await forward(req, x, sendable, res, capture)
      return
    }
    // Held past the client's timeout: forwarded when the client retries with the same key (so the
    // retry reaches the upstream while this one is in flight there) or when the hold ends.
    const key = `${req.headers['x-shop-id'] ?? ''} ${req.headers['idempotency-key'] ?? ''}`
    await new Promise<void>((resolve) => {
      let released: Promise<void> | undefined
      const release = () => {
        if (!released) {
          held.delete(key)
          clearTimeout(timer)
          timers.delete(timer)
          released = forward(req, x, sendable, res.destroyed ? undefined : res, capture).then(() => resolve())
        }
        return released
      }
      const timer = setTimeout(release, adversity.ms)
      timers.add(timer)
      held.set(key, { release })
    })
  }

  const server = createServer({ noDelay: true }, (req, res) => {
    // A retry of a held write: the held one goes first, this one right behind it.
    const key = `${req.headers['x-shop-id'] ?? ''} ${req.headers['idempotency-key'] ?? ''}`
    const heldWrite = req.headers['idempotency-key'] ? held.get(key) : undefined
    if (heldWrite) void heldWrite.release()
    const done = handle(req, res).finally(() => inProgress.delete(done))
    inProgress.add(done)
  })
  server.keepAliveTimeout = 5_000

  return {
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => {
          const { port: bound } = server.address() as AddressInfo
          resolve(`http://${host.includes(':') ? `[${host}]` : host}:${bound}`)
        })
      })
    },
    async close() {
      for (const write of [...held.values()]) void write.release()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      })
      await Promise.allSettled([...inProgress])
      for (const timer of timers) clearTimeout(timer)
      agent.destroy()
    },
  }
}
