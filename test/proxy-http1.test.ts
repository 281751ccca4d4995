/**
 * `shoptwin proxy` on the wire (proxy/server.ts, proxy/http1.ts: HTTP/1.1 on raw sockets): what a
 * reverse proxy must get right beyond a fetch through it. Keep-alive both ways, pipelined requests
 * answered in order, chunked and Content-Length bodies both ways, Expect: 100-continue, HEAD, 204 and
 * 304 without bodies, an HTTP/1.0 client, an answer delimited by the close, an upgrade declined, and
 * malformed requests (and answers) refused with a 400 (502) `{"error"}`. The client side is a raw
 * socket, so the bytes are the test's own. Every server listens on 127.0.0.1, port 0.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http'
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { startProxy, type RunningProxy } from '../proxy/index.ts'
import { cutLines, headEnd, HttpError, keptLines, parseRequestHead, parseResponseHead, type Picked, type RequestHead, type ResponseHead } from '../proxy/http1.ts'
import { Redactor, type ProxyExchange } from '../proxy/exchange.ts'

let upstream: Server
let upstreamUrl: string
let upstreamConnections = 0
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = []
/** An upstream that answers garbage, or a close-delimited answer, on raw sockets. */
let rawUpstream: NetServer
let rawUpstreamUrl: string
let proxy: RunningProxy

beforeAll(async () => {
  upstream = createHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      const path = req.url!.split('?')[0]
      if (path === '/no-content') return void res.writeHead(204).end()
      if (path === '/not-modified') return void res.writeHead(304, { etag: '"v1"' }).end()
      if (path === '/chunked') {
        // No Content-Length: Node sends the answer chunked, in the pieces written.
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"data": {"echo": ')
        return void setImmediate(() => res.end(`${JSON.stringify(body)}}}`))
      }
      if (path!.startsWith('/random/')) {
        // Distinct bytes per request, written in pieces: a reused read buffer would mix answers.
        const bytes = randomAnswer(Number(path!.slice(8)))
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) })
        for (let at = 0; at < bytes.length; at += 50_000) res.write(bytes.subarray(at, at + 50_000))
        return void res.end()
      }
      if (path === '/big') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 * 1024 + 2) })
        res.write('"')
        for (let i = 0; i < 3; i++) res.write('x'.repeat(1024 * 1024))
        return void res.end('"')
      }
      const answer = JSON.stringify({ data: { method: req.method, url: req.url, body } })
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) })
      res.end(req.method === 'HEAD' ? undefined : answer)
    })
  })
  upstream.on('connection', () => upstreamConnections++)
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  rawUpstream = createNetServer((socket) => {
    socket.once('data', (chunk: Buffer) => {
      const line = chunk.toString('latin1').split('\r\n')[0]!
      if (line.includes('/garbage')) socket.end('SMTP ready\r\n\r\n')
      else if (line.includes('/smuggle')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
      else socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"data": "to the close"}')
    })
  })
  await new Promise<void>((done) => rawUpstream.listen(0, '127.0.0.1', done))
  rawUpstreamUrl = `http://127.0.0.1:${(rawUpstream.address() as AddressInfo).port}`
  proxy = await startProxy({ upstream: upstreamUrl })
})

afterAll(async () => {
  await proxy.stop()
  await new Promise<void>((done) => upstream.close(() => done()))
  await new Promise<void>((done) => rawUpstream.close(() => done()))
})

/** 150-450 KB of bytes that differ from one `n` to the next (a linear congruential sequence). */
function randomAnswer(n: number): Buffer {
  const bytes = Buffer.alloc(150_000 + ((n * 7919) % 300_000))
  let x = n + 1
  for (let i = 0; i < bytes.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff
    bytes[i] = x >> 16
  }
  return bytes
}

/** Writes `parts` on one connection to `url` (each after the previous is flushed) and reads until the proxy closes it. */
function exchange(url: string, ...parts: string[]): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.on('connect', () => {
      for (const part of parts) socket.write(part)
    })
  })
}

/** The answers in a byte stream, split on their status lines (bodies here hold no status line). */
const answers = (text: string) => text.split(/(?=HTTP\/1\.1 \d{3} )/).filter(Boolean)
const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4)
const statusOf = (answer: string) => Number(answer.slice(9, 12))

describe('proxy on the wire: HTTP/1.1 as a reverse proxy speaks it', () => {
  it('pipelined requests on one connection are answered in order, bodies by length and chunked; the upstream connection is reused', async () => {
    seen.length = 0
    const before = upstreamConnections
    const text = await exchange(
      proxy.url,
      'GET /one?a=1 HTTP/1.1\r\nHost: shop.test\r\n\r\n' +
        'POST /two HTTP/1.1\r\nHost: shop.test\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"two": 2}\n' +
        'POST /chunked HTTP/1.1\r\nHost: shop.test\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"th\r\n7;ext=1\r\nree": 3\r\n1\r\n}\r\n0\r\nX-Trailer: t\r\n\r\n' +
        'GET /four HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n',
    )
    const got = answers(text)
    expect(got.map(statusOf)).toEqual([200, 200, 200, 200])
    expect(JSON.parse(bodyOf(got[0]!)).data).toEqual({ method: 'GET', url: '/one?a=1', body: '' })
    expect(JSON.parse(bodyOf(got[1]!)).data).toEqual({ method: 'POST', url: '/two', body: '{"two": 2}\n' })
    // The chunked answer is passed on chunked; decoded, it echoes the decoded chunked request.
    expect(got[2]).toMatch(/\r\nTransfer-Encoding: chunked\r\n/i)
    const decoded = bodyOf(got[2]!).replace(/(?:^|\r\n)[0-9a-f]+\r\n/gi, '').replace(/\r\n$/, '')
    expect(JSON.parse(decoded)).toEqual({ data: { echo: '{"three": 3}' } })
    expect(got[3]).toMatch(/\r\nConnection: close\r\n/i)
    expect(seen.map((s) => s.url)).toEqual(['/one?a=1', '/two', '/chunked', '/four'])
    // The four went over kept-alive connections to the upstream: a connection freed is reused once a turn of
    // reads passed (bytes after an answer must not be read as the next one's), so pipelined requests take turns on two.
    expect(upstreamConnections - before).toBeLessThanOrEqual(2)
  })

  it('Expect: 100-continue gets 100 Continue before the body; HEAD, 204 and 304 carry no body and the connection goes on', async () => {
    const { hostname, port } = new URL(proxy.url)
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname)
      let got = ''
      socket.on('error', reject)
      socket.on('data', (c: Buffer) => {
        got += c.toString('latin1')
        // The body goes only once the proxy said to go on.
        if (got === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write('{"late": true}' + 'HEAD /head HTTP/1.1\r\nHost: h\r\n\r\nGET /no-content HTTP/1.1\r\nHost: h\r\n\r\nGET /not-modified HTTP/1.1\r\nHost: h\r\n\r\nGET /last HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')
      })
      socket.on('close', () => resolve(got))
      socket.write('POST /expect HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 14\r\n\r\n')
    })
    const got = answers(text)
    expect(got.map(statusOf)).toEqual([100, 200, 200, 204, 304, 200])
    expect(JSON.parse(bodyOf(got[1]!)).data.body).toBe('{"late": true}')
    // HEAD: the length of the GET's body, and no body.
    expect(got[2]).toMatch(/\r\ncontent-length: \d+\r\n/i)
    expect(bodyOf(got[2]!)).toBe('')
    expect(bodyOf(got[3]!)).toBe('')
    expect(bodyOf(got[4]!)).toBe('')
    expect(JSON.parse(bodyOf(got[5]!)).data.url).toBe('/last')
  })

  it('an HTTP/1.0 client gets its answer and the connection closes; an upgrade is declined (the upstream sees a plain request)', async () => {
    seen.length = 0
    const old = await exchange(proxy.url, 'GET /old HTTP/1.0\r\n\r\n')
    expect(statusOf(old)).toBe(200)
    expect(JSON.parse(bodyOf(old)).data.url).toBe('/old')
    const chunkedToOld = await exchange(proxy.url, 'POST /chunked HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi')
    // An HTTP/1.0 client cannot read chunked: it gets the decoded body, to the close.
    expect(chunkedToOld).not.toMatch(/transfer-encoding/i)
    expect(JSON.parse(bodyOf(chunkedToOld))).toEqual({ data: { echo: 'hi' } })
    const upgrade = await exchange(proxy.url, 'GET /socket HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n')
    expect(statusOf(upgrade)).toBe(200)
    const forwarded = seen.find((s) => s.url === '/socket')!
    expect(forwarded.headers.upgrade).toBeUndefined()
    expect(forwarded.headers.connection ?? '').not.toMatch(/upgrade/i)
  })

  it('OPTIONS * (the asterisk form, RFC 9112 3.2.4) reaches the upstream as *, and so does an OPTIONS whose absolute form has no path; * with any other method is refused', async () => {
    seen.length = 0
    const asterisk = await exchange(proxy.url, 'OPTIONS * HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')
    expect(statusOf(asterisk)).toBe(200)
    const absolute = await exchange(proxy.url, 'OPTIONS http://shop.test:8080 HTTP/1.1\r\nHost: shop.test:8080\r\nConnection: close\r\n\r\n')
    expect(statusOf(absolute)).toBe(200)
    const withQuery = await exchange(proxy.url, 'OPTIONS http://shop.test?x=1 HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n')
    expect(statusOf(withQuery)).toBe(200)
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['OPTIONS *', 'OPTIONS *', 'OPTIONS /?x=1'])
    // Its curl sends the asterisk form too (no URL has * for its path).
    const curl = new Redactor().curl({ method: 'OPTIONS', path: '*', query: '', requestHeaders: { host: 'h' }, requestBody: '' } as unknown as ProxyExchange, 'http://127.0.0.1:9')
    expect(curl).toMatch(/^curl -sS --request-target '\*' -X OPTIONS .*http:\/\/127\.0\.0\.1:9/)
    seen.length = 0
    for (const method of ['GET', 'POST', 'options']) {
      const text = await exchange(proxy.url, `${method} * HTTP/1.1\r\nHost: h\r\n\r\n`)
      expect(statusOf(text), method).toBe(400)
      expect(JSON.parse(bodyOf(text)).error, method).toBe('shoptwin proxy: the request target must be a path (* only for OPTIONS): "*"')
    }
    expect(seen).toEqual([])
  })

  it('a malformed request gets 400 {"error"} and the connection closes; nothing reaches the upstream', async () => {
    seen.length = 0
    const cases = [
      ['GET /a b HTTP/1.1\r\nHost: h\r\n\r\n', 400, /request line/],
      ['GET /a HTTP/2.0\r\nHost: h\r\n\r\n', 400, /request line/],
      // Refused as soon as the first line ends, not when a blank line that never comes does (an HTTP/0.9 request, a head cut short).
      ['GET /health\r\n', 400, /request line is not "METHOD \/path HTTP\/1.1": "GET \/health"/],
      ['GET /a HTTP/2.0\r\nHost: h\r\n', 400, /request line/],
      ['GET /a HTTP/1.1\r\nBad Header: x\r\n\r\n', 400, /malformed header line/],
      ['GET /a HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n', 400, /malformed header line/],
      ['POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, /both Transfer-Encoding and Content-Length/],
      ['POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\nabc', 400, /invalid Content-Length/],
      ['POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', 400, /not supported/],
      ['POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400, /invalid chunk size/],
      ['GET /a HTTP/1.1\r\nX-A: 1\r\n\r\n', 400, /must have a Host header/],
      ['GET /a HTTP/1.1\r\nHost: h\r\nHost: i\r\n\r\n', 400, /more than one Host header/],
      ['GET /a HTTP/1.1\r\nHost: shop test\r\n\r\n', 400, /Host is not host\[:port\]: "shop test"/],
      ['GET /a HTTP/1.1\r\nHost: shop.test/a\r\n\r\n', 400, /Host is not host\[:port\]/],
      ['GET /a HTTP/1.1\r\nHost: shop.test:80x\r\n\r\n', 400, /Host is not host\[:port\]/],
      ['GET /a HTTP/1.1\nHost: h\n\n', 400, /without CR LF/],
      ['CONNECT shop.test:443 HTTP/1.1\r\nHost: shop.test:443\r\n\r\n', 405, /CONNECT is not supported/],
      ['GET /a HTTP/1.1\r\nHost: h\r\nExpect: magic\r\n\r\n', 417, /Expect "magic" is not supported/],
    ] as const
    for (const [request, status, message] of cases) {
      const text = await exchange(proxy.url, request)
      expect(statusOf(text), request).toBe(status)
      expect(JSON.parse(bodyOf(text)).error, request).toMatch(message)
      expect(text, request).toMatch(/\r\nConnection: close\r\n/)
    }
    // The invalid chunk size is seen after the head was forwarded: that one request reached the upstream, cut.
    expect(seen.filter((s) => s.url !== '/a')).toEqual([])
  })

  it('an answer delimited by the close is passed on whole; an answer that is not HTTP, or framed twice, is a 502 {"error"}', async () => {
    const other = await startProxy({ upstream: rawUpstreamUrl })
    try {
      const closed = await exchange(other.url, 'GET /close HTTP/1.1\r\nHost: h\r\n\r\n')
      expect(statusOf(closed)).toBe(200)
      expect(bodyOf(closed)).toBe('{"data": "to the close"}')
      const garbage = await exchange(other.url, 'GET /garbage HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')
      expect(statusOf(garbage)).toBe(502)
      expect(JSON.parse(bodyOf(garbage)).error).toMatch(/the upstream failed: its answer does not start with an HTTP\/1.x status line/)
      const smuggle = await exchange(other.url, 'GET /smuggle HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')
      expect(statusOf(smuggle)).toBe(502)
      expect(JSON.parse(bodyOf(smuggle)).error).toMatch(/both Transfer-Encoding and Content-Length/)
      const report = await other.stop()
      expect(report.upstreamFailures.map((f) => f.seq)).toEqual([2, 3])
    } finally {
      await other.stop()
    }
  })

  it('distinct large answers, four at a time to slow readers, arrive and are recorded byte for byte', async () => {
    const recorded = new Map<string, Buffer>()
    const other = await startProxy({ upstream: upstreamUrl, onExchange: ({ x }) => recorded.set(x.path, Buffer.from(x.upstream!.raw)) })
    try {
      const { hostname, port } = new URL(other.url)
      const read = (n: number) =>
        new Promise<Buffer>((resolve, reject) => {
          const socket = connect(Number(port), hostname)
          const chunks: Buffer[] = []
          socket.on('data', (c: Buffer) => {
            chunks.push(c)
            socket.pause()
            setImmediate(() => socket.resume())
          })
          socket.on('error', reject)
          socket.on('close', () => resolve(Buffer.from(bodyOf(Buffer.concat(chunks).toString('latin1')), 'latin1')))
          socket.write(`GET /random/${n} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`)
        })
      for (let round = 0; round < 4; round++) {
        const ns = [0, 1, 2, 3].map((i) => round * 4 + i)
        const bodies = await Promise.all(ns.map(read))
        ns.forEach((n, i) => expect(bodies[i]!.equals(randomAnswer(n)), `answer ${n}`).toBe(true))
      }
      await other.stop()
      expect(recorded.size).toBe(16)
      for (const [path, raw] of recorded) expect(raw.equals(randomAnswer(Number(path.slice(8)))), `record of ${path}`).toBe(true)
    } finally {
      await other.stop()
    }
  })

  it('a 3 MB answer streams whole to a slow reader (backpressure) and is recorded', async () => {
    const other = await startProxy({ upstream: upstreamUrl })
    try {
      const { hostname, port } = new URL(other.url)
      const received = await new Promise<number>((resolve, reject) => {
        const socket = connect(Number(port), hostname)
        let size = 0
        socket.on('data', (c: Buffer) => {
          size += c.length
          // A slow reader: the proxy's writes fill the socket and it must wait, not buffer 3 MB.
          socket.pause()
          setImmediate(() => socket.resume())
        })
        socket.on('error', reject)
        socket.on('close', () => resolve(size))
        socket.write('GET /big HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')
      })
      expect(received).toBeGreaterThan(3 * 1024 * 1024)
      const report = await other.stop()
      expect(report.exchanges).toBe(1)
    } finally {
      await other.stop()
    }
  })
})

describe('proxy heads: the fields the forwarding picks are the fields a full parse finds', () => {
  const PICKED_REQUEST = ['host', 'connection', 'content-length', 'transfer-encoding', 'expect', 'idempotency-key', 'x-shop-id', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port']
  const PICKED_ANSWER = ['content-length', 'transfer-encoding', 'connection', 'retry-after']
  const casing = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''))
  const value = fc.tuple(fc.constantFrom('', ' ', '\t'), fc.stringMatching(/^[a-z0-9=;,./ -]{0,10}[a-z0-9]$/), fc.constantFrom('', ' ', '\t ')).map(([a, v, b]) => `${a}${v}${b}`)
  const lines = (names: string[]) => fc.array(fc.tuple(fc.constantFrom(...names, 'x-other', 'content-type', 'x-shop-idx', 'hostname').chain(casing), value).map(([n, v]) => `${n}:${v}`), { maxLength: 12 })

  it('a request head and an answer head, names in any case, repeated or not: picked[name] equals headers[name] for every picked name', () => {
    fc.assert(
      fc.property(lines(PICKED_REQUEST), lines(PICKED_ANSWER), (requestLines, answerLines) => {
        const request = Buffer.from(`POST /x HTTP/1.1${requestLines.map((l) => `\r\n${l}`).join('')}\r\n\r\n`, 'latin1')
        const req = parseRequestHead(request, 0, headEnd(request, 0))
        expect(req.checked).toBe(true)
        for (const name of PICKED_REQUEST) expect([name, req.picked[name as keyof Picked]]).toEqual([name, req.headers[name]])
        const answer = Buffer.from(`HTTP/1.1 200 OK${answerLines.map((l) => `\r\n${l}`).join('')}\r\n\r\n`, 'latin1')
        const res = parseResponseHead(answer, 0, headEnd(answer, 0))
        for (const name of PICKED_ANSWER) expect([name, res.picked[name as keyof Picked]]).toEqual([name, res.headers[name]])
      }),
      { numRuns: 300 },
    )
  })
})

describe('proxy heads: the one-pass byte scan reads a head as RFC 9112 grammar, spelled as regular expressions, reads it', () => {
  // The grammar the scan implements, as the regular expressions the proxy used before it (the oracle): a request line, a status
  // line, the header lines (token ":" visible bytes, SP, HTAB), the fields picked and the lines not passed on.
  const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]"
  const REQUEST_LINE = new RegExp(`^(${TOKEN}+) ([\\x21-\\x7e\\x80-\\xff]+) HTTP\\/1\\.([01])$`)
  const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?$/
  const HEADER_LINES = new RegExp(`(?:\\r\\n${TOKEN}+:[\\t\\x20-\\x7e\\x80-\\xff]*)*$`, 'y')
  const HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization']
  const REQUEST_CUT = new RegExp(`\\r\\n(?:${[...HOP, 'host', 'content-length', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port'].join('|')}):[^\\r]*`, 'gi')
  const ANSWER_CUT = new RegExp(`\\r\\n(?:${HOP.filter((n) => n !== 'transfer-encoding').join('|')}):[^\\r]*`, 'gi')
  const picked = (text: string, names: string[]) => {
    const out: Record<string, string> = {}
    for (const m of text.matchAll(new RegExp(`\\r\\n(${names.join('|')}):([^\\r]*)`, 'gi'))) {
      const name = m[1]!.toLowerCase()
      out[name] = out[name] === undefined ? m[2]!.trim() : `${out[name]}, ${m[2]!.trim()}`
    }
    return out
  }
  const PICKED_REQUEST = ['host', 'connection', 'content-length', 'transfer-encoding', 'expect', 'idempotency-key', 'x-shop-id', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port']
  const PICKED_ANSWER = ['content-length', 'transfer-encoding', 'connection', 'retry-after']
  // Bytes that sit on the grammar's edges, and names the scan looks for (in any case) or nearly.
  const EDGE = ['a', 'Z', '0', '-', '!', '~', '|', ':', ' ', '\t', '\r', '\n', '\x0b', '\x0c', '\x00', '\x7f', '\x80', '\xa0', '\xff', '/', '"', '(', '@', '[', '^', '_', '`', '{']
  const byte = fc.constantFrom(...EDGE)
  const word = fc.array(byte, { maxLength: 6 }).map((cs) => cs.join(''))
  const NAMES = [...new Set([...PICKED_REQUEST, ...PICKED_ANSWER, ...HOP, 'retry-after', 'x-shop-idx', 'hos', 'tee', 'content-type'])]
  const cased = fc.constantFrom(...NAMES).chain((n) => fc.array(fc.boolean(), { minLength: n.length, maxLength: n.length }).map((up) => [...n].map((c, i) => (up[i] ? c.toUpperCase() : c)).join('')))
  // One byte off a name the scan looks for: a neighbouring byte (`hosu`, `Hosr`), or a byte at the grammar's edge.
  const nearly = fc.tuple(cased, fc.nat(), fc.oneof(fc.constantFrom(-1, 1, 32, -32), byte)).map(([n, i, by]) => {
    const at = i % n.length
    const c = typeof by === 'number' ? String.fromCharCode((n.charCodeAt(at) + by) & 0xff) : by
    return `${n.slice(0, at)}${c}${n.slice(at + 1)}`
  })
  const name = fc.oneof(cased, nearly, word)
  const line = fc.oneof({ weight: 4, arbitrary: fc.tuple(name, fc.constantFrom(':', ': ', ':\t', ' :', ''), fc.oneof(fc.stringMatching(/^[ -~]{0,12}$/), word)).map(([n, c, v]) => `${n}${c}${v}`) }, { weight: 1, arbitrary: word })
  const lines = fc.array(line, { maxLength: 8 })
  const requestLine = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom('GET', 'POST', 'M-SEARCH', 'get'), fc.constantFrom('/x', '/a?b=c', '*', 'http://h/p', '/\x80\xff'), fc.constantFrom('0', '1')).map(([m, t, v]) => `${m} ${t} HTTP/1.${v}`) },
    { weight: 2, arbitrary: fc.tuple(word, fc.constantFrom(' ', '  ', '\t', ''), word, fc.constantFrom(' HTTP/1.1', ' HTTP/1.2', ' HTTP/2.0', 'HTTP/1.1', ' HTTP/1.1 ', ' http/1.1')).map((parts) => parts.join('')) },
  )
  const statusLine = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom('0', '1'), fc.constantFrom('200', '103', '999', '404'), fc.constantFrom('', ' ', ' OK', ' Not\tFound \x80')).map(([v, s, r]) => `HTTP/1.${v} ${s}${r}`) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('HTTP/1.1', 'HTTP/1.2', 'HTTP/2.0', 'HTTP/1.1 ', 'HTTP/1.1  ', 'http/1.1'), fc.constantFrom(' 200', '200', ' 099', ' 20', ' 2000', ' 20a', ''), word).map((parts) => parts.join('')) },
  )
  const outcome = (parse: () => RequestHead | ResponseHead) => {
    try {
      return parse()
    } catch (error) {
      return error as Error
    }
  }

  it('the first line and the header lines are accepted or refused as the grammar says; the fields picked and the lines kept are the same', () => {
    fc.assert(
      fc.property(fc.boolean(), requestLine, statusLine, lines, (isRequest, reqLine, statLine, headerLines) => {
        const first = isRequest ? reqLine : statLine
        const text = `${first}${headerLines.map((l) => `\r\n${l}`).join('')}`
        // A blank line inside the lines would end the head there: the head is what comes before it.
        const head = Buffer.from(`${text}\r\n\r\n`, 'latin1')
        const end = head.indexOf('\r\n\r\n') + 4
        const seen = head.toString('latin1', 0, end - 4)
        const lineEnd = seen.indexOf('\r\n') < 0 ? seen.length : seen.indexOf('\r\n')
        const firstMatch = (isRequest ? REQUEST_LINE : STATUS_LINE).exec(seen.slice(0, lineEnd))
        const got = outcome(() => (isRequest ? parseRequestHead(head, 0, end) : parseResponseHead(head, 0, end)))
        if (!firstMatch) return void expect(got).toBeInstanceOf(HttpError)
        HEADER_LINES.lastIndex = lineEnd
        const checked = HEADER_LINES.test(seen)
        if (got instanceof Error) {
          // A line the grammar refuses is parsed whole at once, which names it.
          expect(checked).toBe(false)
          return void expect(got).toBeInstanceOf(HttpError)
        }
        if (isRequest) {
          const req = got as RequestHead
          expect([req.method, req.target, req.minor]).toEqual([firstMatch[1], firstMatch[2], Number(firstMatch[3])])
        } else {
          const res = got as ResponseHead
          expect([res.status, res.reason, res.minor]).toEqual([Number(firstMatch[2]), firstMatch[3] ?? '', Number(firstMatch[1])])
        }
        expect(got.checked).toBe(checked)
        if (!checked) return
        expect(got.picked).toEqual(picked(seen, isRequest ? PICKED_REQUEST : PICKED_ANSWER))
        const kept = seen.slice(lineEnd).replace(isRequest ? REQUEST_CUT : ANSWER_CUT, '')
        expect(keptLines(got)).toBe(kept.length ? `${kept.slice(2)}\r\n` : '')
        const chunk = Buffer.from(head)
        expect(chunk.toString('latin1', cutLines(chunk, got.cuts), end - 4)).toBe(`${seen.slice(0, lineEnd)}${kept}`)
      }),
      { numRuns: 5000 },
    )
  })
})
