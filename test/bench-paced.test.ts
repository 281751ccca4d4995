/**
 * The fixed-rate load generator of the benches (bench/paced.ts) and its answer reader
 * (bench/http-answers.ts): answers read whole in any split of the bytes (by length, chunked with
 * extensions and trailers, no body, interim 1xx, to the close), on kept-alive connections reused, every
 * request counted once: answered (2xx or not) or failed. Nothing here is timed: the counts are asserted.
 * Servers on 127.0.0.1, port 0, closed at the end.
 */
import fc from 'fast-check'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { AnswerReader, type AnswerRead } from '../bench/http-answers.ts'
import { dueBy, paced } from '../bench/paced.ts'

const answers: Array<{ wire: string; read: AnswerRead; head?: boolean }> = [
  { wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello', read: { status: 200, bytes: 5, close: false } },
  { wire: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n{}', read: { status: 201, bytes: 2, close: false } },
  // Chunked, with an extension and a trailer; the wire's bytes counted, framing included.
  { wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: t\r\n\r\n', read: { status: 200, bytes: 44, close: false } },
  { wire: 'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n', read: { status: 204, bytes: 0, close: false } },
  { wire: 'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n', read: { status: 429, bytes: 0, close: false } },
  // HEAD: a length but no body.
  { wire: 'HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n', read: { status: 200, bytes: 0, close: false }, head: true },
  { wire: 'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbye', read: { status: 503, bytes: 3, close: true } },
]

/** Feeds `wire` in the pieces `cuts` makes (sorted offsets); what the reader read. */
function readIn(cuts: number[], wire: Buffer, heads: boolean[]): AnswerRead[] {
  const read: AnswerRead[] = []
  const reader = new AnswerReader((answer) => {
    read.push(answer)
    if (heads[read.length]) reader.noBody()
  })
  if (heads[0]) reader.noBody()
  let from = 0
  for (const cut of [...cuts, wire.length]) {
    reader.feed(wire.subarray(from, cut))
    from = cut
  }
  expect(reader.midAnswer).toBe(false)
  return read
}

describe('AnswerReader', () => {
  it('reads each kind of answer, alone and back to back on one connection, in any split of the bytes', () => {
    fc.assert(
      fc.property(fc.subarray(answers.map((_, i) => i), { minLength: 1 }), fc.array(fc.nat(), { maxLength: 12 }), (picked, raw) => {
        const chosen = picked.map((i) => answers[i]!)
        const wire = Buffer.from(chosen.map((a) => a.wire).join(''), 'latin1')
        const cuts = [...new Set(raw.map((n) => n % (wire.length + 1)))].sort((a, b) => a - b)
        expect(readIn(cuts, wire, chosen.map((a) => !!a.head))).toEqual(chosen.map((a) => a.read))
      }),
      { numRuns: 300 },
    )
  })

  it('reads a byte at a time', () => {
    const wire = Buffer.from(answers.map((a) => a.wire).join(''), 'latin1')
    expect(readIn(Array.from({ length: wire.length }, (_, i) => i), wire, answers.map((a) => !!a.head))).toEqual(answers.map((a) => a.read))
  })

  it('reads an answer without length to the close; a cut answer is not an answer', () => {
    const read: AnswerRead[] = []
    const toClose = new AnswerReader((answer) => read.push(answer))
    toClose.feed(Buffer.from('HTTP/1.1 200 OK\r\n\r\nall of it'))
    expect(toClose.end()).toBe(true)
    expect(read).toEqual([{ status: 200, bytes: 9, close: true }])
    const cut = new AnswerReader(() => expect.unreachable())
    cut.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf'))
    expect(cut.end()).toBe(false)
  })

  it('refuses what is not an HTTP/1.x answer or a chunk size', () => {
    expect(() => new AnswerReader(() => undefined).feed(Buffer.from('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow(/status line/)
    expect(() => new AnswerReader(() => undefined).feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'))).toThrow(/chunk size/)
  })
})

describe('the schedule', () => {
  it('sends each request at the first tick at or after its due instant, never a whole interval late', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 10_000, noNaN: true }), (rate, elapsed) => {
        const total = 1_000_000
        const sent = dueBy(elapsed, rate, total)
        // Every request sent is due (its instant has come), and the next one is not yet.
        expect(((sent - 1) * 1000) / rate).toBeLessThanOrEqual(elapsed + 1e-9)
        expect((sent * 1000) / rate).toBeGreaterThan(elapsed - 1e-9)
      }),
    )
    expect(dueBy(0, 500, 10)).toBe(1)
    expect(dueBy(1.99, 500, 10)).toBe(1)
    expect(dueBy(2, 500, 10)).toBe(2)
    expect(dueBy(60_000, 500, 10)).toBe(10)
  })
})

describe('paced', () => {
  let server: Server | undefined
  afterEach(async () => {
    server?.closeAllConnections()
    await new Promise((done) => server?.close(done))
    server = undefined
  })

  /** A server answering each request with `answer`, counting connections and Idempotency-Keys. */
  async function serve(answer: Parameters<typeof createServer>[1]): Promise<{ url: string; connections: () => number; keys: string[] }> {
    let connections = 0
    const keys: string[] = []
    server = createServer((req, res) => {
      keys.push(String(req.headers['idempotency-key']))
      req.resume()
      req.on('end', () => answer!(req, res))
    })
    server.on('connection', () => connections++)
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections, keys }
  }

  const op = { name: 'write', method: 'POST' as const, path: '/things', body: { a: 1 }, freshIdempotencyKey: true }
  const load = { rate: 200, seconds: 0.25, connections: 4, warmUpSeconds: 0.05 }

  it('answers by length and chunked, on kept-alive connections, each write with a fresh key', async () => {
    let n = 0
    const target = await serve((_req, res) => {
      if (n++ % 2) res.end(JSON.stringify({ ok: true }))
      else {
        // Chunked: two writes before the end.
        res.write('{"ok"')
        res.end(':true}')
      }
    })
    const result = await paced(target.url, op, 'shop', load)
    expect(result).toMatchObject({ sent: 50, answered: 50, non2xx: 0, errors: 0 })
    expect(target.connections()).toBeLessThanOrEqual(load.connections)
    expect(new Set(target.keys).size).toBe(60)
  })

  it('counts answers that are not 2xx, and requests that got no answer', async () => {
    const refused = await serve((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"busy"}'))
    expect(await paced(refused.url, op, 'shop', load)).toMatchObject({ sent: 50, answered: 50, non2xx: 50, errors: 0 })
    await new Promise((done) => server!.close(done))
    // The connection reset before any answer: every request failed, each on a connection of its own.
    const reset = await serve((req) => req.socket.destroy())
    expect(await paced(reset.url, op, 'shop', load)).toMatchObject({ sent: 50, answered: 0, non2xx: 0, errors: 50 })
  })
})
