/**
 * The HTTP a real server (or client) speaks that the twin never does, through `shoptwin proxy`: content
 * codings (RFC 9110 8.4) the grader undoes before it judges a body, both ways; transfer codings besides
 * chunked (RFC 9112 6.3: `gzip, chunked` is chunked framing, not a read to the close); 1xx interim
 * answers (RFC 9110 15.2: a proxy forwards them); a UTF-8 BOM before JSON; a 304 to a conditional GET.
 * The forwarding passes bytes on as they came; only the grader's copy is decoded. 127.0.0.1, port 0.
 */
import { request as httpRequest } from 'node:http'
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net'
import * as zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { asksForCoding, bodyText, codingsOf } from '../proxy/codings.ts'
import { framingOf, HttpError } from '../proxy/http1.ts'
import { startProxy, type ProxyReport, type RunningProxy } from '../proxy/index.ts'
import { DEMO_KEYS, startMock, type RunningMock } from '../conformance/testing/harness.ts'
import { startCompressingUpstream, type CompressingUpstream } from './support/compressing-upstream.ts'
import { readAnswers } from './support/http1-wire.ts'

const LIMIT = 1024 * 1024
const zstd = (zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer }).zstdCompressSync

/** Each coding the grader decodes, with how to make it (the name is the field's value). */
const ENCODERS: Array<[string, (b: Buffer) => Buffer]> = [
  ['gzip', (b) => zlib.gzipSync(b)],
  ['x-gzip', (b) => zlib.gzipSync(b)],
  ['deflate', (b) => zlib.deflateSync(b)],
  ['deflate', (b) => zlib.deflateRawSync(b)],
  // Quality 5, as servers compress on the fly (11, the default, is for files compressed once).
  ['br', (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } })],
  ['identity', (b) => b],
  ...(zstd ? [['zstd', zstd] as [string, (b: Buffer) => Buffer]] : []),
]

describe('proxy/codings: a captured body as the grader reads it', () => {
  const json = Buffer.from(JSON.stringify({ data: { sps: 4.2, name: 'Kühne & Nagel ✓' } }))

  it('each coding, any case, stacked in any order (RFC 9110 8.4: the last applied is undone first), and as a transfer coding before chunked', () => {
    for (const [name, encode] of ENCODERS) {
      expect(bodyText(encode(json), { 'content-encoding': name.toUpperCase() }, { limit: LIMIT })).toEqual({ text: json.toString() })
      expect(bodyText(encode(json), { 'transfer-encoding': `${name}, chunked` }, { limit: LIMIT })).toEqual({ text: json.toString() })
    }
    expect(bodyText(zlib.brotliCompressSync(zlib.gzipSync(json)), { 'content-encoding': 'gzip, br' }, { limit: LIMIT }).text).toBe(json.toString())
    expect(bodyText(zlib.gzipSync(zlib.brotliCompressSync(json)), { 'content-encoding': 'br,gzip' }, { limit: LIMIT }).text).toBe(json.toString())
    // Content-Encoding br, then the transfer coding gzip on top: gzip undone first.
    expect(bodyText(zlib.gzipSync(zlib.brotliCompressSync(json)), { 'content-encoding': 'br', 'transfer-encoding': 'gzip, chunked' }, { limit: LIMIT }).text).toBe(json.toString())
    expect(bodyText(json, { 'content-encoding': 'identity', 'transfer-encoding': 'chunked' }, { limit: LIMIT }).text).toBe(json.toString())
    // Empty list elements are no codings (RFC 9110 5.6.1); an empty body decodes to nothing.
    expect(bodyText(zlib.gzipSync(json), { 'content-encoding': ', gzip,' }, { limit: LIMIT }).text).toBe(json.toString())
    expect(bodyText(Buffer.alloc(0), { 'content-encoding': 'gzip' }, { limit: LIMIT })).toEqual({ text: '' })
  })

  it('a body that does not decode is said so (not parsed as garbage); a coding without a decoder is not judged; a bomb stops at the bound', () => {
    const garbage = bodyText(Buffer.from('{"data": 1}'), { 'content-encoding': 'gzip' }, { limit: LIMIT })
    expect(garbage.unreadable).toEqual({ kind: 'undecodable', message: 'does not decode as gzip: incorrect header check' })
    expect(garbage.text).toBe('[the body (11 bytes, Content-Encoding: gzip) does not decode as gzip: incorrect header check]')
    const unknown = bodyText(json, { 'content-encoding': 'compress' }, { limit: LIMIT })
    expect(unknown.unreadable?.kind).toBe('unknown')
    expect(unknown.unreadable?.message).toMatch(/^is not judged: "compress" is not a coding the proxy decodes/)
    // `chunked` not last: not the framing, and nothing the grader can undo.
    expect(bodyText(json, { 'transfer-encoding': 'chunked, gzip' }, { limit: LIMIT }).unreadable?.kind).toBe('unknown')
    const zeros = Buffer.alloc(16 * LIMIT)
    const bomb = zlib.gzipSync(zeros)
    expect(bomb.length).toBeLessThan(32 * 1024)
    expect(bodyText(bomb, { 'content-encoding': 'gzip' }, { limit: LIMIT }).unreadable?.kind).toBe('over')
    expect(bodyText(ENCODERS[4]![1](zeros), { 'content-encoding': 'br' }, { limit: LIMIT }).unreadable?.kind).toBe('over')
    // Stacked: each stage is bounded (a small gzip inside a br inflates no further than the bound).
    expect(bodyText(zlib.brotliCompressSync(bomb), { 'content-encoding': 'gzip, br' }, { limit: LIMIT }).unreadable?.kind).toBe('over')
  })

  it('a truncated capture reads as far as it decodes, never as a body that does not decode', () => {
    const big = Buffer.from(JSON.stringify({ data: Array.from({ length: 5000 }, (_, i) => ({ i, name: `row ${i}` })) }))
    for (const [name, encode] of ENCODERS.filter(([n]) => n !== 'identity' && n !== 'zstd')) {
      const encoded = encode(big)
      const read = bodyText(encoded.subarray(0, encoded.length >> 1), { 'content-encoding': name }, { truncated: true, limit: LIMIT })
      expect(read.unreadable).toBeUndefined()
      expect(big.toString().startsWith(read.text)).toBe(true)
    }
  })

  it('a UTF-8 byte order mark before JSON is dropped (RFC 8259 8.1; fetch drops it too)', () => {
    expect(bodyText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]), {}, { limit: LIMIT }).text).toBe(json.toString())
    expect(bodyText(zlib.gzipSync(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json])), { 'content-encoding': 'gzip' }, { limit: LIMIT }).text).toBe(json.toString())
  })

  it('generated: any text under any stack of one to three codings decodes to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 2000 }).filter((s) => !s.startsWith('\ufeff')), fc.array(fc.integer({ min: 0, max: ENCODERS.length - 1 }), { minLength: 1, maxLength: 3 }), (text, stack) => {
        let bytes: Buffer = Buffer.from(text)
        for (const i of stack) bytes = ENCODERS[i]![1](bytes)
        const read = bodyText(bytes, { 'content-encoding': stack.map((i) => ENCODERS[i]![0]).join(', ') }, { limit: LIMIT })
        expect(read).toEqual({ text })
      }),
      { numRuns: 100 },
    )
  })

  it('the codings a message names, and whether a request asks for one', () => {
    expect(codingsOf({ 'content-encoding': 'GZIP, identity', 'transfer-encoding': 'br, chunked' })).toEqual(['gzip', 'br'])
    expect(codingsOf({ 'transfer-encoding': 'chunked' })).toEqual([])
    expect(asksForCoding('gzip, deflate')).toBe(true)
    expect(asksForCoding('br;q=0.5')).toBe(true)
    expect(asksForCoding('identity')).toBe(false)
    expect(asksForCoding('gzip;q=0, identity')).toBe(false)
    expect(asksForCoding(undefined)).toBe(false)
  })
})

describe('proxy/http1 framingOf: transfer codings (RFC 9112 6.3)', () => {
  it('an answer whose final coding is chunked is chunked; another final coding runs to the close', () => {
    expect(framingOf({ headers: { 'transfer-encoding': 'gzip, chunked' } }, false)).toEqual({ kind: 'chunked' })
    expect(framingOf({ headers: { 'transfer-encoding': 'gzip,Chunked ' } }, false)).toEqual({ kind: 'chunked' })
    expect(framingOf({ headers: { 'transfer-encoding': 'chunked, gzip' } }, false)).toEqual({ kind: 'close' })
    expect(framingOf({ headers: { 'transfer-encoding': 'gzip' } }, false)).toEqual({ kind: 'close' })
  })
  it('a request with any coding but chunked alone is refused 400 (RFC 9112 6.3 MUST for chunked not last; 6.1 SHOULD 501 for the rest: 400, bad input)', () => {
    for (const te of ['gzip, chunked', 'gzip', 'chunked, gzip']) {
      expect(() => framingOf({ headers: { 'transfer-encoding': te } }, true)).toThrow(HttpError)
    }
  })
})

/** Reads everything a raw connection gets until it closes. */
function rawExchange(url: string, bytes: string): Promise<Buffer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c)).on('error', reject).on('close', () => resolve(Buffer.concat(chunks)))
    socket.on('connect', () => socket.write(bytes))
  })
}

describe('proxy on the wire: interim answers and transfer codings from a kept-alive upstream', () => {
  let raw: NetServer
  let proxy: RunningProxy
  const sockets = new Set<Socket>()
  beforeAll(async () => {
    // Answers on a connection kept alive: what each request line asks for.
    raw = createNetServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      let pending = ''
      socket.on('data', (chunk: Buffer) => {
        pending += chunk.toString('latin1')
        for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
          const head = pending.slice(0, end)
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
          if (pending.length < end + 4 + length) return
          pending = pending.slice(end + 4 + length)
          const path = head.split(' ')[1]!
          const body = zlib.gzipSync('{"data": {"sps": 1.5}}')
          if (path === '/early') socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 102 Processing\r\nConnection: keep-alive\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}')
          else if (path === '/continue') socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}')
          else if (path === '/shop/sps?limited') socket.write('HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nDate: Wed, 21 Oct 2026 07:28:00 GMT\r\nRetry-After: Wed, 21 Oct 2026 07:28:03 GMT\r\nContent-Length: 26\r\n\r\n{"error": "Rate limited."}')
          else if (path === '/switch') socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n')
          else socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]))
        }
      })
    })
    await new Promise<void>((done) => raw.listen(0, '127.0.0.1', done))
    proxy = await startProxy({ upstream: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, timeoutMs: 3000 })
  })
  afterAll(async () => {
    await proxy.stop()
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((done) => raw.close(() => done()))
  })

  it('103 Early Hints and other 1xx reach an HTTP/1.1 client before the final answer (RFC 9110 15.2), hop-by-hop lines cut; none reach an HTTP/1.0 client', async () => {
    const got = readAnswers(await rawExchange(proxy.url, 'GET /early HTTP/1.1\r\nHost: h\r\n\r\nGET /continue HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'), () => false)
    expect(got.map((a) => a.status)).toEqual([103, 102, 200, 100, 200])
    expect(got[0]!.fields).toEqual([{ name: 'Link', value: '</a.css>; rel=preload' }])
    expect(got[1]!.fields).toEqual([])
    const old = readAnswers(await rawExchange(proxy.url, 'GET /early HTTP/1.0\r\n\r\n'), () => false)
    expect(old.map((a) => a.status)).toEqual([200])
  })

  it('the 100 Continue to an Expect the proxy answered itself is not passed on again; 101 stays a 502', async () => {
    const got = readAnswers(await rawExchange(proxy.url, 'POST /continue HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'), () => false)
    expect(got.map((a) => a.status)).toEqual([100, 200])
    const switched = readAnswers(await rawExchange(proxy.url, 'GET /switch HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'), () => false)
    expect(switched.map((a) => a.status)).toEqual([502])
  })

  it('Retry-After as an HTTP-date (RFC 9110 10.2.3) counts from the answer\'s Date: a client back within it is the client\'s finding', async () => {
    const headers = 'Host: h\r\nx-api-key: key-retry-after\r\nx-shop-id: shop-retry-after\r\n'
    await rawExchange(proxy.url, `GET /shop/sps?limited HTTP/1.1\r\n${headers}\r\nGET /shop/sps HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`)
    const report = proxy.report()
    const limited = report.client.requests.find((r) => r.query === '?limited')
    expect(limited?.retryAfter).toBe(3)
    const retryAfter = report.client.outcomes.find((o) => o.id === 'ratelimit.retry-after')!
    expect(retryAfter.failures.map((f) => f.message)).toEqual([expect.stringMatching(/\(Retry-After 3 s\) followed by 1 request\(s\) to the shop within it/)])
  })

  it('Transfer-Encoding: gzip, chunked from a kept-alive upstream ends with its last chunk (no wait for a close), passed on as it came; the grader reads it decoded', async () => {
    const before = (await proxy.report()).exchanges
    // Three on one connection, the last closing it: before, the first was read to a close that never came (a 504 cut after 3 s).
    const got = readAnswers(await rawExchange(proxy.url, 'GET /shop/sps HTTP/1.1\r\nHost: h\r\nx-api-key: k\r\nx-shop-id: s\r\n\r\n'.repeat(2) + 'GET /shop/sps HTTP/1.1\r\nHost: h\r\nx-api-key: k\r\nx-shop-id: s\r\nConnection: close\r\n\r\n'), () => false)
    expect(got.map((a) => [a.status, a.cut])).toEqual([[200, false], [200, false], [200, false]])
    for (const answer of got) {
      expect(answer.fields.find((f) => f.name === 'Transfer-Encoding')?.value).toBe('gzip, chunked')
      expect(zlib.gunzipSync(answer.body).toString()).toBe('{"data": {"sps": 1.5}}')
    }
    // An HTTP/1.0 client cannot read chunked: undone for it, the gzip named.
    const old = readAnswers(await rawExchange(proxy.url, 'GET /shop/sps HTTP/1.0\r\n\r\n'), () => false)
    expect(old[0]!.fields.find((f) => f.name === 'Transfer-Encoding')?.value).toBe('gzip')
    expect(zlib.gunzipSync(old[0]!.body).toString()).toBe('{"data": {"sps": 1.5}}')
    const report = proxy.report()
    expect(report.exchanges - before).toBe(4)
    expect(report.upstreamFailures.filter((f) => f.seq > before)).toEqual([])
    const valid = report.server.outcomes.find((o) => o.id === 'contract.responses-valid')!
    expect(valid.failures.filter((f) => /shop\/sps/.test(f.exchange?.url ?? ''))).toEqual([])
  })
})

/** A request through the proxy; the answer's bytes as they came (node's client does not decode). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) }, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject).end(body)
  })
}

describe('proxy grading a real server behind compression (the twin behind a compressing front)', () => {
  let mock: RunningMock
  let front: CompressingUpstream
  let proxy: RunningProxy
  let report: ProxyReport
  const auth = () => ({ 'x-api-key': DEMO_KEYS.standard, 'x-shop-id': mock.shopId })
  const codings = ['gzip', 'x-gzip', 'deflate', 'deflate-raw', 'br', 'gzip, br', 'identity', 'te-gzip', 'bom', ...(zstd ? ['zstd'] : [])]

  beforeAll(async () => {
    mock = await startMock({ rateLimit: false })
    front = await startCompressingUpstream(mock.url)
    proxy = await startProxy({ upstream: front.url })
    const read = (coding: string, extra: Record<string, string> = {}) => send(proxy.url, 'GET', '/shop/sps', { ...auth(), 'accept-encoding': 'gzip, deflate, br, zstd', 'x-upstream-coding': coding, ...extra })
    for (const coding of codings) expect((await read(coding)).status).toBe(200)
    // A conditional GET: the front's 304 to the ETag it gave.
    const first = await read('identity')
    expect((await read('identity', { 'if-none-match': String(first.headers.etag) })).status).toBe(304)
    // A keyed write answered gzip, then replayed as br: the same answer, differently compressed.
    const write = (coding: string) => send(proxy.url, 'POST', '/lists/create', { ...auth(), 'content-type': 'application/json', 'idempotency-key': 'codings-replay-1', 'x-upstream-coding': coding }, Buffer.from(JSON.stringify({ title: 'codings', handles: ['someone'] })))
    expect((await write('gzip')).status).toBeLessThan(300)
    expect((await write('br')).status).toBeLessThan(300)
    // The client's bodies with Content-Encoding: one that decodes, one that does not (the front answers it 400).
    const body = Buffer.from(JSON.stringify({ title: 'codings-gzip', handles: ['someone'] }))
    expect((await send(proxy.url, 'POST', '/lists/create', { ...auth(), 'content-type': 'application/json', 'content-encoding': 'gzip' }, zlib.gzipSync(body))).status).toBeLessThan(300)
    expect((await send(proxy.url, 'POST', '/lists/create', { ...auth(), 'content-type': 'application/json', 'content-encoding': 'gzip' }, body)).status).toBe(400)
    // What the server gets wrong, or the proxy cannot decode.
    for (const coding of ['garbage', 'compress', 'bomb']) expect((await read(coding)).status).toBe(200)
    report = await proxy.stop()
  }, 60_000)

  afterAll(async () => {
    await front?.close()
    await mock?.close()
  })

  const outcome = (id: string) => report.server.outcomes.find((o) => o.id === id)!

  it('every coding decodes: the only server findings are the body that does not decode, and the two not judged', () => {
    expect(report.upstreamFailures).toEqual([])
    const failed = report.server.outcomes.filter((o) => o.status === 'fail').map((o) => [o.id, o.failures.map((f) => f.message)])
    expect(failed).toEqual([['contract.responses-valid', ['the body does not decode as gzip: incorrect header check']]])
    const warnings = outcome('contract.responses-valid').warnings.map((w) => w.message)
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toMatch(/^the body is not judged: "compress" is not a coding the proxy decodes/)
    expect(warnings[1]).toBe(`the body decodes to over ${LIMIT} bytes: not judged, as a body over the capture's bound is not`)
  })

  it('a replay compressed otherwise is the same answer (idempotency.replay-identical compares the representation)', () => {
    expect(outcome('idempotency.replay-identical').status).toBe('pass')
  })

  it('evidence shows the decoded body, and its curl asks for a coding with --compressed', () => {
    const failure = outcome('contract.responses-valid').failures[0]!
    expect(failure.exchange?.responseExcerpt).toMatch(/^\[the body \(\d+ bytes, Content-Encoding: gzip\) does not decode as gzip/)
    expect(failure.exchange?.curl).toMatch(/^curl -sS --compressed -X GET/)
    expect(failure.exchange?.curl).not.toMatch(/accept-encoding/i)
    const evidence = outcome('contract.responses-valid').exchanges
    expect(evidence.length).toBeGreaterThan(0)
    for (const x of evidence) expect(x.responseExcerpt).toMatch(/^\{"data"/)
  })

  it('the client side: a gzip request body is read decoded; one that does not decode is the client\'s finding, saying so', () => {
    const bodies = report.client.outcomes.find((o) => o.id === 'contract.request-bodies')!
    expect(bodies.failures.map((f) => f.received)).toEqual([expect.stringMatching(/^\[the body \(\d+ bytes, Content-Encoding: gzip\) does not decode as gzip: incorrect header check\]$/)])
  })
})
