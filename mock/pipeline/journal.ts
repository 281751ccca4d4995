import { redactHeaders, type JournalEntry } from '../stores/journal.ts'
import type { PipelineContext, Step } from './compose.ts'

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key)
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
 * The entry of one request. Query, headers and body are worked out when the journal is read, not on
 * every request (most entries are never read); what they are built from never changes. A big body is
 * summarised at once so the journal never holds it.
 */
function entryOf(ctx: PipelineContext): JournalEntry {
  const { url, headers, bodyText } = ctx
  let query: JournalEntry['query'] | undefined
  let redacted: JournalEntry['headers'] | undefined
  let text: string | undefined = bodyText.length > MAX_JOURNAL_BODY ? undefined : bodyText
  let body: unknown = text === undefined ? parsedBody(bodyText) : undefined
  return {
    id: 0,
    time: ctx.receivedAt.toISOString(),
    method: ctx.method,
    path: url.pathname,
    get query() {
      return (query ??= queryObject(url))
    },
    get headers() {
      return (redacted ??= redactHeaders(headers))
    },
    get body() {
      if (text !== undefined) {
        body = parsedBody(text)
        text = undefined
      }
      return body
    },
    operationId: ctx.op.operationId,
  }
}

/** Records every request (API key redacted) and the status it got. */
export const journal = (): Step =>
  async function journal(ctx, next) {
    const started = performance.now()
    const entry = ctx.state.journal.record(entryOf(ctx))
    const result = await next()
    entry.status = result.status
    entry.durationMs = Math.round((performance.now() - started) * 1000) / 1000
    return result
  }
