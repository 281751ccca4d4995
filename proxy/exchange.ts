/**
 * One exchange that passed through the proxy, as recorded: what the client sent, what the upstream
 * answered, what the client got (they differ only under --inject), and what went wrong on the way.
 * Secrets stay in memory only for forwarding and grading; everything printed goes through `Redactor`.
 */
import { curlFor, redactHeaders, redactText, REDACTED } from '../conformance/client.ts'
import type { Exchange } from '../conformance/types.ts'
import type { SchemaFinding } from '../conformance/types.ts'
import { asksForCoding, type Unreadable } from './codings.ts'

/** Bodies are kept up to this size for grading; past it they are judged as truncated. */
export const MAX_CAPTURE = 1024 * 1024

export interface ProxyExchange {
  /** Order of arrival (1-based). */
  seq: number
  /** Arrival time on the proxy's clock (ms since the epoch). */
  atMs: number
  durationMs: number
  method: string
  /** Path and query as the client sent them. */
  path: string
  query: string
  /** The contract's operation, or undefined for a path the contract does not have. */
  operationId?: string
  requestHeaders: Record<string, string>
  /** The request body's text, its Content-Encoding undone (proxy/codings.ts). */
  requestBody: string
  /** Why the request body could not be read (it does not decode as its Content-Encoding says, or the proxy has no decoder for it). */
  readonly requestUnreadable?: Unreadable
  /** The request body's size, when known without decoding it (the grading backlog's memory bound). */
  readonly requestBytes?: number
  /** The upstream's body bytes and status, when known without building `upstream` (a waiting record keeps it packed: proxy/server.ts Shelf). */
  readonly upstreamRaw?: Buffer
  readonly upstreamStatus?: number
  requestTruncated: boolean
  /**
   * What the upstream answered (undefined when nothing was forwarded or no answer came): `raw` the body's
   * bytes as they came (but chunked framing), `body` its text with its codings undone (proxy/codings.ts),
   * `unreadable` why that could not be done.
   */
  upstream?: { status: number; headers: Record<string, string>; readonly body: string; raw: Buffer; truncated: boolean; readonly unreadable?: Unreadable }
  /** The status the client received; 0 when its connection was dropped or it went away first. */
  status: number
  /** Retry-After the client received, in seconds. */
  retryAfter: number | null
  /** What went wrong talking to the upstream (`timeout after 30000 ms`, `ECONNRESET`), recorded as the proxy's 502/504. */
  upstreamError?: string
  /** The situation --inject produced on this exchange, if any. */
  injected?: string
  /** The seq of an exchange with the same shop and Idempotency-Key still in flight at the upstream when this one was forwarded. */
  sameKeyInFlight?: number
  /** The client closed the connection before the answer was complete. */
  clientAborted?: boolean
}

/**
 * Retry-After in seconds (RFC 9110 10.2.3): delay-seconds, or an HTTP-date, which a server behind a CDN
 * or a gateway may send, counted from the answer's own Date (no clock skew between the two) or, without
 * one, from now; null when it is neither (it read as NaN, and a client ignoring a date was never caught).
 */
export function retryAfterSeconds(value: string, date?: string): number | null {
  if (/^\s*\d+\s*$/.test(value)) return Number(value)
  const at = Date.parse(value)
  if (!Number.isFinite(at)) return null
  const from = date === undefined ? Number.NaN : Date.parse(date)
  return Math.max(0, Math.ceil((at - (Number.isFinite(from) ? from : Date.now())) / 1000))
}

/** What is kept of the last whole answer of each operation and status (its bytes by default): a repeat is compared with it (proxy/server.ts Capture). */
export class LastAnswers<T = Buffer> {
  private readonly byOperation = new Map<string | undefined, Map<number | undefined, T>>()

  get(operationId: string | undefined, status: number | undefined): T | undefined {
    return this.byOperation.get(operationId)?.get(status)
  }
  set(operationId: string | undefined, status: number | undefined, raw: T): void {
    let byStatus = this.byOperation.get(operationId)
    if (!byStatus) this.byOperation.set(operationId, (byStatus = new Map()))
    byStatus.set(status, raw)
  }
}

const SECRET_HEADERS = ['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']
const BEARER = /^(Bearer|Basic)\s+(.+)$/i

/**
 * Learns the secrets traffic carries (API keys, bearer tokens, cookies) and takes them out of any
 * text: headers by name, values wherever they appear, curl commands reading keys from variables.
 */
export class Redactor {
  private readonly secrets = new Set<string>()
  private readonly variables = new Map<string, string>()

  /** Notes the secrets of one request's headers. */
  learn(headers: Record<string, string>): void {
    for (const name of SECRET_HEADERS) {
      const value = headers[name]
      if (!value) continue
      // A header sent twice comes joined (`key1, key2`): each one is a secret of its own too.
      const parts = value.includes(',') ? value.split(',').map((part) => part.trim()) : []
      const secrets = [value, ...parts].flatMap((v) => [v, BEARER.exec(v)?.[2] ?? v])
      for (const secret of secrets) {
        if (secret.length < 3 || this.secrets.has(secret)) continue
        this.secrets.add(secret)
        if (name === 'x-api-key') this.variables.set(secret, this.variables.size === 0 ? 'API_KEY' : `API_KEY_${this.variables.size + 1}`)
      }
    }
  }

  /** Every secret learned (longest first, so a key inside a token is not half-replaced). */
  list(): string[] {
    return [...this.secrets].sort((a, b) => b.length - a.length)
  }

  text(text: string): string {
    return redactText(text, this.list())
  }

  headers(headers: Record<string, string>): Record<string, string> {
    return redactHeaders(headers, this.list())
  }

  /**
   * A curl command reproducing the request against `baseUrl`, keys read from `$API_KEY`, `$API_KEY_2`...
   * The body is the decoded one, sent without its Content-Encoding; a request that asked for a coding
   * (Accept-Encoding) gets `--compressed`, which asks for one and decodes the answer.
   */
  curl(x: ProxyExchange, baseUrl: string): string {
    const headers = Object.fromEntries(Object.entries(x.requestHeaders).filter(([name]) => !HOP_OR_FORWARDED.has(name) && name !== 'content-encoding' && name !== 'accept-encoding'))
    for (const name of ['authorization', 'cookie', 'proxy-authorization']) if (headers[name]) headers[name] = REDACTED
    // The asterisk form (OPTIONS *) is no URL's path: curl sends it with --request-target.
    const asterisk = x.path === '*'
    const command = curlFor({ method: x.method, url: asterisk ? baseUrl : `${baseUrl}${x.path}${x.query}`, headers, body: x.requestBody || undefined }, this.variables, this.list())
    const options = `${asksForCoding(x.requestHeaders['accept-encoding']) ? ' --compressed' : ''}${asterisk ? " --request-target '*'" : ''}`
    return options ? command.replace(/^curl -sS/, `curl -sS${options}`) : command
  }
}

/** Headers a proxy does not pass on as they are (RFC 9110 7.6.1), and those it sets itself. */
export const HOP_OR_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'proxy-authenticate', 'proxy-authorization', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port'])

const EXCERPT = 2000

/** The exchange as the conformance reporters show evidence: redacted, the response cut to an excerpt, with its curl. */
export function asEvidence(x: ProxyExchange, redactor: Redactor, baseUrl: string, rule: string, schema: SchemaFinding[] = []): Exchange {
  const answer = x.upstream ?? { status: x.status, headers: {}, body: x.upstreamError ? JSON.stringify({ error: x.upstreamError }) : '' }
  const note = x.injected ? ` [the client got ${x.status === 0 ? 'a dropped connection' : x.status} (--inject: ${x.injected})]` : x.upstreamError ? ` [upstream: ${x.upstreamError}; the client got ${x.status}]` : ''
  return {
    seq: x.seq,
    rule,
    operationId: x.operationId ?? '(no operation)',
    method: x.method,
    url: redactor.text(`${baseUrl}${x.path}${x.query}`),
    requestHeaders: redactor.headers(x.requestHeaders),
    requestBody: x.requestBody ? redactor.text(x.requestBody.slice(0, EXCERPT)) : undefined,
    status: x.upstream?.status ?? x.status,
    responseHeaders: redactor.headers(answer.headers),
    responseExcerpt: redactor.text(answer.body.slice(0, EXCERPT)) + note,
    durationMs: x.durationMs,
    curl: redactor.curl(x, baseUrl),
    schema,
  }
}
