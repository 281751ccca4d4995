/**
 * A recorded exchange waits to be graded with its heads' text and small bodies packed in a buffer many
 * records share (proxy/server.ts Shelf). What the grader reads back must be what passed, field for
 * field and byte for byte: request headers as the client sent them, the body (any bytes, UTF-8 or not,
 * on either side of the size that goes on the shelf), the answer's status, headers and bytes, a
 * repeated answer as well as a new one, a request body the same as the last one of its operation
 * (shared, not shelved) as well as a new one; and what the backlog reads without unpacking (the body's
 * size, the answer's bytes) must agree with it. The shelf's buffers are small here (2 KB: many fill, a record
 * over 256 bytes gets one of its own), and records are read back in any order while others are shelved:
 * a buffer is reused once every record on it was read back, never before (a record still on it would
 * read another's bytes). Raw sockets on 127.0.0.1, port 0, on both sides.
 */
import fc from 'fast-check'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { createProxyServer, type ProxyServer } from '../proxy/server.ts'
import type { ProxyExchange } from '../proxy/exchange.ts'
import { strictUpstream } from './support/http1-wire.ts'

/** The answers the upstream gives, in order, one per request. */
const answers: Buffer[] = []
/** Requests the strict upstream could not frame (none expected). */
const errors: string[] = []
let upstream: Awaited<ReturnType<typeof strictUpstream>>
let proxy: ProxyServer
let proxyPort: number
let recorded: ((x: ProxyExchange) => void) | undefined

beforeAll(async () => {
  upstream = await strictUpstream((_request, socket) => void socket.write(answers.shift()!), errors)
  proxy = createProxyServer({ upstream: upstream.url, contract: loadContract(), onExchange: (x) => recorded?.(x), shelfBytes: 2048 })
  proxyPort = Number(new URL(await proxy.listen(0)).port)
})

afterAll(async () => {
  await proxy.close()
  await upstream.close()
  expect(errors).toEqual([])
})

/** Header fields as the grader reads them: names lower-cased, repeats joined (`; ` for cookies). */
function fieldsOf(lines: Array<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [rawName, value] of lines) {
    const name = rawName.toLowerCase()
    out[name] = out[name] === undefined ? value.trim() : `${out[name]}${name === 'cookie' ? '; ' : ', '}${value.trim()}`
  }
  return out
}

const head = (first: string, lines: Array<[string, string]>) => Buffer.from(`${first}\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`, 'latin1')

/** Sends `request` on a new connection and resolves with the exchange as recorded, once the client read its answer. */
function exchange(request: Buffer, answerLength: number): Promise<ProxyExchange> {
  return new Promise((resolve, reject) => {
    let x: ProxyExchange | undefined
    let answered = false
    const done = () => x && answered && (socket.destroy(), resolve(x))
    recorded = (got) => {
      x = got
      done()
    }
    const socket: Socket = connect(proxyPort, '127.0.0.1')
    let got = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk])
      const end = got.indexOf('\r\n\r\n')
      if (end >= 0 && got.length >= end + 4 + answerLength) {
        answered = true
        done()
      }
    })
    socket.on('error', reject)
    socket.write(request)
  })
}

const latin1Value = fc.stringMatching(/^[\x21-\x7e\x80-\xff]([\x20-\x7e\x80-\xff]{0,30}[\x21-\x7e\x80-\xff])?$/)
const lines = fc.array(fc.tuple(fc.constantFrom('X-Case', 'x-case', 'Cookie', 'X-Api-Key', 'Accept-Language', 'Idempotency-Key', 'X-Other'), latin1Value), { maxLength: 6 })
/** Sizes on either side of what goes on the shelf (8 KiB), and none; mostly small (records that share a buffer). */
const size = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 120 }), weight: 3 }, fc.constantFrom(0, 8191, 8192, 8193, 20_000), fc.integer({ min: 1, max: 300 }))
const bytes = size.chain((n) => fc.uint8Array({ minLength: n, maxLength: n }).map((a) => Buffer.from(a)))

describe('shoptwin proxy (issue 27, item 2: every exchange is graded as it passed): a recorded exchange, read back from the shelf, is the exchange that passed', () => {
  it('request headers and body, the answer\'s status, headers and bytes; new and repeated answers; read back in any order, buffers reused', async () => {
    const waiting: Array<() => void> = []
    let readBack = 0
    // The last small body of each operation (each path here is one, or none): a record whose body is the same shares it and holds none.
    const lastBodies = new Map<string, Buffer>()
    let shared = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(['POST', '/affiliate/crm/list'], ['GET', '/health'], ['POST', '/nowhere/at-all']),
        lines,
        bytes,
        fc.constantFrom(200, 201, 404, 500),
        lines,
        bytes,
        fc.integer({ min: 1, max: 3 }),
        fc.nat(),
        async ([method, path], requestLines, body, status, answerLines, answerBody, times, readNow) => {
          const requestFields: Array<[string, string]> = [['Host', '127.0.0.1'], ...requestLines, ['Content-Length', String(body.length)]]
          const answerFields: Array<[string, string]> = [['Content-Type', 'application/json'], ...answerLines, ['Content-Length', String(answerBody.length)]]
          const answer = Buffer.concat([head(`HTTP/1.1 ${status} Whatever`, answerFields), answerBody])
          // The same answer `times` times: the second and later ones are repeats of the first (their bytes shared, not shelved).
          for (let i = 0; i < times; i++) {
            answers.push(answer)
            const x = await exchange(Buffer.concat([head(`${method} ${path} HTTP/1.1`, requestFields), body]), answerBody.length)
            // What the backlog reads without unpacking the record.
            const same = body.length > 0 && body.length <= 8192 && lastBodies.get(path)?.equals(body) === true
            if (body.length > 0 && body.length <= 8192) lastBodies.set(path, body)
            if (same) shared++
            expect(x.requestBytes).toBe(same ? 0 : body.length)
            expect(x.upstreamStatus).toBe(status)
            expect(x.upstreamRaw!.equals(answerBody)).toBe(true)
            // What the grader reads: read first when every exchange has been recorded (on the shelf after this one's part, other records' parts).
            waiting.push(() => {
              expect(x.requestHeaders).toEqual(fieldsOf(requestFields))
              expect(x.requestBody).toBe(body.toString('utf8'))
              expect(x.upstream!.status).toBe(status)
              expect(x.upstream!.headers).toEqual(fieldsOf(answerFields))
              expect(x.upstream!.raw.equals(answerBody)).toBe(true)
              expect(x.upstream!.body).toBe(answerBody.toString('utf8'))
              expect(x.upstream!.truncated).toBe(false)
              expect(x.status).toBe(status)
            })
          }
          // One record read back now, any of those waiting (its buffer may be reused by the next ones); eight or more stay shelved.
          if (waiting.length > 8) {
            waiting.splice(readNow % waiting.length, 1)[0]!()
            readBack++
          }
        },
      ),
      { numRuns: 80 },
    )
    // At least one exchange per run, one read back per run once more than eight wait.
    expect(readBack).toBeGreaterThanOrEqual(70)
    expect(shared).toBeGreaterThan(10)
    expect(waiting.length).toBeGreaterThanOrEqual(8)
    for (const check of waiting) check()
  })
})
