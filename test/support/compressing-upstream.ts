/**
 * A real server's front, as nginx's gzip, Express's `compression` or a CDN puts it before an API: in
 * front of `target` (the twin), it answers in a content coding the request's Accept-Encoding lists
 * (gzip, deflate, br, zstd, or two stacked), some answers also with `Transfer-Encoding: gzip, chunked`,
 * some after a 103 Early Hints; `Vary: Accept-Encoding`, `Date`, an Express-style `Content-Type: application/json;
 * charset=utf-8` and a weak ETag, with 304 to a GET whose If-None-Match names it; a request body with a
 * Content-Encoding is inflated before it goes on (as body-parser does). What it does to each answer
 * comes from `seed` (the same seed, the same choices), or from the test's `x-upstream-coding` header
 * (not passed on): one of FORCED. 127.0.0.1, port 0. Only proxy tests use it.
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHash } from 'node:crypto'
import * as zlib from 'node:zlib'
import { seededRandom } from '../../conformance/certify-client/profile.ts'

type Encode = (bytes: Buffer) => Buffer

const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }
const zstdCompressSync = (zlib as unknown as { zstdCompressSync?: Encode }).zstdCompressSync

/** The content codings it applies, by name: the one Content-Encoding says and how to make it. */
const CODINGS: Record<string, { name: string; encode: Encode }> = {
  gzip: { name: 'gzip', encode: (b) => zlib.gzipSync(b) },
  'x-gzip': { name: 'x-gzip', encode: (b) => zlib.gzipSync(b) },
  deflate: { name: 'deflate', encode: (b) => zlib.deflateSync(b) },
  // Raw deflate under the name deflate: what some servers send (RFC 9110 8.4.1.2 says zlib).
  'deflate-raw': { name: 'deflate', encode: (b) => zlib.deflateRawSync(b) },
  // Quality 5, as a server compressing on the fly sets it (11, the default, is for files compressed once).
  br: { name: 'br', encode: (b) => zlib.brotliCompressSync(b, BROTLI) },
  ...(zstdCompressSync ? { zstd: { name: 'zstd', encode: (b: Buffer) => zstdCompressSync(b) } } : {}),
  // Stacked: gzip applied first, then br (RFC 9110 8.4: listed in the order applied).
  'gzip, br': { name: 'gzip, br', encode: (b) => zlib.brotliCompressSync(zlib.gzipSync(b), BROTLI) },
  identity: { name: 'identity', encode: (b) => b },
  // Faults and what the proxy cannot decode.
  garbage: { name: 'gzip', encode: (b) => Buffer.concat([Buffer.from('not gzip: '), b]) },
  compress: { name: 'compress', encode: (b) => b },
  // A decompression bomb: 64 MB of zeros in about 64 KB of gzip, whatever the answer was.
  bomb: { name: 'gzip', encode: () => (bomb ??= zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024))) },
}
let bomb: Buffer | undefined

/** What a test may ask of one answer (`x-upstream-coding`): a content coding of CODINGS, `te-gzip` (Transfer-Encoding: gzip, chunked), `bom` (a UTF-8 BOM before the JSON), `early-hints`. */
export const FORCED = [...Object.keys(CODINGS), 'te-gzip', 'bom', 'early-hints'] as const

export interface CompressingUpstream {
  url: string
  /** How many answers went out in each way (`gzip`, `te gzip`, `103`, ...), for the test to see each was met. */
  counts: Record<string, number>
  close(): Promise<void>
}

/** The codings an Accept-Encoding lists that this front can make (q=0 refuses one). */
function accepted(value: string | undefined): string[] {
  return (value ?? '').split(',').flatMap((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim())
    return coding && CODINGS[coding] && !params.some((p) => /^q=0(\.0*)?$/.test(p)) ? [coding] : []
  })
}

const readAll = (message: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    message.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject)
  })

/** A request body inflated by its Content-Encoding, as body-parser does; undefined when it does not inflate (answered 400). */
function inflated(body: Buffer, coding: string | undefined): Buffer | undefined {
  try {
    if (!coding || coding === 'identity') return body
    if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(body)
    if (coding === 'deflate') return zlib.inflateSync(body)
    if (coding === 'br') return zlib.brotliDecompressSync(body)
  } catch {
    return undefined
  }
  return undefined
}

export async function startCompressingUpstream(target: string, { seed = 1 }: { seed?: number } = {}): Promise<CompressingUpstream> {
  const next = seededRandom(seed)
  const agent = new Agent({ keepAlive: true })
  const counts: Record<string, number> = {}
  const count = (what: string) => (counts[what] = (counts[what] ?? 0) + 1)
  const targetUrl = new URL(target)

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const forced = req.headers['x-upstream-coding'] as string | undefined
    const body = inflated(await readAll(req), req.headers['content-encoding']?.toLowerCase())
    if (body === undefined) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'the body does not decode as its Content-Encoding says' }))
      return
    }
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: targetUrl.host, 'content-length': String(body.length) }
    for (const name of ['x-upstream-coding', 'content-encoding', 'transfer-encoding', 'accept-encoding', 'connection', 'if-none-match']) delete headers[name]
    const reply = await new Promise<IncomingMessage>((resolve, reject) => httpRequest(new URL(req.url!, target), { method: req.method, headers, agent }, resolve).on('error', reject).end(body))
    let bytes = await readAll(reply)
    const out: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(reply.headers)) if (value !== undefined && !['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'].includes(name)) out[name] = value
    if (out['content-type'] === 'application/json') out['content-type'] = 'application/json; charset=utf-8'
    const status = reply.statusCode!
    const hasBody = bytes.length > 0 && req.method !== 'HEAD' && status !== 204 && status !== 304
    if (req.method === 'GET' && status === 200) {
      // Express's weak ETag of the representation, and its 304 to a request that names it.
      const etag = `W/"${bytes.length.toString(16)}-${createHash('sha1').update(bytes).digest('base64').slice(0, 27)}"`
      out.etag = etag
      if (req.headers['if-none-match'] === etag) {
        count('304')
        res.writeHead(304, { etag, vary: 'Accept-Encoding' }).end()
        return
      }
    }
    if (forced === 'early-hints' || (!forced && next() < 0.2)) {
      count('103')
      res.writeEarlyHints({ link: '</docs/api.css>; rel=preload; as=style' })
    }
    if (forced === 'bom' && hasBody) bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])
    out.vary = 'Accept-Encoding'
    const offered = accepted(req.headers['accept-encoding'] as string | undefined)
    // Raw deflate only when a test asks: fetch (undici) cannot read it, as many clients cannot.
    const choices = [...offered, ...(offered.includes('gzip') && offered.includes('br') ? ['gzip, br'] : []), 'identity']
    const coding = forced && CODINGS[forced] ? forced : forced ? 'identity' : choices[Math.floor(next() * choices.length)]!
    if (hasBody && coding !== 'identity') {
      bytes = CODINGS[coding]!.encode(bytes)
      out['content-encoding'] = CODINGS[coding]!.name
    }
    count(hasBody ? coding : 'no body')
    if (hasBody && (forced === 'te-gzip' || (!forced && coding === 'identity' && next() < 0.5))) {
      // A transfer coding besides chunked (node frames the answer chunked when the field names chunked last); on an answer
      // without a content coding only: fetch undoes a content coding before a client could undo the transfer coding on top.
      // (The grader undoes both: test/proxy-codings.test.ts.)
      count('te gzip')
      res.writeHead(status, { ...out, 'transfer-encoding': 'gzip, chunked' })
      res.end(zlib.gzipSync(bytes))
      return
    }
    res.writeHead(status, { ...out, 'content-length': String(bytes.length) })
    res.end(req.method === 'HEAD' ? undefined : bytes)
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `compressing upstream: ${error.message}` }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      agent.destroy()
    },
  }
}

/**
 * `fetch` as a browser speaks it: it asks for every coding a browser asks for (`gzip, deflate, br, zstd`,
 * where Node's fetch asks for gzip and deflate only), and undoes the transfer codings it gets besides
 * chunked (RFC 9112 7: a recipient decodes them; undici's fetch does not, since a server sends them only
 * to a client whose TE asks): what a client behind the proxy reads of `Transfer-Encoding: gzip, chunked`.
 */
export function browserLikeFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers)
    if (!headers.has('accept-encoding')) headers.set('accept-encoding', `gzip, deflate, br${zstdCompressSync ? ', zstd' : ''}`)
    const response = await fetch(input, { ...init, headers })
    const te = response.headers.get('transfer-encoding')
    if (!te || !/gzip/i.test(te) || response.body === null) return response
    const decoded = zlib.gunzipSync(Buffer.from(await response.arrayBuffer()))
    const answered = new Headers(response.headers)
    answered.delete('transfer-encoding')
    return new Response(decoded, { status: response.status, statusText: response.statusText, headers: answered })
  }
}
