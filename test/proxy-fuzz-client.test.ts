/**
 * `shoptwin proxy` under a fuzzer, the client's side: generated raw bytes at the proxy (requests from
 * a grammar, then mutated: methods, targets, versions, header lines, framings, Expect, Connection,
 * pipelining, writes split at random points, truncation, half-close, early close), a strict upstream
 * behind it (test/support/http1-wire.ts, written from RFC 9112 apart from proxy/http1.ts) that
 * records every request it frames. Properties, per connection:
 * - the proxy never throws, and every connection ends (its own timeouts, set small; a watchdog
 *   names a hang);
 * - every answer of the proxy's own is a 4xx (400, not RFC 9112 6.1's 501, for a transfer coding it does
 *   not implement: bad input) with `Content-Type: application/json` and `{"error": "shoptwin proxy: …"}`, and the
 *   connection closes after it;
 * - no smuggling: the upstream frames exactly the requests the proxy forwarded, each a strict
 *   HTTP/1.1 message with the method, target and (decoded) body the client sent for it, no hop-by-hop
 *   field; a request refused (and anything after it) never reaches the upstream;
 * - pipelined requests are answered in order, one answer each, until a close the client asked for;
 * - the reports (stop(), JSON, JUnit, HTML) never throw and hold no secret the traffic carried.
 * Loopback, port 0; FUZZ_SEED / FUZZ_RUNS replay or widen a run (the seed is printed on failure).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProxy, type RunningProxy } from '../proxy/index.ts'
import { proxyHtml, proxyJson, proxyJunit } from '../proxy/reporters.ts'
import { cutPoints, field, proxyError, readAnswers, seededBytes, strictUpstream, talk, type ParsedRequest } from './support/http1-wire.ts'

const RUNS = Number(process.env.FUZZ_RUNS ?? 300)
/** The run's time grows with RUNS (about 20 ms a run at 3000, the waits for the proxy's timers among it): 120 s, or 100 ms a run when FUZZ_RUNS widens it. */
const TEST_TIMEOUT_MS = Math.max(120_000, RUNS * 100)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)
/** The proxy's own timers, small: a connection the fuzz leaves open ends by them. */
const IDLE_MS = 80
const UPSTREAM_MS = 400
/** A connection still open this long after the test's last byte is a hang (the timers above are far shorter). */
const HANG_MS = 5_000

/** What the upstream framed, by X-Fuzz-Id. */
const seen = new Map<string, ParsedRequest>()
/** What the upstream could not frame, or framed without an id: the proxy sent it a malformed message or a piece of a body as a request. */
const upstreamErrors: string[] = []
const thrown: unknown[] = []
let upstream: Awaited<ReturnType<typeof strictUpstream>>
let proxy: RunningProxy
const secrets = new Set<string>()
/** What every secret the fuzz sends holds: `sk_fuzz_…`, `tok_fuzz_…`, and `tok_fuzz_…` in base64 (its first 9 bytes). */
const SECRET_MARKERS = ['_fuzz_', Buffer.from('tok_fuzz_').toString('base64')]

const onUncaught = (error: unknown) => void thrown.push(error)

beforeAll(async () => {
  process.on('uncaughtException', onUncaught)
  upstream = await strictUpstream((request, socket) => {
    const id = field(request.fields, 'x-fuzz-id')
    if (id.length !== 1 || seen.has(id[0]!)) {
      upstreamErrors.push(`a request with X-Fuzz-Id ${JSON.stringify(id)} (${seen.has(id[0]!) ? 'twice' : 'none of the fuzz'}): ${JSON.stringify(request.raw.toString('latin1').slice(0, 300))}`)
      return void socket.destroy()
    }
    seen.set(id[0]!, request)
    const body = `{"seen":"${id[0]}"}`
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Seen: ${id[0]}\r\nContent-Length: ${body.length}\r\n\r\n${request.method === 'HEAD' ? '' : body}`)
  }, upstreamErrors)
  proxy = await startProxy({ upstream: upstream.url, timeoutMs: UPSTREAM_MS, clientIdleMs: IDLE_MS, gradingBacklog: 0 })
})

afterAll(async () => {
  process.off('uncaughtException', onUncaught)
  await upstream?.close()
})

// ---------------------------------------------------------------------------------------------
// The grammar: a request is a request line, header lines and a framed body, each part either as
// RFC 9112 writes it or mutated. Each part says what the proxy must do with it.

/** forward: must reach the upstream intact; refuse: must be answered 4xx and go no further; either: may be refused, and if forwarded, intact. */
type Verdict = 'forward' | 'refuse' | 'either'

interface Part {
  text: string
  verdict?: Verdict
  why: string
}

interface Req {
  id: string
  bytes: Buffer
  /** Where the proxy's framing of this request ends in `bytes` (a body longer than declared goes on into the next). */
  framedEnd: number
  verdict: Verdict
  method: string
  /** The target as the upstream must receive it. */
  target: string
  body: Buffer
  minor: number
  closes: boolean
  expect100: boolean
  /** Headers the client's Connection names: they must not reach the upstream. */
  named: string[]
  /** The body is shorter than declared: this request never ends. */
  neverEnds: boolean
  /** The bytes after `framedEnd` spoil the next request's head. */
  spoilsNext: boolean
  /** Status codes a refusal may have besides 400. */
  statuses: number[]
  why: string[]
}

const worst = (verdicts: Array<Verdict | undefined>): Verdict => (verdicts.includes('refuse') ? 'refuse' : verdicts.includes('either') ? 'either' : 'forward')

/**
 * The tables the grammar picks from, by index (a counterexample prints as indices, not 70 KB values):
 * the first `plain` entries of each are as RFC 9112 writes them and picked more often.
 */
const pick = <T>(table: readonly T[], plain: number, weight = 3): fc.Arbitrary<number> => fc.oneof({ weight, arbitrary: fc.nat(plain - 1) }, fc.integer({ min: plain, max: table.length - 1 }))

const METHODS: Part[] = [
  ...['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'].map((text) => ({ text, why: text })),
  { text: 'get', why: 'lower-case method' },
  { text: "X-M!#$%&'*+.^_`|~", why: 'odd token method' },
  { text: 'M'.repeat(400), why: 'long method' },
  { text: 'CONNECT', verdict: 'refuse', why: 'CONNECT' },
  { text: 'G T', verdict: 'refuse', why: 'method with a space' },
  { text: '', verdict: 'refuse', why: 'no method' },
  { text: 'G\x00T', verdict: 'refuse', why: 'NUL in method' },
  { text: 'G\xc9T', verdict: 'refuse', why: 'non-ASCII method' },
  { text: 'GET(', verdict: 'refuse', why: 'separator in method' },
]
const methodArb = pick(METHODS, 7, 2)

/** A target, and what the upstream must receive for it. */
interface Target extends Part {
  upstream: string
}
const TARGETS: Target[] = [
  ...['/fz/a', '/fz/items?limit=5&x=%20y', '/fz/', '/account/shops', '/shop/sps?x=1'].map((t) => ({ text: t, upstream: t, why: 'plain target' })),
  { text: '/fz/%2e%2e/%00x?q=%ff%0d%0a', upstream: '/fz/%2e%2e/%00x?q=%ff%0d%0a', why: 'encoded target' },
  { text: '/fz/a/../../b/./c', upstream: '/fz/a/../../b/./c', why: 'dot segments' },
  { text: `/fz/${'x'.repeat(20_000)}`, upstream: `/fz/${'x'.repeat(20_000)}`, why: '20 KB target' },
  { text: `/fz/${'x'.repeat(70_000)}`, upstream: '', verdict: 'refuse', why: '70 KB target (head over 64 KiB)' },
  { text: '/fz/caf\xe9\xff', upstream: '/fz/caf\xe9\xff', verdict: 'either', why: 'non-ASCII target' },
  { text: '*', upstream: '*', verdict: 'refuse', why: 'asterisk form (forwarded with OPTIONS only)' },
  { text: 'http://example.test/fz/abs?x=1', upstream: '/fz/abs?x=1', why: 'absolute form' },
  { text: 'HTTPS://EXAMPLE.test:8443/fz/a/../abs', upstream: '/fz/abs', why: 'absolute form, upper case, dot segments' },
  { text: 'ftp://example.test/fz', upstream: '', verdict: 'refuse', why: 'absolute form, other scheme' },
  { text: 'example.test:443', upstream: '', verdict: 'refuse', why: 'authority form' },
  { text: '/fz/a\x7fb', upstream: '', verdict: 'refuse', why: 'DEL in target' },
  { text: '/fz/a\tb', upstream: '', verdict: 'refuse', why: 'tab in target' },
]
const targetArb = pick(TARGETS, 5, 2)

const VERSIONS: Array<Part & { minor: number }> = [
  { text: 'HTTP/1.1', minor: 1, why: 'HTTP/1.1' },
  { text: 'HTTP/1.1', minor: 1, why: 'HTTP/1.1' },
  { text: 'HTTP/1.0', minor: 0, why: 'HTTP/1.0' },
  { text: 'HTTP/2.0', minor: 1, verdict: 'refuse', why: 'HTTP/2.0' },
  { text: 'HTTP/1.2', minor: 1, verdict: 'either', why: 'HTTP/1.2' },
  { text: 'http/1.1', minor: 1, verdict: 'refuse', why: 'lower-case version' },
  { text: 'HTTP/1.1 ', minor: 1, verdict: 'refuse', why: 'space after the version' },
  { text: 'HTTP/1', minor: 1, verdict: 'refuse', why: 'HTTP/1' },
  { text: 'HTTP/1.1\x00', minor: 1, verdict: 'refuse', why: 'NUL after the version' },
]
const versionArb = pick(VERSIONS, 3, 4)

/** A header mutation: lines added, and what they mean. */
interface HeaderMutation extends Part {
  closes?: boolean
  keepAlive?: boolean
  expect100?: boolean
  named?: string[]
  status?: number
  /** The request has no Host: an HTTP/1.1 one MUST be refused (RFC 9112 3.2), an HTTP/1.0 one may go on. */
  noHost?: boolean
  /** A Host line more: two MUST be refused (RFC 9112 3.2). */
  host?: boolean
}
const HEADERS: HeaderMutation[] = [
  { text: 'X-Dup: 1\r\nX-Dup: 2', why: 'repeated field' },
  { text: 'X-Fold: a\r\n b', verdict: 'refuse', why: 'obs-fold' },
  { text: 'X-Fold: a\r\n\tb', verdict: 'refuse', why: 'obs-fold with a tab' },
  { text: 'X-Sp : 1', verdict: 'refuse', why: 'space before the colon' },
  { text: 'X-Sp\t: 1', verdict: 'refuse', why: 'tab before the colon' },
  { text: ': 1', verdict: 'refuse', why: 'empty field name' },
  { text: 'Nocolon', verdict: 'refuse', why: 'line without a colon' },
  { text: 'X(a): 1', verdict: 'refuse', why: 'separator in a field name' },
  { text: 'X-C: a\x01b', verdict: 'refuse', why: 'control in a value' },
  { text: 'X-C: a\x00b', verdict: 'refuse', why: 'NUL in a value' },
  { text: 'X-C: a\x7fb', verdict: 'refuse', why: 'DEL in a value' },
  { text: 'X-C: a\rb', verdict: 'refuse', why: 'bare CR in a value' },
  { text: 'X-C: a\nb', verdict: 'refuse', why: 'bare LF in a value' },
  { text: 'X-T: a\tb', why: 'tab in a value' },
  { text: 'X-H: caf\xe9', why: 'obs-text in a value' },
  { text: 'X-Empty:', why: 'empty value' },
  { text: `X-Huge: ${'v'.repeat(10_000)}`, why: '10 KB value' },
  { text: `X-Huge: ${'v'.repeat(70_000)}`, verdict: 'refuse', status: 431, why: '70 KB value' },
  { text: Array.from({ length: 300 }, (_, i) => `X-Many-${i}: ${i}`).join('\r\n'), why: '300 lines' },
  { text: 'x-lower-case: v', why: 'lower-case name' },
  { text: 'Connection: close', closes: true, why: 'Connection: close' },
  { text: 'Connection: keep-alive', keepAlive: true, why: 'Connection: keep-alive' },
  { text: 'connection: X-Hop, Keep-Alive\r\nX-Hop: named\r\nKeep-Alive: timeout=5', keepAlive: true, named: ['x-hop'], why: 'Connection names a field' },
  { text: 'Connection: Upgrade\r\nUpgrade: websocket', named: ['upgrade'], why: 'an upgrade asked' },
  { text: 'Expect: 100-continue', expect100: true, why: 'Expect: 100-continue' },
  { text: 'Expect: 100-CONTINUE', expect100: true, why: 'Expect in upper case' },
  { text: 'Expect: nope', verdict: 'refuse', status: 417, why: 'unknown Expect' },
  { text: 'TE: trailers\r\nProxy-Connection: keep-alive', why: 'hop-by-hop fields' },
  { text: 'X-Forwarded-For: 192.0.2.1', why: 'X-Forwarded-For from the client' },
  { text: 'Host: other.test', host: true, why: 'a Host line more' },
  { text: 'X-No-Host: 1', noHost: true, why: 'no Host' },
  { text: 'Trailer: X-Trailer', why: 'Trailer field' },
]
const headerArb = fc.nat(HEADERS.length - 1)

/** The body and its framing; `decoded` is the body the upstream must receive. */
interface Framing extends Part {
  decoded: Buffer
  statuses?: number[]
  neverEnds?: boolean
  spoilsNext?: boolean
  /** Transfer-Encoding: a 1.0 message with it may not keep the connection (RFC 9112 6.1). */
  te?: boolean
}

const chunked = (body: Buffer, cuts: number[], ext: string[], trailers: string): string => {
  const at = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b)
  let out = ''
  let from = 0
  for (const [i, to] of [...at, body.length].entries()) {
    if (to === from) continue
    out += `${(to - from).toString(16)}${ext[i % Math.max(1, ext.length)] ?? ''}\r\n${body.toString('latin1', from, to)}\r\n`
    from = to
  }
  return `${out}0\r\n${trailers}\r\n`
}

/** A body: its size and a seed for its bytes (any byte), built when the request is. */
const bodyArb = fc.tuple(fc.oneof({ weight: 6, arbitrary: fc.nat(200) }, fc.integer({ min: 1000, max: 5000 }), fc.constant(300_000)), fc.nat())

const framingArb = fc.record({
    body: bodyArb,
    cuts: fc.array(fc.nat(), { maxLength: 4 }),
    // By class, so that each class comes often enough to be found in a default run: as written, the ways two
    // framings conflict (the smuggling class), the lengths, the chunked codings, the chunk and trailer faults.
    kind: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('none', 'length', 'chunked') },
      { weight: 4, arbitrary: fc.constantFrom('te-and-length', 'te-and-length', 'length-twice-differ', 'length-twice-same', 'length-list-same', 'te-twice', 'te-gzip', 'te-identity', 'te-empty', 'chunked-case', 'chunked-ows') },
      { weight: 2, arbitrary: fc.constantFrom('length-ows', 'length-zeros', 'length-sign', 'length-hex', 'length-negative', 'length-empty', 'length-16-digits', 'length-short', 'length-long') },
      { weight: 3, arbitrary: fc.constantFrom('chunked-ext', 'chunked-trailer', 'chunk-size-bad', 'chunk-size-negative', 'chunk-size-0x', 'chunk-size-space', 'chunk-size-16', 'chunk-ext-control', 'chunk-ext-empty', 'chunk-ext-bare-cr', 'chunk-no-crlf', 'chunk-longer', 'trailer-fold', 'trailer-bad-name', 'trailer-control', 'chunk-bare-lf') },
    ),
  })

function makeFraming({ body: size, cuts, kind }: typeof framingArb extends fc.Arbitrary<infer T> ? T : never): Framing {
    const body = seededBytes(size)
    const n = body.length
    const raw = body.toString('latin1')
    const ch = (ext: string[] = [], trailers = '') => chunked(body, cuts, ext, trailers)
    const length = (value: string, extra: Partial<Framing> = {}): Framing => ({ text: `Content-Length: ${value}\r\n\r\n${raw}`, decoded: body, why: `Content-Length: ${value.slice(0, 30)}`, ...extra })
    const te = (value: string, rest: string, extra: Partial<Framing> = {}): Framing => ({ text: `Transfer-Encoding: ${value}\r\n\r\n${rest}`, decoded: body, why: `Transfer-Encoding: ${value}`, te: true, ...extra })
    const refuse = { verdict: 'refuse' as const }
    switch (kind) {
      case 'none':
        return { text: '\r\n', decoded: Buffer.alloc(0), why: 'no body' }
      case 'length':
        return length(String(n))
      case 'length-ows':
        return length(` ${n}\t `)
      case 'length-zeros':
        return length(`000${n}`)
      case 'length-twice-same':
        return { ...length(`${n}\r\nContent-Length: ${n}`), verdict: 'either', why: 'two equal Content-Length lines' }
      case 'length-list-same':
        return { ...length(`${n}, ${n}`), verdict: 'either' }
      case 'length-twice-differ':
        return { ...length(`${n}\r\nContent-Length: ${n + 1}`), ...refuse, why: 'two differing Content-Length lines' }
      case 'length-sign':
        return length(`+${n}`, refuse)
      case 'length-hex':
        return length(`0x${n.toString(16)}`, refuse)
      case 'length-negative':
        return length(`-${n}`, refuse)
      case 'length-empty':
        return length('', refuse)
      case 'length-16-digits':
        return length('1'.repeat(16), refuse)
      case 'length-short':
        // Declares more than comes: the request never ends (nothing may follow it on the connection).
        return { ...length(String(n + 5)), neverEnds: true, why: 'a body shorter than declared' }
      case 'length-long':
        // Sends more than declared: the rest spoils the next request's head.
        return { ...length(String(n)), text: `Content-Length: ${n}\r\n\r\n${raw} junk\r\n`, spoilsNext: true, why: 'a body longer than declared' }
      case 'chunked':
        return te('chunked', ch())
      case 'chunked-case':
        return te('ChUnKeD', ch())
      case 'chunked-ows':
        return te(' chunked\t', ch())
      case 'chunked-ext':
        return te('chunked', ch([';a=b', ';q="x y\\"z"', ' ; n = v', ';only']))
      case 'chunked-trailer':
        return te('chunked', ch([], 'X-Trailer: t\r\nX-Other: caf\xe9\r\n'))
      case 'te-and-length':
        return { text: `Transfer-Encoding: chunked\r\nContent-Length: ${n}\r\n\r\n${ch()}`, decoded: body, ...refuse, why: 'Transfer-Encoding and Content-Length' }
      case 'te-gzip':
        return te('gzip, chunked', ch(), { ...refuse, statuses: [400] })
      case 'te-twice':
        return { text: `Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n${ch()}`, decoded: body, ...refuse, statuses: [400], why: 'two Transfer-Encoding lines' }
      case 'te-identity':
        return te('identity', raw, { ...refuse, statuses: [400] })
      case 'te-empty':
        return te('', raw, { ...refuse, statuses: [400] })
      case 'chunk-size-bad':
        return te('chunked', `zz\r\n${raw}\r\n0\r\n\r\n`, refuse)
      case 'chunk-size-negative':
        return te('chunked', `-1\r\nx\r\n0\r\n\r\n`, refuse)
      case 'chunk-size-0x':
        return te('chunked', `0x1\r\nx\r\n0\r\n\r\n`, refuse)
      case 'chunk-size-space':
        return te('chunked', ` 1\r\nx\r\n0\r\n\r\n`, refuse)
      case 'chunk-size-16':
        return te('chunked', `${'0'.repeat(15)}1\r\nx\r\n0\r\n\r\n`, refuse)
      case 'chunk-ext-control':
        return te('chunked', ch([';a\x01b']), n ? refuse : {})
      case 'chunk-ext-empty':
        return te('chunked', ch([';']), n ? refuse : {})
      case 'chunk-ext-bare-cr':
        return te('chunked', ch([';a\rb']), n ? refuse : {})
      case 'chunk-no-crlf':
        return te('chunked', `1\r\nxy0\r\n\r\n`, refuse)
      case 'chunk-longer':
        return te('chunked', `1\r\nxyz\r\n0\r\n\r\n`, refuse)
      case 'trailer-fold':
        return te('chunked', ch([], 'X-T: a\r\n b\r\n'), refuse)
      case 'trailer-bad-name':
        return te('chunked', ch([], 'Bad Name: x\r\n'), refuse)
      case 'trailer-control':
        return te('chunked', ch([], 'X-T: a\x01b\r\n'), refuse)
      case 'chunk-bare-lf':
        return te('chunked', `1\nx\r\n0\r\n\r\n`, refuse)
      default:
        throw new Error(kind)
    }
}

/** Secrets a request carries, each unique: none may reach a report. */
const secretArb = fc.record({ key: fc.stringMatching(/^[0-9a-f]{8,16}$/), style: fc.constantFrom('key', 'bearer', 'basic', 'two-keys', 'lower', 'proxy', 'none'), inBody: fc.boolean() })

/**
 * Which parts of a request are mutated: mostly one (a fault hidden behind another the proxy refuses first
 * is never seen), sometimes none or two; the others are as RFC 9112 writes them.
 */
const PARTS = ['method', 'target', 'version', 'headers', 'framing', 'crlf'] as const
const focusArb = fc.oneof({ weight: 1, arbitrary: fc.constant([] as string[]) }, { weight: 6, arbitrary: fc.constantFrom(...PARTS, 'framing', 'framing', 'framing', 'headers', 'headers').map((p) => [p]) }, { weight: 2, arbitrary: fc.uniqueArray(fc.constantFrom(...PARTS), { minLength: 2, maxLength: 2 }) })
const requestArb = fc.record({ focus: focusArb, method: methodArb, target: targetArb, version: versionArb, headers: fc.array(headerArb, { minLength: 1, maxLength: 3 }), framing: framingArb, secret: secretArb, leadingCrlf: fc.boolean() })
type RequestShape = typeof requestArb extends fc.Arbitrary<infer T> ? T : never

let nextId = 0

/** A part not in focus is taken as RFC 9112 writes it: the first entries of its table, a framing without fault. */
function build(shape: RequestShape): Req {
  const on = (part: (typeof PARTS)[number]) => shape.focus.includes(part)
  let made = makeFraming(shape.framing)
  if (!on('framing') && (made.verdict || made.neverEnds || made.spoilsNext)) made = makeFraming({ ...shape.framing, kind: 'length' })
  const r = {
    ...shape,
    method: METHODS[on('method') ? shape.method : shape.method % 7]!,
    // A key echoed in a body goes to a contract path: its request is recorded where the client report shows bodies.
    target: TARGETS[on('target') ? shape.target : shape.secret.inBody ? 3 : shape.target % 5]!,
    version: VERSIONS[on('version') ? shape.version : shape.version % 3]!,
    // In focus, the first header line as drawn and the others without fault (one refusal does not hide another).
    headers: shape.headers.map((i) => HEADERS[i]!).filter((h, i) => (on('headers') && i === 0) || (!h.verdict && !h.status && !h.noHost && !h.host)),
    framing: made,
    leadingCrlf: on('crlf') && shape.leadingCrlf,
  }
  const id = `r${++nextId}`
  const s = r.secret
  const secretLines: string[] = []
  const tokens = [`sk_fuzz_${s.key}_${id}`, `tok_fuzz_${s.key}_${id}`]
  if (s.style === 'key') secretLines.push(`X-API-Key: ${tokens[0]}`)
  if (s.style === 'lower') secretLines.push(`x-api-key:   ${tokens[0]}  `)
  if (s.style === 'two-keys') secretLines.push(`X-API-Key: ${tokens[0]}`, `X-API-Key: ${tokens[1]}`)
  if (s.style === 'bearer') secretLines.push(`Authorization: Bearer ${tokens[1]}`)
  if (s.style === 'basic') secretLines.push(`Authorization: basic ${Buffer.from(tokens[1]!).toString('base64')}`)
  if (s.style === 'proxy') secretLines.push(`Proxy-Authorization: Bearer ${tokens[1]}`, `X-API-Key: ${tokens[0]}`)
  const used = s.style === 'none' ? [] : s.style === 'key' || s.style === 'lower' ? [tokens[0]!] : s.style === 'basic' ? [Buffer.from(tokens[1]!).toString('base64')] : s.style === 'bearer' ? [tokens[1]!] : tokens
  for (const t of used) secrets.add(t)
  let framing = r.framing
  // The client echoes its key in a body (a settings form): still never in a report.
  const bodyWithSecret = s.inBody && used.length && framing.why === `Content-Length: ${framing.decoded.length}` && !framing.neverEnds && !framing.spoilsNext
  if (bodyWithSecret) {
    const body = Buffer.from(`{"key":"${used[0]}"}`, 'latin1')
    framing = { ...framing, text: `Content-Length: ${body.length}\r\n\r\n${body.toString('latin1')}`, decoded: body }
  }
  const noHost = r.headers.some((h) => h.noHost)
  const lines = [...(noHost ? [] : ['Host: shop.test']), `X-Fuzz-Id: ${id}`, ...secretLines, ...r.headers.map((h) => h.text)]
  const head = `${r.leadingCrlf ? '\r\n' : ''}${r.method.text} ${r.target.text} ${r.version.text}\r\n${lines.join('\r\n')}\r\n`
  const text = head + framing.text
  const bytes = Buffer.from(text, 'latin1')
  const extra = framing.spoilsNext ? ' junk\r\n'.length : 0
  const keepAlive = r.version.minor === 1 ? !r.headers.some((h) => h.closes) : r.headers.some((h) => h.keepAlive) && !r.headers.some((h) => h.closes)
  const method = r.method.text
  // RFC 9112 3.2.4: the asterisk form is a server-wide OPTIONS; with any other method it is refused.
  const targetVerdict = r.target.text === '*' && r.method.text === 'OPTIONS' ? undefined : r.target.verdict
  const verdicts = [r.method.verdict, targetVerdict, r.version.verdict, ...r.headers.map((h) => h.verdict), framing.verdict]
  // RFC 9112 2.2: a server SHOULD ignore an empty line before the request line; refusing it is allowed.
  if (r.leadingCrlf) verdicts.push('either')
  // Two Expect lines (`100-continue, 100-continue`): a list the proxy may take for an expectation it does not know (417).
  if (r.headers.filter((h) => h.expect100 || h.status === 417).length > 1) verdicts.push('either')
  const hosts = (noHost ? 0 : 1) + r.headers.filter((h) => h.host).length
  if (hosts > 1 || (hosts === 0 && r.version.minor === 1)) verdicts.push('refuse')
  // A body on GET, HEAD, DELETE: allowed, forwarded as any other.
  return {
    id,
    bytes,
    framedEnd: bytes.length - extra,
    verdict: worst(verdicts),
    method,
    target: r.target.upstream,
    body: framing.decoded,
    minor: r.version.minor,
    closes: !keepAlive || (framing.te === true && r.version.minor === 0),
    expect100: r.headers.some((h) => h.expect100),
    named: r.headers.flatMap((h) => h.named ?? []),
    neverEnds: framing.neverEnds === true,
    spoilsNext: framing.spoilsNext === true,
    statuses: [...r.headers.flatMap((h) => (h.status ? [h.status] : [])), ...(framing.statuses ?? []), 405, 431],
    why: [r.method.why, r.target.why, r.version.why, ...r.headers.map((h) => h.why), framing.why, ...(r.leadingCrlf ? ['an empty line first'] : []), ...(bodyWithSecret ? ['the key in the body'] : [])],
  }
}

type Ending = 'end' | 'wait' | 'destroy'

const connectionArb = fc.record({
  requests: fc.array(requestArb, { minLength: 1, maxLength: 3 }),
  splits: fc.tuple(fc.array(fc.nat(), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 3 })),
  // Mostly all of it sent, a fifth cut short.
  truncate: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, fc.nat()),
  ending: fc.constantFrom<Ending>('end', 'end', 'wait', 'wait', 'destroy'),
})

// ---------------------------------------------------------------------------------------------

interface Sent {
  reqs: Req[]
  /** How many bytes of the stream went out. */
  sent: number
  ending: Ending
}

const HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authorization']

/** Every way the exchange broke a property, in words (empty: all held). */
function judge({ reqs, sent, ending }: Sent, received: Buffer, hang: boolean): string[] {
  const problems: string[] = []
  if (hang) problems.push(`the connection was still open ${HANG_MS} ms after the last byte (the proxy's timers are ${IDLE_MS} and ${UPSTREAM_MS} ms)`)
  // Where each request starts and ends in the stream; whether all of it went out.
  let offset = 0
  const complete = reqs.map((r) => {
    const end = offset + r.framedEnd
    offset += r.bytes.length
    return !r.neverEnds && end <= sent
  })
  // A request whose head a body longer than declared spoiled is refused, whatever it was.
  const verdictOf = (i: number): Verdict => (i > 0 && reqs[i - 1]!.spoilsNext ? 'refuse' : reqs[i]!.verdict)
  let answers: ReturnType<typeof readAnswers>
  try {
    // A HEAD whose line the bytes before it spoiled is not read as a HEAD.
    answers = readAnswers(received, (i) => reqs[i]?.method === 'HEAD' && !(i > 0 && reqs[i - 1]!.spoilsNext))
  } catch (error) {
    // A client that closed first may have read half an answer.
    if (ending !== 'destroy') return [...problems, `the client read a malformed answer: ${(error as Error).message}`]
    answers = []
  }
  const forwarded = new Set<string>()
  let finals = 0
  let closedBy: string | undefined
  for (const a of answers) {
    const r = reqs[finals]
    if (!r) {
      // The bytes past the last request's declared body (` junk` CR LF) are a line of their own: a malformed request line, which
      // the proxy may refuse as soon as it ends (400, naming it), or leave unanswered when the client closes.
      const junkRefused = reqs.at(-1)?.spoilsNext && a.status === 400 && /request line/.test(proxyError(a.body) ?? '')
      if (!junkRefused) problems.push(`answer ${finals + 1} (${a.status}) to no request`)
      break
    }
    if (a.status < 200) {
      if (a.status !== 100 || !r.expect100 || r.minor !== 1) problems.push(`an interim ${a.status} to ${r.id}, which did not ask for it`)
      continue
    }
    if (closedBy) problems.push(`an answer to ${r.id} after ${closedBy}`)
    finals++
    const seenId = field(a.fields, 'x-seen')
    if (seenId.length) {
      if (seenId[0] !== r.id) problems.push(`answer ${finals} is ${seenId[0]}'s, not ${r.id}'s: out of order`)
      if (verdictOf(finals - 1) === 'refuse') problems.push(`${r.id} should have been refused (${r.why.join(', ')}) but was forwarded`)
      if (!complete[finals - 1]) problems.push(`${r.id} was answered by the upstream though its bytes did not all come`)
      forwarded.add(r.id)
      const up = seen.get(r.id)
      if (!up) problems.push(`${r.id} was answered from the upstream, which has no record of it`)
      else {
        if (up.method !== r.method) problems.push(`${r.id}: the upstream got method ${JSON.stringify(up.method.slice(0, 40))}, the client sent ${JSON.stringify(r.method.slice(0, 40))}`)
        if (up.target !== r.target) problems.push(`${r.id}: the upstream got target ${JSON.stringify(up.target.slice(0, 80))}, expected ${JSON.stringify(r.target.slice(0, 80))}`)
        if (!up.body.equals(r.body)) problems.push(`${r.id}: the upstream got a body of ${up.body.length} bytes, not the ${r.body.length} the client sent (${JSON.stringify(up.body.toString('latin1').slice(0, 60))} vs ${JSON.stringify(r.body.toString('latin1').slice(0, 60))})`)
        for (const name of [...HOP, ...r.named]) if (field(up.fields, name).length && !(name === 'transfer-encoding' && field(up.fields, name)[0] === 'chunked')) problems.push(`${r.id}: the hop-by-hop field ${name} reached the upstream`)
        if (field(up.fields, 'host').length !== 1) problems.push(`${r.id}: the upstream got ${field(up.fields, 'host').length} Host fields`)
      }
      if (r.closes || a.fields.some((f) => f.name.toLowerCase() === 'connection' && /\bclose\b/i.test(f.value))) closedBy = `${r.id}'s answer, which closes`
      continue
    }
    // An answer to HEAD has no body: the proxy's own says how long its {"error"} would be.
    const own = r.method === 'HEAD' && !(finals > 1 && reqs[finals - 2]!.spoilsNext) && a.body.length === 0 && Number(field(a.fields, 'content-length')[0]) > 0 && a.status >= 400 ? '(to HEAD, no body)' : proxyError(a.body)
    if (own === undefined) {
      problems.push(`answer ${finals} (${a.status} ${JSON.stringify(a.body.toString('latin1').slice(0, 100))}) is neither the upstream's nor the proxy's {"error"}`)
      continue
    }
    const type = field(a.fields, 'content-type')
    if (type.length !== 1 || type[0] !== 'application/json') problems.push(`the proxy's ${a.status} for ${r.id} has Content-Type ${JSON.stringify(type)}`)
    const ownStatus = a.status >= 400 && a.status < 500 ? 'client' : [...r.statuses].includes(a.status) ? 'allowed' : 'server'
    if (ownStatus === 'server') problems.push(`the proxy answered ${r.id} ${a.status} ${JSON.stringify(own)}: a 5xx for the client's request (${r.why.join(', ')})`)
    if (complete[finals - 1] && verdictOf(finals - 1) === 'forward') problems.push(`${r.id} (${r.why.join(', ')}) was refused ${a.status}: ${own}`)
    if (seen.has(r.id) && complete[finals - 1]) problems.push(`${r.id} was refused (${a.status}: ${own}) but reached the upstream`)
    closedBy = `the proxy's ${a.status}`
  }
  // Every request that came whole is answered, until a close.
  if (!closedBy && ending !== 'destroy' && finals < reqs.length && complete[finals]) problems.push(`${reqs[finals]!.id} (${reqs[finals]!.why.join(', ')}) came whole but got no answer (${finals} of ${reqs.length} answered, ending: ${ending})`)
  // The upstream got nothing the proxy did not forward: a request it refused, or one after a refusal.
  for (const [i, r] of reqs.entries()) {
    if (!seen.has(r.id) || forwarded.has(r.id)) continue
    // A request forwarded whose answer never reached the client: allowed when the client closed first (the proxy may
    // forward what came whole before it sees the close) or the request did not all come; never a refused one, never after a close.
    const unanswered = !closedBy && ((ending === 'destroy' && i >= finals) || (i === finals && !complete[i]))
    if (!unanswered || verdictOf(i) === 'refuse' || reqs.slice(0, i).some((_, j) => verdictOf(j) === 'refuse' || reqs[j]!.closes)) problems.push(`${r.id} (${r.why.join(', ')}) reached the upstream without being answered from it`)
  }
  return problems
}

describe('shoptwin proxy under a fuzzer: the client side', () => {
  it('never throws or hangs, refuses with a 4xx {"error"}, never smuggles, answers pipelined requests in order', async () => {
    let last: { problems: string[]; sent: Sent } | undefined
    await fc.assert(
      fc.asyncProperty(connectionArb, async ({ requests, splits, truncate, ending }) => {
        // Nothing may follow a request that never ends.
        const built: Req[] = []
        for (const r of requests) {
          built.push(build(r))
          if (built.at(-1)!.neverEnds) break
        }
        const stream = Buffer.concat(built.map((r) => r.bytes))
        const sent = truncate === null ? stream.length : truncate % (stream.length + 1)
        const errorsBefore = upstreamErrors.length
        const thrownBefore = thrown.length
        const bytes = stream.subarray(0, sent)
        const { received, hang } = await talk(proxy.url, bytes, cutPoints(bytes, ...splits), ending, HANG_MS)
        const problems = judge({ reqs: built, sent, ending }, received, hang)
        problems.push(...upstreamErrors.slice(errorsBefore).map((e) => `the upstream could not frame what the proxy sent: ${e}`))
        problems.push(...thrown.slice(thrownBefore).map((e) => `the proxy threw: ${(e as Error)?.stack ?? e}`))
        last = { problems, sent: { reqs: built, sent, ending } }
        if (problems.length) {
          const what = built.map((r) => `${r.id}: ${r.verdict} [${r.why.join(', ')}] ${JSON.stringify(r.bytes.toString('latin1').slice(0, 300))}`).join('\n  ')
          throw new Error(`${problems.join('\n')}\n  sent ${sent} of ${stream.length} bytes, split at ${JSON.stringify(splits)}, ending ${ending}\n  ${what}\n  received ${JSON.stringify(received.toString('latin1').slice(0, 600))}`)
        }
      }),
      { numRuns: RUNS, seed: SEED, path: process.env.FUZZ_PATH, endOnFailure: process.env.FUZZ_SHRINK === undefined },
    )
    expect(last?.problems ?? []).toEqual([])
  }, TEST_TIMEOUT_MS)

  // Its time grows with RUNS too: stop() grades what waits in the backlog (12 s for the 3,856 exchanges of
  // FUZZ_RUNS=5000), so it has the fuzz's limit, not vitest's 30 s (it timed out at FUZZ_RUNS=5000 FUZZ_SEED=1930).
  it(`the reports of all that traffic (${RUNS} runs) never throw and hold none of its secrets`, async () => {
    expect(secrets.size).toBeGreaterThan(10)
    // Every secret is one word of token characters with a marker (sk_fuzz_, tok_fuzz_, or tok_fuzz_ in base64), so
    // only the words of a report that carry one are searched: the time is the report's length, not secrets x
    // length (29 s of the 57 s above).
    expect([...secrets].filter((s) => /[^A-Za-z0-9_+/=]/.test(s) || !SECRET_MARKERS.some((m) => s.includes(m)))).toEqual([])
    const report = await proxy.stop()
    const files = { json: proxyJson(report), junit: proxyJunit(report), html: proxyHtml(report) }
    for (const [name, text] of Object.entries(files)) {
      const marked = text.split(/[^A-Za-z0-9_+/=]+/).filter((word) => SECRET_MARKERS.some((m) => word.includes(m))).join(' ')
      const leaked = [...secrets].filter((s) => marked.includes(s)).map((s) => `${s} in …${text.slice(Math.max(0, text.indexOf(s) - 300), text.indexOf(s) + s.length + 100)}…`)
      expect(leaked, `${name} holds secrets`).toEqual([])
    }
    expect(report.exchanges).toBeGreaterThanOrEqual(seen.size)
    expect(upstreamErrors).toEqual([])
    expect(thrown).toEqual([])
  }, TEST_TIMEOUT_MS)
})
