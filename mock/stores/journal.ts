/**
 * The journal of requests received, so client developers can assert what their client sent
 * (`GET /__admin/requests`). Secrets are redacted whenever an entry is read; an entry only keeps what
 * it needs to show itself (its headers, query and body are worked out on first read).
 */
import type { Awaitable, RequestHeaders } from '../pipeline/compose.ts'

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

export interface JournalFilter {
  operationId?: string
  /** The newest `limit` entries matching. */
  limit?: number
}

/**
 * Where the journal is kept: in memory (createJournal, the default) or on a shared store, where every
 * replica of a twin appends to one bounded list (mock/twin/redis/journal.ts). Reads may be asynchronous.
 */
export interface JournalStore {
  /** Stores an entry; one that carries an `id` field is kept as it is (its getters stay lazy) and numbered. */
  record(entry: Omit<JournalEntry, 'id'> | JournalEntry): JournalEntry
  /** The request of an entry `record` took without its status has its answer (the pipeline's journal step calls it). */
  finished?(entry: JournalEntry): void
  /** Oldest first. */
  entries(filter?: JournalFilter): Awaitable<JournalEntry[]>
  clear(): Awaitable<void>
  /** Entries kept (-1 when the store does not know without asking). */
  readonly size: number
}

/** The in-memory journal: synchronous. */
export interface Journal extends JournalStore {
  entries(filter?: JournalFilter): JournalEntry[]
  clear(): void
}

export const REDACTED = 'REDACTED'
/** Request headers whose values are secrets: never kept, logged or sent to a shared store. */
export const SECRET_HEADERS = /^(x-api-key|authorization|proxy-authorization|cookie|set-cookie)$/i

/** Header object with secrets replaced by `REDACTED`. */
export function redactHeaders(headers: RequestHeaders): Record<string, string> {
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
      let full: JournalEntry
      if ('id' in entry) {
        full = entry
        full.id = nextId++
      } else full = { id: nextId++, ...entry }
      entries.push(full)
      // Terminates: each turn drops one entry until the journal is at its cap.
      while (entries.length > max) entries.shift()
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
