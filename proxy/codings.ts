/**
 * A captured body as the grader reads it: its content codings (RFC 9110 8.4) and the transfer codings
 * besides chunked (RFC 9112 6.1, 7) undone, then read as UTF-8. Off the request's path: the forwarding
 * passes the bytes on as they came and never decodes or re-encodes them; the grader decodes its copy.
 * A body that does not decode is the sender's fault, said so; a coding the proxy has no decoder for
 * leaves the body not judged; a body that decodes past the capture's bound is judged as a truncated one
 * (the bound is also what stops a decompression bomb: no stage makes more than it).
 */
import * as zlib from 'node:zlib'

/** Why a body could not be read: it does not decode as its codings say, a coding the proxy cannot undo, or it decodes past the bound; `message` follows "the body". */
export interface Unreadable {
  kind: 'undecodable' | 'unknown' | 'over'
  message: string
}

export interface BodyText {
  /** The decoded text; for a body that could not be read, a bracketed sentence saying why (what a person reads in the report). */
  text: string
  unreadable?: Unreadable
}

type Decoder = (bytes: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions) => Buffer

/** zstd (RFC 8878) is in Node's zlib from 22.15 and 23.8: the package supports Node 22, so it is looked for. */
const zstdDecompressSync = (zlib as unknown as { zstdDecompressSync?: Decoder }).zstdDecompressSync

/**
 * RFC 9110 8.4.1.2: deflate is the zlib format; some servers send raw deflate instead (an old
 * misreading of the name), which a zlib header check tells apart: CMF's method 8 and the pair a
 * multiple of 31 (RFC 1950 2.2).
 */
const inflateEither: Decoder = (bytes, options) => ((bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0 ? zlib.inflateSync(bytes, options) : zlib.inflateRawSync(bytes, options))

/** The codings the grader undoes, by their registered names (RFC 9110 8.4.1; x-gzip is gzip). */
const DECODERS: Record<string, Decoder | undefined> = {
  gzip: zlib.gunzipSync,
  'x-gzip': zlib.gunzipSync,
  deflate: inflateEither,
  br: zlib.brotliDecompressSync,
  ...(zstdDecompressSync ? { zstd: zstdDecompressSync } : {}),
}

/** What a truncated body decodes to as far as it goes (no error for the end that did not come). */
const PARTIAL: Record<string, zlib.ZlibOptions & zlib.BrotliOptions> = {
  gzip: { finishFlush: zlib.constants.Z_SYNC_FLUSH },
  'x-gzip': { finishFlush: zlib.constants.Z_SYNC_FLUSH },
  deflate: { finishFlush: zlib.constants.Z_SYNC_FLUSH },
  br: { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH },
}

/** The elements of a comma-separated list, lower-cased, empty ones dropped (RFC 9110 5.6.1). */
const listOf = (value: string | undefined): string[] => (value === undefined ? [] : value.split(',').flatMap((part) => (part.trim() ? [part.trim().toLowerCase()] : [])))

/**
 * The codings applied to a message's body, in the order they were applied: Content-Encoding's, then
 * Transfer-Encoding's but a final chunked (the framing, undone as the body streams). `identity` is no
 * coding.
 */
export function codingsOf(headers: Record<string, string>): string[] {
  const transfer = listOf(headers['transfer-encoding'])
  if (transfer.at(-1) === 'chunked') transfer.pop()
  const codings = [...listOf(headers['content-encoding']), ...transfer]
  return codings.includes('identity') ? codings.filter((coding) => coding !== 'identity') : codings
}

/** Whether an Accept-Encoding asks for a coding (RFC 9110 12.5.3): one other than identity, not refused with q=0. */
export function asksForCoding(acceptEncoding: string | undefined): boolean {
  return listOf(acceptEncoding).some((element) => {
    const [coding, ...params] = element.split(';').map((part) => part.trim())
    return coding !== 'identity' && !params.some((param) => /^q=0(?:\.0{0,3})?$/.test(param.replace(/\s/g, '')))
  })
}

/** UTF-8 text without a leading byte order mark (RFC 8259 8.1 lets a parser ignore one; fetch's text() drops it, so the suite does too). */
export function utf8(bytes: Buffer): string {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.toString('utf8', 3) : bytes.toString('utf8')
}

/** `Content-Encoding: gzip` / `Transfer-Encoding: gzip, chunked`: where the codings were named. */
function named(headers: Record<string, string>): string {
  return ['content-encoding', 'transfer-encoding'].flatMap((name) => (headers[name] === undefined ? [] : [`${name === 'content-encoding' ? 'Content-Encoding' : 'Transfer-Encoding'}: ${headers[name]}`])).join(', ')
}

/**
 * The body's text, its codings undone (the last applied first: `gzip, br` is br's decoding, then
 * gzip's). `truncated`: the capture was cut (MAX_CAPTURE); what decodes of it is read, an error for
 * the missing end is not the sender's fault. `limit`: no stage may make more bytes than this.
 */
export function bodyText(raw: Buffer, headers: Record<string, string>, { truncated = false, limit }: { truncated?: boolean; limit: number }): BodyText {
  // The common body: no coding named at all.
  if (headers['content-encoding'] === undefined && headers['transfer-encoding'] === undefined) return { text: utf8(raw) }
  const codings = codingsOf(headers)
  if (codings.length === 0 || raw.length === 0) return { text: utf8(raw) }
  const unreadable = (kind: Unreadable['kind'], message: string): BodyText => ({ text: `[the body (${raw.length} bytes, ${named(headers)}) ${message}]`, unreadable: { kind, message } })
  const unknown = codings.find((coding) => !DECODERS[coding])
  if (unknown !== undefined) return unreadable('unknown', unknown === 'zstd' ? `is not judged: zstd has no decoder in this Node (${process.version}; Node 22.15 or 23.8 and later have one)` : `is not judged: ${JSON.stringify(unknown)} is not a coding the proxy decodes (it decodes gzip, x-gzip, deflate, br${DECODERS.zstd ? ', zstd' : ''})`)
  let bytes = raw
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!
    try {
      bytes = DECODERS[coding]!(bytes, { maxOutputLength: limit, ...(truncated ? PARTIAL[coding] : {}) })
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException
      if (code === 'ERR_BUFFER_TOO_LARGE') return unreadable('over', `decodes to over ${limit} bytes: not judged, as a body over the capture's bound is not`)
      // A cut capture that does not decode as far as it came: judged as the truncated body it is, its text unknown.
      if (truncated) return { text: '' }
      return unreadable('undecodable', `does not decode as ${coding}: ${message}`)
    }
  }
  return { text: utf8(bytes) }
}
