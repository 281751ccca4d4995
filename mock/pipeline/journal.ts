import { redactHeaders } from '../stores/journal.ts'
import type { Step } from './compose.ts'

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

/** Records every request (API key redacted) and the status it got. */
export const journal = (): Step =>
  async function journal(ctx, next) {
    const started = performance.now()
    const entry = ctx.state.journal.record({
      time: ctx.receivedAt.toISOString(),
      method: ctx.request.method,
      path: ctx.url.pathname,
      query: queryObject(ctx.url),
      headers: redactHeaders(ctx.request.headers),
      body: parsedBody(ctx.bodyText),
      operationId: ctx.op.operationId,
    })
    const result = await next()
    entry.status = result.status
    entry.durationMs = Math.round((performance.now() - started) * 1000) / 1000
    return result
  }
