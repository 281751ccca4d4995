/**
 * Answers of identical reads, kept so that a client polling the same read gets it again without the
 * mock computing it again. Exact by construction: it is emptied by anything that could change an
 * answer (any request of an operation that is not a cacheable read, any control-API call, any move of
 * the clock, a reset), and its keys hold what else an answer depends on (operation, key, shop, the
 * clock's date, the request's query and body). Off unless asked for (`createMockState({ responseCache:
 * true })`; the standalone server turns it on).
 */

export interface CachedAnswer {
  status: number
  rawBody: string
  /** `rawBody` as UTF-8, encoded once. */
  rawBytes: Uint8Array
  headers?: Record<string, string>
}

export interface ResponseCacheOptions {
  /** Most answers kept (default 256); the oldest go first. */
  maxEntries?: number
  /** Most bytes kept, text and UTF-8 together (default 64 MB). */
  maxBytes?: number
}

export interface ResponseCache {
  get(key: string): CachedAnswer | undefined
  /** Keeps an answer, unless the cache was emptied since `generation` was read (the answer may be stale). */
  set(key: string, answer: { status: number; rawBody: string; headers?: Record<string, string> }, generation: number): CachedAnswer
  /** Empties the cache; answers computed before it are not kept. */
  invalidate(): void
  /** Bumped by every invalidate(). */
  readonly generation: number
  readonly size: number
  readonly hits: number
  readonly misses: number
}

const utf8 = new TextEncoder()

export function createResponseCache({ maxEntries = 256, maxBytes = 64 * 1024 * 1024 }: ResponseCacheOptions = {}): ResponseCache {
  let entries = new Map<string, CachedAnswer>()
  let bytes = 0
  let generation = 0
  let hits = 0
  let misses = 0
  const sizeOf = (answer: CachedAnswer) => answer.rawBody.length * 2 + answer.rawBytes.length
  return {
    get(key) {
      const answer = entries.get(key)
      if (answer) hits++
      else misses++
      return answer
    },
    set(key, { status, rawBody, headers }, since) {
      const answer: CachedAnswer = headers ? { status, rawBody, rawBytes: utf8.encode(rawBody), headers } : { status, rawBody, rawBytes: utf8.encode(rawBody) }
      if (since !== generation || sizeOf(answer) > maxBytes) return answer
      const previous = entries.get(key)
      if (previous) {
        bytes -= sizeOf(previous)
        entries.delete(key)
      }
      entries.set(key, answer)
      bytes += sizeOf(answer)
      for (const [oldest, old] of entries) {
        if (entries.size <= maxEntries && bytes <= maxBytes) break
        entries.delete(oldest)
        bytes -= sizeOf(old)
      }
      return answer
    },
    invalidate() {
      generation++
      if (entries.size) entries = new Map()
      bytes = 0
    },
    get generation() {
      return generation
    },
    get size() {
      return entries.size
    },
    get hits() {
      return hits
    },
    get misses() {
      return misses
    },
  }
}
