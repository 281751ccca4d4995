/**
 * The proxy's two ways of passing a head on (proxy/server.ts, proxy/http1.ts). The common head is
 * checked in one pass and passed on as it came, its hop-by-hop lines cut out (an answer's in place,
 * sent with its body in one write); a head whose Connection names other headers, or that the one-pass
 * check refuses, is parsed into fields and written again. Generated heads (names in any case, the
 * hop-by-hop and forwarding ones among them, values with and without surrounding whitespace) must come
 * out the same both ways, field for field, and the grader must see every field of the head as it came.
 * Raw sockets on 127.0.0.1, port 0, on both sides.
 */
import fc from 'fast-check'
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProxy, type RunningProxy } from '../proxy/index.ts'
import type { Graded } from '../proxy/grade.ts'

/** Heads the upstream received, by case id; answers it gives, by case id. */
const received = new Map<string, string>()
const answersById = new Map<string, Buffer>()
let upstream: Server
let proxy: RunningProxy
const graded = new Map<string, Graded>()

beforeAll(async () => {
  upstream = createServer((socket) => {
    let pending = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.toString('latin1', 0, end)
        pending = pending.subarray(end + 4)
        const id = /^GET \/case\/(\S+) /.exec(head)![1]!
        received.set(id, head)
        // The whole answer in one write: its head and body arrive at the proxy in one read.
        socket.write(answersById.get(id) ?? Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))
      }
    })
    socket.on('error', () => undefined)
  })
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done))
  proxy = await startProxy({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    onExchange: (g) => void graded.set(g.x.path.slice('/case/'.length), g),
  })
})

afterAll(async () => {
  await proxy.stop()
  await new Promise<void>((done) => upstream.close(() => done()))
})

/** Sends one request on a new connection; the answer's bytes (framed by Content-Length). */
function send(request: string): Promise<Buffer> {
  const { hostname, port } = new URL(proxy.url)
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname)
    let got = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk])
      const end = got.indexOf('\r\n\r\n')
      if (end < 0) return
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(got.toString('latin1', 0, end))?.[1] ?? 0)
      if (got.length >= end + 4 + length) {
        socket.destroy()
        resolve(got)
      }
    })
    socket.on('error', reject)
    socket.write(request, 'latin1')
  })
}

/** A head's fields as a server reads them: lower-cased names and trimmed values, in order. */
const fieldsOf = (head: string) =>
  head
    .split('\r\n')
    .slice(1)
    .filter((line) => line.length > 0)
    .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()] as const)

const HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization']
const SET_BY_PROXY = ['host', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port']

/** A name in any case. */
const casing = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''))
const value = fc.tuple(fc.constantFrom('', ' ', '  ', '\t'), fc.stringMatching(/^[a-z0-9=;,./ -]{0,12}[a-z0-9]$/), fc.constantFrom('', ' ', '\t ')).map(([before, text, after]) => `${before}${text}${after}`)
/** A header line: hop-by-hop, set by the proxy, or end to end; Connection only as keep-alive (others take the other way, compared below). */
const line = (names: string[]) =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...names).chain(casing), value).map(([name, v]) => (name.toLowerCase() === 'connection' ? `${name}: keep-alive` : `${name}:${v}`)),
    fc.tuple(fc.constantFrom('x-custom', 'accept', 'x-shop-id', 'cookie', 'x-tell', 'content-type', 'retry-after').chain(casing), value).map(([name, v]) => `${name}:${v}`),
  )

let seq = 0

describe('proxy heads: passed on as they came, or parsed and written again, the same fields', () => {
  it('a request: the hop-by-hop lines and those the proxy sets are dropped, the rest go on in order, as when each field is parsed', async () => {
    await fc.assert(
      // Exactly one Host (RFC 9112 3.2: none or two are refused), in any case; the other lines around it.
      fc.asyncProperty(fc.array(line([...HOP, ...SET_BY_PROXY.filter((name) => name !== 'host')]), { maxLength: 12 }), fc.nat(), casing('host'), async (others, at, host) => {
        const lines = [...others.slice(0, at % (others.length + 1)), `${host}: case.test`, ...others.slice(at % (others.length + 1))]
        const fast = `f${++seq}`
        const slow = `s${seq}`
        await send(`GET /case/${fast} HTTP/1.1\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`)
        // Connection naming another header takes the field-by-field way (the named header is absent).
        await send(`GET /case/${slow} HTTP/1.1\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: keep-alive, x-named-nowhere\r\n\r\n`)
        const forwarded = (id: string) => fieldsOf(received.get(id)!)
        expect(forwarded(fast)).toEqual(forwarded(slow))
        // What went on: Host first, then the client's end-to-end fields in their order, then X-Forwarded-*.
        const sent = fieldsOf(`GET\r\n${lines.join('\r\n')}`).filter(([name]) => !HOP.includes(name) && !SET_BY_PROXY.includes(name))
        const got = forwarded(fast)
        expect(got[0]![0]).toBe('host')
        expect(got.slice(1, 1 + sent.length)).toEqual(sent)
        expect(got.slice(1 + sent.length).map(([name]) => name)).toEqual(['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port'])
      }),
      { numRuns: 40 },
    )
  })

  it('an answer: its hop-by-hop lines are cut, the rest reaches the client byte for byte with the body, and the grader sees every field', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line(HOP), { maxLength: 12 }), fc.stringMatching(/^[a-z{}":0-9]{0,40}$/), async (lines, body) => {
        const fast = `f${++seq}`
        const slow = `s${seq}`
        const head = (extra: string) => `HTTP/1.1 200 OK\r\n${lines.map((l) => `${l}\r\n`).join('')}${extra}Content-Length: ${body.length}\r\n\r\n`
        answersById.set(fast, Buffer.from(head('') + body, 'latin1'))
        answersById.set(slow, Buffer.from(head('Connection: keep-alive, x-named\r\nX-Named: gone\r\n') + body, 'latin1'))
        const got = (await send(`GET /case/${fast} HTTP/1.1\r\nHost: a.test\r\n\r\n`)).toString('latin1')
        const kept = lines.filter((l) => !HOP.includes(l.slice(0, l.indexOf(':')).toLowerCase()))
        // Passed on as it came: the same bytes, but the cut lines (two Connection lines take the other way).
        if (lines.filter((l) => l.toLowerCase().startsWith('connection:')).length < 2) expect(got).toBe(`HTTP/1.1 200 OK\r\n${kept.map((l) => `${l}\r\n`).join('')}Content-Length: ${body.length}\r\n\r\n${body}`)
        const other = (await send(`GET /case/${slow} HTTP/1.1\r\nHost: a.test\r\n\r\n`)).toString('latin1')
        const headOf = (text: string) => text.slice(0, text.indexOf('\r\n\r\n'))
        expect(fieldsOf(headOf(got))).toEqual(fieldsOf(headOf(other)))
        expect(other.slice(other.indexOf('\r\n\r\n') + 4)).toBe(body)
        // The grader reads the head as the upstream sent it, hop-by-hop fields included.
        await expect.poll(() => graded.has(fast)).toBe(true)
        const all: Record<string, string> = {}
        for (const [name, v] of fieldsOf(headOf(head('')))) all[name] = all[name] === undefined ? v : `${all[name]}${name === 'cookie' ? '; ' : ', '}${v}`
        expect(graded.get(fast)!.x.upstream!.headers).toEqual(all)
      }),
      { numRuns: 40 },
    )
  })
})
