/**
 * The suite's HTTP client: fetch, paced under the target's rate limit, retrying 429 as Retry-After
 * says, recording every request and response with the API keys redacted, and writing a curl
 * command that reproduces each request without the key.
 */

/** A request ready to send. */
export interface OutgoingRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
  /** No pacing and no 429 retry (bursts and concurrency checks). */
  unthrottled?: boolean
}

/** One answer as received. */
export interface Received {
  status: number
  headers: Headers
  text: string
  durationMs: number
}

/** A 429 answer that the client waited on and retried. */
export interface RetriedAttempt extends Received {
  retryAfterSeconds: number
}

export interface ClientOptions {
  /** Requests per second the client stays under. */
  rps: number
  /** Most 429 retries of one request. */
  maxRetries?: number
  /** Longest time one request may take. */
  timeoutMs?: number
}

/** The target could not be reached at all (DNS, refused connection, timeout). */
export class TargetUnreachable extends Error {
  readonly url: string
  constructor(url: string, cause: unknown) {
    super(`${url}: ${describeNetworkError(cause)}`)
    this.name = 'TargetUnreachable'
    this.url = url
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`
  if (error instanceof Error) return error.name === 'TimeoutError' ? 'timed out' : error.message
  return String(error)
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Seconds to wait from a Retry-After header (delta seconds or HTTP date); 1 when absent. */
export function retryAfterSeconds(value: string | null): number {
  if (!value) return 1
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds)
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, (at - Date.now()) / 1000) : 1
}

/** A fetch-based client shared by every rule of a run. */
export function createClient({ rps, maxRetries = 5, timeoutMs = 30_000 }: ClientOptions) {
  const interval = 1000 / rps
  let nextSlot = 0
  let lastStart = 0

  // Requests start at most rps per second: each takes the next free slot.
  async function pace(): Promise<void> {
    const now = Date.now()
    const at = Math.max(now, nextSlot)
    nextSlot = at + interval
    if (at > now) await sleep(at - now)
  }

  async function once(request: OutgoingRequest): Promise<Received> {
    lastStart = Date.now()
    const started = performance.now()
    let response: Response
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      throw new TargetUnreachable(request.url, error)
    }
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, durationMs: Math.round(performance.now() - started) }
  }

  return {
    /** Sends a request; returns the final answer and any 429 answers that were waited on. */
    async send(request: OutgoingRequest): Promise<{ final: Received; retried: RetriedAttempt[] }> {
      if (request.unthrottled) {
        // A burst still counts against the pace of the requests after it.
        nextSlot = Math.max(nextSlot, Date.now()) + interval
        return { final: await once(request), retried: [] }
      }
      const retried: RetriedAttempt[] = []
      for (let attempt = 0; ; attempt++) {
        await pace()
        const received = await once(request)
        if (received.status !== 429 || attempt >= maxRetries) return { final: received, retried }
        const wait = Math.min(60, retryAfterSeconds(received.headers.get('retry-after')))
        retried.push({ ...received, retryAfterSeconds: wait })
        nextSlot = Math.max(nextSlot, Date.now() + wait * 1000)
        await sleep(wait * 1000)
      }
    },
    /**
     * Waits until a whole second has passed since the last request started, so that a burst of
     * concurrent requests starts on an empty rate-limit window.
     */
    async quiet(): Promise<void> {
      const wait = Math.max(lastStart + 1000, nextSlot) - Date.now()
      if (wait > 0) await sleep(wait)
    },
  }
}

export type Client = ReturnType<typeof createClient>

export const REDACTED = '<redacted>'

/** Header names whose values are secrets and never recorded. */
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'cookie', 'set-cookie'])

/** Replaces every occurrence of every secret in a text. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 3) out = out.split(secret).join(REDACTED)
  }
  return out
}

/** Headers as a plain object with secret values redacted. */
export function redactHeaders(headers: Record<string, string> | Headers, secrets: readonly string[]): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers)
  return Object.fromEntries(entries.map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : redactText(value, secrets)]))
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * A curl command reproducing the request. A key appears as a shell variable (`$API_KEY`,
 * `$ENTERPRISE_API_KEY`...), to be exported by whoever runs it, never as its value.
 */
export function curlFor(request: OutgoingRequest, keyVariables: ReadonlyMap<string, string>, secrets: readonly string[]): string {
  const parts = ['curl -sS', `-X ${request.method}`, shellQuote(redactText(request.url, secrets))]
  for (const [name, value] of Object.entries(request.headers)) {
    const variable = keyVariables.get(value)
    if (variable) parts.push(`-H "${name}: $${variable}"`)
    else parts.push(`-H ${shellQuote(`${name}: ${redactText(value, secrets)}`)}`)
  }
  if (request.body !== undefined) parts.push(`--data-raw ${shellQuote(redactText(request.body, secrets))}`)
  return parts.join(' ')
}
