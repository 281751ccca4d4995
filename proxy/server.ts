/**
 * The forwarding half of `shoptwin proxy`: an HTTP/1.1 reverse proxy on raw sockets (node:net). Only
 * message heads are parsed (proxy/http1.ts, strict); bodies go on as the bytes that came, streamed both
 * ways with backpressure, and a copy of each (decoded, up to MAX_CAPTURE) is kept for grading. Host and
 * X-Forwarded-* are set, hop-by-hop headers dropped; the upstream's connections are kept alive and
 * reused; a client's connection is kept alive, its pipelined requests answered one after the other.
 * A failed or silent upstream gives a 502 or 504 `{"error"}`; a malformed request a 400 `{"error"}`.
 * Under `inject` the certification schedule answers some requests itself (proxy/inject.ts); without
 * it the proxy changes nothing but the hop-by-hop headers.
 */
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { STATUS_CODES } from 'node:http'
import type { Contract, OperationInfo } from '../openapi/index.ts'
import type { Adversity } from '../mock/pipeline/certification.ts'
import { LastAnswers, MAX_CAPTURE, retryAfterSeconds, type ProxyExchange } from './exchange.ts'
import { ChunkedDecoder, cutLines, framingOf, hasToken, headEnd, HOP_BY_HOP as HOP_BY_HOP_NAMES, HttpError, KeptHead, keptLines, parseRequestHead, parseResponseHead, type Framing, SET_BY_PROXY as SET_BY_PROXY_NAMES, type RequestHead, type ResponseHead } from './http1.ts'
import { createRouter } from './router.ts'
import { bodyText, codingsOf, type BodyText, type Unreadable } from './codings.ts'
import { HOST_FIELD } from '../mock/lib/host-field.ts'
import { networkErrorText } from '../mock/lib/network-errors.ts'
import { IdleSweep } from '../mock/lib/sockets.ts'

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
  /** Milliseconds a client's kept-alive connection may stay idle before the proxy closes it (default 5,000, node's own keepAliveTimeout). */
  clientIdleMs?: number
  injector?: Injector
  /** The clock exchanges are timed on (the client rules read it); default the wall clock. */
  now?: () => number
  /** Called once per exchange, when both sides are done. */
  onExchange(x: ProxyExchange): void
  /** Called when --inject produces a situation on an exchange, before it is applied. */
  onInject?(x: ProxyExchange): void
  /** Called when the last request in progress is done (grading may run: proxy/backlog.ts). */
  onIdle?(): void
  /** The size of the buffers recorded exchanges wait in (default 512 KB): tests make it small, to fill and reuse many. */
  shelfBytes?: number
}

export interface ProxyServer {
  listen(port: number, host?: string): Promise<string>
  /** Stops accepting, waits for exchanges in progress (held writes are released), closes. */
  close(): Promise<void>
  /** Whether a request is in progress (a held write does not count). */
  busy(): boolean
}

/** Hop-by-hop headers (RFC 9110 7.6.1), not passed on; `expect` is answered by the proxy itself. */
const HOP_BY_HOP = new Set(HOP_BY_HOP_NAMES)
/** Request headers the proxy writes itself (framing, Host, X-Forwarded-*). */
const SET_BY_PROXY = new Set(SET_BY_PROXY_NAMES)
/** Pipelined bytes buffered behind the request in progress before the client is paused. */
const MAX_PENDING = 1024 * 1024
/** Idle connections to the upstream kept for reuse. */
const MAX_IDLE = 256

/**
 * Collects chunks up to the capture size. Given the last body of the same operation and status
 * (`like`), it compares instead of keeping: a repeated answer (a poll, a cached read) is not copied,
 * its capture is the previous body itself, and the grader sees it is the same without reading it.
 */
class Capture {
  private chunks: Buffer[] = []
  private size = 0
  private like: Buffer | undefined
  truncated = false
  /** Chunks are copied (an answer's reads land in a reused buffer; a view would also pin all 64 KB of it). */
  private readonly copies: boolean

  constructor(copies = false) {
    this.copies = copies
  }

  /** The body this one may repeat (before any chunk came). */
  expect(like: Buffer | undefined): void {
    if (this.size === 0) this.like = like
  }
  /** Takes a chunk; true when it keeps a reference to it (the caller may not reuse its memory): never when it copies. */
  add(chunk: Buffer): boolean {
    if (this.size + chunk.length > MAX_CAPTURE) {
      this.truncated = true
      return false
    }
    const like = this.like
    if (like) {
      const end = this.size + chunk.length
      if (end <= like.length && like.compare(chunk, 0, chunk.length, this.size, end) === 0) {
        this.size = end
        return false
      }
      // It differs here: what matched so far is a view of the previous body, the rest is kept.
      this.like = undefined
      if (this.size) this.chunks.push(like.subarray(0, this.size))
    }
    this.chunks.push(this.copies ? Buffer.from(chunk) : chunk)
    this.size += chunk.length
    return !this.copies
  }
  /** Every byte so far matched the body it may repeat, and all of it: `buffer()` is that body itself. */
  get repeats(): boolean {
    return this.like !== undefined && this.size === this.like.length
  }
  /** The bytes taken so far. */
  get length(): number {
    return this.size
  }
  buffer(): Buffer {
    if (this.like) return this.size === this.like.length ? this.like : this.like.subarray(0, this.size)
    return this.chunks.length === 1 ? this.chunks[0]! : this.chunks.length === 0 ? EMPTY : Buffer.concat(this.chunks)
  }
}

const EMPTY = Buffer.alloc(0)

/**
 * The upstream's answer as recorded: its headers parsed from the head only when the grader reads them,
 * its body decoded to text only when something reads it (an identical answer is judged on its bytes).
 */
class Answer implements NonNullable<ProxyExchange['upstream']> {
  readonly status: number
  truncated: boolean
  /** Its bytes are the last answer's of the operation and status, shared (Capture `repeats`). */
  repeated = false
  private bytes: Buffer
  private read: BodyText | undefined
  readonly head: KeptHead

  constructor(status: number, head: KeptHead, bytes: Buffer = EMPTY, truncated = false) {
    this.status = status
    this.head = head
    this.bytes = bytes
    this.truncated = truncated
  }
  get headers(): Record<string, string> {
    return this.head.headers
  }
  get raw(): Buffer {
    return this.bytes
  }
  set raw(bytes: Buffer) {
    this.bytes = bytes
    this.read = undefined
  }
  /** The body as the grader reads it: its codings undone (proxy/codings.ts), as UTF-8. */
  get body(): string {
    return this.reading().text
  }
  get unreadable(): Unreadable | undefined {
    return this.reading().unreadable
  }
  private reading(): BodyText {
    return (this.read ??= bodyText(this.bytes, this.head.headers, { truncated: this.truncated, limit: MAX_CAPTURE }))
  }
}

/** The shelf's buffers, each shared by the records of many exchanges. */
const SLAB = 512 * 1024
/** Bodies up to this size go on the shelf with their heads; a larger one stays in a buffer of its own. */
const SHELF_BODY = 8 * 1024
/** Buffers of the shelf kept for reuse once every record on them was read back (32 MB). */
const SPARE_SLABS = 64

/** One of the shelf's buffers, and how many records on it were not read back yet (one more while it is being filled). */
class Slab {
  readonly bytes: Buffer
  private waiting = 1
  private readonly shelf: Shelf | undefined

  /** `shelf`: where the buffer goes back for reuse (none for a record's own buffer). */
  constructor(bytes: Buffer, shelf?: Shelf) {
    this.bytes = bytes
    this.shelf = shelf
  }
  /** A record was put on it. */
  hold(): void {
    this.waiting++
  }
  /** A record on it was read back (or the shelf moved on to another buffer): the last one gives the buffer back. */
  release(): void {
    if (--this.waiting === 0) this.shelf?.spare(this.bytes)
  }
}

/**
 * Where recorded exchanges keep their heads' text and small bodies (the request's; the answer's, unless
 * it repeats the last one and shares its bytes) while they wait to be graded (proxy/backlog.ts): bytes in
 * a buffer many records share, so that a waiting exchange is one object on the heap and not eight (its
 * record, two heads and their texts, the answer, the bodies' buffers).
 * Tens of thousands wait while traffic flows; as objects, each survived the young generation's
 * collections and was marked by the old one's, a cost paid on the request's path (bench/README.md,
 * tenth pass). A record reads its part back, and lets go of the buffer, when the grader first reads it.
 * A buffer all of whose records were read back is kept for reuse (up to SPARE_SLABS): new memory costs
 * a page fault per 4 KB on first touch (about 11 µs each on the bench's machine, bench/README.md,
 * eleventh pass), a fault per few records; reused memory costs none.
 */
class Shelf {
  private slab: Slab | undefined
  private readonly size: number
  private free: number
  private readonly spares: Buffer[] = []
  /** The last small request body of each operation, a copy of its own (a client's poll, a suite's repeated call send the same). */
  private readonly lastBodies = new Map<string | undefined, Buffer>()
  /** Where the room `take` gave starts in its buffer. */
  start = 0

  constructor(size = SLAB) {
    this.size = this.free = size
  }

  /** Room for `size` bytes: the buffer it is in, from `start`; the record releases it when read back. */
  take(size: number): Slab {
    if (size > this.size / 8) {
      this.start = 0
      return new Slab(Buffer.allocUnsafeSlow(size))
    }
    if (this.free + size > this.size) {
      this.slab?.release()
      this.slab = new Slab(this.spares.pop() ?? Buffer.allocUnsafeSlow(this.size), this)
      this.free = 0
    }
    this.slab!.hold()
    this.start = this.free
    this.free += size
    return this.slab!
  }
  /**
   * The last request body of `operation` when `bytes` are the same, for the record to share instead of
   * shelving its own; otherwise a copy of `bytes` becomes the last (the record's own go on the shelf).
   */
  sameBody(operation: string | undefined, bytes: Buffer): Buffer | undefined {
    const last = this.lastBodies.get(operation)
    if (last !== undefined && last.equals(bytes)) return last
    this.lastBodies.set(operation, Buffer.from(bytes))
    return undefined
  }
  /** A buffer no record reads any more. */
  spare(bytes: Buffer): void {
    if (this.spares.length < SPARE_SLABS) this.spares.push(bytes)
  }
}

const errorBody = (message: string) => JSON.stringify({ error: message })

/**
 * An exchange as recorded (proxy/exchange.ts), its request headers parsed from the head when the grader
 * reads them. Once recorded (`ended`), its heads' text and a small body wait on the shelf, read back when
 * the grader first reads any of them.
 */
class Recorded implements ProxyExchange {
  durationMs = 0
  requestTruncated = false
  status = 0
  retryAfter: number | null = null
  upstreamError: string | undefined = undefined
  injected: string | undefined = undefined
  sameKeyInFlight: number | undefined = undefined
  clientAborted: boolean | undefined = undefined
  readonly seq: number
  readonly atMs: number
  readonly method: string
  readonly path: string
  readonly query: string
  readonly operationId: string | undefined
  private head: KeptHead | undefined
  private answer: Answer | undefined = undefined
  /** The request body's text (its codings undone, from its capture or its bytes on the shelf when first read). */
  private body: string | undefined
  /** Why the request body could not be read (proxy/codings.ts), once read. */
  private bodyUnreadable: Unreadable | undefined
  /** The body's capture while it comes, its bytes once the exchange is recorded (`ended`). */
  private capture: Capture | Buffer | undefined
  /** On the shelf (`ended`): the buffer and where its part starts, the request's head, the answer's head, the body (-1: not there). */
  private shelf: Slab | undefined
  private shelfStart = 0
  private requestHeadLength = 0
  private answerHeadLength = -1
  private bodyLength = -1
  /** The request body is the last one of its operation, shared (Shelf `sameBody`): it holds no bytes of its own. */
  private bodyShared = false
  /** The answer's status, its bytes (or their length on the shelf, after its head; -1: not there) and cut, while its head is on the shelf. */
  private answerStatus = 0
  private answerRaw: Buffer = EMPTY
  private answerLength = -1
  private answerTruncated = false

  constructor(seq: number, atMs: number, head: RequestHead, method: string, path: string, query: string, operationId: string | undefined, capture: Capture) {
    this.seq = seq
    this.atMs = atMs
    this.head = new KeptHead(head)
    this.method = method
    this.path = path
    this.query = query
    this.operationId = operationId
    this.capture = capture
  }
  get requestHeaders(): Record<string, string> {
    if (this.shelf) this.unshelve()
    return this.head!.headers
  }
  get upstream(): Answer | undefined {
    if (this.shelf) this.unshelve()
    return this.answer
  }
  set upstream(answer: Answer | undefined) {
    this.answer = answer
  }
  /** The answer's bytes and status without reading the shelf (the backlog's memory bound). */
  get upstreamRaw(): Buffer | undefined {
    if (!this.shelf) return this.answer?.raw
    if (this.answerHeadLength < 0) return undefined
    if (this.answerLength < 0) return this.answerRaw
    const start = this.shelfStart + this.requestHeadLength + this.answerHeadLength
    return this.shelf.bytes.subarray(start, start + this.answerLength)
  }
  get upstreamStatus(): number | undefined {
    return this.shelf ? (this.answerHeadLength < 0 ? undefined : this.answerStatus) : this.answer?.status
  }

  /** The exchange is recorded: of the request body's capture only its bytes are kept; the heads' text and a small body go on `shelf`. */
  ended(shelf: Shelf): void {
    if (this.capture instanceof Capture) this.capture = this.capture.buffer()
    // A small body the same as the last one of its operation shares its bytes, as a repeated answer does: under traffic that
    // repeats itself the records that wait hold a third as many bytes (the stats request, 1.4 KB, beside 0.6 KB of heads).
    if (this.body === undefined && this.capture!.length > 0 && this.capture!.length <= SHELF_BODY) {
      const same = shelf.sameBody(this.operationId, this.capture!)
      if (same) {
        this.capture = same
        this.bodyShared = true
      }
    }
    // A head parsed already (the one-pass check refused it) stays as it is, and so does the record.
    const answer = this.answer
    const requestHead = this.head!.unparsed
    const answerHead = answer ? answer.head.unparsed : ''
    if (requestHead === undefined || answerHead === undefined) return
    // A repeated answer's bytes are shared with the records before it: only a different one goes on the shelf.
    const answerBody = answer && !answer.repeated && answer.raw.length <= SHELF_BODY ? answer.raw : undefined
    const body = this.body === undefined && !this.bodyShared && this.capture!.length <= SHELF_BODY ? (this.capture as Buffer) : undefined
    const taken = shelf.take(requestHead.length + answerHead.length + (answerBody?.length ?? 0) + (body?.length ?? 0))
    const slab = taken.bytes
    let at = (this.shelfStart = shelf.start)
    at += this.requestHeadLength = slab.write(requestHead, at, 'latin1')
    if (answer) {
      at += this.answerHeadLength = slab.write(answerHead, at, 'latin1')
      if (answerBody) at += this.answerLength = answerBody.copy(slab, at)
      else this.answerRaw = answer.raw
      this.answerStatus = answer.status
      this.answerTruncated = answer.truncated
      this.answer = undefined
    }
    if (body) {
      this.bodyLength = body.copy(slab, at)
      this.capture = undefined
    }
    this.head = undefined
    this.shelf = taken
  }
  /** Reads back what `ended` put on the shelf. */
  private unshelve(): void {
    const taken = this.shelf!
    const slab = taken.bytes
    this.shelf = undefined
    let at = this.shelfStart
    this.head = new KeptHead(slab.toString('latin1', at, (at += this.requestHeadLength)))
    if (this.answerHeadLength >= 0) {
      const head = new KeptHead(slab.toString('latin1', at, (at += this.answerHeadLength)))
      // The answer's own bytes (a copy: a view would hold the whole shared buffer as long as the grader keeps the answer).
      const raw = this.answerLength < 0 ? this.answerRaw : Buffer.from(slab.subarray(at, (at += this.answerLength)))
      this.answer = new Answer(this.answerStatus, head, raw, this.answerTruncated)
      this.answerRaw = EMPTY
    }
    if (this.bodyLength >= 0) this.readBody(slab.subarray(at, at + this.bodyLength))
    taken.release()
  }
  /** The request body's text from its bytes: as UTF-8, or with the codings its Content-Encoding names undone (proxy/codings.ts). */
  private readBody(bytes: Buffer): void {
    const read = bodyText(bytes, this.head!.headers, { truncated: this.requestTruncated, limit: MAX_CAPTURE })
    this.body = read.text
    this.bodyUnreadable = read.unreadable
    this.capture = undefined
  }
  get requestBody(): string {
    if (this.shelf) this.unshelve()
    if (this.body === undefined) this.readBody(this.capture instanceof Capture ? this.capture.buffer() : this.capture!)
    return this.body!
  }
  set requestBody(text: string) {
    if (this.shelf) this.unshelve()
    this.body = text
    this.capture = undefined
    this.bodyShared = false
  }
  get requestUnreadable(): Unreadable | undefined {
    if (this.body === undefined) void this.requestBody
    return this.bodyUnreadable
  }
  /** The whole body as --inject read it (its bytes: they go on as they came), read as text when the grader (or the schedule) first asks. */
  takeBody(bytes: Buffer): void {
    this.body = undefined
    this.capture = bytes
  }
  /** The bytes its request body holds in this record: none when shared with the records before it. */
  get requestBytes(): number {
    if (this.bodyShared) return 0
    if (this.shelf && this.bodyLength >= 0) return this.bodyLength
    return this.body === undefined ? this.capture!.length : Buffer.byteLength(this.body)
  }
}

/** Bodies up to this size go in one write with the head (copied after it); larger ones in writes of their own. */
const SEND_WHOLE = 64 * 1024

/** Writes a head (latin1) and the body bytes that came with it: one write, one syscall, for a small request. */
function send(socket: Socket, head: string, body: Buffer[]): void {
  let size = 0
  for (const chunk of body) size += chunk.length
  if (size === 0) return void socket.write(head, 'latin1')
  if (size <= SEND_WHOLE) {
    const bytes = Buffer.allocUnsafe(head.length + size)
    let at = bytes.write(head, 0, 'latin1')
    for (const chunk of body) at += chunk.copy(bytes, at)
    return void socket.write(bytes)
  }
  socket.cork()
  socket.write(head, 'latin1')
  for (const chunk of body) socket.write(chunk)
  socket.uncork()
}

/** An answer's end-to-end header lines, each ending CR LF: the hop-by-hop ones, and those its Connection names, dropped. */
function endToEndLines(head: ResponseHead): string {
  const named = connectionNamed(head.headers.connection)
  let lines = ''
  for (let i = 0; i < head.names.length; i++) {
    const name = head.names[i]!
    if (!HOP_BY_HOP.has(name) && !named?.has(name)) lines += `${head.rawNames[i]}: ${head.values[i]}\r\n`
  }
  return lines
}

/** The names a Connection header lists (they are hop-by-hop too). */
const connectionNamed = (value: string | undefined): Set<string> | undefined => (value ? new Set(value.toLowerCase().split(',').map((s) => s.trim())) : undefined)

/**
 * A request's body as it comes on the client's connection: its raw bytes go to `consumer` (the
 * upstream) once one is attached (buffered until then), its decoded bytes to the capture; `collect`
 * keeps the whole decoded body (under --inject the schedule reads it before anything is forwarded).
 */
class RequestBody {
  done = false
  aborted = false
  /** Why the body was cut by the client's fault (a malformed chunk: 400; it stopped coming: 408), answered with its status. */
  error: HttpError | undefined
  private remaining = 0
  private decoder: ChunkedDecoder | undefined
  private waiting: Buffer[] | undefined = []
  private consumer: ((raw: Buffer) => void) | undefined
  /** The decoded body, kept until the body streams on (attach) and for readAll. */
  private collected: Buffer[] | undefined = []
  private listeners: Array<() => void> = []

  readonly framing: Framing
  readonly capture: Capture

  constructor(framing: Framing, capture: Capture) {
    this.framing = framing
    this.capture = capture
    if (framing.kind === 'chunked') this.decoder = new ChunkedDecoder(400)
    else if (framing.kind === 'length') this.remaining = framing.length
    if (this.remaining === 0 && !this.decoder) this.done = true
  }

  /** Takes the body's bytes from `buffer` at `start`; returns where the body ended in it, or -1 (all taken, more to come). */
  feed(buffer: Buffer, start: number): number {
    if (this.done) return start
    let end: number
    if (this.decoder) {
      end = this.decoder.feed(buffer, start, (data) => this.decoded(data))
      this.raw(buffer.subarray(start, end < 0 ? buffer.length : end))
    } else {
      const take = Math.min(this.remaining, buffer.length - start)
      const data = start === 0 && take === buffer.length ? buffer : buffer.subarray(start, start + take)
      this.remaining -= take
      this.decoded(data)
      this.raw(data)
      end = this.remaining === 0 ? start + take : -1
    }
    if (end >= 0) this.finish()
    return end
  }

  private decoded(data: Buffer): void {
    this.capture.add(data)
    this.collected?.push(data)
  }

  private raw(data: Buffer): void {
    if (data.length === 0) return
    if (this.consumer) this.consumer(data)
    else this.waiting?.push(data)
  }

  private finish(): void {
    this.done = true
    for (const listener of this.listeners.splice(0)) listener()
  }

  /** The raw bytes from now on (and those that came before) go to `consumer`. */
  attach(consumer: (raw: Buffer) => void): Buffer[] {
    const before = this.waiting ?? []
    this.waiting = undefined
    this.collected = undefined
    this.consumer = consumer
    return before
  }

  /** Stops passing bytes on (the upstream is gone); they are still read and captured. */
  detach(): void {
    this.consumer = () => undefined
    this.waiting = undefined
  }

  /** The body cannot go on (a malformed chunk, or it stopped coming): cut as an abort, answered `error.status`. */
  fail(error: HttpError): void {
    if (this.done || this.aborted) return
    this.error = error
    this.abort()
  }

  /** The client went away before the end of the body. */
  abort(): void {
    if (this.done) return
    this.aborted = true
    for (const listener of this.listeners.splice(0)) listener()
  }

  /** Calls back once the body ended or was cut. */
  onEnd(listener: () => void): void {
    if (this.done || this.aborted) listener()
    else this.listeners.push(listener)
  }

  /** The whole decoded body (nothing is passed on: it is sent again, whole, with its length). */
  readAll(): Promise<Buffer> {
    this.detach()
    return new Promise((resolve, reject) =>
      this.onEnd(() => (this.aborted ? reject(this.error ?? new Error('the client closed the connection before the end of its request')) : resolve(Buffer.concat(this.collected!)))),
    )
  }
}

/** The answer to the client, written on its connection. */
class Reply {
  headersSent = false
  /** A byte of the answer went to the client: past this, a failure can only cut the connection. */
  wrote = false
  /** The whole answer was written. */
  finished = false
  statusCode = 0
  retryAfter: string | undefined
  /** The connection closes after this answer. */
  closeAfter: boolean

  readonly socket: Socket
  readonly minor: number
  /** The answer to a HEAD: the proxy's own answers carry their Content-Length but no body (RFC 9110 9.3.2). */
  readonly toHead: boolean

  constructor(socket: Socket, minor: number, keepAlive: boolean, toHead = false) {
    this.socket = socket
    this.minor = minor
    this.closeAfter = !keepAlive
    this.toHead = toHead
  }

  get destroyed(): boolean {
    return this.socket.destroyed
  }

  /** Writes the status line and `lines` (header lines, each ending CR LF), with the connection's own header. */
  head(status: number, reason: string, lines: string): void {
    this.headersSent = true
    this.statusCode = status
    if (this.destroyed) return
    this.wrote = true
    const connection = this.closeAfter ? 'Connection: close\r\n' : this.minor === 0 ? 'Connection: keep-alive\r\n' : ''
    this.socket.write(`HTTP/1.1 ${status} ${reason}\r\n${lines}${connection}\r\n`, 'latin1')
  }

  /** The status line and headers go with the body (the upstream's head passed on as it came). */
  began(status: number): void {
    this.headersSent = true
    this.statusCode = status
  }

  /** Writes body bytes; false when the client's buffer is full (wait for 'drain'). */
  write(data: Buffer): boolean {
    if (this.destroyed) return true
    this.wrote = true
    return this.socket.write(data)
  }

  end(): void {
    if (this.destroyed) return
    this.finished = true
  }

  /** A whole answer of the proxy's own: `{"error": message}`. */
  json(status: number, message: string, headers: Record<string, string> = {}): void {
    const body = Buffer.from(errorBody(message))
    let lines = `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`
    for (const [name, value] of Object.entries(headers)) lines += `${name}: ${value}\r\n`
    this.retryAfter = headers['Retry-After'] ?? headers['retry-after']
    this.head(status, STATUS_CODES[status] ?? '', lines)
    if (!this.toHead) this.write(body)
    this.end()
  }

  destroy(): void {
    this.socket.destroy()
  }
}

/**
 * A connection to the upstream; `owner` is the exchange it carries, undefined while it waits in the
 * pool. Its reads land in the server's read buffer, reused for the next read unless the chunk read was
 * kept (`keep`: captured, or queued on the client's socket): no allocation per read for an answer
 * passed straight on.
 */
interface UpstreamConnection {
  socket: Socket
  owner: { data(chunk: Buffer): void; closed(error?: NodeJS.ErrnoException): void; timeout(): void } | undefined
  /** The last chunk passed to `owner.data` is still referenced: the next read goes to a new buffer. */
  keep(): void
}

/**
 * The size of the upstream's reads. 256 KB, not libuv's 64 KB: a large answer (the stats answer with
 * every key and charts is 221 KB) comes in one or two reads instead of four or more, each passed on in
 * one write (fewer syscalls and callbacks: the proxy's system time per answer fell by about a third).
 * One buffer serves every connection (reads are handled one at a time), so its size is not per connection.
 */
const READ_SIZE = 256 * 1024

export function createProxyServer({ upstream, contract, timeoutMs = 30_000, clientIdleMs = 5_000, injector, now = Date.now, onExchange, onInject, onIdle, shelfBytes }: ProxyServerOptions): ProxyServer {
  const target = new URL(upstream)
  const secure = target.protocol === 'https:'
  const upstreamPort = Number(target.port || (secure ? 443 : 80))
  const upstreamHost = target.hostname.replace(/^\[|\]$/g, '')
  const hostLine = `Host: ${target.host}\r\n`
  const prefix = target.pathname.replace(/\/$/, '')
  const route = createRouter(contract)
  let seq = 0
  /** Requests in progress (a held write counts while it is held), and what waits for none to be. */
  let inProgress = 0
  const drained: Array<() => void> = []
  /** Writes held past the client's timeout, by shop and Idempotency-Key: a retry releases them. */
  const held = new Map<string, { release(): Promise<void> }>()
  const timers = new Set<NodeJS.Timeout>()
  /** The idle timeouts of the upstream's connections and the clients' (one sweep each, not a timer refreshed per read and write). */
  const upstreamIdle = new IdleSweep(timeoutMs)
  const clientIdle = new IdleSweep(clientIdleMs)
  /** Shop and Idempotency-Key of the requests in flight at the upstream, with the seq of the first. */
  const keysInFlight = new Map<string, number>()
  const clients = new Set<ClientConnection>()
  /** The last whole answer of each operation and status (the contract bounds how many). */
  const lastAnswers = new LastAnswers()
  const shelf = new Shelf(shelfBytes)
  let closing = false

  /** Where the upstream's reads land; a new one when the last chunk read from it was kept. */
  let readBuffer = Buffer.allocUnsafe(READ_SIZE)
  let readKept = false
  const readInto = () => {
    if (readKept) {
      readBuffer = Buffer.allocUnsafe(READ_SIZE)
      readKept = false
    }
    return readBuffer
  }

  // The upstream's connections: kept alive, the last one freed reused first, once it cooled (see `release`).
  const idle: UpstreamConnection[] = []
  /** Connections freed this turn, and the turn before: idle after the next tick. */
  let freed: UpstreamConnection[] = []
  let cooling: UpstreamConnection[] = []
  let ticking = false
  const tick = () => {
    for (const connection of cooling) {
      if (closing) connection.socket.destroy()
      else if (!connection.socket.destroyed) idle.push(connection)
    }
    cooling = freed
    freed = []
    if (cooling.length) setImmediate(tick)
    else ticking = false
  }
  function acquire(): UpstreamConnection {
    while (idle.length) {
      const connection = idle.pop()!
      if (!connection.socket.destroyed && connection.socket.readyState === 'open') return connection
    }
    const data = (chunk: Buffer) => (connection.owner ? connection.owner.data(chunk) : socket.destroy())
    const onread = {
      buffer: readInto,
      callback: (length: number, into: Uint8Array) => {
        data((into as Buffer).subarray(0, length))
        return true
      },
    }
    const socket = secure ? tlsConnect({ host: upstreamHost, port: upstreamPort, servername: /^[\d.:]+$/.test(upstreamHost) ? undefined : upstreamHost, ALPNProtocols: ['http/1.1'] }) : netConnect({ host: upstreamHost, port: upstreamPort, onread })
    // No Nagle: a head and its body (an answer's chunks) go as separate writes; Nagle would hold the second for the first's ACK.
    socket.setNoDelay(true)
    // A read is handled whole before the next (owner.data is synchronous): the chunk kept is the last one read.
    const connection: UpstreamConnection = { socket, owner: undefined, keep: () => (readKept = true) }
    // TLS reads come as 'data' events, each chunk its own memory.
    if (secure) socket.on('data', data)
    // Judged after this turn's reads (mock/lib/sockets.ts): an answer that came while the loop was held is not a 504.
    upstreamIdle.watch(socket, () => (connection.owner ? connection.owner.timeout() : socket.destroy()))
    socket.on('error', (error: NodeJS.ErrnoException) => connection.owner?.closed(error))
    socket.on('close', () => {
      const owner = connection.owner
      connection.owner = undefined
      const at = idle.indexOf(connection)
      if (at >= 0) idle.splice(at, 1)
      owner?.closed()
    })
    return connection
  }
  /**
   * A connection whose answer ended is kept for reuse, but not before a whole turn of reads passed: bytes
   * an upstream sent after its answer (a stray body, a second answer) may be unread yet, and on a
   * connection reused at once (a pipelined request is sent the moment its predecessor's answer ends) they
   * would be read as the next request's answer. Read while the connection is idle, they destroy it.
   */
  function release(connection: UpstreamConnection): void {
    connection.owner = undefined
    if (idle.length + cooling.length + freed.length >= MAX_IDLE || closing) return void connection.socket.destroy()
    freed.push(connection)
    if (!ticking) {
      ticking = true
      setImmediate(tick)
    }
  }

  /** The request's head for the upstream: its end-to-end headers, Host, X-Forwarded-*, the framing. */
  function upstreamHead(req: RequestHead, socket: Socket, length: number | undefined, framing: Framing): string {
    const h = req.picked
    let out = `${req.method} ${prefix}${req.target} HTTP/1.1\r\n${hostLine}`
    if (req.checked && (h.connection === undefined || h.connection.toLowerCase() === 'keep-alive')) {
      // The common head: its lines passed on as they came, but those the proxy drops or sets itself (one pass, no parsing into fields).
      out += keptLines(req)
    } else {
      // Connection names more headers (hop-by-hop too): each field looked at.
      const named = connectionNamed(h.connection)
      for (let i = 0; i < req.names.length; i++) {
        const name = req.names[i]!
        if (HOP_BY_HOP.has(name) || SET_BY_PROXY.has(name) || named?.has(name)) continue
        out += `${req.rawNames[i]}: ${req.values[i]}\r\n`
      }
    }
    const prior = h['x-forwarded-for']
    const address = socket.remoteAddress ?? ''
    out += `X-Forwarded-For: ${prior ? `${prior}, ${address}` : address}\r\nX-Forwarded-Host: ${h['x-forwarded-host'] ?? h.host ?? ''}\r\nX-Forwarded-Proto: ${h['x-forwarded-proto'] ?? 'http'}\r\nX-Forwarded-Port: ${h['x-forwarded-port'] ?? socket.localPort ?? ''}\r\n`
    if (length !== undefined) out += `Content-Length: ${length}\r\n`
    else if (framing.kind === 'chunked') out += 'Transfer-Encoding: chunked\r\n'
    // The length as framed (`5, 5` or `005` sent on as it came would be refused, or read otherwise, by a strict upstream).
    else if (framing.kind === 'length' && h['content-length'] !== undefined) out += `Content-Length: ${framing.length}\r\n`
    return `${out}\r\n`
  }

  /**
   * Sends the request on and passes the answer to `reply` (when given; else it is captured only);
   * `ended` is called once the exchange ended, in a microtask (not inside the socket's callback).
   * `body` is the whole request body when it was read first; otherwise the body streams from the client.
   */
  function forward(req: RequestHead, requestBody: RequestBody, socket: Socket, x: Recorded, body: Buffer | undefined, reply: Reply | undefined, capture: Capture, ended: () => void): void {
    const key = req.picked['idempotency-key'] === undefined ? undefined : `${req.picked['x-shop-id'] ?? ''} ${req.picked['idempotency-key']}`
    if (key !== undefined) {
      const first = keysInFlight.get(key)
      if (first !== undefined) x.sameKeyInFlight = first
      else keysInFlight.set(key, x.seq)
    }
    const connection = acquire()
    const up = connection.socket
    const noBody = req.method === 'HEAD'
    /** The proxy answered the client's Expect with its own 100 Continue (ClientConnection next). */
    const continued = req.picked.expect !== undefined && req.minor === 1
    {
      let settled = false
      let done = false
      let head: ResponseHead | undefined
      let partial: Buffer | undefined
      let framing: Framing | { kind: 'none' } = { kind: 'none' }
      let remaining = 0
      let decoder: ChunkedDecoder | undefined
      /** The client is HTTP/1.0 and the answer chunked: the client gets the decoded bytes, to the close. */
      let dechunk = false
      /** An answer of an operation: the last whole answer of the same operation and status is what it is compared with. */
      let repeatable = false
      /** The answer said its connection closes (Connection: close, an HTTP/1.0 answer without keep-alive): not reused. */
      let upstreamCloses = false
      const sent = body !== undefined ? true : undefined
      const bodySent = () => sent ?? requestBody.done

      const finish = (reusable: boolean) => {
        done = true
        // Paused for a slow client when its answer ended: read again before it is freed (bytes after the answer must be read, and destroy it, while it cools).
        unthrottle?.()
        if (reusable && bodySent() && !up.destroyed) release(connection)
        else {
          connection.owner = undefined
          up.destroy()
        }
        if (body === undefined && !requestBody.done) {
          // The upstream answered before the end of the request: the rest is not passed on, the client's connection closes after this answer.
          requestBody.detach()
          if (reply) reply.closeAfter = true
        }
        if (key !== undefined && keysInFlight.get(key) === x.seq) keysInFlight.delete(key)
        queueMicrotask(ended)
      }
      /** The answer ended before its end: what came of it is recorded, cut. */
      const recordCut = () => {
        x.upstream!.raw = capture.buffer()
        x.upstream!.truncated = true
      }
      const fail = (message: string, status: 502 | 504) => {
        if (done) return
        if (settled && reply && !reply.wrote && !reply.destroyed) {
          // The answer's head was read but nothing of it reached the client (a bad chunk in the first read): a 502 still can.
          reply.headersSent = false
          reply.retryAfter = undefined
          recordCut()
          x.upstreamError = message
          if (body === undefined && !requestBody.done) reply.closeAfter = true
          reply.json(status, `shoptwin proxy: ${message}`)
        } else if (settled) {
          // The answer had begun: the client cannot get a 502 any more, only a cut connection.
          x.upstreamError ??= message
          recordCut()
          reply?.destroy()
        } else {
          settled = true
          x.upstreamError = message
          if (reply && !reply.headersSent) {
            if (body === undefined && !requestBody.done) reply.closeAfter = true
            reply.json(status, `shoptwin proxy: ${message}`)
          }
        }
        finish(false)
      }
      const complete = (reusable: boolean) => {
        x.upstream!.raw = capture.buffer()
        x.upstream!.truncated = capture.truncated
        x.upstream!.repeated = capture.repeats
        if (repeatable && !capture.truncated) lastAnswers.set(x.operationId, head!.status, x.upstream!.raw)
        reply?.end()
        finish(reusable && !upstreamCloses)
      }
      /**
       * Body bytes of the answer (from `start`): to the capture (decoded) and to the client (as they came,
       * or decoded for an HTTP/1.0 client). The client's bytes start at `from`: the head passed on as it
       * came is written with the body, in one write.
       */
      const pass = (chunk: Buffer, start: number, from = start): void => {
        if (framing.kind === 'length') {
          const take = Math.min(remaining, chunk.length - start)
          const data = start === 0 && take === chunk.length ? chunk : chunk.subarray(start, start + take)
          remaining -= take
          if (capture.add(data)) connection.keep()
          if (reply && !reply.write(from === start ? data : chunk.subarray(from, start + take))) throttle()
          if (remaining === 0) complete(start + take === chunk.length)
        } else if (framing.kind === 'chunked') {
          const end = decoder!.feed(chunk, start, (data) => {
            if (capture.add(data)) connection.keep()
            if (dechunk && reply && !reply.write(data)) throttle()
          })
          if (!dechunk && reply && !reply.write(from === 0 && end < 0 ? chunk : chunk.subarray(from, end < 0 ? chunk.length : end))) throttle()
          if (end >= 0) complete(end === chunk.length && !dechunk)
        } else if (framing.kind === 'close') {
          const data = start === 0 ? chunk : chunk.subarray(start)
          if (capture.add(data)) connection.keep()
          if (reply && !reply.write(from === start ? data : chunk.subarray(from))) throttle()
        } else {
          if (reply && from < start) reply.write(chunk.subarray(from, start))
          complete(start === chunk.length)
        }
      }
      /** The client reads slower than the upstream writes: the upstream waits. */
      let unthrottle: (() => void) | undefined
      const throttle = () => {
        if (unthrottle) return
        up.pause()
        // The client drained its buffer, or went away (its answer is then read to the end for the record).
        const resume = () => {
          reply!.socket.off('drain', resume).off('close', resume)
          unthrottle = undefined
          up.resume()
        }
        unthrottle = resume
        reply!.socket.on('drain', resume).on('close', resume)
      }
      const answered = (chunk: Buffer, end: number): void => {
        head = parseResponseHead(chunk, 0, end)
        if (head.status < 200) {
          if (head.status === 101) throw new HttpError('the upstream switched protocols, which the proxy did not ask for', 502)
          // RFC 9110 15.2: a proxy MUST forward 1xx answers unless it asked for them itself: 103 Early Hints and the others go to
          // an HTTP/1.1 client, before the final answer (which a 502 can still be); the 100 Continue to an Expect the proxy
          // answered itself does not, and an HTTP/1.0 client gets none (RFC 9110 15.2: it cannot read them).
          if (reply && !reply.destroyed && reply.minor === 1 && !(head.status === 100 && continued)) reply.socket.write(`HTTP/1.1 ${head.status} ${head.reason}\r\n${endToEndLines(head)}\r\n`, 'latin1')
          head = undefined
          if (end < chunk.length) connection.owner!.data(chunk.subarray(end))
          return
        }
        framing = noBody || head.status === 204 || head.status === 304 ? { kind: 'none' } : framingOf({ headers: head.picked }, false)
        settled = true
        x.upstream = new Answer(head.status, new KeptHead(head))
        repeatable = x.operationId !== undefined
        if (repeatable) capture.expect(lastAnswers.get(x.operationId, head.status))
        if (framing.kind === 'length') remaining = framing.length
        else if (framing.kind === 'chunked') decoder = new ChunkedDecoder(502)
        const connectionField = head.picked.connection
        upstreamCloses = hasToken(connectionField, 'close') || (head.minor === 0 && !hasToken(connectionField, 'keep-alive'))
        if (reply && !reply.destroyed && head.checked && head.minor === 1 && reply.minor === 1 && !reply.closeAfter && framing.kind !== 'close' && (connectionField === undefined || connectionField.toLowerCase() === 'keep-alive')) {
          // The common answer: its head passed on as it came, the hop-by-hop lines cut out in place, with the body in one write.
          reply.retryAfter = head.picked['retry-after']
          reply.began(head.status)
          pass(chunk, end, cutLines(chunk, head.cuts))
        } else if (reply && !reply.destroyed) {
          let lines = endToEndLines(head)
          const transferEncoding = head.headers['transfer-encoding']
          if (transferEncoding !== undefined && framing.kind !== 'none') {
            // The transfer codings go on as they came (`gzip, chunked` too) to an HTTP/1.1 client. An HTTP/1.0 one cannot read chunked:
            // that is undone for it (the answer then runs to the close); a coding besides (an upstream's `gzip, chunked`, which it
            // should not send to a proxy that sent no TE) is not undone on the forwarding path, which passes bytes on as they came,
            // but named, not passed as if it were the representation (RFC 9112 6.1 would have it undone for an HTTP/1.0 recipient).
            const besides = codingsOf({ 'transfer-encoding': transferEncoding })
            if (reply.minor === 1) lines += `Transfer-Encoding: ${transferEncoding}\r\n`
            else {
              dechunk = framing.kind === 'chunked'
              if (besides.length) lines += `Transfer-Encoding: ${besides.join(', ')}\r\n`
            }
          }
          if (framing.kind === 'close' || dechunk) reply.closeAfter = true
          reply.retryAfter = head.headers['retry-after']
          reply.socket.cork()
          reply.head(head.status, head.reason, lines)
          // The head goes out even when the body's first bytes are refused (the answer is then cut, not lost whole).
          try {
            pass(chunk, end)
          } finally {
            reply.socket.uncork()
          }
        } else pass(chunk, end)
      }
      connection.owner = {
        data(chunk) {
          if (done) return
          try {
            if (head) pass(chunk, 0)
            else {
              if (partial) chunk = Buffer.concat([partial, chunk])
              const end = headEnd(chunk, 0, 'its answer')
              if (end < 0) {
                // A head in pieces: kept as a copy (the read buffer is reused).
                partial = Buffer.from(chunk)
                return
              }
              partial = undefined
              answered(chunk, end)
            }
          } catch (error) {
            fail(`the upstream failed: ${(error as Error).message}`, 502)
          }
          // Bytes the client's socket could not take at once still point into the read buffer.
          if (reply && !reply.destroyed && reply.socket.writableLength > 0) connection.keep()
        },
        closed(error) {
          if (done) return
          if (head && framing.kind === 'close' && !error) return complete(false)
          if (settled) return fail('the upstream reset the connection mid-answer', 502)
          // Node's word for a connection closed before an answer: ECONNRESET ("socket hang up").
          fail(`the upstream failed: ${error?.code ? networkErrorText(error.code) : (error?.message ?? 'ECONNRESET')}`, 502)
        },
        timeout() {
          fail(`the upstream did not answer within ${timeoutMs} ms`, 504)
        },
      }
      if (body !== undefined) send(up, upstreamHead(req, socket, body.length || req.picked['content-length'] !== undefined ? body.length : undefined, requestBody.framing), [body])
      else {
        send(
          up,
          upstreamHead(req, socket, undefined, requestBody.framing),
          requestBody.attach((raw) => {
            if (!up.write(raw)) {
              socket.pause()
              up.once('drain', () => socket.resume())
            }
          }),
        )
        // A client gone before the end of its body: the upstream's request is cut, nothing waits for it.
        requestBody.onEnd(() => {
          if (requestBody.aborted && !done) {
            // Not the upstream's failure: the exchange ends, recorded as the client's abort, or answered the client's fault.
            const error = requestBody.error
            if (!error) x.clientAborted = true
            else if (reply && !reply.headersSent && !reply.destroyed) {
              reply.closeAfter = true
              reply.json(error.status, `shoptwin proxy: ${error.message}`)
            } else reply?.destroy()
            if (x.upstream) recordCut()
            finish(false)
          }
        })
      }
    }
  }
  const forwarded = (req: RequestHead, requestBody: RequestBody, socket: Socket, x: Recorded, body: Buffer | undefined, reply: Reply | undefined, capture: Capture) =>
    new Promise<void>((resolve) => forward(req, requestBody, socket, x, body, reply, capture, resolve))

  /** One request on a client's connection, from its head to the exchange's record. */
  /** One request on a client's connection, from its head to the exchange's record; `done` once recorded. */
  function handle(req: RequestHead, requestBody: RequestBody, reply: Reply, socket: Socket, done: () => void): void {
    const started = now()
    const target = req.target
    const mark = target.indexOf('?')
    const pathname = mark < 0 ? target : target.slice(0, mark)
    const op = route(req.method, pathname)
    // The record keeps the contract's own strings where they are the same: one copy for every exchange.
    const x = new Recorded(++seq, started, req, op?.method ?? req.method, op?.path === pathname ? op.path : pathname, mark < 0 || mark === target.length - 1 ? '' : target.slice(mark), op?.operationId, requestBody.capture)
    const responseCapture = new Capture(true)
    let adversity: Adversity | undefined
    const failed = (error: unknown) => {
      if (requestBody.aborted && !requestBody.error) x.clientAborted = true
      else if (!requestBody.error) x.upstreamError ??= `the proxy failed: ${(error as Error).message}`
      if (reply.destroyed) {
        // The client is gone: nothing to answer.
      } else if (!reply.headersSent) {
        reply.closeAfter ||= !requestBody.done
        reply.json(requestBody.error?.status ?? 502, `shoptwin proxy: ${(error as Error).message}`)
      } else reply.destroy()
    }
    let recorded = false
    const record = () => {
      if (recorded) return
      recorded = true
      if (!reply.finished) x.clientAborted = true
      x.requestTruncated = requestBody.capture.truncated
      // What the client saw: the injected answer, a dropped connection (0), or the answer it read to the end.
      // A held write the client gave up on is recorded with the upstream's answer, as the twin records it.
      if (adversity?.kind === 'drop') x.status = 0
      else if (adversity?.kind !== 'status') x.status = reply.finished ? reply.statusCode : adversity?.kind === 'slow' ? (x.upstream?.status ?? 0) : 0
      x.retryAfter = reply.retryAfter === undefined || x.status === 0 ? null : retryAfterSeconds(reply.retryAfter, x.upstream?.headers.date)
      x.durationMs = now() - started
      x.ended(shelf)
      onExchange(x)
      done()
    }
    if (!injector || !op) {
      // The common request: forwarded as it streams, no promise on its way.
      try {
        forward(req, requestBody, socket, x, undefined, reply, responseCapture, record)
      } catch (error) {
        failed(error)
        record()
      }
      return
    }
    void (async () => {
      try {
        // Under --inject the body is read first (the schedule reads write bodies).
        const body = await requestBody.readAll()
        x.takeBody(body)
        adversity = injector.decide(x, op)
        if (!adversity) await forwarded(req, requestBody, socket, x, body, reply, responseCapture)
        else await produce(adversity, req, requestBody, body, socket, reply, x, op, responseCapture)
      } catch (error) {
        failed(error)
      }
      record()
    })()
  }

  /** `sendable`: the whole request body, as it came (a body with a Content-Encoding is bytes, not text). */
  async function produce(adversity: Adversity, req: RequestHead, requestBody: RequestBody, sendable: Buffer, socket: Socket, reply: Reply, x: Recorded, op: OperationInfo, capture: Capture): Promise<void> {
    x.injected = adversity.situation
    onInject?.(x)
    if (adversity.kind === 'status') {
      // spec: Idempotency: a 500 after the write acted (applied); a 503 or a 429 before it reached the server.
      if (adversity.apply) await forwarded(req, requestBody, socket, x, sendable, undefined, capture)
      x.status = adversity.status
      if (!reply.destroyed) reply.json(adversity.status, adversity.message, adversity.headers)
      return
    }
    if (adversity.kind === 'drop') {
      if (adversity.apply) await forwarded(req, requestBody, socket, x, sendable, undefined, capture)
      x.status = 0
      reply.destroy()
      return
    }
    if (adversity.kind === 'before') {
      await adversity.run()
      await forwarded(req, requestBody, socket, x, sendable, reply, capture)
      return
    }
    // Held past the client's timeout: forwarded when the client retries with the same key (so the
    // retry reaches the upstream while this one is in flight there) or when the hold ends.
    const key = `${req.picked['x-shop-id'] ?? ''} ${req.picked['idempotency-key'] ?? ''}`
    await new Promise<void>((resolve) => {
      let released: Promise<void> | undefined
      const release = () => {
        if (!released) {
          held.delete(key)
          clearTimeout(timer)
          timers.delete(timer)
          released = forwarded(req, requestBody, socket, x, sendable, reply.destroyed ? undefined : reply, capture).then(() => resolve())
        }
        return released
      }
      const timer = setTimeout(release, adversity.ms)
      timers.add(timer)
      held.set(key, { release })
      if (inProgress <= held.size) onIdle?.()
    })
  }

  /** A client's connection: its requests parsed one at a time, each answered before the next is read (pipelining serialised). */
  class ClientConnection {
    private pending: Buffer | undefined
    private body: RequestBody | undefined
    /** A request is being answered. */
    busy = false
    /** The client sent its FIN: no more requests will come. */
    private ended = false

    readonly socket: Socket

    constructor(socket: Socket) {
      this.socket = socket
      socket.setNoDelay(true)
      socket.on('data', (chunk: Buffer) => this.data(chunk))
      // Idle (or refused and never closed by the client): closed; a request in progress waits for its answer,
      // but one whose body stopped coming is answered 408 (the client's fault, not a 504 when the upstream waits for it too).
      // Judged after this turn's reads: a request that came while the loop was held is not reset.
      clientIdle.watch(socket, () => {
        if (!this.busy || socket.writableEnded) socket.destroy()
        else this.body?.fail(new HttpError(`the request body stopped coming: nothing for ${clientIdleMs} ms`, 408))
      })
      socket.on('end', () => {
        this.ended = true
        this.body?.abort()
        if (!this.busy) socket.end()
      })
      socket.on('error', () => undefined)
      socket.on('close', () => {
        clients.delete(this)
        this.body?.abort()
      })
    }

    private data(chunk: Buffer): void {
      // The proxy closes this connection (a refusal, `Connection: close`, HTTP/1.0): what comes after is not read as requests.
      if (this.socket.writableEnded) return
      if (this.body && !this.body.done && !this.body.aborted) {
        let end: number
        try {
          end = this.body.feed(chunk, 0)
        } catch (error) {
          // A malformed chunk after the request went on: its upstream request is cut, the client gets a 400 and the connection closes.
          this.pending = undefined
          return void this.body.fail(error instanceof HttpError ? error : new HttpError((error as Error).message))
        }
        if (end < 0 || end === chunk.length) return
        chunk = chunk.subarray(end)
      }
      if (closing && !this.busy) return void this.socket.end()
      this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk
      if (this.busy) {
        if (this.pending.length > MAX_PENDING) this.socket.pause()
      } else this.next()
    }

    /** Reads the next request from what came, if its head is all there. */
    private next(): void {
      let buffer = this.pending
      if (!buffer || this.busy || this.socket.destroyed) return
      // RFC 9112 2.2: empty lines before a request line are ignored (a client's extra CR LF after a body), and dropped.
      let blank = 0
      while (buffer[blank] === 13 && buffer[blank + 1] === 10) blank += 2
      if (blank) this.pending = buffer = buffer.subarray(blank)
      if (!buffer.length) return
      let req: RequestHead
      let body: RequestBody
      let bodyEnd: number
      try {
        const end = headEnd(buffer, 0)
        if (end < 0) return
        req = parseRequestHead(buffer, 0, end)
        if (req.method === 'CONNECT') throw new HttpError('CONNECT is not supported: this is a reverse proxy', 405)
        if (!req.target.startsWith('/') && !(req.target === '*' && req.method === 'OPTIONS')) {
          // The absolute form (RFC 9112 3.2.2) names the proxy itself: its path is the target. The asterisk form (3.2.4, a
          // server-wide OPTIONS) goes on as it came, and so does an OPTIONS whose absolute form has no path and no query: the
          // last proxy MUST send it on as `*`.
          if (!/^https?:\/\//i.test(req.target) || !URL.canParse(req.target)) throw new HttpError(`the request target must be a path${req.target === '*' ? ' (* only for OPTIONS)' : ''}: ${JSON.stringify(req.target.slice(0, 80))}`)
          const url = new URL(req.target)
          req.target = req.method === 'OPTIONS' && /^https?:\/\/[^/?#]*$/i.test(req.target) ? '*' : `${url.pathname}${url.search}`
        }
        // RFC 9112 3.2: a request with more than one Host, an HTTP/1.1 request with none, or one with an invalid value, MUST be answered 400 (a host field holds no comma: two joined).
        const host = req.picked.host
        if (host === undefined ? req.minor === 1 : host.includes(',')) throw new HttpError(host === undefined ? 'an HTTP/1.1 request must have a Host header' : 'the request has more than one Host header')
        if (host !== undefined && !HOST_FIELD.test(host)) throw new HttpError(`the request's Host is not host[:port]: ${JSON.stringify(host.slice(0, 80))}`)
        const expect = req.picked.expect
        if (expect !== undefined && expect.toLowerCase() !== '100-continue') throw new HttpError(`Expect ${JSON.stringify(expect)} is not supported`, 417)
        body = new RequestBody(framingOf({ headers: req.picked }, true), new Capture())
        this.pending = undefined
        this.busy = true
        // spec-neutral: the proxy answers 100 Continue itself, as Node's server does, and forwards the body when it comes.
        if (expect !== undefined && req.minor === 1) this.socket.write('HTTP/1.1 100 Continue\r\n\r\n', 'latin1')
        bodyEnd = body.feed(buffer, end)
      } catch (error) {
        // A HEAD refused gets no body either (its request line may be the part refused: read as it came).
        return this.refuse(error as Error, buffer.toString('latin1', 0, 5) === 'HEAD ')
      }
      if (bodyEnd >= 0 && bodyEnd < buffer.length) this.pending = buffer.subarray(bodyEnd)
      this.body = body
      // After the client's FIN, a body not all here never will be.
      if (this.ended) body.abort()
      // RFC 9112 6.1: an HTTP/1.0 message with Transfer-Encoding is framed faultily: the connection closes after it.
      // `close` wins over `keep-alive` when a client sends both.
      const keepAlive = !hasToken(req.picked.connection, 'close') && (req.minor === 1 || (hasToken(req.picked.connection, 'keep-alive') && req.picked['transfer-encoding'] === undefined))
      const reply = new Reply(this.socket, req.minor, keepAlive && !closing, req.method === 'HEAD')
      // A retry of a held write: the held one goes first, this one right behind it.
      const heldWrite = req.picked['idempotency-key'] ? held.get(`${req.picked['x-shop-id'] ?? ''} ${req.picked['idempotency-key']}`) : undefined
      if (heldWrite) void heldWrite.release()
      inProgress++
      handle(req, body, reply, this.socket, () => {
        inProgress--
        this.answered(reply)
        if (inProgress === 0) {
          for (const resolve of drained.splice(0)) resolve()
          onIdle?.()
        }
      })
    }

    /** The request in progress was answered: the next one, or the end of the connection. */
    private answered(reply: Reply): void {
      this.busy = false
      this.body = undefined
      if (this.socket.destroyed) return
      if (reply.closeAfter || closing) return void this.socket.end()
      this.socket.resume()
      this.next()
      // The client sent its FIN (a half-close): the requests that came whole are answered first, in order.
      if (this.ended && !this.busy) this.socket.end()
    }

    /** A request that is not HTTP/1.1 as the RFC writes it: 400 (or 405, 417, 431) `{"error"}`, and the connection closes. */
    private refuse(error: Error, toHead: boolean): void {
      this.pending = undefined
      const status = error instanceof HttpError ? error.status : 400
      const reply = new Reply(this.socket, 1, false, toHead)
      reply.json(status, `shoptwin proxy: ${error.message}`)
      this.busy = true
      this.socket.end()
    }

    /** The server stops: an idle connection closes now, a busy one after its answer. */
    close(): void {
      if (!this.busy) this.socket.end()
    }
  }

  const server = createNetServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    if (closing) return void socket.destroy()
    clients.add(new ClientConnection(socket))
  })

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
    // A write held past its client's timeout is not traffic in flight: grading may run meanwhile.
    busy: () => inProgress > held.size,
    async close() {
      closing = true
      for (const write of [...held.values()]) void write.release()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const client of clients) client.close()
      if (inProgress > 0) await new Promise<void>((resolve) => drained.push(resolve))
      for (const client of clients) client.close()
      for (const timer of timers) clearTimeout(timer)
      for (const connection of [...idle.splice(0), ...cooling.splice(0), ...freed.splice(0)]) connection.socket.destroy()
      await closed
      upstreamIdle.close()
      clientIdle.close()
    },
  }
}
