/**
 * Where the twin keeps what changes: one interface, the embedded in-memory store (the default: one
 * process, nothing shared) and a shared one on Redis (mock/twin/redis/, loaded only when asked for).
 *
 * The mock state calls it around every change: `beforeChange` (a shared store refuses a change made
 * outside a write, before anything changed), `logged` (the change, as an operation of the log),
 * `sync` (catch up with what other replicas logged, before a request is answered), `exclusive` (run
 * a write: on a shared store under the twin's lease, committed with its idempotency record in one
 * fenced step) and `readOrWrite` (a read that may turn out to write).
 */
import type { Awaitable } from '../pipeline/compose.ts'
import type { ActivityStore } from '../stores/activity.ts'
import type { IdempotencyClaim, IdempotencyStore } from '../stores/idempotency.ts'
import type { JournalStore } from '../stores/journal.ts'
import type { TraceReader } from '../trace/store.ts'
import type { RateDecision, RateLimiter } from '../stores/rate-limiter.ts'
import type { LoggedOp, TwinOp } from './ops.ts'

/** A rate-limit slot taken with the catch-up, before the request reached the rate limit. */
export interface TakenAhead {
  decision: RateDecision
  /** Gives the slot back (the request was refused before the rate limit, which would not have counted it). */
  giveBack(): void
}

/** An idempotency claim made with the catch-up, before the request reached its idempotency step. */
export interface ClaimedAhead {
  claim: IdempotencyClaim
  /** Frees a started claim and the lease taken with it (the request was refused before its idempotency step). */
  release(): Promise<void>
}

/** What a request asks a shared store to do with its catch-up. */
export interface AheadAsk {
  /** The rate limit's slot of (key, shop). */
  rate?: { apiKey: string; shopId: string }
  /** A keyed write's claim of (shop, key). */
  claim?: { shopId: string; key: string }
}

export interface Ahead {
  taken?: TakenAhead
  claimed?: ClaimedAhead
}

export interface TwinStore {
  /** 'memory', or the shared store's kind ('redis'). */
  readonly kind: string
  /** True when other replicas share the state (certification sessions are refused then). */
  readonly shared: boolean
  beforeChange(): void
  logged(op: TwinOp): void
  sync(): Awaitable<void>
  exclusive<T>(run: () => Awaitable<T>): Awaitable<T>
  readOrWrite<T>(run: () => Awaitable<T>): Awaitable<T>
  /** The shared store's own stores, where it has them (the state's in-memory ones otherwise). */
  readonly rateLimiter?: RateLimiter
  readonly idempotency?: IdempotencyStore
  readonly activity?: ActivityStore
  readonly journal?: JournalStore
  /** Every replica's traces (the state's own trace store collects this replica's). */
  readonly traces?: TraceReader
  /**
   * A shared store's catch-up that also does, in the same round trip, what the request will ask next
   * (its rate-limit slot, a keyed write's idempotency claim and the write lease), when nothing changed
   * since this replica's last look; undefined when something did (the state has caught up: the
   * request's steps take and claim as usual).
   */
  readonly syncAhead?: (ask: AheadAsk) => Promise<Ahead | undefined>
  /** The last operation's place in the log. */
  readonly head: number
  /** What an operator scrapes (`GET /__admin/metrics`). */
  metrics(): Awaitable<Record<string, unknown>>
  close(): Promise<void>
}

/** The embedded store: changes apply at once, in this process's order; `onOp` sees each, numbered. */
export function createMemoryTwinStore({ onOp }: { onOp?: (entry: LoggedOp) => void } = {}): TwinStore {
  let head = 0
  return {
    kind: 'memory',
    shared: false,
    beforeChange() {},
    logged(op) {
      head++
      onOp?.({ seq: head, op })
    },
    sync() {},
    exclusive: (run) => run(),
    readOrWrite: (run) => run(),
    get head() {
      return head
    },
    metrics: () => ({ store: 'memory', head }),
    close: async () => {},
  }
}
