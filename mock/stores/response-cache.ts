/**
 * Answers of identical reads, kept so that a client polling the same read gets it again without the
 * mock computing it again. Exact by construction: every answer is kept for the mock state's version
 * it was computed at (the version moves on every write, control-API call, move of the clock and
 * reset: mock/state.ts), and its keys hold what else an answer depends on (operation, key, shop, the
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
  /** The state version answers are kept for (the mock state's `version`; default: one version for ever). */
  version?: () => number
}

/**
 * Answers are looked up by the request without its body (`request`: operation, key, shop, date,
 * method, query), then by the body: the body, often kilobytes, is used as the string the request
 * already carries rather than copied into one key per request.
 */
export interface ResponseCache {
  /** The answer kept for this request at the current state version (none of an earlier version is served). */
  get(request: string, body: string): CachedAnswer | undefined
  /** Keeps an answer computed at state version `computedAt`, unless the version has moved since. */
  set(request: string, body: string, answer: { status: number; rawBody: string; headers?: Record<string, string> }, computedAt: number): CachedAnswer
  readonly size: number
  readonly hits: number
  readonly misses: number
}

const utf8 = new TextEncoder()

interface Slot {
  request: string
  body: string
  answer: CachedAnswer
}

/**
 * The answers of one request by body, and the one found last: a client repeating a request (polling,
 * a test loop) is matched by comparing its body with that one's, without hashing kilobytes of text
 * into the map again (about 2 µs per request).
 */
interface Bucket {
  bodies: Map<string, Slot>
  recent?: Slot
}

export function createResponseCache({ maxEntries = 256, maxBytes = 64 * 1024 * 1024, version = () => 0 }: ResponseCacheOptions = {}): ResponseCache {
  let byRequest = new Map<string, Bucket>()
  // Every slot, oldest first (a Set keeps insertion order): what goes first when a limit is passed.
  let order = new Set<Slot>()
  let bytes = 0
  let filledAt = 0
  let hits = 0
  let misses = 0
  const sizeOf = (answer: CachedAnswer) => answer.rawBody.length * 2 + answer.rawBytes.length
  const drop = (slot: Slot) => {
    const bucket = byRequest.get(slot.request)!
    bucket.bodies.delete(slot.body)
    if (bucket.recent === slot) bucket.recent = undefined
    if (!bucket.bodies.size) byRequest.delete(slot.request)
    order.delete(slot)
    bytes -= sizeOf(slot.answer)
  }
  /** Drops the answers of an earlier version; true when the ones kept are current. */
  const current = (): boolean => {
    const now = version()
    if (now === filledAt) return true
    filledAt = now
    if (order.size) {
      byRequest = new Map()
      order = new Set()
    }
    bytes = 0
    return false
  }
  return {
    get(request, body) {
      if (!current()) {
        misses++
        return undefined
      }
      const bucket = byRequest.get(request)
      const slot = bucket && (bucket.recent?.body === body ? bucket.recent : bucket.bodies.get(body))
      if (!slot) {
        misses++
        return undefined
      }
      hits++
      bucket.recent = slot
      return slot.answer
    },
    set(request, body, { status, rawBody, headers }, computedAt) {
      const answer: CachedAnswer = headers ? { status, rawBody, rawBytes: utf8.encode(rawBody), headers } : { status, rawBody, rawBytes: utf8.encode(rawBody) }
      current()
      if (computedAt !== filledAt || sizeOf(answer) > maxBytes) return answer
      const previous = byRequest.get(request)?.bodies.get(body)
      if (previous) drop(previous)
      let bucket = byRequest.get(request)
      if (!bucket) byRequest.set(request, (bucket = { bodies: new Map() }))
      const slot: Slot = { request, body, answer }
      bucket.bodies.set(body, slot)
      order.add(slot)
      bytes += sizeOf(answer)
      for (const oldest of order) {
        if (order.size <= maxEntries && bytes <= maxBytes) break
        drop(oldest)
      }
      return answer
    },
    get size() {
      return current() ? order.size : 0
    },
    get hits() {
      return hits
    },
    get misses() {
      return misses
    },
  }
}
