/**
 * Idempotency records per (shop, key) (spec: Idempotency; States and transitions).
 * `processing` while the first request runs; `completed` with the status and the serialized body.
 */
import type { Clock } from '../clock.ts'

export interface IdempotencyEntry {
  status: 'processing' | 'completed'
  startedAt: number
  responseStatus?: number
  /** The body exactly as it was sent the first time. */
  rawBody?: string
  headers?: Record<string, string>
  expiresAt?: number
  /** The operation (`POST /automations/create`) whose answer this is: a replay serves only it. */
  permission?: string
  /** The trace of the request that claimed the key (mock/trace), when tracing is on. */
  trace?: string
}

export interface IdempotencyStoreOptions {
  /** spec: Limits: cache 24 hours. */
  ttlMs?: number
  /** spec: Limits: in-flight conflict window 60 seconds. */
  inFlightMs?: number
  /** Most records kept; the oldest are evicted beyond it, so a long-running server stays bounded. */
  maxRecords?: number
}

export type IdempotencyClaim =
  | { kind: 'started' }
  | { kind: 'in-flight'; trace?: string }
  | { kind: 'replay'; entry: IdempotencyEntry }

/**
 * One interface, an in-memory implementation here and a shared one (mock/twin/redis/); a shared store
 * answers asynchronously, and completes a record in the same commit as the write it answers.
 */
export interface IdempotencyStore {
  /** Starts a request with this key (`trace`: its trace id, kept as the holder), or tells that one is in flight or completed. */
  claim(shopId: string, key: string, trace?: string): IdempotencyClaim | Promise<IdempotencyClaim>
  /**
   * A shared store's second look, under the write's lease: the record another replica completed after
   * this request's claim started (the request replays it), or undefined. The in-memory store's claim
   * is the last word and it has none.
   */
  settled?(shopId: string, key: string): IdempotencyClaim | undefined
  /** The first request finished with a cacheable response. */
  complete(shopId: string, key: string, response: { status: number; rawBody: string; headers?: Record<string, string>; permission?: string }): void | Promise<void>
  /** The first request failed (5xx or exception): the key is free again. */
  release(shopId: string, key: string): void | Promise<void>
  /** The live record, or undefined when never made or expired. */
  lookup(shopId: string, key: string): IdempotencyEntry | undefined | Promise<IdempotencyEntry | undefined>
  /** Records held (in memory; -1 where the store does not count them). */
  readonly size: number
  clear(): void | Promise<void>
  /** The live records, oldest first (the console reads them). */
  list?(): Array<{ shopId: string; key: string; entry: IdempotencyEntry }>
}

/** The in-memory store answers at once. */
export interface MemoryIdempotencyStore extends IdempotencyStore {
  claim(shopId: string, key: string, trace?: string): IdempotencyClaim
  complete(shopId: string, key: string, response: { status: number; rawBody: string; headers?: Record<string, string>; permission?: string }): void
  release(shopId: string, key: string): void
  lookup(shopId: string, key: string): IdempotencyEntry | undefined
  clear(): void
  /** Puts a completed record as it was made elsewhere (a shared store's replica learns its twin's records from the log). */
  restore(shopId: string, key: string, entry: IdempotencyEntry): void
}

const idOf = (shopId: string, key: string) => `${shopId}\u0000${key}`

/** Most records a store keeps by default: the bound on its memory, however many keys clients send. */
export const DEFAULT_MAX_RECORDS = 10_000

/** An in-memory, bounded idempotency store on the mock clock. */
export function createIdempotencyStore(clock: Clock, { ttlMs = 24 * 60 * 60 * 1000, inFlightMs = 60 * 1000, maxRecords = DEFAULT_MAX_RECORDS }: IdempotencyStoreOptions = {}): MemoryIdempotencyStore {
  // Insertion-ordered: the first entry is the oldest, which is what eviction drops.
  const records = new Map<string, IdempotencyEntry>()

  const live = (entry: IdempotencyEntry, now: number): boolean =>
    entry.status === 'processing' ? now - entry.startedAt < inFlightMs : (entry.expiresAt ?? 0) > now

  const sweep = (now: number) => {
    for (const [id, entry] of records) {
      if (live(entry, now)) break
      records.delete(id)
    }
    // Terminates: each turn deletes one record until the store is at its cap.
    while (records.size > maxRecords) records.delete(records.keys().next().value as string)
  }

  const get = (shopId: string, key: string, now: number) => {
    const id = idOf(shopId, key)
    const entry = records.get(id)
    if (entry && !live(entry, now)) {
      records.delete(id)
      return undefined
    }
    return entry
  }

  return {
    claim(shopId, key, trace) {
      const now = clock.nowMs()
      const entry = get(shopId, key, now)
      if (entry?.status === 'completed') return { kind: 'replay', entry }
      if (entry?.status === 'processing') return entry.trace === undefined ? { kind: 'in-flight' } : { kind: 'in-flight', trace: entry.trace }
      const id = idOf(shopId, key)
      records.delete(id)
      records.set(id, trace === undefined ? { status: 'processing', startedAt: now } : { status: 'processing', startedAt: now, trace })
      sweep(now)
      return { kind: 'started' }
    },
    complete(shopId, key, response) {
      const now = clock.nowMs()
      const id = idOf(shopId, key)
      const held = records.get(id)
      const startedAt = held?.startedAt ?? now
      records.delete(id)
      records.set(id, { status: 'completed', startedAt, responseStatus: response.status, rawBody: response.rawBody, headers: response.headers, expiresAt: now + ttlMs, permission: response.permission, ...(held?.trace !== undefined && { trace: held.trace }) })
      sweep(now)
    },
    release(shopId, key) {
      records.delete(idOf(shopId, key))
    },
    restore(shopId, key, entry) {
      const id = idOf(shopId, key)
      records.delete(id)
      records.set(id, entry)
      sweep(clock.nowMs())
    },
    lookup(shopId, key) {
      return get(shopId, key, clock.nowMs())
    },
    get size() {
      return records.size
    },
    list() {
      const now = clock.nowMs()
      return [...records].filter(([, entry]) => live(entry, now)).map(([id, entry]) => {
        const [shopId = '', key = ''] = id.split('\u0000')
        return { shopId, key, entry }
      })
    },
    clear() {
      records.clear()
    },
  }
}
