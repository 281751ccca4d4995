/**
 * A replica of a shared twin in this process: a mock state on a test's Redis, as `serve --store`
 * makes one (the twin's settings adopted from the store), with the tests' seed, scale and frozen clock.
 */
import { createMockState, type MockState, type MockStateOptions } from '../../mock/index.ts'
import { openRedisTwin } from '../../mock/twin/redis/index.ts'

/** The instant the tests' twins are frozen at. */
export const TWIN_NOW = '2026-03-10T12:00:00.000Z'

export interface ReplicaOptions extends Pick<MockStateOptions, 'trace' | 'responseCache'> {
  /** The rate limit a new twin is created with (the twin's own when it exists). */
  rateLimit?: boolean
  /** The per-second limit a new twin is created with (default 10). */
  perSecond?: number
  /** SHOPTWIN_HOLD_WRITE_MS: each write held this long before its commit. */
  holdWriteMs?: number
  /** SHOPTWIN_LEASE_IDLE_MS: how long the replica keeps the lease after its last write. */
  leaseIdleMs?: number
  /**
   * SHOPTWIN_BARRIER_WAIT_MS: how long a read of the journal, traces or activity waits for the other
   * replicas' flushes. 10 s here, not 1 s: the replicas of a test share its process, and a loaded
   * machine that holds it past the bound fires the bound's timer before the acks are read.
   */
  barrierWaitMs?: number
}

/** A replica of twin `name` on the store at `url`, caught up with its log. */
export async function inProcessReplica(url: string, name: string, { rateLimit, perSecond, holdWriteMs = 0, leaseIdleMs, barrierWaitMs = 10_000, ...state }: ReplicaOptions = {}): Promise<MockState & { twinName: string }> {
  const opened = await openRedisTwin(url, name, { seed: 42, scale: 'small', today: '2026-03-10', ...(rateLimit !== undefined ? { rateLimit } : {}), ...(perSecond !== undefined ? { perSecond } : {}), createdAt: Date.parse(TWIN_NOW), clock: { frozenAt: Date.parse(TWIN_NOW), offset: 0 } }, { log: () => {}, holdWriteMs, barrierWaitMs, ...(leaseIdleMs !== undefined ? { leaseIdleMs } : {}) })
  const mock = createMockState({ seed: 42, scale: 'small', today: '2026-03-10', now: TWIN_NOW, rateLimit: opened.config.rateLimit, createdAt: opened.config.createdAt, twin: opened.attach, ...state })
  await opened.start()
  return Object.assign(mock, { twinName: name })
}
