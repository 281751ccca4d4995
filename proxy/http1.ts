/**
 * HTTP/1.1 on the wire, as the proxy forwards it (RFC 9112): a strict parser of message heads, the
 * framing of a body (Content-Length, chunked, to the close, none), and a streaming decoder of chunked
 * bodies. Only heads are parsed; bodies are passed on as the bytes that came, decoded only for the
 * grader's copy. Anything this parser refuses is answered 400 (a request) or 502 (an answer): a proxy
 * that guessed at a malformed message could frame it differently from the next hop (request smuggling).
 */

/** A message that is not HTTP/1.1 as RFC 9112 writes it; `status` is what a client gets for it. */
export class HttpError extends Error {
  readonly status: number
  constructor(message: string, status = 400) {
    super(message)
    this.status = status
  }
}

export interface Head {
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor: number
  /** Field names as they came, and lower-cased; values without the surrounding whitespace; in order, repeats kept. */
  rawNames: string[]
  names: string[]
  values: string[]
  /** One value per lower-cased name (repeats joined with ", ", cookies with "; "): what the grader reads. */
  headers: Record<string, string>
}

export interface RequestHead extends Head {
  method: string
  target: string
  /** The head as it came (latin1), without its blank line. */
  readonly text: string
  /** Where the request line ends in `text` (the CR LF before the first header line). */
  readonly lineEnd: number
  /** The header lines passed the one-pass check (each is `token:value` with no control but HTAB): they may be passed on as they came. */
  readonly checked: boolean
  /** Where the lines not passed on as they came are in `text` (pairs of offsets, each line from the CR LF before it), when `checked`. */
  readonly cuts: readonly number[]
  /**
   * The fields the forwarding reads (Host, Connection, the framing, Expect, the key and shop,
   * X-Forwarded-*), found without parsing the head into fields: `headers` is parsed only when read.
   */
  readonly picked: Picked
}

export interface ResponseHead extends Head {
  status: number
  reason: string
  readonly text: string
  readonly lineEnd: number
  readonly checked: boolean
  /** The hop-by-hop lines but Transfer-Encoding (see RequestHead.cuts). */
  readonly cuts: readonly number[]
  /** Content-Length, Transfer-Encoding, Connection, Retry-After (see RequestHead.picked). */
  readonly picked: Picked
}

/** The longest head accepted (Node's own limit is 16 KiB): past it, 431. */
export const MAX_HEAD = 64 * 1024
const CRLF2 = Buffer.from('\r\n\r\n')

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([\x21-\x7e\x80-\xff]+) HTTP\/1\.([01])$/
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?$/
/** Bytes a field value may not hold (RFC 9110 5.5: no CR, LF or NUL; other controls refused too, but tab). */
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/

/**
 * Where the head of the message starting at `start` ends (the index after its blank line), -1 when
 * it has not all come yet. Throws 431 past MAX_HEAD, 400 on a line ended by a bare LF.
 */
export function headEnd(buffer: Buffer, start: number, what = 'the request'): number {
  const at = buffer.indexOf(CRLF2, start)
  if (at >= 0) {
    if (at - start > MAX_HEAD) throw new HttpError(`${what}'s head is over 64 KiB`, 431)
    return at + 4
  }
  if (buffer.length - start > MAX_HEAD) throw new HttpError(`${what}'s head is over 64 KiB`, 431)
  // A head whose lines end with a bare LF never ends with CRLF CRLF: refused as soon as it shows.
  const lf = buffer.indexOf(10, start)
  if (lf >= 0 && (lf === start || buffer[lf - 1] !== 13)) throw new HttpError('a line of the head ends without CR LF')
  // A first line that is not a request (status) line is refused as soon as it ends, not when a blank line that may never
  // come does: an HTTP/0.9 request (`GET /path` and nothing after) would otherwise wait for the idle timeout.
  if (lf >= 0) {
    if (what === 'the request') parseRequestLine(buffer.toString('latin1', start, lf - 1))
    else parseStatusLine(buffer.toString('latin1', start, lf - 1))
  }
  return -1
}

interface Fields {
  rawNames: string[]
  names: string[]
  values: string[]
  headers: Record<string, string>
}

/**
 * The header lines of `text` from `lineEnd` (the CR LF ending the first line), strictly; `checked`: the
 * one-pass check accepted them already (each line's own checks would pass: skipped).
 */
function fields(text: string, lineEnd: number, what: string, checked = false): Fields {
  const out: Fields = { rawNames: [], names: [], values: [], headers: {} }
  if (lineEnd >= text.length) return out
  const lines = text.slice(lineEnd + 2).split('\r\n')
  for (const line of lines) {
    const colon = line.indexOf(':')
    // An obs-fold (a line starting with whitespace) or a name with a space before the colon is refused (RFC 9112 5.1, 5.2).
    if (!checked && (colon <= 0 || !TOKEN.test(line.slice(0, colon)))) throw new HttpError(`${what} has a malformed header line: ${JSON.stringify(line.slice(0, 80))}`, what === 'the request' ? 400 : 502)
    const value = line.slice(colon + 1).trim()
    if (!checked && BAD_VALUE.test(value)) throw new HttpError(`${what} has a control character in a header value`, what === 'the request' ? 400 : 502)
    const rawName = line.slice(0, colon)
    const name = rawName.toLowerCase()
    out.rawNames.push(rawName)
    out.names.push(name)
    out.values.push(value)
    const prior = out.headers[name]
    out.headers[name] = prior === undefined ? value : `${prior}${name === 'cookie' ? '; ' : ', '}${value}`
  }
  return out
}

/** A byte table: 1 where `ranges` (inclusive pairs) hold the byte. */
function byteTable(...ranges: Array<[number, number]>): Uint8Array {
  const table = new Uint8Array(256)
  for (const [from, to] of ranges) table.fill(1, from, to + 1)
  return table
}
const TOKEN_BYTE = (() => {
  const table = byteTable([0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a])
  for (const c of "!#$%&'*+.^_`|~-") table[c.charCodeAt(0)] = 1
  return table
})()
/** A field value's bytes (RFC 9110 5.5: visible, SP, HTAB, obs-text), a reason phrase's too. */
const VALUE_BYTE = byteTable([0x09, 0x09], [0x20, 0x7e], [0x80, 0xff])
/** A request target's bytes: visible ASCII and obs-text, no space. */
const TARGET_BYTE = byteTable([0x21, 0x7e], [0x80, 0xff])

/**
 * The names a head's one-pass scan looks for: fields the forwarding picks (stored under the constant
 * name: no lower-casing, no new key string per head) and lines it cuts (passed on without them).
 */
class HeadNames {
  /** By the name's length: its lower-cased bytes, and what to do with its lines. */
  private readonly byLength: Array<Array<{ bytes: Uint8Array; picked: PickedName | undefined; cut: boolean }>> = []
  constructor(picked: readonly PickedName[], cut: readonly string[]) {
    for (const name of new Set<string>([...picked, ...cut])) (this.byLength[name.length] ??= []).push({ bytes: Buffer.from(name, 'latin1'), picked: picked.find((p) => p === name), cut: cut.includes(name) })
  }
  /** The entry of the token `buffer[from, to)`, in any case (a token's `| 0x20` is its lower case on letters, and no other token byte becomes a letter or `-`). */
  find(buffer: Buffer, from: number, to: number) {
    const entries = this.byLength[to - from]
    if (entries === undefined) return undefined
    next: for (const entry of entries) {
      const bytes = entry.bytes
      for (let i = 0; i < bytes.length; i++) if ((buffer[from + i]! | 0x20) !== bytes[i]) continue next
      return entry
    }
    return undefined
  }
}

/**
 * The fields the forwarding reads, of a request or an answer (undefined when absent): one shape for
 * every head, so each place that reads one reads it from the same hidden class.
 */
export class Picked {
  host: string | undefined = undefined
  connection: string | undefined = undefined
  'content-length': string | undefined = undefined
  'transfer-encoding': string | undefined = undefined
  expect: string | undefined = undefined
  'idempotency-key': string | undefined = undefined
  'x-shop-id': string | undefined = undefined
  'x-forwarded-for': string | undefined = undefined
  'x-forwarded-host': string | undefined = undefined
  'x-forwarded-proto': string | undefined = undefined
  'x-forwarded-port': string | undefined = undefined
  'retry-after': string | undefined = undefined

  /** The picked names of fields parsed whole. */
  static of(headers: Record<string, string>): Picked {
    const picked = new Picked()
    for (const name of PICKED_NAMES) picked[name] = headers[name]
    return picked
  }
}
type PickedName = keyof Picked
const PICKED_NAMES = Object.keys(new Picked()) as PickedName[]

/** A head's header lines, scanned once: the fields picked, where the lines to cut are (pairs of offsets in the head's text, each from its CR LF). */
interface Scan {
  picked: Picked
  cuts: number[]
}

/**
 * Checks every header line of the head whose text starts at `base` in `buffer`, from `from` (the CR
 * LF ending its first line) to `to` (where its blank line starts), in one pass over the bytes: a
 * token, a colon, a value of visible bytes, SP or HTAB. What it accepts, `fields` accepts too (no bare
 * CR or LF can hide in a line, a token holds no colon, a value without controls has none after
 * trimming), so a head it accepts is parsed into fields only when the grader reads them; on a head it
 * refuses (undefined) `fields` says what is wrong (or accepts one of the rare heads this is stricter
 * on, a value ending in VT or FF). Values are trimmed as `fields` trims them, repeats joined as it joins them.
 */
function scanLines(buffer: Buffer, base: number, from: number, to: number, text: string, names: HeadNames): Scan | undefined {
  const scan: Scan = { picked: new Picked(), cuts: [] }
  let p = from
  while (p < to) {
    if (p + 1 >= to || buffer[p] !== 13 || buffer[p + 1] !== 10) return undefined
    const line = p
    p += 2
    const name = p
    while (p < to && TOKEN_BYTE[buffer[p]!] === 1) p++
    if (p === name || p >= to || buffer[p] !== 58) return undefined
    const colon = p++
    while (p < to && VALUE_BYTE[buffer[p]!] === 1) p++
    const entry = names.find(buffer, name, colon)
    if (entry === undefined) continue
    if (entry.picked !== undefined) {
      const value = text.slice(colon + 1 - base, p - base).trim()
      const prior = scan.picked[entry.picked]
      scan.picked[entry.picked] = prior === undefined ? value : `${prior}, ${value}`
    }
    if (entry.cut) scan.cuts.push(line - base, p - base)
  }
  return scan
}

/**
 * A head whose header lines are parsed into fields when first read (the grader reads them, off the
 * request's path); the forwarding reads `picked` and `cuts`. A head the one-pass scan refuses is parsed at once.
 */
abstract class LazyHead implements Head {
  readonly minor: number
  readonly text: string
  readonly lineEnd: number
  readonly picked: Picked
  readonly cuts: readonly number[]
  readonly checked: boolean
  private parsed: Fields | undefined
  private readonly what: string

  protected constructor(buffer: Buffer, start: number, text: string, lineEnd: number, minor: number, what: string, names: HeadNames) {
    this.text = text
    this.lineEnd = lineEnd
    this.minor = minor
    this.what = what
    const scan = scanLines(buffer, start, start + lineEnd, start + text.length, text, names)
    this.checked = scan !== undefined
    if (scan !== undefined) {
      this.picked = scan.picked
      this.cuts = scan.cuts
    } else {
      this.picked = Picked.of((this.parsed = fields(text, lineEnd, what)).headers)
      this.cuts = []
    }
  }

  private fields(): Fields {
    return (this.parsed ??= fields(this.text, this.lineEnd, this.what, this.checked))
  }
  get rawNames(): string[] {
    return this.fields().rawNames
  }
  get names(): string[] {
    return this.fields().names
  }
  get values(): string[] {
    return this.fields().values
  }
  get headers(): Record<string, string> {
    return this.fields().headers
  }
}

/**
 * What a record keeps of a head for the grader: its text, its fields parsed when first read (or the
 * fields parsed already, for a head the one-pass check did not accept). Not the head itself, nor the
 * fields the forwarding picked: an exchange waiting to be graded holds as little as it can (each one
 * kept while traffic flows is copied by the young generation's collections before it is graded).
 */
export class KeptHead {
  private readonly text: string
  private readonly lineEnd: number
  private parsed: Record<string, string> | undefined

  constructor(head: RequestHead | ResponseHead | string) {
    if (typeof head === 'string') {
      // A head's text kept as bytes and read back (proxy/server.ts Shelf): checked when it came.
      this.text = head
      const lineEnd = head.indexOf('\r\n')
      this.lineEnd = lineEnd < 0 ? head.length : lineEnd
      return
    }
    this.text = head.checked ? head.text : ''
    this.lineEnd = head.lineEnd
    if (!head.checked) this.parsed = head.headers
  }
  get headers(): Record<string, string> {
    return (this.parsed ??= fields(this.text, this.lineEnd, 'the head', true).headers)
  }
  /** The head's text, while its fields are not parsed (it can be kept as bytes, and a KeptHead made again from it). */
  get unparsed(): string | undefined {
    return this.parsed === undefined ? this.text : undefined
  }
}

/** Hop-by-hop fields (RFC 9110 7.6.1): a proxy does not pass them on. */
export const HOP_BY_HOP: readonly string[] = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization']
/** Fields the proxy sets itself on the request it sends on. */
export const SET_BY_PROXY: readonly string[] = ['host', 'content-length', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port']

/** A request's: the fields the forwarding reads; the lines not passed on as they came (hop-by-hop, and those the proxy sets). */
const REQUEST_NAMES = new HeadNames(['host', 'connection', 'content-length', 'transfer-encoding', 'expect', 'idempotency-key', 'x-shop-id', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port'], [...HOP_BY_HOP, ...SET_BY_PROXY])
/** An answer's: the framing, Connection, Retry-After; the hop-by-hop lines but Transfer-Encoding (the framing the body is passed on in). */
const RESPONSE_NAMES = new HeadNames(['content-length', 'transfer-encoding', 'connection', 'retry-after'], HOP_BY_HOP.filter((name) => name !== 'transfer-encoding'))

class LazyRequestHead extends LazyHead implements RequestHead {
  method: string
  target: string
  constructor(buffer: Buffer, start: number, text: string, lineEnd: number, method: string, target: string, minor: number) {
    super(buffer, start, text, lineEnd, minor, 'the request', REQUEST_NAMES)
    this.method = method
    this.target = target
  }
}

class LazyResponseHead extends LazyHead implements ResponseHead {
  status: number
  reason: string
  constructor(buffer: Buffer, start: number, text: string, lineEnd: number, status: number, reason: string, minor: number) {
    super(buffer, start, text, lineEnd, minor, 'the answer', RESPONSE_NAMES)
    this.status = status
    this.reason = reason
  }
}

/** The head's text (latin1, without its blank line) and where its first line ends. */
function headText(buffer: Buffer, start: number, end: number): [string, number] {
  const text = buffer.toString('latin1', start, end - 4)
  const lineEnd = text.indexOf('\r\n')
  return [text, lineEnd < 0 ? text.length : lineEnd]
}

const HTTP_1 = Buffer.from('HTTP/1.')
const SP_HTTP_1 = Buffer.from(' HTTP/1.')
/** `bytes` are at `at` in `buffer`. */
function bytesAt(buffer: Buffer, at: number, bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (buffer[at + i] !== bytes[i]) return false
  return true
}

/** Parses a request head (`buffer[start, end)`, end from headEnd). */
export function parseRequestHead(buffer: Buffer, start: number, end: number): RequestHead {
  const [text, lineEnd] = headText(buffer, start, end)
  // METHOD SP target SP HTTP/1.x, scanned as REQUEST_LINE reads it (which says what is wrong with one it refuses).
  const last = start + lineEnd
  let p = start
  while (p < last && TOKEN_BYTE[buffer[p]!] === 1) p++
  const methodEnd = p
  if (p > start && buffer[p] === 32) {
    p++
    while (p < last && TARGET_BYTE[buffer[p]!] === 1) p++
    const targetEnd = p
    if (targetEnd > methodEnd + 1 && last - p === 9 && bytesAt(buffer, p, SP_HTTP_1) && (buffer[last - 1] === 48 || buffer[last - 1] === 49)) {
      return new LazyRequestHead(buffer, start, text, lineEnd, text.slice(0, methodEnd - start), text.slice(methodEnd + 1 - start, targetEnd - start), buffer[last - 1]! - 48)
    }
  }
  const line = parseRequestLine(text.slice(0, lineEnd))
  return new LazyRequestHead(buffer, start, text, lineEnd, line[1]!, line[2]!, Number(line[3]))
}

/** Parses an answer's head; throws HttpError (502) when it is not HTTP/1.x. */
export function parseResponseHead(buffer: Buffer, start: number, end: number): ResponseHead {
  const [text, lineEnd] = headText(buffer, start, end)
  // HTTP/1.x SP 3DIGIT [SP reason], scanned as STATUS_LINE reads it (which says what is wrong with one it refuses).
  const minor = buffer[start + 7]! - 48
  const d0 = buffer[start + 9]! - 48
  const d1 = buffer[start + 10]! - 48
  const d2 = buffer[start + 11]! - 48
  if (lineEnd >= 12 && bytesAt(buffer, start, HTTP_1) && (minor === 0 || minor === 1) && buffer[start + 8] === 32 && d0 >= 1 && d0 <= 9 && d1 >= 0 && d1 <= 9 && d2 >= 0 && d2 <= 9) {
    const status = d0 * 100 + d1 * 10 + d2
    if (lineEnd === 12) return new LazyResponseHead(buffer, start, text, lineEnd, status, '', minor)
    if (buffer[start + 12] === 32) {
      let p = start + 13
      while (p < start + lineEnd && VALUE_BYTE[buffer[p]!] === 1) p++
      if (p === start + lineEnd) return new LazyResponseHead(buffer, start, text, lineEnd, status, text.slice(13, lineEnd), minor)
    }
  }
  const line = parseStatusLine(text.slice(0, lineEnd))
  return new LazyResponseHead(buffer, start, text, lineEnd, Number(line[2]), line[3] ?? '', Number(line[1]))
}

function parseRequestLine(first: string): RegExpExecArray {
  const line = REQUEST_LINE.exec(first)
  if (!line) throw new HttpError(`the request line is not "METHOD /path HTTP/1.1": ${JSON.stringify(first.slice(0, 80))}`)
  return line
}

function parseStatusLine(first: string): RegExpExecArray {
  const line = STATUS_LINE.exec(first)
  if (!line) throw new HttpError(`its answer does not start with an HTTP/1.x status line: ${JSON.stringify(first.slice(0, 80))}`, 502)
  return line
}

/**
 * Cuts the lines at `cuts` (pairs of offsets, from a head's scan: the chunk's indices, its head at
 * 0) out of the head at the start of `chunk`, in place: the bytes before each cut move forward over
 * it. Returns where the head now starts in `chunk`.
 */
export function cutLines(chunk: Buffer, cuts: readonly number[]): number {
  if (cuts.length === 0) return 0
  let to = cuts[cuts.length - 1]!
  for (let i = cuts.length - 2; i >= 0; i -= 2) {
    const from = i === 0 ? 0 : cuts[i - 1]!
    const length = cuts[i]! - from
    chunk.copyWithin(to - length, from, cuts[i]!)
    to -= length
  }
  return to
}

/** The header lines of a head its scan accepted, each ending CR LF, but those at its `cuts`. */
export function keptLines({ text, lineEnd, cuts }: RequestHead | ResponseHead): string {
  let out = ''
  let at = lineEnd + 2
  for (let i = 0; i < cuts.length; i += 2) {
    if (cuts[i]! > at) out += `${text.slice(at, cuts[i])}\r\n`
    at = cuts[i + 1]! + 2
  }
  return at < text.length ? `${out}${text.slice(at)}\r\n` : out
}

/** A Content-Length value: digits only (no sign, no spaces), at most 15 of them. */
const LENGTH = /^\d{1,15}$/

/** How a body is delimited: its length, chunked, to the close of the connection (answers only). */
export type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' }

/**
 * A message's framing (RFC 9112 6.3). Both Transfer-Encoding and Content-Length, or differing lengths,
 * are refused: a request 400, an answer 502. An answer whose final transfer coding is chunked is
 * chunked (`gzip, chunked`: the gzip is undone for the grader only, proxy/codings.ts), one with another
 * final coding runs to the close; a request with any coding but chunked alone is refused 400.
 */
export function framingOf(head: { headers: { 'transfer-encoding'?: string | undefined; 'content-length'?: string | undefined } }, isRequest: boolean): Framing {
  const status = isRequest ? 400 : 502
  const what = isRequest ? 'the request' : 'the answer'
  const te = head.headers['transfer-encoding']
  const cl = head.headers['content-length']
  // The common message: one Content-Length of plain digits.
  if (te === undefined && cl !== undefined && LENGTH.test(cl)) return { kind: 'length', length: Number(cl) }
  if (te !== undefined) {
    if (cl !== undefined) throw new HttpError(`${what} has both Transfer-Encoding and Content-Length`, status)
    if (te.trim().toLowerCase() === 'chunked') return { kind: 'chunked' }
    // RFC 9112 6.3: a request whose final coding is not chunked cannot be framed: MUST be 400 and closed. One whose final
    // coding is chunked (`gzip, chunked`) can, but RFC 9112 6.1 says a coding the server does not understand SHOULD get 501;
    // the proxy does not decode a request on its way (its body goes on as it came, re-framed chunked only), so it refuses
    // every coding but chunked alone: 400, not 501, since a request the proxy cannot pass on is the client's input, and bad input gets a 4xx here.
    if (isRequest) throw new HttpError(`Transfer-Encoding ${JSON.stringify(te)} is not supported (only chunked)`, 400)
    // RFC 9112 6.3: chunked as the final coding frames the answer (a keep-alive upstream does not close after it); any other final coding runs to the close.
    const codings = te.split(',')
    return codings[codings.length - 1]!.trim().toLowerCase() === 'chunked' ? { kind: 'chunked' } : { kind: 'close' }
  }
  if (cl !== undefined) {
    // An answer's `5, 5` (or two lines) is refused (RFC 9110 8.6 allows it): its head goes on as it came, and a strict client refuses the list.
    if (!isRequest && cl.includes(',')) throw new HttpError(`${what} has more than one Content-Length: ${JSON.stringify(cl.slice(0, 40))}`, status)
    const lengths = new Set(cl.split(',').map((s) => s.trim()))
    const [length] = lengths
    if (lengths.size !== 1 || !LENGTH.test(length!)) throw new HttpError(`${what} has an invalid Content-Length: ${JSON.stringify(cl.slice(0, 40))}`, status)
    return { kind: 'length', length: Number(length) }
  }
  return isRequest ? { kind: 'length', length: 0 } : { kind: 'close' }
}

/** Whether a comma-separated header (Connection) holds a token, case-insensitively. */
export function hasToken(value: string | undefined, token: string): boolean {
  if (value === undefined) return false
  const lower = value.toLowerCase()
  if (lower === token) return true
  // One field (`keep-alive` asked for `close`): no list to split.
  if (!lower.includes(',')) return lower.trim() === token
  return lower.split(',').some((part) => part.trim() === token)
}

/**
 * A chunk-size line (RFC 9112 7.1, 7.1.1): the size, then extensions `;name` or `;name=token|"quoted"`
 * with optional whitespace around `;` and `=`; nothing else (no control, no bare CR): a line the proxy
 * passed on must be read the same by the upstream.
 */
const CHUNK_LINE = /^([0-9a-fA-F]{1,15})(?:[ \t]*;[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*=[ \t]*(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+|"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"))?)*$/
/** A trailer line: a field line as in a head (a token, a colon, a value without controls but tab; no obs-fold). */
const TRAILER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e\x80-\xff]*$/
/** The longest chunk-size line or trailer line accepted. */
const MAX_LINE = 16 * 1024

/**
 * A chunked body, decoded as it streams (RFC 9112 7.1): `feed` hands each piece of data to `onData`
 * and says where the body ended in the buffer (after its trailers), or -1 while it goes on.
 */
export class ChunkedDecoder {
  /** 0: a size line, 1: data, 2: the CR LF after data, 3: trailer lines. */
  private state = 0
  private remaining = 0
  private line = ''
  private crlf = 0
  private readonly status: number

  /** `status`: what a malformed body is answered (400 for a request, 502 for an answer). */
  constructor(status: number) {
    this.status = status
  }

  feed(buffer: Buffer, start: number, onData: (data: Buffer) => void): number {
    let i = start
    const n = buffer.length
    while (i < n) {
      if (this.state === 1) {
        const take = Math.min(this.remaining, n - i)
        onData(buffer.subarray(i, i + take))
        i += take
        this.remaining -= take
        if (this.remaining === 0) {
          this.state = 2
          this.crlf = 0
        }
        continue
      }
      if (this.state === 2) {
        const expected = this.crlf === 0 ? 13 : 10
        if (buffer[i] !== expected) throw new HttpError('a chunk is not followed by CR LF', this.status)
        i++
        if (++this.crlf === 2) this.state = 0
        continue
      }
      // A line: a chunk size (state 0) or a trailer (state 3).
      const lf = buffer.indexOf(10, i)
      const stop = lf < 0 ? n : lf
      this.line += buffer.toString('latin1', i, stop)
      if (this.line.length > MAX_LINE) throw new HttpError('a chunk-size or trailer line is over 16 KiB', this.status)
      if (lf < 0) return -1
      i = lf + 1
      if (!this.line.endsWith('\r')) throw new HttpError('a chunk line ends without CR LF', this.status)
      const line = this.line.slice(0, -1)
      this.line = ''
      if (this.state === 3) {
        if (line === '') return i
        if (!TRAILER_LINE.test(line)) throw new HttpError(`a malformed trailer line: ${JSON.stringify(line.slice(0, 40))}`, this.status)
        continue
      }
      const size = CHUNK_LINE.exec(line)?.[1]
      if (size === undefined) throw new HttpError(`an invalid chunk size or extension: ${JSON.stringify(line.slice(0, 40))}`, this.status)
      this.remaining = parseInt(size, 16)
      this.state = this.remaining === 0 ? 3 : 1
    }
    return -1
  }
}
