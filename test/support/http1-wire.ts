import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net'

/**
 * HTTP/1.1 messages read the test's own way, for the proxy's fuzz tests (test/proxy-fuzz-*.test.ts):
 * a strict parser of the requests an upstream receives (RFC 9112 as written, no leniency: the oracle
 * that the proxy sends nothing a strict server would frame differently), and a reader of the answers
 * a client receives. Written from the RFC, apart from proxy/http1.ts, so a bug there is not copied here.
 */

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const FIELD_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*((?:[\x21-\x7e\x80-\xff](?:[ \t\x21-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?)[ \t]*$/
/** chunk-size [ chunk-ext ] (RFC 9112 7.1.1): ext-val a token or a quoted-string. */
const CHUNK_LINE = /^([0-9A-Fa-f]{1,15})((?:[ \t]*;[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*=[ \t]*(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+|"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"))?)*)$/

export interface Field {
  name: string
  value: string
}

export interface ParsedRequest {
  method: string
  target: string
  version: string
  fields: Field[]
  body: Buffer
  /** The bytes of the whole message as they came. */
  raw: Buffer
}

/** A message that a strict recipient refuses. */
export class WireError extends Error {}

export const field = (fields: Field[], name: string): string[] => fields.filter((f) => f.name.toLowerCase() === name).map((f) => f.value)

function fieldLines(text: string, what: string): Field[] {
  const out: Field[] = []
  if (text === '') return out
  for (const line of text.split('\r\n')) {
    const m = FIELD_LINE.exec(line)
    if (!m) throw new WireError(`${what}: a malformed field line ${JSON.stringify(line.slice(0, 60))}`)
    out.push({ name: m[1]!, value: m[2]! })
  }
  return out
}

/**
 * A chunked body from `at`: the decoded bytes and where the message ends, or undefined when it has
 * not all come. Throws on anything RFC 9112 7.1 does not allow.
 */
export function readChunked(buffer: Buffer, at: number, what: string): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = []
  for (;;) {
    const eol = buffer.indexOf('\r\n', at)
    if (eol < 0) {
      if (buffer.indexOf(10, at) >= 0) throw new WireError(`${what}: a chunk line ends without CR LF`)
      return undefined
    }
    const line = buffer.toString('latin1', at, eol)
    const m = CHUNK_LINE.exec(line)
    if (!m) throw new WireError(`${what}: a malformed chunk line ${JSON.stringify(line.slice(0, 60))}`)
    const size = parseInt(m[1]!, 16)
    at = eol + 2
    if (size === 0) break
    if (buffer.length < at + size + 2) return undefined
    parts.push(buffer.subarray(at, at + size))
    if (buffer[at + size] !== 13 || buffer[at + size + 1] !== 10) throw new WireError(`${what}: a chunk not followed by CR LF`)
    at += size + 2
  }
  // Trailer section, then the blank line.
  for (;;) {
    const eol = buffer.indexOf('\r\n', at)
    if (eol < 0) return undefined
    const line = buffer.toString('latin1', at, eol)
    at = eol + 2
    if (line === '') return { body: Buffer.concat(parts), end: at }
    fieldLines(line, `${what} trailer`)
  }
}

/**
 * The next request in `buffer` (strictly: request line, field lines, one framing), or undefined when
 * it has not all come. Throws WireError on a message a strict server refuses.
 */
export function readRequest(buffer: Buffer): { request: ParsedRequest; end: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n')
  if (headEnd < 0) {
    const lf = buffer.indexOf(10)
    if (lf >= 0 && (lf === 0 || buffer[lf - 1] !== 13)) throw new WireError('a bare LF in a request head')
    return undefined
  }
  const head = buffer.toString('latin1', 0, headEnd)
  const lineEnd = head.indexOf('\r\n')
  const line = lineEnd < 0 ? head : head.slice(0, lineEnd)
  const m = /^([^ ]+) ([^ ]+) (HTTP\/1\.1)$/.exec(line)
  if (!m || !TOKEN.test(m[1]!) || !/^[\x21-\x7e\x80-\xff]+$/.test(m[2]!)) throw new WireError(`a malformed request line ${JSON.stringify(line.slice(0, 60))}`)
  const fields = fieldLines(lineEnd < 0 ? '' : head.slice(lineEnd + 2), 'the request')
  const te = field(fields, 'transfer-encoding')
  const cl = field(fields, 'content-length')
  let at = headEnd + 4
  let body: Buffer
  if (te.length) {
    if (cl.length) throw new WireError('both Transfer-Encoding and Content-Length')
    if (te.length !== 1 || te[0] !== 'chunked') throw new WireError(`Transfer-Encoding ${JSON.stringify(te)}: not "chunked" alone`)
    const chunked = readChunked(buffer, at, 'the request')
    if (!chunked) return undefined
    body = chunked.body
    at = chunked.end
  } else if (cl.length) {
    if (cl.length !== 1 || !/^\d{1,15}$/.test(cl[0]!)) throw new WireError(`Content-Length ${JSON.stringify(cl)}: not one decimal length`)
    const length = Number(cl[0])
    if (buffer.length < at + length) return undefined
    body = buffer.subarray(at, at + length)
    at += length
  } else body = Buffer.alloc(0)
  return { request: { method: m[1]!, target: m[2]!, version: m[3]!, fields, body: Buffer.from(body), raw: Buffer.from(buffer.subarray(0, at)) }, end: at }
}

export interface ReadAnswer {
  status: number
  reason: string
  version: string
  fields: Field[]
  /** The decoded body. */
  body: Buffer
  /** The body's bytes as they came (chunked: with its framing). */
  rawBody: Buffer
  /** The whole answer's bytes as they came. */
  raw: Buffer
  /** The connection ended before the answer did. */
  cut: boolean
}

/**
 * The answers in a byte stream a client read up to the close, in order (interim 1xx answers among
 * them). `noBody(i)`: the i-th final answer has no body (it answers HEAD). A malformed answer throws.
 */
export function readAnswers(bytes: Buffer, noBody: (i: number) => boolean): ReadAnswer[] {
  const out: ReadAnswer[] = []
  let at = 0
  let finals = 0
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at)
    if (headEnd < 0) throw new WireError(`an answer's head cut short: ${JSON.stringify(bytes.toString('latin1', at, at + 80))}`)
    const head = bytes.toString('latin1', at, headEnd)
    const lineEnd = head.indexOf('\r\n')
    const line = lineEnd < 0 ? head : head.slice(0, lineEnd)
    const m = /^(HTTP\/1\.[01]) ([1-9]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?$/.exec(line)
    if (!m) throw new WireError(`a malformed status line ${JSON.stringify(line.slice(0, 80))}`)
    const status = Number(m[2])
    const fields = fieldLines(lineEnd < 0 ? '' : head.slice(lineEnd + 2), 'the answer')
    const start = at
    at = headEnd + 4
    let body: Buffer = Buffer.alloc(0)
    let rawBody: Buffer = body
    let cut = false
    const te = field(fields, 'transfer-encoding')
    const cl = field(fields, 'content-length')
    if (status < 200 || status === 204 || status === 304 || (status >= 200 && noBody(finals))) {
      // No body.
    } else if (te.length) {
      if (cl.length) throw new WireError('an answer with both Transfer-Encoding and Content-Length')
      // RFC 9112 6.3: chunked as the final coding frames the body (`gzip, chunked` too); another final coding runs to the close.
      if (te.join(',').split(',').at(-1)!.trim().toLowerCase() !== 'chunked') {
        body = rawBody = bytes.subarray(at)
        at = bytes.length
      } else {
        const chunked = readChunked(bytes, at, 'the answer')
        if (!chunked) {
          cut = true
          rawBody = bytes.subarray(at)
          at = bytes.length
        } else {
          body = chunked.body
          rawBody = bytes.subarray(at, chunked.end)
          at = chunked.end
        }
      }
    } else if (cl.length) {
      if (cl.length !== 1 || !/^\d+$/.test(cl[0]!)) throw new WireError(`an answer's Content-Length ${JSON.stringify(cl)}`)
      const length = Number(cl[0])
      if (bytes.length < at + length) cut = true
      body = rawBody = bytes.subarray(at, Math.min(bytes.length, at + length))
      at += body.length
    } else {
      body = rawBody = bytes.subarray(at)
      at = bytes.length
    }
    out.push({ status, reason: m[3] ?? '', version: m[1]!, fields, body, rawBody, raw: bytes.subarray(start, at), cut })
    if (status >= 200) finals++
  }
  return out
}

/**
 * Where to cut `bytes` into writes: at the `random` points (mod its length), and between the CR and
 * the LF of the CR LFs `insideCrlf` picks (mod their count): a line end split across two reads.
 */
export function cutPoints(bytes: Buffer, random: number[], insideCrlf: number[] = []): number[] {
  const crlfs: number[] = []
  if (insideCrlf.length) for (let at = bytes.indexOf('\r\n'); at >= 0; at = bytes.indexOf('\r\n', at + 2)) crlfs.push(at + 1)
  const points = [...random.map((r) => r % (bytes.length + 1)), ...(crlfs.length ? insideCrlf.map((i) => crlfs[i % crlfs.length]!) : [])]
  return [...new Set(points)].sort((a, b) => a - b)
}

/**
 * Writes `bytes` to `url` on a new connection, cut at `points` (each part in its own turn: a later read
 * of the proxy's), then half-closes (`end`), closes at once (`destroy`) or waits (`wait`), and reads until
 * the other side closes. Still open `hangMs` after the last byte: a hang (the socket is destroyed).
 */
export async function talk(url: string, bytes: Buffer, points: number[], ending: 'end' | 'wait' | 'destroy', hangMs: number): Promise<{ received: Buffer; hang: boolean }> {
  const { port, hostname } = new URL(url)
  const socket = connect(Number(port), hostname)
  const chunks: Buffer[] = []
  socket.on('data', (c: Buffer) => chunks.push(c))
  socket.on('error', () => undefined)
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  let from = 0
  for (const to of [...points, bytes.length]) {
    if (to > from && !socket.destroyed) socket.write(bytes.subarray(from, to))
    from = to
    await new Promise((resolve) => setImmediate(resolve))
  }
  if (ending === 'end') socket.end()
  if (ending === 'destroy') socket.destroy()
  let hang = false
  const watchdog = setTimeout(() => {
    hang = true
    socket.destroy()
  }, hangMs)
  await closed
  clearTimeout(watchdog)
  return { received: Buffer.concat(chunks), hang }
}

/** The message of the proxy's own `{"error": "shoptwin proxy: …"}` (nothing else in it), or undefined. */
export function proxyError(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown }
    return typeof parsed.error === 'string' && parsed.error.startsWith('shoptwin proxy: ') && Object.keys(parsed).length === 1 ? parsed.error : undefined
  } catch {
    return undefined
  }
}

/** `size` bytes of any value from `seed` (a linear congruential sequence): a body a counterexample names by two numbers. */
export function seededBytes([size, seed]: readonly [number, number]): Buffer {
  const out = Buffer.alloc(size)
  let x = seed | 1
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff
    out[i] = x >> 16
  }
  return out
}

/**
 * A strict upstream on 127.0.0.1, port 0, without Nagle (a piece written a turn after an answer leaves
 * at once): each request it frames (`readRequest`) goes to `onRequest`, awaited before the next; bytes
 * it cannot frame are pushed to `errors` and the connection is destroyed.
 */
export async function strictUpstream(onRequest: (request: ParsedRequest, socket: Socket, connection: number) => void | Promise<void>, errors: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  let connections = 0
  const server = createNetServer((socket) => {
    const connection = ++connections
    socket.setNoDelay(true)
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    let pending = Buffer.alloc(0)
    socket.on('data', async (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        let read
        try {
          read = readRequest(pending)
        } catch (error) {
          errors.push(`${(error as Error).message} in ${JSON.stringify(pending.toString('latin1').slice(0, 300))}`)
          return void socket.destroy()
        }
        if (!read) return
        pending = pending.subarray(read.end)
        await onRequest(read.request, socket, connection)
      }
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}

