/**
 * The journal of requests received, so client developers can assert what their client sent
 * (`GET /__admin/requests`). Secrets are redacted before anything is stored.
 */
export interface JournalEntry {
  id: number
  /** Mock-clock time the request arrived (ISO). */
  time: string
  method: string
  path: string
  query: Record<string, string | string[]>
  headers: Record<string, string>
  /** Parsed JSON body, the raw text when it is not JSON, or null. */
  body: unknown
  operationId: string | null
  status?: number
  /** Wall-clock duration in milliseconds. */
  durationMs?: number
}

export interface Journal {
  record(entry: Omit<JournalEntry, 'id'>): JournalEntry
  entries(filter?: { operationId?: string; limit?: number }): JournalEntry[]
  clear(): void
  readonly size: number
}

export const REDACTED = 'REDACTED'
const SECRET_HEADERS = /^(x-api-key|authorization|proxy-authorization|cookie|set-cookie)$/i

/** Header object with secrets replaced by `REDACTED`. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    out[name] = SECRET_HEADERS.test(name) ? REDACTED : value
  })
  return out
}

/** A bounded journal (oldest entries dropped beyond `max`). */
export function createJournal({ max = 1000 } = {}): Journal {
  let entries: JournalEntry[] = []
  let nextId = 1
  return {
    record(entry) {
      const full = { id: nextId++, ...entry }
      entries.push(full)
      if (entries.length > max) entries = entries.slice(entries.length - max)
      return full
    },
    entries({ operationId, limit } = {}) {
      const out = operationId ? entries.filter((e) => e.operationId === operationId) : entries.slice()
      return limit !== undefined ? out.slice(Math.max(0, out.length - limit)) : out
    },
    clear() {
      entries = []
    },
    get size() {
      return entries.length
    },
  }
}
