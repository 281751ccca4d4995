import { redactHeaders, type JournalEntry } from '../stores/journal.ts'
import type { RequestContext, RequestHeaders, Step } from './compose.ts'

function queryObject(search: string): Record<string, string | string[]> {
  const params = new URLSearchParams(search)
  const out: Record<string, string | string[]> = {}
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key)
    out[key] = all.length === 1 ? all[0] : all
  }
  return out
}

// The journal keeps up to 1000 entries: big bodies are summarised so memory stays bounded.
const MAX_JOURNAL_BODY = 64 * 1024

function parsedBody(text: string): unknown {
  if (!text) return null
  if (text.length > MAX_JOURNAL_BODY) return { truncated: true, length: text.length, start: text.slice(0, 1024) }
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The entry of one request. Time, query, headers and body are worked out when the journal is read,
 * not on every request (most entries are never read); what they are built from never changes. A big
 * body is summarised at once so the journal never holds it. A class, so the lazy fields are getters
 * on its prototype rather than closures and accessors made for every request; `toJSON` lists them all.
 */
class LazyEntry implements JournalEntry {
  id = 0
  method: string
  path: string
  operationId: string
  status?: number
  durationMs?: number
  #receivedAt: Date
  // The query string rather than the URL: an entry lives for the next 1000 requests, so what it holds
  // is carried into the old generation.
  #search: string
  #headers: RequestHeaders
  #query: JournalEntry['query'] | undefined
  #redacted: JournalEntry['headers'] | undefined
  #text: string | undefined
  #body: unknown

  constructor(ctx: RequestContext, bodyText: string) {
    this.#receivedAt = ctx.now
    this.method = ctx.method
    this.path = ctx.url.pathname
    this.operationId = ctx.calledOp.operationId
    this.#search = ctx.url.search
    this.#headers = ctx.headers
    if (bodyText.length > MAX_JOURNAL_BODY) this.#body = parsedBody(bodyText)
    else this.#text = bodyText
  }

  get time(): string {
    return this.#receivedAt.toISOString()
  }

  get query(): JournalEntry['query'] {
    return (this.#query ??= queryObject(this.#search))
  }

  get headers(): JournalEntry['headers'] {
    return (this.#redacted ??= redactHeaders(this.#headers))
  }

  get body(): unknown {
    if (this.#text !== undefined) {
      this.#body = parsedBody(this.#text)
      this.#text = undefined
    }
    return this.#body
  }

  toJSON(): JournalEntry {
    const { id, time, method, path, query, headers, body, operationId, status, durationMs } = this
    return { id, time, method, path, query, headers, body, operationId, status, durationMs }
  }
}

/** Records every request (API key redacted) and the status it got. */
export const journal = (): Step => {
  // A body the same as the last one is kept as that one's string: clients repeat requests (polling,
  // retries, test loops), and a journal of copies would carry each past the young generation.
  let lastBody = ''
  return async function journal(ctx, next) {
    const started = performance.now()
    if (ctx.bodyText !== lastBody) lastBody = ctx.bodyText
    const store = ctx.state.journal
    const entry = store.record(new LazyEntry(ctx, lastBody))
    // The request's trace (mock/trace): its decisions, and the `x-shoptwin-trace` header on the answer.
    const trace = (ctx.trace = ctx.state.traces.begin(ctx, lastBody))
    const result = await next()
    entry.status = result.status
    entry.durationMs = Math.round((performance.now() - started) * 1000) / 1000
    // A shared journal sends the entry once its answer is known (mock/twin/redis/journal.ts).
    store.finished?.(entry)
    return trace ? trace.finish(result, entry.durationMs) : result
  }
}
