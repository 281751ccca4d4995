/**
 * Requests that are not HTTP/1.1 as RFC 9112 writes it, on a real listening twin, as raw bytes (node's
 * client would not send them). Whatever node's parser or node's server answers by itself (a bare 400
 * for an HTTP/1.1 request without Host, a bare 417 for an unknown expectation) the twin answers in the
 * contract's words: the document's `x-malformed-requests` (a status it lists, the `MalformedRequest`
 * body `{error}` naming the problem). A table of the known cases, then generated requests (odd
 * request lines, Host, Expect, framing, header bytes, bodies that do not match their length): never a
 * 5xx, never silence for a request that came whole, and every 4xx a JSON `{error}` the contract declares;
 * the same generated requests through `shoptwin proxy` in front of the twin (its own refusals are
 * `{error}` too). Deterministic: FUZZ_SEED and FUZZ_RUNS change the generated run.
 */
import { connect } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockState, createServer, type MockServer } from '../mock/index.ts'
import { startProxy, type RunningProxy } from '../proxy/index.ts'

const state = createMockState({ seed: 42, now: '2026-03-10T12:00:00.000Z', rateLimit: false })
const shop = state.world.shops.find((s) => s.plan === 'scale' && s.is_active)!
const KEY = `x-api-key: demo-enterprise-key\r\nx-shop-id: ${shop.shop_id}\r\n`
const SEED = Number(process.env.FUZZ_SEED ?? 20261127)
const RUNS = Number(process.env.FUZZ_RUNS ?? 150)

const doc = state.contract.doc as unknown as { 'x-malformed-requests': { statuses: number[]; response: { $ref: string } }; components: { responses: Record<string, any> } }
const declared = doc['x-malformed-requests']
const validateRefusal = state.contract.validators.compile('MalformedRequest', doc.components.responses[declared.response.$ref.split('/').pop()!].content['application/json'].schema)

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
  /** Bytes the connection carried, all of them. */
  raw: string
}

let mock: MockServer
let port: number
/** `shoptwin proxy` in front of the twin: its own refusals and the twin's answers, as a client behind it gets them. */
let proxy: RunningProxy
let proxyPort: number
beforeAll(async () => {
  mock = createServer({ state, log: () => {} })
  port = Number(new URL(await mock.listen(0, '127.0.0.1')).port)
  proxy = await startProxy({ upstream: `http://127.0.0.1:${port}`, port: 0, host: '127.0.0.1' })
  proxyPort = Number(new URL(proxy.url).port)
})
afterAll(async () => {
  await proxy.stop()
  await mock.close()
})

/**
 * Sends `bytes` on a fresh connection (to the twin, or to `to`), then its end (FIN); the first final
 * answer (1xx skipped), read to its Content-Length; status 0 when the connection closed without one.
 */
function exchange(bytes: Buffer, to = port): Promise<Answer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = connect(to, '127.0.0.1', () => socket.end(bytes))
    const done = () => {
      socket.destroy()
      const raw = Buffer.concat(chunks).toString('latin1')
      let at = 0
      for (;;) {
        const end = raw.indexOf('\r\n\r\n', at)
        if (end < 0) return resolve({ status: 0, headers: {}, body: '', raw })
        const [line = '', ...lines] = raw.slice(at, end).split('\r\n')
        const status = Number(line.split(' ')[1] ?? 0)
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
        if (status >= 100 && status < 200) {
          at = end + 4
          continue
        }
        const length = Number(headers['content-length'] ?? 0)
        return resolve({ status, headers, body: Buffer.from(raw.slice(end + 4, end + 4 + length), 'latin1').toString('utf8'), raw })
      }
    }
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', done)
    socket.on('error', () => undefined)
  })
}

/** What is wrong with a refusal: a status `x-malformed-requests` lists (or an operation's 4xx), JSON, `{error}`. */
function refusalProblems(answer: Answer, head: boolean): string[] {
  if (answer.status < 400) return []
  const problems: string[] = []
  if (answer.status >= 500) problems.push(`a ${answer.status}`)
  if (!/^application\/json\b/.test(answer.headers['content-type'] ?? '')) problems.push(`content-type ${JSON.stringify(answer.headers['content-type'])}`)
  if (head) return problems
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return [...problems, `a body that is not JSON: ${JSON.stringify(answer.body.slice(0, 80))}`]
  }
  if (!validateRefusal(body)) problems.push(`a body that is not {error}: ${JSON.stringify(body).slice(0, 80)}`)
  return problems
}

const latin1 = (text: string) => Buffer.from(text, 'latin1')

describe('HTTP/1.1 on the wire: the twin refuses what is not HTTP/1.1 in the contract\'s words (RFC 9112)', () => {
  it('the contract declares the refusal once, for every path and method: x-malformed-requests, statuses 400, 408, 417, 431, the {error} body, inferred', () => {
    expect(declared.statuses).toEqual([400, 408, 417, 431])
    expect(validateRefusal({ error: 'Missing Host header' })).toBe(true)
    expect(validateRefusal({})).toBe(false)
  })

  const cases: Array<[name: string, request: string, status: number, error?: RegExp]> = [
    ['an HTTP/1.1 request without Host (node answers a bare 400)', 'GET /health HTTP/1.1\r\n\r\n', 400, /^Missing Host header/],
    ['two Host lines', 'GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400, /^More than one Host header/],
    ['two Host lines, differently cased', 'GET /health HTTP/1.0\r\nhost: a\r\nHOST: a\r\n\r\n', 400, /^More than one Host header/],
    ['an HTTP/1.0 request without Host (allowed)', 'GET /health HTTP/1.0\r\n\r\n', 200],
    ['a Host that is not host[:port]', 'GET /health HTTP/1.1\r\nHost: api example\r\n\r\n', 400, /^Invalid Host header: "api example" is not host\[:port\]/],
    ['a Host with a path', 'GET /health HTTP/1.1\r\nHost: api.example.com/v1\r\n\r\n', 400, /^Invalid Host header/],
    ['a Host whose port is not digits', 'GET /health HTTP/1.1\r\nHost: localhost:40x0\r\n\r\n', 400, /^Invalid Host header/],
    ['an IPv6 Host with its port', 'GET /health HTTP/1.1\r\nHost: [::1]:4010\r\n\r\n', 200],
    ['a Host with an underscore and a port out of range (both valid syntax)', 'GET /health HTTP/1.1\r\nHost: my_twin.internal:99999\r\n\r\n', 200],
    ['an empty Host (a target without an authority)', 'GET /health HTTP/1.1\r\nHost:\r\n\r\n', 200],
    ['an expectation other than 100-continue (node answers a bare 417)', 'GET /health HTTP/1.1\r\nHost: a\r\nExpect: the-moon\r\n\r\n', 417, /^Expect "the-moon" is not supported/],
    ['Expect: 100-continue (answered 100, then the request)', `POST /affiliate/crm/list HTTP/1.1\r\nHost: a\r\n${KEY}Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, 200],
    ['a target in the absolute form (RFC 9112 3.2.2: a server MUST accept it)', 'GET http://api.example.com/health HTTP/1.1\r\nHost: api.example.com\r\n\r\n', 200],
    ['an operation called with its target in the absolute form', `POST http://api.example.com/affiliate/crm/list?x=1 HTTP/1.1\r\nHost: api.example.com\r\n${KEY}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, 200],
    ['two Content-Length lines that differ', 'POST /affiliate/crm/list HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400],
    ['Transfer-Encoding and Content-Length', 'POST /affiliate/crm/list HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n', 400],
    ['a coding other than chunked', 'POST /affiliate/crm/list HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n', 400],
    ['a chunk size that is not hex', 'POST /affiliate/crm/list HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400],
    ['an obs-fold', 'GET /health HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n', 400],
    ['a space before the colon', 'GET /health HTTP/1.1\r\nHost : a\r\n\r\n', 400],
    ['a NUL in a header value', 'GET /health HTTP/1.1\r\nHost: a\r\nX-A: b\x00c\r\n\r\n', 400],
    ['lines ended by a bare LF', 'GET /health HTTP/1.1\nHost: a\n\n', 400],
    ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400],
    ['an HTTP/2.0 request line (node reads it as HTTP/1 framing)', 'GET /health HTTP/2.0\r\nHost: a\r\n\r\n', 400, /^HTTP\/2\.0 is not supported/],
    ['an HTTP/0.9 request line (no version)', 'GET /health\r\n\r\n', 400, /^HTTP\/0\.9 is not supported/],
    ['HTTP/1.0 (served)', 'GET /health HTTP/1.0\r\nHost: a\r\n\r\n', 200],
    ['a header over the server\'s limit', `GET /health HTTP/1.1\r\nHost: a\r\nX-A: ${'a'.repeat(70_000)}\r\n\r\n`, 431],
    ['a URL over the server\'s limit', `GET /health?${'a'.repeat(70_000)} HTTP/1.1\r\nHost: a\r\n\r\n`, 431],
  ]
  it.each(cases.map(([name, ...rest]) => [`${name}: ${rest[1]}`, ...rest] as const))('%s', async (_name, request, status, error) => {
    const answer = await exchange(latin1(request))
    expect(answer.status, answer.raw.slice(0, 300)).toBe(status)
    expect(refusalProblems(answer, false)).toEqual([])
    if (status >= 400) expect(declared.statuses).toContain(status)
    if (error) expect(JSON.parse(answer.body).error).toMatch(error)
  })

  it('after every refusal the twin goes on answering', async () => {
    const answer = await exchange(latin1('GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'))
    expect(answer.status).toBe(200)
  })
})

describe('HTTP/1.1 on the wire: generated requests (FUZZ_SEED, FUZZ_RUNS)', () => {
  /** Bytes a header value may hold as sent by a careless client: controls but CR and LF, DEL, latin1. */
  const valueByte = fc.oneof({ arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 40 }, { arbitrary: fc.constantFrom(0x00, 0x01, 0x09, 0x0b, 0x7f, 0x80, 0xe9, 0xff), weight: 1 })
  const value = fc.array(valueByte, { maxLength: 12 }).map((bytes) => String.fromCharCode(...bytes))
  // Mostly names the twin reads; some of any bytes (a space, a control, latin1: refused by the parser).
  const name = fc.oneof({ arbitrary: fc.constantFrom('X-A', 'x-api-key', 'x-shop-id', 'Idempotency-Key', 'If-Match', 'Content-Type', 'Accept', 'Connection', 'Upgrade', 'Cookie', 'Prefer'), weight: 6 }, { arbitrary: fc.array(valueByte, { minLength: 1, maxLength: 6 }).map((b) => String.fromCharCode(...b).replace(/:/g, '')), weight: 1 })
  const request = fc.record({
    method: fc.oneof({ arbitrary: fc.constantFrom('GET', 'POST', 'POST', 'HEAD', 'OPTIONS', 'DELETE', 'PATCH', 'PROPFIND', 'TRACE'), weight: 8 }, { arbitrary: fc.constantFrom('get', 'G\u00c9T', 'GET\x00'), weight: 1 }),
    target: fc.oneof(
      { arbitrary: fc.constantFrom('/health', '/shop/stats', '/shop/sps', '/affiliate/crm/list', '/affiliate/crm/list?page=2', '/nope', 'http://h.example/health', 'https://h.example/affiliate/crm/list?a=1', '//x', '/health?x=%00'), weight: 8 },
      { arbitrary: fc.constantFrom('*', '/h%zz', '/\u00e9', 'http://[', 'health', ''), weight: 1 },
    ),
    version: fc.oneof({ arbitrary: fc.constant('HTTP/1.1'), weight: 12 }, { arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'http/1.1', 'HTTP/1.1 x'), weight: 3 }),
    host: fc.oneof({ arbitrary: fc.constant(['a']), weight: 8 }, { arbitrary: fc.constantFrom<string[]>([], ['a', 'a'], [''], ['a b'], ['h.example:99999']), weight: 3 }),
    expect: fc.constantFrom(undefined, undefined, '100-continue', '100-Continue', 'nothing', ''),
    keyed: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
    extra: fc.array(fc.tuple(name, value), { maxLength: 4 }),
    body: fc.oneof(fc.constant(''), fc.constant('{}'), fc.constant('{"keys":["gmv"]}'), fc.constant('{"a":'), value),
    framing: fc.oneof({ arbitrary: fc.constantFrom('length', 'spaced', 'chunked', 'none'), weight: 4 }, { arbitrary: fc.constantFrom('chunked-bad', 'both', 'two-lengths', 'negative', 'longer'), weight: 1 }),
  })

  type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never
  /** The request's bytes, and whether it came whole (a length longer than the body it carried never does). */
  const render = (r: Generated): { bytes: Buffer; whole: boolean } => {
    const body = latin1(r.body)
    let head = `${r.method} ${r.target} ${r.version}\r\n`
    for (const host of r.host) head += `Host: ${host}\r\n`
    if (r.expect !== undefined) head += `Expect: ${r.expect}\r\n`
    if (r.keyed) head += KEY
    for (const [n, v] of r.extra) head += `${n}: ${v}\r\n`
    let payload = body
    let whole = true
    switch (r.framing) {
      case 'length': head += `Content-Length: ${body.length}\r\n`; break
      case 'spaced': head += `Content-Length:   ${body.length}  \r\n`; break
      case 'chunked': head += 'Transfer-Encoding: chunked\r\n'; payload = latin1(`${body.length ? `${body.length.toString(16)}\r\n${r.body}\r\n` : ''}0\r\n\r\n`); break
      case 'chunked-bad': head += 'Transfer-Encoding: chunked\r\n'; payload = latin1(`${body.length + 1};x=\x01\r\n${r.body}\r\n0\r\n\r\n`); break
      case 'both': head += `Transfer-Encoding: chunked\r\nContent-Length: ${body.length}\r\n`; break
      case 'two-lengths': head += `Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n`; break
      case 'negative': head += 'Content-Length: -1\r\n'; break
      case 'none': payload = Buffer.alloc(0); break
      case 'longer': head += `Content-Length: ${body.length + 7}\r\n`; whole = false; break
    }
    return { bytes: Buffer.concat([latin1(`${head}\r\n`), payload]), whole }
  }

  it.each([
    ['the twin', () => port],
    ['shoptwin proxy in front of it', () => proxyPort],
  ])(`${RUNS} requests to %s: never a 5xx, an answer to every request that came whole, every 4xx a JSON {error}`, async (_target, portOf) => {
    const seen = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const { bytes, whole } = render(r)
        const answer = await exchange(bytes, portOf())
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1)
        const problems = refusalProblems(answer, r.method === 'HEAD')
        if (whole && answer.status === 0) problems.push('no answer')
        expect(problems, `${JSON.stringify(bytes.toString('latin1').slice(0, 400))} → ${JSON.stringify(answer.raw.slice(0, 300))}`).toEqual([])
      }),
      { seed: SEED, numRuns: RUNS },
    )
    // The generator reaches both sides: answers and refusals of several kinds.
    expect([...seen.keys()].filter((s) => s >= 200 && s < 300).length).toBeGreaterThan(0)
    expect([...seen.keys()].filter((s) => s >= 400).length).toBeGreaterThan(2)
    const health = await exchange(latin1('GET /health HTTP/1.1\r\nHost: a\r\n\r\n'), portOf())
    expect(health.status).toBe(200)
  }, 60_000 + RUNS * 200)
})
