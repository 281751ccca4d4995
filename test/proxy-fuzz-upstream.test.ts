/**
 * `shoptwin proxy` under a fuzzer, the upstream's side: a raw upstream answers each request with
 * bytes from a grammar (interim 1xx answers, status lines right and wrong, header lines, every framing
 * and its faults, 204/304 with a body, extra bytes after an answer, a close or a reset before or in the
 * middle of an answer, silence, an answer before the request's body came), its writes split at random
 * points. Well-formed requests come pipelined on one client connection. Properties, per connection:
 * - the client gets each answer passed on (status, fields but the hop-by-hop ones, body byte for
 *   byte), or a 502/504 `{"error"}` before any byte of it, or, once it began, a cut connection; never
 *   an answer that belongs to no request (bytes an upstream sent after its answer are never taken for
 *   the next one: that connection is not reused), never a hang, never a throw;
 * - the exchange is recorded with `upstreamError` exactly when the upstream failed.
 * Loopback, port 0; FUZZ_SEED / FUZZ_PATH / FUZZ_RUNS replay or widen a run.
 */
import fc from 'fast-check'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProxy, type RunningProxy } from '../proxy/index.ts'
import type { ProxyExchange } from '../proxy/exchange.ts'
import { cutPoints, field, proxyError, readAnswers, readRequest, seededBytes, talk, type Field } from './support/http1-wire.ts'

const RUNS = Number(process.env.FUZZ_RUNS ?? 200)
/** The run's time grows with RUNS (about 40 ms a run at 3000, the waits for the proxy's timers among it): 120 s, or 100 ms a run when FUZZ_RUNS widens it. */
const TEST_TIMEOUT_MS = Math.max(120_000, RUNS * 100)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)
const IDLE_MS = 80
/**
 * The upstream's timeout: 400 ms, as the client fuzz's, not 150: the upstream runs in this process, and an
 * answer it gives at once must come within it even when a loaded machine holds the process between the
 * forward and the upstream's read (the silent cases wait it out: about 2 s more in all).
 */
const UPSTREAM_MS = 400
const HANG_MS = 5_000

/** What the upstream does for a request, by X-Fuzz-Id. */
interface Script {
  /** The bytes it writes, in these pieces (a setImmediate between). */
  pieces: Buffer[]
  /** Then: keep the connection, close it, reset it, or stay silent (the proxy's timeout). */
  then: 'keep' | 'close' | 'reset' | 'silent'
  /** Answer as soon as the request's head came (its body is still coming). */
  early: boolean
  /** The answer says the connection closes (Connection: close, or HTTP/1.0 without keep-alive): a request after it on the same connection is the proxy's fault. */
  saysClose?: boolean
  /** It sends bytes after its answer (a stray body, a second answer): that connection must not carry another request. */
  sendsExtra?: boolean
}
/** Requests the proxy sent on an upstream connection after an answer that said it closes. */
const reusedAfterClose: string[] = []
const scripts = new Map<string, Script>()
const exchanges = new Map<string, ProxyExchange>()
const thrown: unknown[] = []
const onUncaught = (error: unknown) => void thrown.push(error)
let upstream: Server
const upstreamSockets = new Set<Socket>()
let proxy: RunningProxy

async function play(socket: Socket, script: Script): Promise<void> {
  for (const piece of script.pieces) {
    if (socket.destroyed) return
    socket.write(piece)
    await new Promise((resolve) => setImmediate(resolve))
  }
  if (script.then === 'close') socket.end()
  if (script.then === 'reset') socket.resetAndDestroy()
}

beforeAll(async () => {
  process.on('uncaughtException', onUncaught)
  upstream = createServer((socket) => {
    // No Nagle: bytes written a turn after an answer leave at once, not held for the answer's ACK (the limit of
    // the proxy's guarantee: bytes that reach it a turn or more after their answer, it cannot tell from the next one's).
    socket.setNoDelay(true)
    upstreamSockets.add(socket)
    socket.on('close', () => upstreamSockets.delete(socket))
    socket.on('error', () => undefined)
    let pending = Buffer.alloc(0)
    let playing = false
    let answeredEarly: string | undefined
    let saidClose: string | undefined
    const next = async () => {
      while (!playing && !socket.destroyed) {
        const read = readRequest(pending)
        if (!read) {
          // A head whose script answers before the body: answered now, the rest of its body ignored.
          const head = pending.indexOf('\r\n\r\n')
          const id = head < 0 ? undefined : /\r\nX-Fuzz-Id: (\S+)/i.exec(pending.toString('latin1', 0, head))?.[1]
          if (id && scripts.get(id)?.early && answeredEarly !== id) {
            answeredEarly = id
            playing = true
            await play(socket, scripts.get(id)!)
            playing = false
          }
          return
        }
        pending = pending.subarray(read.end)
        const id = field(read.request.fields, 'x-fuzz-id')[0]!
        if (id === answeredEarly) continue
        const script = scripts.get(id)
        if (!script) return void socket.destroy()
        if (saidClose) reusedAfterClose.push(`${id} after ${saidClose}`)
        if (script.saysClose) saidClose = `${id}, whose answer said it closes`
        if (script.sendsExtra) saidClose = `${id}, which sent bytes after its answer`
        playing = true
        await play(socket, script)
        playing = false
        if (script.then !== 'keep') return
      }
    }
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      void next()
    })
  })
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done))
  proxy = await startProxy({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    timeoutMs: UPSTREAM_MS,
    clientIdleMs: IDLE_MS,
    gradingBacklog: 0,
    onExchange: (g) => void exchanges.set(g.x.requestHeaders['x-fuzz-id'] ?? '', g.x),
  })
})

afterAll(async () => {
  process.off('uncaughtException', onUncaught)
  await proxy?.stop()
  for (const socket of upstreamSockets) socket.destroy()
  await new Promise<void>((done) => upstream?.close(() => done()))
})

// ---------------------------------------------------------------------------------------------
// The grammar of answers. Each choice says what the client must get.

/** pass: the answer, passed on; 502/504: the proxy's own before any byte; cut: a 502 before any byte, or the answer begun and the connection cut. */
type Outcome = 'pass' | '502' | '504' | 'cut'

const STATUS_LINES: Array<{ text: string; status?: number; outcome?: Outcome; noBody?: boolean; minor?: number }> = [
  { text: 'HTTP/1.1 200 OK', status: 200 },
  { text: 'HTTP/1.1 201 Created', status: 201 },
  { text: 'HTTP/1.1 404 Not Found', status: 404 },
  { text: 'HTTP/1.1 500 Internal Server Error', status: 500 },
  { text: 'HTTP/1.0 200 OK', status: 200, minor: 0 },
  { text: 'HTTP/1.1 200', status: 200 },
  { text: 'HTTP/1.1 200 ', status: 200 },
  { text: `HTTP/1.1 200 ${'r'.repeat(2000)}`, status: 200 },
  { text: 'HTTP/1.1 204 No Content', status: 204, noBody: true },
  { text: 'HTTP/1.1 304 Not Modified', status: 304, noBody: true },
  { text: 'HTTP/1.1 101 Switching Protocols', outcome: '502' },
  { text: 'SMTP ready', outcome: '502' },
  { text: 'HTTP/2 200', outcome: '502' },
  { text: 'HTTP/1.1 99 Low', outcome: '502' },
  { text: 'HTTP/1.1 2000 High', outcome: '502' },
  { text: 'http/1.1 200 OK', outcome: '502' },
  { text: 'HTTP/1.1 200 OK\x00', outcome: '502' },
]

const HEADER_LINES: Array<{ text: string; outcome?: Outcome; named?: string; closes?: boolean }> = [
  { text: 'Content-Type: application/json' },
  { text: 'Set-Cookie: a=1\r\nSet-Cookie: b=2' },
  { text: 'X-Empty:' },
  { text: 'X-Obs: caf\xe9' },
  { text: `X-Huge: ${'h'.repeat(20_000)}` },
  { text: 'Connection: close', closes: true },
  { text: 'Connection: x-hop\r\nX-Hop: gone', named: 'x-hop' },
  { text: 'Keep-Alive: timeout=5\r\nProxy-Authenticate: Basic\r\nUpgrade: h2c' },
  { text: 'Retry-After: 7' },
  { text: 'X-Fold: a\r\n b', outcome: '502' },
  { text: 'Bad Name: x', outcome: '502' },
  { text: 'X-C: a\x01b', outcome: '502' },
  { text: 'X-C: a\rb', outcome: '502' },
  { text: 'Nocolon', outcome: '502' },
  { text: `X-Over: ${'o'.repeat(70_000)}`, outcome: '502' },
]

const FRAMINGS = ['length', 'chunked', 'close', 'te-gzip', 'te-gzip-chunked', 'length-zeros', 'cl-te', 'cl-two-differ', 'cl-list-same', 'cl-bad', 'chunk-bad', 'chunk-ext', 'trailers', 'short-then-close', 'reset-mid', 'silent-mid', 'silent', 'close-early', 'reset-early', 'early', 'extra-after', 'extra-later'] as const
type FramingKind = (typeof FRAMINGS)[number]

const answerArb = fc.record({
  interim: fc.array(fc.constantFrom('HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 102 Processing\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n'), { maxLength: 2 }),
  status: fc.oneof({ weight: 4, arbitrary: fc.nat(3) }, fc.nat(STATUS_LINES.length - 1)),
  headers: fc.array(fc.nat(HEADER_LINES.length - 1), { maxLength: 3 }),
  // By class, each often enough for a default run: as written; bytes after the answer; every other fault.
  framing: fc.oneof({ weight: 4, arbitrary: fc.constantFrom<FramingKind>('length', 'chunked') }, { weight: 2, arbitrary: fc.constantFrom<FramingKind>('extra-after', 'extra-later') }, { weight: 4, arbitrary: fc.constantFrom(...FRAMINGS) }),
  body: fc.tuple(fc.oneof({ weight: 5, arbitrary: fc.nat(300) }, fc.constant(200_000)), fc.nat()),
  cuts: fc.array(fc.nat(), { maxLength: 4 }),
  splits: fc.tuple(fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 2 })),
})
type AnswerShape = typeof answerArb extends fc.Arbitrary<infer T> ? T : never

const requestArb = fc.record({ method: fc.constantFrom('GET', 'POST', 'HEAD'), minor: fc.oneof({ weight: 5, arbitrary: fc.constant(1) }, fc.constant(0)), answer: answerArb })

const chunkedOf = (body: Buffer, cuts: number[], ext = '', trailers = ''): Buffer => {
  const at = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b)
  const parts: Buffer[] = []
  let from = 0
  for (const to of [...at, body.length]) {
    if (to === from) continue
    parts.push(Buffer.from(`${(to - from).toString(16)}${ext}\r\n`, 'latin1'), body.subarray(from, to), Buffer.from('\r\n'))
    from = to
  }
  parts.push(Buffer.from(`0\r\n${trailers}\r\n`, 'latin1'))
  return Buffer.concat(parts)
}

interface Planned {
  id: string
  method: string
  minor: number
  script: Script
  outcome: Outcome
  /** For pass and cut: the status, the final answer's fields as sent, its decoded body. */
  status: number
  fields: Field[]
  body: Buffer
  /** The client's connection ends after this answer (Connection: close, close-delimited, HTTP/1.0, an early answer). */
  closes: boolean
  why: string[]
}

let nextId = 0

function plan(method: string, minor: number, a: AnswerShape): Planned {
  const id = `u${++nextId}`
  const line = STATUS_LINES[a.status]!
  const headers = a.headers.map((i) => HEADER_LINES[i]!)
  const framing = a.framing
  const noBody = line.noBody === true || method === 'HEAD'
  const body = noBody ? Buffer.alloc(0) : seededBytes(a.body)
  const why = [line.text.slice(0, 40), ...headers.map((h) => h.text.slice(0, 30)), framing, `${method} HTTP/1.${minor}`]
  let outcome: Outcome = line.outcome ?? headers.find((h) => h.outcome)?.outcome ?? 'pass'
  const fieldText = [`X-Id: ${id}`, ...headers.map((h) => h.text)]
  let framingLines: string[] = []
  let payload: Buffer = body
  let then: Script['then'] = 'keep'
  let early = false
  let extra = Buffer.alloc(0)
  let extraLater = false
  // The upstream's Connection: close is its own connection's: the client's goes on.
  let closes = minor === 0
  const n = body.length
  const smuggled = Buffer.from('HTTP/1.1 200 OK\r\nX-Id: smuggled\r\nContent-Length: 9\r\n\r\nsmuggled!')
  switch (framing) {
    case 'length':
      framingLines = [`Content-Length: ${n}`]
      break
    case 'length-zeros':
      framingLines = [`Content-Length: 00${n}`]
      break
    case 'chunked':
    case 'chunk-ext':
    case 'trailers':
    case 'te-gzip-chunked':
      // RFC 9112 6.3: chunked as the final coding frames the answer (gzip, chunked: on a kept-alive connection, no close comes).
      framingLines = [framing === 'te-gzip-chunked' ? 'Transfer-Encoding: gzip, chunked' : 'Transfer-Encoding: chunked']
      payload = noBody ? body : chunkedOf(body, a.cuts, framing === 'chunk-ext' ? ';a=b;q="x y"' : '', framing === 'trailers' ? 'X-Trailer: t\r\n' : '')
      break
    case 'close':
      then = 'close'
      if (!noBody) closes = true
      break
    case 'te-gzip':
      framingLines = ['Transfer-Encoding: gzip']
      then = 'close'
      if (!noBody) closes = true
      break
    case 'cl-te':
      framingLines = [`Content-Length: ${n}`, 'Transfer-Encoding: chunked']
      payload = noBody ? body : chunkedOf(body, a.cuts)
      if (outcome === 'pass' && !noBody) outcome = '502'
      break
    case 'cl-two-differ':
      framingLines = [`Content-Length: ${n}`, `Content-Length: ${n + 1}`]
      if (outcome === 'pass' && !noBody) outcome = '502'
      break
    case 'cl-list-same':
      // RFC 9110 8.6: a recipient may refuse `5, 5` or take it as 5; passed on as it came, a strict client refuses it.
      framingLines = [`Content-Length: ${n}, ${n}`]
      if (outcome === 'pass' && !noBody) outcome = '502'
      break
    case 'cl-bad':
      framingLines = [`Content-Length: +${n}`]
      if (outcome === 'pass' && !noBody) outcome = '502'
      break
    case 'chunk-bad':
      framingLines = ['Transfer-Encoding: chunked']
      payload = Buffer.concat([noBody ? Buffer.alloc(0) : chunkedOf(body, a.cuts).subarray(0, -5), Buffer.from('zz\r\nxx\r\n0\r\n\r\n')])
      if (outcome === 'pass' && !noBody) outcome = 'cut'
      if (noBody) payload = Buffer.alloc(0)
      break
    case 'short-then-close':
      framingLines = [`Content-Length: ${n + 10}`]
      then = 'close'
      if (outcome === 'pass' && !noBody) outcome = 'cut'
      break
    case 'reset-mid':
      framingLines = [`Content-Length: ${n + 10}`]
      then = 'reset'
      if (outcome === 'pass' && !noBody) outcome = 'cut'
      if (noBody) then = 'keep'
      break
    case 'silent-mid':
      framingLines = [`Content-Length: ${n + 10}`]
      then = 'silent'
      if (outcome === 'pass' && !noBody) outcome = 'cut'
      if (noBody) then = 'keep'
      break
    case 'silent':
    case 'close-early':
    case 'reset-early':
      break
    case 'early':
      framingLines = [`Content-Length: ${n}`]
      early = true
      closes = true
      break
    case 'extra-after':
      framingLines = [`Content-Length: ${n}`]
      extra = smuggled
      break
    case 'extra-later':
      framingLines = [`Content-Length: ${n}`]
      extra = smuggled
      extraLater = true
      break
  }
  if (framing === 'silent' || framing === 'close-early' || framing === 'reset-early') {
    outcome = framing === 'silent' ? '504' : '502'
    const script: Script = { pieces: [], then: framing === 'silent' ? 'silent' : framing === 'close-early' ? 'close' : 'reset', early: false }
    return { id, method, minor, script, outcome, status: 0, fields: [], body, closes: false, why }
  }
  // A 204 or 304 has no body: what follows the head is the extra bytes.
  if (line.noBody) {
    extra = Buffer.concat([payload.length ? payload : Buffer.from('stray body'), extra])
    payload = Buffer.alloc(0)
  } else if (method === 'HEAD') payload = Buffer.alloc(0)
  const head = `${a.interim.join('')}${line.text}\r\n${[...fieldText, ...framingLines].join('\r\n')}\r\n\r\n`
  // A body cut short: half of it, then the close, the reset or silence.
  if (outcome === 'cut' && (framing === 'reset-mid' || framing === 'silent-mid' || framing === 'short-then-close')) payload = payload.subarray(0, Math.floor(payload.length / 2))
  // The answer in pieces; bytes after it in the same write as its last piece (one read), or a turn later.
  const all = Buffer.concat([Buffer.from(head, 'latin1'), payload])
  const at = cutPoints(all, ...a.splits)
  const pieces: Buffer[] = []
  let from = 0
  for (const to of [...at, all.length]) {
    if (to > from) pieces.push(all.subarray(from, to))
    from = to
  }
  if (extra.length && (extraLater || !pieces.length)) pieces.push(extra)
  else if (extra.length) pieces[pieces.length - 1] = Buffer.concat([pieces.at(-1)!, extra])
  const fields = [...fieldText, ...framingLines].join('\r\n').split('\r\n').map((l) => ({ name: l.slice(0, l.indexOf(':')), value: l.slice(l.indexOf(':') + 1).trim() }))
  if (outcome === '502') closes = false
  const saysClose = headers.some((h) => h.closes) || line.minor === 0
  return { id, method, minor, script: { pieces, then, early, saysClose, sendsExtra: extra.length > 0 }, outcome, status: line.status ?? 0, fields, body: framing === 'short-then-close' || framing === 'reset-mid' || framing === 'silent-mid' ? body.subarray(0, Math.floor(n / 2)) : body, closes, why }
}

const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization'])
/** The fields a client must see: the upstream's end-to-end ones, in order (Connection and Transfer-Encoding are the proxy's own). */
const endToEnd = (fields: Field[], named: string[] = []) => fields.filter((f) => !HOP.has(f.name.toLowerCase()) && !named.includes(f.name.toLowerCase())).map((f) => `${f.name.toLowerCase()}: ${f.value}`)

function requestBytes(p: Planned): Buffer {
  const body = p.method === 'POST' ? '{"a":1}' : ''
  const head = `${p.method} /up/${p.id} HTTP/1.${p.minor}\r\nHost: shop.test\r\nX-Fuzz-Id: ${p.id}\r\n${p.minor === 0 ? 'Connection: keep-alive\r\n' : ''}`
  // An early answer comes on the head: the body is declared and never all sent.
  if (p.script.early) return Buffer.from(`${head}Content-Length: 1000\r\n\r\n{"partial":`, 'latin1')
  return Buffer.from(`${head}${body ? `Content-Length: ${body.length}\r\n` : ''}\r\n${body}`, 'latin1')
}

async function judge(planned: Planned[], received: Buffer, hang: boolean): Promise<string[]> {
  const problems: string[] = []
  if (hang) problems.push(`the connection was still open ${HANG_MS} ms after the last byte`)
  let answers: ReturnType<typeof readAnswers>
  try {
    answers = readAnswers(received, (i) => planned[i]?.method === 'HEAD').filter((a) => a.status >= 200)
  } catch (error) {
    // Half an answer is what a cut connection leaves; anything else is a malformed answer.
    answers = []
    problems.push(`the client read a malformed answer: ${(error as Error).message}`)
  }
  let ended: string | undefined
  for (const [i, p] of planned.entries()) {
    const a = answers[i]
    if (!a) {
      if (!ended) problems.push(`${p.id} (${p.why.join(', ')}) got no answer, and no answer before ended the connection`)
      continue
    }
    if (ended) {
      problems.push(`${p.id} got an answer after ${ended}`)
      continue
    }
    const xid = field(a.fields, 'x-id')[0]
    if (xid !== undefined && xid !== p.id) problems.push(`${p.id} got ${xid}'s answer${xid === 'smuggled' ? ': bytes sent after an answer were taken for the next one' : ''}`)
    // An answer to HEAD has no body: the proxy's own says how long its {"error"} would be.
    const own = xid !== undefined ? undefined : p.method === 'HEAD' && a.body.length === 0 && Number(field(a.fields, 'content-length')[0]) > 0 ? '(to HEAD, no body)' : proxyError(a.body)
    const type = field(a.fields, 'content-type')
    if (own !== undefined && (type[0] !== 'application/json' || type.length !== 1)) problems.push(`the proxy's ${a.status} for ${p.id} has Content-Type ${JSON.stringify(type)}`)
    if (p.outcome === 'pass') {
      if (own !== undefined || xid === undefined) problems.push(`${p.id} (${p.why.join(', ')}) should have been passed on, got ${a.status} ${own ?? JSON.stringify(a.body.toString('latin1').slice(0, 80))}`)
      else {
        if (a.status !== p.status) problems.push(`${p.id}: status ${a.status}, the upstream said ${p.status}`)
        const named = p.fields.filter((f) => f.name.toLowerCase() === 'connection').flatMap((f) => f.value.toLowerCase().split(',').map((s) => s.trim()))
        const want = endToEnd(p.fields, named)
        const got = endToEnd(a.fields)
        if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${p.id}: fields ${JSON.stringify(got).slice(0, 300)}, the upstream sent ${JSON.stringify(want).slice(0, 300)}`)
        if (!a.body.equals(p.body)) problems.push(`${p.id}: a body of ${a.body.length} bytes, the upstream sent ${p.body.length}`)
        if (a.cut) problems.push(`${p.id}: the answer was cut`)
      }
      if (p.closes) ended = `${p.id}'s answer, which ends the connection`
    } else if (p.outcome === '502' || p.outcome === '504') {
      if (own === undefined || a.status !== Number(p.outcome)) problems.push(`${p.id} (${p.why.join(', ')}) should have got the proxy's ${p.outcome} {"error"}, got ${a.status} ${JSON.stringify(a.body.toString('latin1').slice(0, 120))}`)
    } else {
      // cut: a 502 before any byte, or the answer begun and the connection cut.
      if (own !== undefined) {
        if (a.status !== 502) problems.push(`${p.id}: the proxy's ${a.status} for an answer that broke`)
      } else if (xid !== p.id || a.status !== p.status || (!a.cut && a.body.length >= p.body.length + 10)) problems.push(`${p.id} (${p.why.join(', ')}): an answer that broke reached the client as if whole: ${a.status}, ${a.body.length} bytes`)
      else ended = `${p.id}'s cut answer`
    }
  }
  if (answers.length > planned.length) problems.push(`${answers.length} answers to ${planned.length} requests`)
  // The record: upstreamError exactly when the upstream failed.
  for (const [i, p] of planned.entries()) {
    if (!answers[i] && p.outcome === 'pass') continue
    for (let wait = 0; wait < 50 && !exchanges.has(p.id); wait++) await new Promise((resolve) => setImmediate(resolve))
    const x = exchanges.get(p.id)
    if (!answers[i]) continue
    if (!x) problems.push(`${p.id} answered but not recorded`)
    else if (p.outcome === 'pass' && x.upstreamError) problems.push(`${p.id} passed on but recorded as failed: ${x.upstreamError}`)
    else if (p.outcome !== 'pass' && !x.upstreamError && field(answers[i]!.fields, 'x-id').length === 0) problems.push(`${p.id} answered ${answers[i]!.status} by the proxy but recorded without upstreamError`)
  }
  return problems
}

describe('shoptwin proxy under a fuzzer: the upstream side', () => {
  it('passes each answer on, or a 502/504 {"error"} before its first byte, or cuts the connection after; never a hang, a throw, or an answer taken for the next', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 3 }), fc.tuple(fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 2 })), fc.constantFrom<'end' | 'wait'>('end', 'end', 'end', 'wait'), async (requests, splits, ending) => {
        const planned = requests.map((r, i) => plan(r.method, i === requests.length - 1 ? r.minor : 1, r.answer))
        // Nothing after a request answered early: its body never ends.
        const early = planned.findIndex((p) => p.script.early)
        if (early >= 0) planned.splice(early + 1)
        for (const p of planned) scripts.set(p.id, p.script)
        const thrownBefore = thrown.length
        const reusedBefore = reusedAfterClose.length
        // A client that half-closes after a request answered early would abort it: that one waits.
        // end: the client half-closes once all is sent (the proxy answers what came, then closes); wait: the proxy's idle timer ends it.
        const bytes = Buffer.concat(planned.map(requestBytes))
        const { received, hang } = await talk(proxy.url, bytes, cutPoints(bytes, ...splits), planned.some((p) => p.script.early) ? 'wait' : ending, HANG_MS)
        const problems = await judge(planned, received, hang)
        problems.push(...reusedAfterClose.slice(reusedBefore).map((r) => `the proxy sent ${r} on the same upstream connection`))
        problems.push(...thrown.slice(thrownBefore).map((e) => `the proxy threw: ${(e as Error)?.stack ?? e}`))
        if (problems.length) {
          const what = planned.map((p) => `${p.id}: ${p.outcome} [${p.why.join(', ')}] ${JSON.stringify(Buffer.concat(p.script.pieces).toString('latin1').slice(0, 300))} then ${p.script.then}`).join('\n  ')
          throw new Error(`${problems.join('\n')}\n  ${what}\n  received ${JSON.stringify(received.toString('latin1').slice(0, 800))}`)
        }
      }),
      { numRuns: RUNS, seed: SEED, path: process.env.FUZZ_PATH, endOnFailure: process.env.FUZZ_SHRINK === undefined },
    )
    expect(thrown).toEqual([])
  }, TEST_TIMEOUT_MS)
})
