/**
 * The shared store: one twin on a Redis-compatible server (Redis 7, Valkey), any number of replicas.
 * The only folder that imports the Redis client (.dependency-cruiser.cjs), and it is loaded only when
 * `serve --store` asks for it.
 *
 * Keys, all under the twin's hash tag `{tw:<name>}` (one slot, so a Redis Cluster spreads twins, not a twin):
 *   cfg            the twin's settings, resolved once when it was created (seed, scale, today, limits, clock)
 *   head, log      the log's last sequence number and the log itself (a stream, ids `<seq>-0`: the
 *                  operations, and after a keyed write's the idempotency record it completed)
 *   lease          the write lease: one replica writes at a time, its token fences the commit; kept
 *                  by the replica after its write until it stops writing or another replica asks
 *   gen            the generation of records and counters (a reset starts a new one; never goes back)
 *   epoch          the log's epoch: which copy of the log the store holds. The log is only appended to
 *                  within an epoch; a restore that writes a replica's copy back starts a new one (its
 *                  parent the copy's). Every catch-up, commit, lease and log read checks it in the same
 *                  round trip: a replica never answers from, or commits on, a log the store no longer has
 *   g<gen>:rl:*    rate-limit windows; g<gen>:idem:* idempotency records (+ an index that caps them)
 *   activity       the account's activity log (a capped stream)
 *   g<gen>:journal, g<gen>:tr:*, journal:id, trace:ids   the request journal and the traces (journal.ts, traces.ts)
 *   activity:id    the activity log's ids; with journal:id and trace:ids, the counters of the ids the twin
 *                  hands out, never given twice, even after the store lost the twin (ids.ts)
 *   appends        the channel of the flush barrier (batch.ts)
 *
 * A request first catches up with the log (one round trip when nothing changed). A write takes the
 * lease (or finds it kept from its replica's last write), catches up, runs, and commits its
 * operations, with the idempotency record it completes, in one fenced script. A replica whose commit is refused (its lease ran out, say while it was stopped)
 * or whose store went away mid-commit rebuilds its state from the log and answers 503.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { Worker } from 'node:worker_threads'
import { Cluster, type Redis } from 'ioredis'
import type { ClockSetting } from '../../clock.ts'
import { keyIdOf } from '../../connector/activity.ts'
import { ACTIVITY_MAX, type ActivityEntry } from '../../connector/store.ts'
import type { MockState } from '../../state.ts'
import type { ActivityStore } from '../../stores/activity.ts'
import { createIdempotencyStore, type IdempotencyClaim, type IdempotencyEntry, type IdempotencyStore, type MemoryIdempotencyStore } from '../../stores/idempotency.ts'
import type { RateDecision, RateLimiter } from '../../stores/rate-limiter.ts'
import { NeedsExclusive, StoreUnavailable, type TwinOp } from '../ops.ts'
import type { Ahead, AheadAsk, TwinStore } from '../store.ts'
import { createAppendBatch } from './batch.ts'
import { epochNow, heldLease } from './lease-keeper.ts'
import { addressOf, duplicateOf, isPermissionRefusal, permissionRefusal, redactStoreUrl, storeClient, type StoreClient, SUBSCRIBER, subscribed } from './connect.ts'
import { createRedisJournal, type SharedContext } from './journal.ts'
import { createOperatorWatch, notSent } from './operator.ts'
import { keySlot, storeFailure } from './store-errors.ts'
import { ACQUIRE, ACTIVITY_RECORD, GC_MS, CLAIM_AND_ACQUIRE, COMMIT, IDEMPOTENCY_CLAIM, RANGE, RATE_LIMIT, RATE_REFUND, RELEASE, RELEASE_CLAIM, RENEW, RESTORE, SYNC_AHEAD } from './scripts.ts'
import { durabilityLines } from './durability.ts'
import { createKeptLog, KEPT_MAX_BYTES } from './kept-log.ts'
import { createIdMarks, highestOf, ID_KINDS, idKeys, idsText, type IdKind, raisedText } from './ids.ts'
import { createRedisTraces, type SharedTraces } from './traces.ts'

/** What makes replicas one twin: resolved once, stored with it, adopted by every replica. */
export interface TwinConfig {
  seed: number
  scale: string
  today: string
  /** Epoch ms the twin was created (the connector's fixtures are made as of it). */
  createdAt: number
  /** The clock's setting when the twin was created (moves after it are in the log). */
  clock: ClockSetting
  rateLimit: boolean
  perSecond: number
  perDay: number
  /**
   * 'log': every idempotency record a commit completes is in the log too (a twin made before, without
   * this field, has its older records only in their hashes: its replicas claim every key in the store).
   */
  records?: 'log'
}

/** The flags a replica was started with: what it brings to a new twin, or must agree with on an existing one. */
export type ReplicaFlags = Partial<Pick<TwinConfig, 'seed' | 'scale' | 'today' | 'rateLimit' | 'perSecond' | 'perDay'>> & Pick<TwinConfig, 'createdAt' | 'clock'>

export interface RedisTwinOptions {
  /** How long a write may hold the lease (ms); a replica stalled longer is fenced out. */
  leaseMs?: number
  /** How long the replica keeps the lease after its last write (ms; default IDLE_MS). `SHOPTWIN_LEASE_IDLE_MS` for `serve`. */
  leaseIdleMs?: number
  /** How long a write waits for the lease before answering 503 (ms). */
  leaseWaitMs?: number
  /** Where the replica says it lost or found the store again, or fell behind (operator.ts). */
  log?: (line: string) => void
  /** Operations behind the log at which the replica says it fell behind (`SHOPTWIN_LAG_WARN`; operator.ts). */
  lagWarnOps?: number
  /** How long appended entries wait for others (ms; default 50, batch.ts). `SHOPTWIN_APPEND_DELAY_MS`: a test holds them until a barrier asks. */
  appendDelayMs?: number
  /** How long a reader of the journal, traces or activity waits for the other replicas' flushes (ms; default 1,000, batch.ts). `SHOPTWIN_BARRIER_WAIT_MS`: a test on a loaded machine waits longer. */
  barrierWaitMs?: number
  /**
   * Holds every write this long under the lease before it commits (ms; default 0): a write in flight
   * that a test can stop (SIGSTOP) to prove the fencing. `SHOPTWIN_HOLD_WRITE_MS` for `serve`.
   */
  holdWriteMs?: number
  /** The bound of the replica's copy of the log, which restores a twin the store lost (bytes; kept-log.ts). `SHOPTWIN_RESTORE_MAX_MB` for `serve`. */
  keptMaxBytes?: number
}

export { redactStoreUrl, redisOptionsFromUrl } from './connect.ts'

/** A twin's keys. */
export function twinKeys(name: string) {
  const p = `st:{tw:${name}}:`
  return {
    prefix: p,
    cfg: `${p}cfg`,
    head: `${p}head`,
    log: `${p}log`,
    gen: `${p}gen`,
    /** The log's epoch (`<token> <parent token> <entries>`): a new one each time a restore writes the log (scripts.ts: RESTORE). */
    epoch: `${p}epoch`,
    lease: `${p}lease`,
    wanted: `${p}lease:wanted`,
    /** A channel, not a key: each commit publishes the new head there (the hash tag keeps it on the twin's node). */
    news: `${p}news`,
    activity: `${p}activity`,
    /** The counters of the ids the twin hands out (ids.ts). */
    ids: idKeys(p),
    rateRecent: (gen: number, keyId: string, shop: string) => `${p}g${gen}:rl:${keyId}:${shop}`,
    rateDay: (gen: number, keyId: string, shop: string, day: string) => `${p}g${gen}:rd:${keyId}:${shop}:${day}`,
    idem: (gen: number, shop: string, key: string) => `${p}g${gen}:idem:${shop}:${key}`,
    idemIndex: (gen: number) => `${p}g${gen}:idemidx`,
  }
}

type Commands = Redis & {
  twinRateLimit(recent: string, day: string, now: number, perSecond: number, perDay: number, midnight: number): Promise<[number, string, number, number, number, number]>
  twinSyncAhead(...args: Array<string | number>): Promise<Array<string | number>>
  twinReleaseClaim(record: string, lease: string, token: string): Promise<number>
  twinRefund(recent: string, day: string, instant: string): Promise<number>
  twinAcquire(lease: string, head: string, gen: string, wanted: string, channel: string, epoch: string, token: string, ms: number, replica: string): Promise<[number, number?, number?, string?]>
  twinClaim(record: string, index: string, now: number, inFlightMs: number, maxRecords: number): Promise<string[]>
  twinClaimAndAcquire(record: string, index: string, lease: string, head: string, gen: string, wanted: string, channel: string, epoch: string, now: number, inFlightMs: number, maxRecords: number, token: string, ms: number, replica: string): Promise<Array<string | number>>
  twinCommit(...args: Array<string | number>): Promise<number[]>
  twinRelease(lease: string, token: string): Promise<number>
  twinRenew(lease: string, token: string, ms: number): Promise<number>
  twinActivity(stream: string, counter: string, cfg: string, cap: number, seen: number, ...entries: string[]): Promise<number>
  twinRestore(...args: Array<string | number>): Promise<Array<number | string>>
  twinRange(log: string, epoch: string, from: string, to: string, count: number, expected: string): Promise<[1, Array<[string, string[]]>] | [0, string]>
}

/** Connects, or says in one line why not (the CLI prints it and exits 2). */
export async function connectRedis(url: string): Promise<Commands> {
  const redis = (await storeClient(url, {
    lazyConnect: true,
    // Fail at once while the store is away (the request gets a 503), never queue or hang.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 5000,
    connectTimeout: 3000,
    retryStrategy: (times) => Math.min(50 * times, 1000),
  }).catch((error: Error) => {
    throw new Error(`cannot reach the shared store ${redactStoreUrl(url)}: ${error.message}`)
  })) as Commands
  // Losing and finding the store again are said by the replica (operator.ts); before it, connect() says why it failed.
  redis.on('error', () => {})
  redis.defineCommand('twinRateLimit', { numberOfKeys: 2, lua: RATE_LIMIT })
  redis.defineCommand('twinSyncAhead', { numberOfKeys: 10, lua: SYNC_AHEAD })
  redis.defineCommand('twinReleaseClaim', { numberOfKeys: 2, lua: RELEASE_CLAIM })
  redis.defineCommand('twinRefund', { numberOfKeys: 2, lua: RATE_REFUND })
  redis.defineCommand('twinAcquire', { numberOfKeys: 6, lua: ACQUIRE })
  redis.defineCommand('twinClaim', { numberOfKeys: 2, lua: IDEMPOTENCY_CLAIM })
  redis.defineCommand('twinClaimAndAcquire', { numberOfKeys: 8, lua: CLAIM_AND_ACQUIRE })
  redis.defineCommand('twinCommit', { numberOfKeys: 10, lua: COMMIT })
  redis.defineCommand('twinRange', { numberOfKeys: 2, lua: RANGE })
  redis.defineCommand('twinRestore', { numberOfKeys: 9, lua: RESTORE })
  redis.defineCommand('twinRelease', { numberOfKeys: 1, lua: RELEASE })
  redis.defineCommand('twinRenew', { numberOfKeys: 1, lua: RENEW })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    redis.disconnect()
    throw new Error(`cannot reach the shared store ${redactStoreUrl(url)}: ${(error as Error).message}`)
  }
  return redis
}

const DIFFERS: Array<keyof TwinConfig> = ['seed', 'scale', 'today', 'rateLimit', 'perSecond', 'perDay']

/**
 * The twin's settings: a new twin takes the replica's flags (today resolved now, once); an existing
 * one is adopted, unless a flag given differs, which refuses the start with the reason.
 */
export async function adoptTwinConfig(redis: Redis, name: string, flags: ReplicaFlags): Promise<{ config: TwinConfig; created: boolean }> {
  const keys = twinKeys(name)
  const proposed: TwinConfig = {
    seed: flags.seed ?? 42,
    scale: flags.scale ?? 'default',
    today: flags.today ?? new Date(flags.clock.frozenAt ?? Date.now() + flags.clock.offset).toISOString().slice(0, 10),
    createdAt: flags.createdAt,
    clock: flags.clock,
    rateLimit: flags.rateLimit ?? true,
    perSecond: flags.perSecond ?? 10,
    perDay: flags.perDay ?? 1_000_000,
    records: 'log',
  }
  const created = (await redis.set(keys.cfg, JSON.stringify(proposed), 'NX')) === 'OK'
  if (created) return { config: proposed, created }
  const config = JSON.parse((await redis.get(keys.cfg))!) as TwinConfig
  const differ = DIFFERS.filter((field) => flags[field as keyof ReplicaFlags] !== undefined && flags[field as keyof ReplicaFlags] !== config[field])
  if (differ.length) {
    const said = differ.map((f) => `${f} ${String(flags[f as keyof ReplicaFlags])} (the twin's: ${String(config[f])})`).join(', ')
    throw new Error(`twin '${name}' already exists with other settings: ${said}; start with the twin's settings, another --twin, or reset it`)
  }
  return { config, created }
}

interface Tx {
  token: string
  ops: TwinOp[]
  /** The idempotency record the write completes, and its hash in the store. */
  record?: { hash: string; logged: LoggedRecord }
}

/** Counters an operator scrapes. */
interface Counters {
  commits: number
  refusedCommits: number
  rebuilds: number
  storeErrors: number
  leaseWaitMs: number
  caughtUp: number
  commands: number
  leases: number
  heldWrites: number
  pushes: number
  caughtUpByPush: number
  heldForTest: number
  takenWithSync: number
  claimedWithSync: number
  claimedUnderLease: number
  leasesHandedOver: number
  twinLosses: number
  twinRestores: number
  probes: number
}

/** The TwinStore of one replica (MockStateOptions.twin). */
export function createRedisTwin(redis: Commands, name: string, config: TwinConfig, { leaseMs = 10_000, leaseIdleMs = IDLE_MS, leaseWaitMs = 15_000, log = (line: string) => console.error(line), holdWriteMs = 0, lagWarnOps, appendDelayMs, barrierWaitMs, keptMaxBytes = KEPT_MAX_BYTES }: RedisTwinOptions = {}) {
  const keys = twinKeys(name)
  const replica = randomUUID().slice(0, 8)
  const tx = new AsyncLocalStorage<Tx>()
  let state: MockState
  /**
   * The twin's idempotency records as the log has them (every commit logs the record it completes),
   * and this replica's claims in flight: what a replica holding the lease decides a claim on.
   */
  let records: MemoryIdempotencyStore
  /** The twin logs its records (a twin made before they were logged does not: its claims go to the store). */
  const recordsLogged = config.records === 'log'
  let applied = 0
  let seenHead = 0
  let gen = 0
  let dirty = true
  let rttMs = 0
  /** The look of `probe` is sent (its commands are its own metric, not the requests'). */
  let probing = false
  const counters: Counters = { commits: 0, refusedCommits: 0, rebuilds: 0, storeErrors: 0, leaseWaitMs: 0, caughtUp: 0, commands: 0, leases: 0, heldWrites: 0, takenWithSync: 0, claimedWithSync: 0, claimedUnderLease: 0, leasesHandedOver: 0, pushes: 0, caughtUpByPush: 0, heldForTest: 0, twinLosses: 0, twinRestores: 0, probes: 0 }
  // Every command this replica sends is one round trip (no auto-pipelining): counted for the metrics.
  const send = redis.sendCommand.bind(redis)
  redis.sendCommand = ((...args: Parameters<typeof send>) => {
    if (!probing) counters.commands++
    return send(...args)
  }) as typeof send
  const heldForKeeper = heldLease()
  const keeper = new Worker(new URL(`./lease-keeper${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url), { workerData: { leaseKeeper: true, address: addressOf(redis), lease: keys.lease, ms: leaseMs, shared: heldForKeeper.buffer } })
  keeper.unref()
  // One catch-up at a time applies entries in order.
  let applying: Promise<void> = Promise.resolve()

  /** A store error becomes a 503 (StoreUnavailable); what this replica holds may be behind, so it rebuilds next time. */
  const guard = async <T>(run: () => Promise<T>, again = true): Promise<T> => {
    // One that could not restore the twin serves again once another replica restored it (rejoin).
    if (orphaned) await rejoin()
    if (orphaned) throw new StoreUnavailable(orphaned)
    try {
      const value = await run()
      watch.storeAnswered()
      return value
    } catch (error) {
      // The store lost the twin: restored (or adopted from the replica that did), then the call once
      // more; in the guard, so a store that fails meanwhile is a 503 as any call's failure.
      if (error instanceof TwinLost) {
        if (!again) throw new StoreUnavailable(orphaned ?? `The shared state store lost twin '${name}' again while this replica restored it; retry shortly`)
        return guard(async () => {
          await storeLost(error.why)
          if (orphaned) throw new StoreUnavailable(orphaned)
          return run()
        }, false)
      }
      if (error instanceof StoreUnavailable || error instanceof NeedsExclusive) throw error
      counters.storeErrors++
      const said = failure(error)
      watch.storeFailed(error, said)
      throw new StoreUnavailable(said.topology ? `The shared state store is unavailable: ${said.reason}; this replica cannot use it until its operator restarts it` : `The shared state store is unavailable (${said.reason}); retry shortly`)
    }
  }
  /** What a failed call means (store-errors.ts): a cluster's master away or its slot down, a server now a cluster node. */
  const slot = keySlot(keys.head)
  const client = redis as unknown as StoreClient
  const failure = (error: unknown) =>
    storeFailure(error, { cluster: address.cluster, store: storeName, slot, secrets: [password], ...(client instanceof Cluster ? { master: client.slots[slot]?.[0] } : {}) })

  /** What this replica knows of the twin's id counters (ids.ts). */
  const ids = createIdMarks()
  const batch = createAppendBatch(redis, `${keys.prefix}appends`, {
    // Asked by a replica about to restore the twin: the highest ids this replica knows of, and how
    // much of the log it keeps (-1: its copy dropped); keeping more than the asker, it looks at the
    // store now (the asker waits for it to restore).
    answer: () => `${replica} ${ids.answer()} ${kept.whole ? kept.count : -1}`,
    onAsked: (keeps) => {
      if (kept.whole && kept.count > Number(keeps)) void probe().catch(() => {})
    },
    onError: (error, lost) => {
      counters.storeErrors++
      watch.appendFailed(error, lost, failure(error))
    },
    onFlushed: () => watch.appendFlushed(),
    ...(appendDelayMs !== undefined ? { delayMs: appendDelayMs } : {}),
    ...(barrierWaitMs !== undefined ? { barrierWaitMs } : {}),
  })
  // The lines an operator reads (the store lost and back, appends lost, the replica behind) and the head reports.
  const address = addressOf(redis)
  const { host, port, path, db, password, tls } = address.options
  // A cluster by the seeds it was given (its client's own options name no node).
  const storeName = address.cluster ? `${tls ? 'rediss' : 'redis'}://${address.nodes.map((n) => `${n.host}:${n.port}`).join(',')}` : path ? `unix://${path}` : `${tls ? 'rediss' : 'redis'}://${host}:${port}/${db ?? 0}`
  const watch = createOperatorWatch({ redis, batch, log, prefix: keys.prefix, twin: name, replica, store: storeName, secrets: [password], position: () => ({ applied, seen: seenHead }), ...(lagWarnOps !== undefined ? { lagWarnOps } : {}), tick: () => void probe().catch(() => {}) })
  batch.define('twinActivity', 3, ACTIVITY_RECORD)
  const shared: SharedContext = { redis, prefix: keys.prefix, generation: () => gen, sync: () => catchUp(), guard, batch, cfg: keys.cfg, ids }

  /**
   * When the store loses the twin (restarted without persistence, FLUSHALL/FLUSHDB, its keys evicted
   * under a maxmemory policy or deleted, a failover to an empty replica), every live replica still
   * holds it: the first that notices writes it back from its copy of the log (RESTORE: only where the
   * store does not hold it whole, so two restore once and one that applied less adopts the restored
   * log), the others go on from it. An operator expects a shared twin to outlive its store's mishaps
   * as it outlives a replica's; a twin silently back to its seed world, replaying an idempotency key
   * as a second resource, would be the worst answer. What the replicas do not hold (the rate-limit
   * windows, the journal, traces and activity log) is lost, and said; the ids the twin hands out go on
   * past every replica's (ids.ts: the replica that restores asks the others first, and one that keeps
   * more of the log restores instead). A replica that cannot restore (its copy dropped past its bound,
   * another twin created under the name meanwhile) answers 503 until the twin is back in the store
   * from its own epoch's log (another replica restored it: `rejoin` rebuilds from it), or it is
   * restarted; a new twin created under the name it never serves.
   */
  let droppedSaid = false
  const keptLog = () =>
    createKeptLog({
      maxBytes: keptMaxBytes,
      onDropped: (bytes) => {
        if (droppedSaid) return
        droppedSaid = true
        log(`shoptwin: replica ${replica} of twin '${name}' keeps no copy of the twin's log past ${(bytes / 1048576).toFixed(0)} MB (SHOPTWIN_RESTORE_MAX_MB ${(keptMaxBytes / 1048576).toFixed(0)}): should the store lose the twin, this replica cannot restore it (another replica may)`)
      },
    })
  let kept = keptLog()
  const cfgText = JSON.stringify(config)
  /** Why every request gets 503: the store lost the twin and this replica cannot restore it. */
  let orphaned: string | null = null
  let restoring: Promise<void> | null = null
  const storeLost = (why: string): Promise<void> =>
    // One that could not restore it does not try again: it waits for the twin to be back (rejoin).
    orphaned
      ? rejoin()
      : (restoring ??= restoreTwin(why).finally(() => {
          restoring = null
        }))
  const lostWho = `shoptwin: replica ${replica} of twin '${name}'`
  const causes = 'restarted without persistence, flushed (FLUSHALL/FLUSHDB), its keys evicted (maxmemory-policy) or deleted, or failed over to an empty replica'
  const toDo = "To do: make the store keep the twin (appendonly yes, maxmemory-policy noeviction; README: When the store loses the twin)"

  /** A generation read from the store; one behind this replica's is a store that lost the twin. */
  const adoptGeneration = (g: number) => {
    if (g < gen) throw new TwinLost(`its generation is ${g}, behind this replica's ${gen}`)
    gen = g
  }

  /**
   * The log's epoch this replica read (`null` until its first look, at start): what it holds is that
   * log's. Another in the store is a log written back since (a restore, perhaps from another replica's
   * shorter copy): this replica goes on from it only once it verified it (restoreTwin), never on a read.
   */
  let epoch: string | null = null
  const adoptEpoch = (e: string | null | undefined) => {
    if (epoch === null) epoch = e ?? ''
    else if ((e ?? '') !== epoch) throw new TwinLost(epochWhy(e ?? ''))
  }
  const tokenOf = (e: string | null) => (e ?? '').split(' ')[0] || 'none'
  const epochWhy = (e: string) => (e === '' ? `its log's epoch is gone (this replica read ${tokenOf(epoch)})` : `its log was written back since this replica read it (epoch ${tokenOf(e)}, not ${tokenOf(epoch)})`)
  /** The store's log of epoch `e` (whole) has every entry this replica applied as its beginning: the epoch is its own, or a restore wrote it from its own epoch's log with as many entries or more. */
  const continues = (e: string) => {
    if (e === epoch) return true
    const [, parent, entries] = e.split(' ')
    return parent === tokenOf(epoch) && Number(entries) >= kept.count
  }

  /** Stages this replica's copy of the log in a key of its own (one pipeline a thousand entries), for RESTORE to rename into place. */
  const stage = async (key: string, n: number) => {
    await redis.del(key)
    let pipeline = redis.pipeline()
    let seq = 0
    const send = async () => {
      pipeline.pexpire(key, 60_000)
      for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error
      pipeline = redis.pipeline()
    }
    for (const [field, value] of kept.entries()) {
      if (seq === n) break
      pipeline.xadd(key, `${++seq}-0`, field, value)
      if (seq % 1000 === 0) await send()
    }
    await send()
  }

  /** Waits (up to RESTORE_DEFER_MS) for the store to hold the twin whole with `count` entries or more. */
  const restoredBy = async (count: number) => {
    const deadline = performance.now() + RESTORE_DEFER_MS
    // Terminates: the deadline bounds the loop.
    while (performance.now() < deadline) {
      const [[, got], [, length]] = ((await redis.pipeline().mget(keys.cfg, keys.head).xlen(keys.log).exec()) ?? []) as [[unknown, Array<string | null>], [unknown, number]]
      if (got?.[0] === cfgText && Number(got[1] ?? 0) >= count && length === Number(got[1] ?? 0)) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  const restoreTwin = async (why: string) => {
    counters.twinLosses++
    // The lease went with the store (or is another replica's now): a write takes it anew.
    handOver()
    await applying.catch(() => {})
    if (!kept.whole) {
      orphaned = `The shared state store lost twin '${name}' (${why}) and this replica kept no copy of its log to restore it (past SHOPTWIN_RESTORE_MAX_MB); it serves again once a replica that kept its copy restores the twin, or its operator restarts the replicas (they create the twin anew)`
      log(`${lostWho}: the shared store ${storeName} lost the twin (${why}): ${causes}. This replica cannot restore it (its copy of the log was dropped past SHOPTWIN_RESTORE_MAX_MB); its requests get 503 until another replica that kept its copy restores the twin (this one then rebuilds from it) or it is restarted, which creates the twin anew. ${toDo}`)
      return
    }
    // Every replica's highest ids first (the last given out before the loss may be another's): the
    // restore sets the counters past them.
    const expected = watch.peers()
    const answers = await batch.ask(expected, String(kept.count))
    answers.delete(replica)
    watch.heard([...answers.keys()])
    const high = highestOf(ids, answers.values())
    const silent = expected.filter((id) => !answers.has(id))
    // A replica that keeps more of the log restores it (asked, it looked at the store): this one waits
    // for that, and adopts it, rather than write less and lose that replica's last writes.
    const fuller = Math.max(-1, ...[...answers.values()].map((answer) => Number(answer.split(' ')[3] ?? -1)))
    if (fuller > kept.count) await restoredBy(fuller)
    const n = kept.count
    const staged = `${keys.prefix}restore:${replica}`
    await stage(staged, n)
    const [outcome, head, third, mask = 0, trace, journal, activity, shared = 0, g = gen, e = ''] = (await redis.twinRestore(keys.cfg, keys.head, keys.log, keys.gen, staged, keys.ids.trace, keys.ids.journal, keys.ids.activity, keys.epoch, cfgText, n, gen, kept.lastReset, `${keys.prefix}g`, MAX_RECORDS, high.trace, high.journal, high.activity, epoch ?? '', randomUUID().slice(0, 8))) as [number, number, number, number?, number?, number?, number?, number?, number?, string?]
    const idsNow: Record<IdKind, number> = { trace: Number(trace ?? 0), journal: Number(journal ?? 0), activity: Number(activity ?? 0) }
    if (outcome !== -1) {
      for (const k of ID_KINDS) ids.saw(k, idsNow[k])
      // Never back (the script kept the higher of the store's and this replica's).
      gen = Math.max(gen, Number(g))
    }
    // Which replicas said their ids (and which, heard from lately, did not: ids they gave out past these may be given again).
    const asked = `the highest this replica and ${answers.size} other${answers.size === 1 ? '' : 's'} knew of${silent.length ? `; ${silent.length} heard from lately did not answer (${silent.join(', ')}): ids ${silent.length === 1 ? 'it' : 'they'} gave out past these may be given again` : ''}`
    // The store's log, whole, is another epoch's that this replica cannot verify as going on from its own: it rebuilds from it.
    const unverified = (outcome === 0 || outcome === 1) && !continues(String(e))
    if (outcome !== -1) epoch = String(e)
    if (outcome === 2) {
      counters.twinRestores++
      // Rebuilt from the log it wrote: what it held may include a write the store refused meanwhile.
      dirty = true
      log(`${lostWho}: the shared store ${storeName} lost the twin (${why}): ${causes}. This replica restored it from its copy: ${head} log entries, generation ${gen}, ${third} idempotency records, and its ids go on past ${idsText(idsNow)} (${asked}); lost: the rate-limit windows, and the journal, traces and activity log. ${toDo}`)
    } else if (outcome === 1) {
      counters.twinRestores++
      const what = [...(mask & 1 ? ['its settings'] : []), ...(mask & 2 ? ['its generation'] : []), ...raisedText(mask, idsNow), ...(mask & 32 ? ["its log's epoch (a new one: every replica verifies the log anew)"] : [])]
      if (unverified) dirty = true
      log(`${lostWho}: the shared store ${storeName} lost part of the twin (${why}): ${causes}. Its log was whole (head ${head}); this replica wrote back ${listed(what)}${mask & 28 ? ` (${asked})` : ''}${unverified ? "; it rebuilds from the store's log" : ''}. ${toDo}`)
    } else if (outcome === 0 && !unverified) {
      log(`${lostWho}: the shared store ${storeName} lost the twin (${why}); another replica had restored it already (head ${head}): this replica goes on from it. ${toDo}`)
    } else if (outcome === 0) {
      dirty = true
      log(`${lostWho}: the shared store ${storeName} lost the twin (${why}); another replica had restored it already (head ${head}), from a log this replica cannot verify as its own beginning: it rebuilds from the store's log. ${toDo}`)
    } else if (outcome === -2) {
      // The store's log is the twin: this replica's copy and what it applied past the common entries go, and it rebuilds.
      dirty = true
      kept = keptLog()
      log(`${lostWho}: the shared store ${storeName} lost the twin (${why}); another replica restored it with less, and it was written since (head ${head}): the ${n - Number(shared)} entries this replica had past it are lost; it rebuilds from the store's log. ${toDo}`)
    } else {
      orphaned = `The shared state store lost twin '${name}' (${why}) and another twin was created under its name meanwhile; this replica cannot restore it: its operator restarts it (it then serves the twin the store holds)`
      refusalSaid = 'another'
      log(`${lostWho}: the shared store ${storeName} lost the twin (${why}): ${causes}; another twin was created under the name meanwhile (a replica started after the loss), so this replica does not restore it: its requests get 503 until it is restarted. ${toDo}`)
    }
  }

  /**
   * A replica that could not restore the twin (orphaned) looks, at each request and each second,
   * whether the twin is back in the store, whole: from its own epoch's log (a restore by a replica that
   * kept its copy writes an epoch whose parent is this replica's), it rebuilds from it and serves again;
   * under the same settings but a log it cannot verify as its own, or as another twin created under the
   * name (other settings: not a restore), it goes on refusing, and says why once.
   */
  let rejoining: Promise<void> | null = null
  /** Why this replica last said it goes on refusing ('another': another twin under the name; 'unverified'). */
  let refusalSaid = ''
  const refuse = (kind: string, reason: string, line: string) => {
    if (refusalSaid === kind) return
    orphaned = reason
    refusalSaid = kind
    log(line)
  }
  const rejoin = (): Promise<void> =>
    (rejoining ??= (async () => {
      const answers = (await redis.pipeline().mget(keys.cfg, keys.head, keys.gen, keys.epoch).xlen(keys.log).exec()) ?? []
      if (answers.some(([error]) => error)) return
      const [cfg, head, g, e] = answers[0]![1] as Array<string | null>
      const length = answers[1]![1] as number
      if (cfg === null || length !== Number(head ?? 0)) return
      if (cfg !== cfgText) {
        return refuse(
          'another',
          `The shared state store lost twin '${name}' and another twin was created under its name since (not a restore of this one); this replica does not serve it: its operator restarts it (it then serves the twin the store holds)`,
          `${lostWho}: the shared store ${storeName} holds another twin under the name now (other settings: created anew, not a restore of this one), so this replica goes on refusing: its requests get 503 until it is restarted. ${toDo}`,
        )
      }
      const [token, parent, entries] = (e ?? '').split(' ')
      const own = tokenOf(epoch)
      if (token !== own && parent !== own) {
        return refuse(
          'unverified',
          `The shared state store lost twin '${name}' and it is back from a log this replica cannot verify as its own (restored more than once since, or its epoch lost); this replica does not serve it: its operator restarts it`,
          `${lostWho}: the twin is back in the shared store ${storeName}, but from a log this replica cannot verify as its own (epoch ${tokenOf(e)}, written from ${parent ?? 'none'}, not ${own}: restored more than once since, or its epoch lost), so this replica goes on refusing: its requests get 503 until it is restarted. ${toDo}`,
        )
      }
      // The store's log is this twin's from this replica's epoch: rebuilt from it, as at a start.
      const lost = token === own ? Math.max(0, kept.count - Number(head ?? 0)) : Math.max(0, kept.count - Number(entries))
      orphaned = null
      refusalSaid = ''
      dirty = true
      kept = keptLog()
      epoch = e
      gen = Math.max(gen, Number(g ?? 0))
      log(`${lostWho}: the twin is back in the shared store ${storeName}, restored by another replica from this twin's log (head ${Number(head ?? 0)}, generation ${gen}): this replica rebuilds from it and serves again${lost ? `; the ${lost} entries it had applied past the restored log are lost` : ''}. ${toDo}`)
    })()
      .catch(() => {})
      .finally(() => {
        rejoining = null
      }))

  /**
   * Each second (the operator watch's timer), a look at the twin's keys, so a loss is noticed (and the
   * twin restored) with no request: before a replica started meanwhile would create a fresh twin. It
   * also reads the log's entry at this replica's last: another replica that restored the twin with less
   * and was written on past this one's head left the head and settings as they look whole, not that entry.
   */
  const probe = async () => {
    if (restoring || redis.status !== 'ready' || !state) return
    if (orphaned) return rejoin()
    const known = kept.count
    const last = kept.last()
    const seen = ids.seenNow()
    counters.probes++
    probing = true
    const sent = redis.pipeline().mget(keys.cfg, keys.head, keys.gen, keys.epoch, keys.ids.trace, keys.ids.journal, keys.ids.activity).xlen(keys.log).hkeys(watch.reportsKey).xrange(keys.log, `${known}-0`, `${known}-0`).exec()
    probing = false
    const answers = await sent
    if (!answers || answers.some(([error]) => error)) return
    const [cfg, head, g, e, ...counted] = answers[0]![1] as Array<string | null>
    const length = answers[1]![1] as number
    // The replicas that reported lately: a restore asks each of them for its ids (the store may lose their reports).
    watch.heard(answers[2]![1] as string[])
    const atLast = (answers[3]![1] as Array<[string, string[]]>)[0]?.[1][1]
    const values = Object.fromEntries(ID_KINDS.map((k, i) => [k, counted[i] == null ? null : Number(counted[i])])) as Record<IdKind, number | null>
    const why =
      cfg === null
        ? 'its settings (cfg) are gone'
        : Number(head ?? 0) < known
          ? `its log's head is ${Number(head ?? 0)}, behind the ${known} entries this replica applied`
          : length < Number(head ?? 0)
            ? `its log has ${length} entries though its head is ${Number(head)}`
            : Number(g ?? 0) < gen
              ? `its generation is ${Number(g ?? 0)}, behind this replica's ${gen}`
              : last !== undefined && atLast !== undefined && atLast !== last
                ? `its log's entry ${known} is not the one this replica applied there`
                : ids.behind(values, seen) || (epoch !== null && (e ?? '') !== epoch ? epochWhy(e ?? '') : '')
    if (why) return storeLost(why)
    // What the other replicas numbered: a restore moves the counters past it even if they do not answer.
    for (const k of ID_KINDS) ids.saw(k, values[k] ?? 0)
  }

  /** A completed record in its hash, as the commit writes it (outside a commit: a claim's record put back). */
  const storeRecord = async (hash: string, r: LoggedRecord) => {
    await redis.multi().hset(hash, { status: 'completed', responseStatus: r.status, rawBody: r.rawBody, headers: r.headers, permission: r.permission, expiresAt: r.expiresAt, startedAt: r.startedAt }).pexpire(hash, GC_MS).exec()
  }

  /** A record the log has (or this replica's commit on its way): a claim of its key is a replay. */
  const learn = (r: LoggedRecord) => records.restore(r.shop, r.key, entryOf(String(r.status), r.rawBody, r.headers, r.permission, String(r.startedAt), String(r.expiresAt)))

  const applyUpTo = (head: number): Promise<void> => {
    // A failed catch-up (the store went away) leaves the chain usable: the next one starts over.
    applying = applying.catch(() => {}).then(async () => {
      // Never replayed as a fresh twin: a head behind what the store had is a store that lost the twin.
      if (head < kept.count) throw new TwinLost(`its log's head is ${head}, behind the ${kept.count} entries this replica applied`)
      // A rebuild fills a new copy; the old one stays until it is done (a log found gone midway is restored from it).
      let into = kept
      if (dirty) {
        // The twin as it was created, then every operation of its log.
        state.replay({ kind: 'reset', seed: config.seed, scale: config.scale, today: config.today, fixedToday: true, at: config.createdAt, hard: true })
        state.replay({ kind: 'clock', ...config.clock })
        applied = 0
        counters.rebuilds++
        into = keptLog()
      }
      const from = applied
      while (applied < head) {
        const read = await redis.twinRange(keys.log, keys.epoch, `${applied + 1}-0`, `${head}-0`, 1000, epoch ?? '')
        if (read[0] === 0) throw new TwinLost(epochWhy(read[1]))
        const entries = read[1]
        if (entries.length === 0 || !entries[0]![0].startsWith(`${applied + 1}-`)) throw new TwinLost(`its log has no entry ${applied + 1} though its head is ${head}`)
        for (const [id, fields] of entries) {
          const seq = Number(id.slice(0, id.indexOf('-')))
          if (fields[0] === 'rec') {
            learn(JSON.parse(fields[1]!) as LoggedRecord)
            into.push(seq, 'rec', fields[1]!, false)
          } else {
            const op = JSON.parse(fields[1]!) as TwinOp
            state.replay(op)
            into.push(seq, 'op', fields[1]!, op.kind === 'reset')
          }
          applied = seq
        }
      }
      kept = into
      dirty = false
      if (applied - from > 1000) log(`shoptwin: replica ${replica} caught up ${applied - from} operations of twin '${name}' (head ${applied})`)
      counters.caughtUp += applied - from
    })
    return applying
  }

  /** A request's round trip, from `started` (performance.now()): the moving average operators read. */
  const noteRtt = (started: number) => {
    const ms = performance.now() - started
    rttMs = rttMs === 0 ? ms : rttMs * 0.9 + ms * 0.1
  }

  /**
   * Reads the head (one round trip) and applies what is new. Requests that arrive while a look is on
   * its way share the next one (sent when it is back): a look sent before a request arrived may miss
   * a write answered just before, one sent after may not. Under load, one round trip serves many.
   */
  let looking: Promise<void> | null = null
  let nextLook: Promise<void> | null = null
  const catchUp = (): Promise<void> => {
    if (!looking) {
      const look = (looking = lookAtHead().finally(() => {
        if (looking === look) looking = null
      }))
      return look
    }
    return (nextLook ??= looking
      .catch(() => {})
      .then(() => {
        nextLook = null
        return catchUp()
      }))
  }
  const lookAtHead = () =>
    guard(async () => {
      const started = performance.now()
      const [head, g, e] = await redis.mget(keys.head, keys.gen, keys.epoch)
      noteRtt(started)
      seenHead = Number(head ?? 0)
      adoptGeneration(Number(g ?? 0))
      if (seenHead < kept.count) throw new TwinLost(`its log's head is ${seenHead}, behind the ${kept.count} entries this replica applied`)
      adoptEpoch(e)
      if (dirty || seenHead > applied) await applyUpTo(seenHead)
    })

  /**
   * The lease, held across a burst of this replica's writes and after them: taken once (one round
   * trip that also returns the head to catch up to), kept while this replica writes and for
   * IDLE_MS after, handed over when another replica asks for it (heard on the channel, or seen in a
   * commit's answer), and given up with each commit while replicas take turns (CONTENDED_MS).
   */
  let held: string | null = null
  /** Taken with a keyed write's claim, for that write (not yet used by one). */
  let freshLease = false
  /** A claim's round trip that may bring the lease is on its way. */
  let leaseComing: Promise<void> | null = null
  /** A write of this replica is asking for the lease. */
  let acquiring = false
  let wanted = false
  let waiting = 0

  // The push: each commit publishes the new head; a replica not writing applies what is new at once,
  // so a request's own check of the head (which read-your-writes needs) finds nothing left to fetch.
  const listener = duplicateOf(redis, SUBSCRIBER)
  listener.on('error', () => {})
  // Whether this replica hears the channel: a commit publishes only when some other replica does too.
  let hearing = false
  let heardOnce = false
  listener.on('close', () => (hearing = false))
  listener.on('ready', () => (hearing = heardOnce))
  /** The store's refusal of the subscription (the user's ACL): the replica does not start deaf. */
  let refused: Error | undefined
  const listening = subscribed(listener, keys.news).then((refusal) => {
    refused = refusal
    heardOnce = listener.status === 'ready' && !refusal
    hearing = heardOnce
  })
  listener.on('smessage', (_channel: string, message: string) => {
    if (message === 'want') return handOverWhenIdle()
    counters.pushes++
    const head = Number(message)
    if (head > seenHead) seenHead = head
    watch.check()
    if (dirty || held !== null || head <= applied) return
    const before = applied
    applyUpTo(head).then(
      () => (counters.caughtUpByPush += applied - before),
      (error: unknown) => {
        if (error instanceof TwinLost) void storeLost(error.why).catch(() => {})
      },
    )
  })

  const acquireLease = async () => {
    const token = `${replica}:${randomUUID()}`
    const started = Date.now()
    let wait = 0.2
    acquiring = true
    try {
      // Terminates: the deadline bounds the loop.
      for (;;) {
        const sent = epochNow()
        const [taken, head, g, e] = await redis.twinAcquire(keys.lease, keys.head, keys.gen, keys.wanted, keys.news, keys.epoch, token, leaseMs, replica)
        if (taken === 1) {
          counters.leaseWaitMs += Date.now() - started
          return await leaseTaken(token, Number(head), Number(g), sent, String(e ?? ''))
        }
        if (Date.now() - started > leaseWaitMs) throw new StoreUnavailable('The twin is busy: no write lease within the wait; retry shortly')
        await new Promise((resolve) => setTimeout(resolve, wait * (0.5 + Math.random())))
        wait = Math.min(wait * 2, 10)
      }
    } finally {
      acquiring = false
    }
  }

  /** The lease is this replica's from now: it keeps it alive and catches up to the head it was given. */
  const leaseTaken = async (token: string, head: number, g: number, sent: number, e: string) => {
    counters.leases++
    // Another replica wrote since this one's last commit: replicas take turns (see `keep`).
    if (lastCommitted > 0 && head > lastCommitted) lastWanted = performance.now()
    seenHead = head
    try {
      adoptGeneration(g)
      adoptEpoch(e)
    } catch (error) {
      void redis.twinRelease(keys.lease, token).catch(() => {})
      throw error
    }
    held = token
    wanted = false
    // A live replica keeps its lease while it writes, from a thread of its own (lease-keeper.ts); a
    // stalled one (SIGSTOP) cannot, and is fenced out.
    heldForKeeper.set(token)
    heldForKeeper.confirm(sent)
    lastWrite = performance.now()
    keepWhileBusy()
    try {
      await applyUpTo(seenHead)
    } catch (error) {
      handOver(true)
      throw error
    }
  }

  /**
   * A lease kept after this replica's writes goes back when they stop (IDLE_MS without one) or when
   * another replica asks (its `want`, heard on the channel, or seen by a commit).
   */
  let writing = false
  let lastWrite = 0
  /** No other replica listened on the twin's channel at this replica's last commit. */
  let alone = false
  /** The log's head after this replica's last commit. */
  let lastCommitted = 0
  /** When another replica last asked for the lease, or was seen to have written when this one took it (performance.now()). */
  let lastWanted = -Infinity
  let idle: NodeJS.Timeout | null = null
  const keepWhileBusy = () => {
    if (idle !== null || held === null) return
    idle = setTimeout(function check() {
      idle = null
      if (held === null) return
      const left = lastWrite + leaseIdleMs - performance.now()
      if (writing || waiting > 0 || left > 0) {
        idle = setTimeout(check, Math.max(1, left))
        idle.unref()
        return
      }
      handOver(true)
    }, leaseIdleMs)
    idle.unref()
  }
  /** Another replica wants the lease: given now if no write of this replica runs or waits, else with the next commit. */
  const handOverWhenIdle = () => {
    lastWanted = performance.now()
    if (held === null) return
    wanted = true
    // Not a lease just taken with a claim: its write follows (and gives it up with its commit).
    if (!writing && waiting === 0 && !freshLease) {
      counters.leasesHandedOver++
      handOver(true)
    }
  }

  /** Gives the lease up (after the commits already sent, on the same connection). */
  const handOver = (refused = false) => {
    if (held === null) return
    const token = held
    held = null
    freshLease = false
    heldForKeeper.set(null)
    if (refused) void redis.twinRelease(keys.lease, token).catch(() => {})
  }

  /**
   * Sends the commit of one write (its operations and idempotency record) without waiting: the next
   * write of the burst runs meanwhile, on top of it, and its commit follows on the same connection.
   * Resolves when the store has it; a refusal (the lease ran out, say while the replica was stopped)
   * refuses every commit after it too, and the replica rebuilds from the log.
   */
  const commit = (t: Tx, keep: boolean): Promise<void> => {
    if (t.ops.length === 0 && !t.record) {
      if (!keep) return redis.twinRelease(keys.lease, t.token).then(() => {})
      return Promise.resolve()
    }
    const expected = applied
    const r = t.record?.logged
    // What this replica holds is the log's, plus the writes whose commits are on their way.
    applied += t.ops.length + (r ? 1 : 0)
    const reset = t.ops.some((op) => op.kind === 'reset') ? '1' : '0'
    if (r) learn(r)
    const ops = t.ops.map((op) => JSON.stringify(op))
    const logged = r ? JSON.stringify(r) : ''
    return redis
      .twinCommit(
        keys.lease,
        keys.head,
        keys.log,
        keys.gen,
        t.record?.hash ?? keys.lease,
        keys.wanted,
        keys.news,
        keys.idemIndex(gen),
        keys.cfg,
        keys.epoch,
        t.token,
        expected,
        reset,
        r ? '1' : '0',
        r?.status ?? 0,
        r?.rawBody ?? '',
        r?.headers ?? '',
        r?.permission ?? '',
        r?.expiresAt ?? 0,
        r?.startedAt ?? 0,
        keep ? '1' : '0',
        hearing ? '1' : '0',
        logged,
        MAX_RECORDS,
        epoch ?? '',
        gen,
        ...ops,
      )
      .then((result) => {
        // The twin's settings gone, or the log behind what this replica knows it had: the store lost the twin.
        const [code] = result
        if (code === -3 || code === -4 || code === -5 || code === -6 || (code === -2 && result[1]! < kept.count)) {
          counters.refusedCommits++
          dirty = true
          handOver()
          throw new TwinLost(code === -3 ? 'its settings (cfg) are gone' : code === -4 ? `its log has ${result[2]} entries though its head is ${result[1]}` : code === -5 ? epochWhy(String(result[1] ?? '')) : code === -6 ? `its generation is ${result[1]}, behind this replica's ${gen}` : `its log's head is ${result[1]}, behind the ${kept.count} entries this replica applied`)
        }
        if (result[0]! < 0) {
          counters.refusedCommits++
          if (!dirty) log(`shoptwin: replica ${replica} lost its write lease on twin '${name}' (${result[0] === -1 ? 'it ran out' : 'the log moved'}); rebuilding from the log`)
          dirty = true
          handOver(true)
          throw new StoreUnavailable(`This replica lost its write lease before it could commit (${result[0] === -1 ? 'the lease ran out' : 'the log moved'}); nothing was written; retry`)
        }
        counters.commits++
        seenHead = Math.max(seenHead, result[0]!)
        ops.forEach((op, i) => kept.push(expected + i + 1, 'op', op, t.ops[i]!.kind === 'reset'))
        if (r) kept.push(expected + ops.length + 1, 'rec', logged, false)
        // Committed: a generation gone back (its key evicted) is written back beside, not refused.
        if (result[1]! < gen) void storeLost(`its generation is ${result[1]}, behind this replica's ${gen}`).catch(() => {})
        else gen = result[1]!
        alone = result[3] === 0
        lastCommitted = result[0]!
        // Another replica asked for the lease: the write in progress, if any, gives it up with its commit.
        if (result[2] === 1) handOverWhenIdle()
      })
  }

  type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown }
  let turn: Promise<void> = Promise.resolve()

  /** Runs a write under the lease and commits what it logged (even when it threw: it changed what it logged). */
  const exclusive = <T>(run: () => T | Promise<T>): T | Promise<T> => {
    if (tx.getStore()) return run()
    waiting++
    const previous = turn
    let pass!: () => void
    turn = new Promise<void>((resolve) => (pass = resolve))
    return previous
      .then(() => {
        waiting--
        return inTurn(run, pass)
      })
      .then((outcome) => {
        if (!outcome.ok) throw outcome.error
        return outcome.value
      })
  }

  /** One write in this replica's turn; `pass` lets the next one run (once this one's commit is sent). */
  async function inTurn<T>(run: () => T | Promise<T>, pass: () => void): Promise<Outcome<T>> {
    writing = true
    // Once: the next write of this replica may be writing by the time this one's commit is back.
    let finished = false
    const done = () => {
      if (!finished) {
        finished = true
        writing = false
        lastWrite = performance.now()
        keepWhileBusy()
      }
      pass()
    }
    try {
      let committed: Promise<void>
      let outcome: Outcome<T>
      // Store errors become 503 (guard); the write's own outcome, an answer or an error, passes through as it is.
      await guard(async () => {
        if (leaseComing) await leaseComing
        // A rebuild (after a refused commit) takes a while: done before the lease, not under it.
        if (dirty && held === null) await catchUp()
        // Kept, but not surely still its own (the replica was stopped or paused past half its time):
        // given up, and taken anew (the log may have moved meanwhile).
        if (held !== null && !leaseFresh()) handOver(true)
        if (held === null) await acquireLease()
        else if (freshLease) freshLease = false
        else counters.heldWrites++
      })
      const t: Tx = { token: held!, ops: [] }
      try {
        outcome = { ok: true, value: await tx.run(t, run) }
      } catch (error) {
        outcome = { ok: false, error }
      }
      if (holdWriteMs > 0) {
        // Said, so a test stops the replica here and not in a round trip.
        log(`shoptwin: replica ${replica} holds write ${++counters.heldForTest} for ${holdWriteMs} ms before its commit (SHOPTWIN_HOLD_WRITE_MS)`)
        await new Promise((resolve) => setTimeout(resolve, holdWriteMs))
      }
      // The lease stays with this replica after its write (the next one here needs no round trip to
      // take it), unless another replica asked for it, or did or wrote in the last second (replicas
      // that take turns, behind a round-robin balancer, each get it with their claim: one round trip,
      // not an ask and a hand-over).
      const keep = !wanted && !dirty && (waiting > 0 || performance.now() - lastWanted > CONTENDED_MS)
      committed = commit(t, keep).catch(async (error: unknown) => {
        // Not known to be committed: what this replica holds may differ from the log.
        dirty = true
        handOver(true)
        if (error instanceof StoreUnavailable) throw error
        if (error instanceof TwinLost) {
          await storeLost(error.why).catch(() => {})
          throw new StoreUnavailable(orphaned ?? `The shared state store had lost twin '${name}' when this write was committed; a replica restored the twin (nothing of this write was written); retry with the same Idempotency-Key`)
        }
        counters.storeErrors++
        const said = failure(error)
        watch.storeFailed(error, said)
        // Refused before it was sent (the connection was down): nothing was written.
        if (notSent(error)) throw new StoreUnavailable(`The shared state store is unavailable (${said.reason}); nothing was written; retry shortly`)
        throw new StoreUnavailable(`The shared state store went away while this write was committed (${said.reason}): it may have been written; retry with the same Idempotency-Key`, { outcomeUnknown: true })
      })
      if (!keep) handOver()
      // A reset starts a new generation of records and counters: the next write needs its number.
      if (t.ops.some((op) => op.kind === 'reset')) await committed
      done()
      await committed
      return outcome
    } finally {
      done()
    }
  }

  const store: TwinStore & { attach(s: MockState): void; replica: string; traces?: SharedTraces; ready(): Promise<void> } = {
    kind: 'redis',
    shared: true,
    replica,
    attach(s) {
      state = s
      records = createIdempotencyStore(s.clock, { ttlMs: TTL_MS, inFlightMs: IN_FLIGHT_MS, maxRecords: MAX_RECORDS })
      // The replica's traces also go to the store (its sink), read there by every replica.
      store.traces = createRedisTraces(shared, s.traces)
    },
    beforeChange() {
      if (!tx.getStore()) throw new NeedsExclusive()
    },
    logged(op) {
      tx.getStore()!.ops.push(op)
    },
    sync() {
      return tx.getStore() ? undefined : catchUp()
    },
    exclusive,
    async readOrWrite(run) {
      if (tx.getStore()) return run()
      try {
        return await run()
      } catch (error) {
        if (error instanceof NeedsExclusive) return exclusive(run)
        throw error
      }
    },
    get head() {
      return applied
    },
    /** The appends' connection is up and the first block of trace ids taken. */
    async ready() {
      await listening
      if (refused) throw permissionRefusal(refused, keys.prefix)
      await batch.ready()
      await store.traces?.ready()
      watch.start()
    },
    rateLimiter: undefined as unknown as RateLimiter,
    syncAhead: undefined as unknown as TwinStore['syncAhead'],
    idempotency: undefined as unknown as IdempotencyStore,
    activity: undefined as unknown as ActivityStore,
    async metrics() {
      const started = performance.now()
      let logHead: number | null = null
      try {
        logHead = Number((await redis.get(keys.head)) ?? 0)
      } catch {
        // reported as store_connected: false
      }
      return {
        store: 'redis',
        twin: name,
        replica,
        // The connection is up and the last calls answered (a cluster's client stays up while the twin's master is away).
        store_connected: redis.status === 'ready' && !watch.storeAway,
        log_head: logHead,
        applied,
        lag: logHead === null ? null : logHead - applied,
        generation: gen,
        store_rtt_ms: Number((performance.now() - started).toFixed(3)),
        store_rtt_ewma_ms: Number(rttMs.toFixed(3)),
        commits: counters.commits,
        refused_commits: counters.refusedCommits,
        rebuilds: counters.rebuilds,
        // The store lost the twin (found by this replica), and restores it wrote; its copy of the log for that.
        twin_losses: counters.twinLosses,
        twin_restores: counters.twinRestores,
        twin_orphaned: orphaned !== null,
        // Looks each second at whether the store still holds the twin (one pipeline of two commands, not in store_commands).
        twin_probes: counters.probes,
        restore_copy_entries: kept.count,
        restore_copy_bytes: kept.whole ? kept.bytes : null,
        store_errors: counters.storeErrors,
        lease_wait_ms_total: counters.leaseWaitMs,
        // Leases taken, and writes that found the lease still held from the one before (a burst).
        lease_acquisitions: counters.leases,
        writes_under_held_lease: counters.heldWrites,
        // Requests whose catch-up went with their rate limit or claim in one round trip, and keyed writes whose claim (and lease) went with it.
        rate_limit_with_catch_up: counters.takenWithSync,
        claims_with_catch_up: counters.claimedWithSync,
        // Keyed writes' claims decided under the lease this replica kept, on the records the log has (no round trip before the write).
        claims_under_lease: counters.claimedUnderLease,
        // Leases given to another replica that asked while this one kept it without writing.
        leases_handed_over: counters.leasesHandedOver,
        operations_caught_up: counters.caughtUp,
        // Heads heard on the twin's channel, and the operations applied on hearing them (before a request asked).
        pushes_received: counters.pushes,
        operations_caught_up_by_push: counters.caughtUpByPush,
        // Commands sent on the requests' connection; the appends (activity, journal and trace entries) go on their own, a pipeline per burst (append_flushes).
        store_commands: counters.commands,
        ...batch.metrics(),
        ...store.traces?.metrics(),
        ...watch.metrics(),
        // Every replica heard from in the last 30 s: its applied head (reported each second it moves) and its lag.
        replicas: await watch.replicas(logHead),
      }
    },
    async close() {
      await watch.close()
      await batch.close()
      await keeper.terminate()
      listener.disconnect()
      await redis.quit().catch(() => redis.disconnect())
    },
  }

  const now = () => state.clock.nowMs()
  const rateLimiter: RateLimiter = {
    perSecond: config.perSecond,
    perDay: config.perDay,
    trackedPairs: -1,
    take: (apiKey, shopId) =>
      guard(async () => {
        const t = now()
        const { keyId, day, midnight, perSecond, perDay } = windowOf(apiKey, t)
        const [allowed, window, retryAfter, secondCount, windowStart, dayCount] = await redis.twinRateLimit(keys.rateRecent(gen, keyId, shopId), keys.rateDay(gen, keyId, shopId, day), t, perSecond, perDay, midnight)
        return decisionOf(allowed, window, retryAfter, secondCount, windowStart, dayCount, day)
      }),
    // A reset starts a new generation in the commit that logs it.
    clear: () => {},
  }

  /**
   * A request's catch-up and what it asks next (its rate-limit slot, a keyed write's claim and the
   * write lease) in one round trip, when nothing changed; else it catches up and nothing is done.
   */
  const syncAhead = (ask: AheadAsk) =>
    guard(async (): Promise<Ahead | undefined> => {
      if (dirty) {
        await catchUp()
        return undefined
      }
      // A keyed write on the replica that holds the lease: the log moves only by its commits, so it
      // is at the head, and its records are the twin's. Without a rate limit, no round trip before
      // the write; with one, the slot and the claim in one (the store's head not checked: some of
      // this replica's commits may be on their way).
      const underLease = ask.claim !== undefined && holdsLease()
      if (underLease && !ask.rate) {
        const claim = claimLocally(ask.claim!.shopId, ask.claim!.key)
        return { claimed: { claim, release: () => releaseClaim(ask.claim!.shopId, ask.claim!.key, claim) } }
      }
      const t = now()
      const rate = ask.rate && windowOf(ask.rate.apiKey, t)
      const recent = ask.rate ? keys.rateRecent(gen, rate!.keyId, ask.rate.shopId) : keys.head
      const dayKey = ask.rate ? keys.rateDay(gen, rate!.keyId, ask.rate.shopId, rate!.day) : keys.head
      const record = ask.claim ? keys.idem(gen, ask.claim.shopId, ask.claim.key) : keys.head
      // The lease comes with the claim unless another write of this replica holds or waits for it.
      const lease = ask.claim ? leaseWithClaim() : undefined
      const started = performance.now()
      let r: Array<string | number>
      try {
        r = await redis.twinSyncAhead(keys.head, keys.gen, recent, dayKey, record, keys.idemIndex(gen), keys.lease, keys.wanted, keys.news, keys.epoch, underLease ? -1 : applied, gen, t, rate?.perSecond ?? 0, rate?.perDay ?? 0, rate?.midnight ?? 0, ask.rate ? '1' : '0', ask.claim ? '1' : '0', IN_FLIGHT_MS, MAX_RECORDS, lease ? '1' : '0', lease?.token ?? '', leaseMs, replica, epoch ?? '')
        if (r[9] === 1) await lease!.taken(Number(r[0]), Number(r[1]), epoch ?? '')
      } finally {
        lease?.settle()
      }
      noteRtt(started)
      seenHead = Number(r[0])
      if (r.length === 3) {
        adoptGeneration(Number(r[1]))
        if (seenHead < kept.count) throw new TwinLost(`its log's head is ${seenHead}, behind the ${kept.count} entries this replica applied`)
        adoptEpoch(String(r[2]))
        await applyUpTo(seenHead)
        return undefined
      }
      counters.takenWithSync++
      const done: Ahead = {}
      if (ask.rate) {
        const [, , allowed, window, retryAfter, secondCount, windowStart, dayCount] = r as number[]
        done.taken = {
          decision: decisionOf(allowed!, String(window), retryAfter!, secondCount!, windowStart!, dayCount!, rate!.day),
          // The instant is the one the script pushed: removing it gives the slot back.
          giveBack: () => void redis.twinRefund(recent, dayKey, String(t)).catch(() => counters.storeErrors++),
        }
      }
      if (r[8] !== '') {
        counters.claimedWithSync++
        const { shopId, key } = ask.claim!
        const claim = startedHere(shopId, key, claimAnswer([r[8], ...r.slice(10)].map(String)))
        const token = r[9] === 1 ? lease!.token : ''
        done.claimed = { claim, release: () => releaseClaim(shopId, key, claim, token) }
      }
      return done
    })

  /**
   * This replica holds the lease (none of its writes is asking for it), surely: its last take or
   * renewal the store confirmed was sent less than half the lease's time ago (a replica stopped or
   * paused longer may have lost it unknowingly, and goes to the store); and the twin logs its records.
   */
  const holdsLease = () => held !== null && recordsLogged && !dirty && !acquiring && leaseComing === null && leaseFresh()
  const leaseFresh = () => epochNow() - heldForKeeper.confirmedAt() < leaseMs / 2

  /**
   * A claim decided under the lease, on the records the log has (the twin's: no other replica writes
   * meanwhile): no round trip. When another replica listens, the store hears of a start without this
   * write waiting for it, so a request with the same key there meets it in flight, as it would here.
   */
  const claimLocally = (shopId: string, key: string): IdempotencyClaim => {
    counters.claimedUnderLease++
    const claim = records.claim(shopId, key)
    // No other replica to meet it (none listened at the last commit): the commit indexes the record.
    if (claim.kind === 'started' && !alone) void redis.twinClaim(keys.idem(gen, shopId, key), keys.idemIndex(gen), now(), IN_FLIGHT_MS, MAX_RECORDS).catch(() => counters.storeErrors++)
    return claim
  }

  /** A claim the store started is this replica's in flight too (a second request here with the key meets it). */
  const startedHere = (shopId: string, key: string, claim: IdempotencyClaim) => {
    if (claim.kind === 'started') records.claim(shopId, key)
    return claim
  }

  /**
   * Frees a started claim: here, unless the log has completed the key meanwhile (another replica's
   * write), and in the store, where only a record still in flight goes. `token`: the lease taken with
   * the claim, given back if no write of this replica took it meanwhile.
   */
  const releaseClaim = async (shopId: string, key: string, claim: IdempotencyClaim, token = '') => {
    if (claim.kind !== 'started') return
    if (records.lookup(shopId, key)?.status === 'processing') records.release(shopId, key)
    const ours = token !== '' && freshLease && held === token
    if (ours) {
      freshLease = false
      handOver()
    }
    await redis.twinReleaseClaim(keys.idem(gen, shopId, key), keys.lease, ours ? token : '').catch(() => counters.storeErrors++)
  }

  /**
   * A claim's round trip that may bring the free lease: none while another write of this replica holds
   * or asks for it (it would wait on itself). `taken` makes it this replica's, for that write.
   */
  function leaseWithClaim() {
    if (held !== null || waiting > 0 || dirty || leaseComing || acquiring) return undefined
    const token = `${replica}:${randomUUID()}`
    let settle!: () => void
    // Until its answer is here, no other write of this replica asks for the lease.
    leaseComing = new Promise<void>((resolve) => (settle = resolve))
    // Sent at once, with the claim.
    const sent = epochNow()
    return {
      token,
      settle: () => {
        leaseComing = null
        settle()
      },
      taken: async (head: number, g: number, e: string) => {
        await leaseTaken(token, head, g, sent, e)
        // The write follows at once; should it not (a caller that only claims), the lease goes back when idle.
        freshLease = true
      },
    }
  }

  function windowOf(apiKey: string, t: number) {
    const day = new Date(t).toISOString().slice(0, 10)
    return {
      keyId: keyIdOf(apiKey),
      day,
      midnight: Date.parse(`${day}T00:00:00Z`) + 86_400_000,
      perSecond: Number.isFinite(config.perSecond) ? config.perSecond : Number.MAX_SAFE_INTEGER,
      perDay: Number.isFinite(config.perDay) ? config.perDay : Number.MAX_SAFE_INTEGER,
    }
  }

  function decisionOf(allowed: number, window: string, retryAfter: number, secondCount: number, windowStart: number, dayCount: number, day: string): RateDecision {
    const counts = { secondCount: Number(secondCount), windowStart: Number(windowStart), perSecond: config.perSecond, perDay: config.perDay, dayCount: Number(dayCount), day }
    if (allowed === 1) return { allowed: true, ...counts }
    return { allowed: false, retryAfterSeconds: Number(retryAfter), window: window as 'second' | 'day', limit: window === 'day' ? config.perDay : config.perSecond, ...counts }
  }

  const idempotency: IdempotencyStore = {
    size: -1,
    claim: (shopId, key) =>
      guard(async (): Promise<IdempotencyClaim> => {
        if (holdsLease()) return claimLocally(shopId, key)
        const record = keys.idem(gen, shopId, key)
        // The write that starts will want the lease next: asked for in the same round trip when no
        // other write of this replica holds or waits for it.
        const lease = leaseWithClaim()
        if (!lease) return startedHere(shopId, key, claimAnswer(await redis.twinClaim(record, keys.idemIndex(gen), now(), IN_FLIGHT_MS, MAX_RECORDS)))
        let r: Array<string | number>
        try {
          r = await redis.twinClaimAndAcquire(record, keys.idemIndex(gen), keys.lease, keys.head, keys.gen, keys.wanted, keys.news, keys.epoch, now(), IN_FLIGHT_MS, MAX_RECORDS, lease.token, leaseMs, replica)
          if (r[0] === 'started' && r[1] === 1) {
            try {
              await lease.taken(Number(r[2]), Number(r[3]), String(r[4] ?? ''))
            } catch (error) {
              await redis.del(record).catch(() => {})
              throw error
            }
          }
        } finally {
          lease.settle()
        }
        return startedHere(shopId, key, claimAnswer(r.map(String)))
      }),
    /**
     * Under the write's lease, at the head: the record another replica completed since this request
     * claimed the key in the store (it claimed before that write's commit; the commit completed the
     * record over its claim). The request replays it instead of writing again.
     */
    settled(shopId, key) {
      const entry = records.lookup(shopId, key)
      if (entry?.status !== 'completed') return undefined
      // This request's claim in the store goes: the record as the log has it is put back in its place
      // (the write's commit completed it over the claim; the store's GC may have taken it since).
      const logged: LoggedRecord = { shop: shopId, key, status: entry.responseStatus!, rawBody: entry.rawBody!, headers: JSON.stringify(entry.headers ?? {}), permission: entry.permission ?? '', startedAt: entry.startedAt, expiresAt: entry.expiresAt! }
      storeRecord(keys.idem(gen, shopId, key), logged).catch(() => counters.storeErrors++)
      return { kind: 'replay', entry }
    },
    complete(shopId, key, response) {
      const t = tx.getStore()
      const hash = keys.idem(gen, shopId, key)
      const logged: LoggedRecord = { shop: shopId, key, status: response.status, rawBody: response.rawBody, headers: JSON.stringify(response.headers ?? {}), permission: response.permission ?? '', startedAt: now(), expiresAt: now() + TTL_MS }
      // In a write, the record is committed with it; otherwise (never, today) on its own.
      if (t) {
        t.record = { hash, logged }
        return
      }
      return guard(() => storeRecord(hash, logged))
    },
    release: (shopId, key) =>
      guard(async () => {
        await releaseClaim(shopId, key, { kind: 'started' })
      }),
    lookup: (shopId, key) =>
      guard(async () => {
        const [status, startedAt, expiresAt, responseStatus, rawBody, headers, permission] = await redis.hmget(keys.idem(gen, shopId, key), 'status', 'startedAt', 'expiresAt', 'responseStatus', 'rawBody', 'headers', 'permission')
        const t = now()
        if (status === 'processing' && t - Number(startedAt) < IN_FLIGHT_MS) return { status: 'processing', startedAt: Number(startedAt) } as IdempotencyEntry
        // Completed records as the log has them (caught up before this read), as a write decides on
        // them under the lease: live until 24 h on the twin's clock, whatever the store's GC did; and
        // this replica's own claims in flight (a lone replica's are not sent to the store).
        if (recordsLogged) {
          const entry = records.lookup(shopId, key)
          return entry?.status === 'processing' ? { status: 'processing', startedAt: entry.startedAt } : entry
        }
        if (status === 'completed' && Number(expiresAt) > t) return entryOf(responseStatus!, rawBody!, headers ?? '', permission ?? '', startedAt!, expiresAt!)
        return undefined
      }),
    // A reset (applied from the log) starts a new generation: the records here go with the old one.
    clear: () => records.clear(),
  }

  // The activity log, the journal and the traces are not part of an answer: a request does not wait
  // for them; they go to the store together, one pipeline for a burst of requests (batch.ts).
  const appendActivity = batch.lane<string>('activity', (pipeline, entries) => {
    ;(pipeline as unknown as Commands).twinActivity(keys.activity, keys.ids.activity, keys.cfg, ACTIVITY_MAX, ids.seen('activity'), ...entries)
    // The last id numbered: the counter is at least it from now on.
    return ([id]) => {
      if (typeof id === 'number') ids.saw('activity', id)
    }
  })
  const activity: ActivityStore = {
    record(input) {
      appendActivity(JSON.stringify(input))
    },
    entries: () =>
      guard(async () => {
        // What every replica has answered, its entries still in their batches included (batch.ts).
        await batch.barrier()
        const entries = await redis.xrange(keys.activity, '-', '+')
        return entries.map(([, fields]) => ({ id: Number(fields[1]), ...(JSON.parse(fields[3]!) as Omit<ActivityEntry, 'id'>) }))
      }),
  }
  const journal = createRedisJournal(shared)
  Object.assign(store, { rateLimiter, idempotency, activity, journal, syncAhead })
  return store
}

/** spec: Limits: idempotency records are kept 24 h, a claim in flight 60 s; the store keeps the newest 10,000 (inferred: memory's bound). */
/**
 * How long a replica keeps the write lease after its last write (ms): a client's next write, sent on
 * the answer to its last, finds it still here and costs one round trip (its commit), not two. Another
 * replica that wants it asks and gets it at once; a replica killed holding it fences writes out for
 * the lease's time, as one killed mid-write does.
 */
const IDLE_MS = 50
/** How long after another replica asked for the lease a replica gives it up with each commit (ms). */
const CONTENDED_MS = 1000
const TTL_MS = 24 * 60 * 60 * 1000
const IN_FLIGHT_MS = 60 * 1000
const MAX_RECORDS = 10_000
/** How long a replica about to restore the twin waits for another that keeps more of its log to restore it (ms). */
const RESTORE_DEFER_MS = 2000

/** "a, b and c". */
function listed(words: string[]): string {
  return words.length < 2 ? (words[0] ?? 'nothing') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

/** The store no longer holds the twin this replica serves (`why`: what showed it); caught by the replica, which restores it. */
class TwinLost extends Error {
  readonly why: string
  constructor(why: string) {
    super(`the shared store lost the twin: ${why}`)
    this.why = why
  }
}

/** An idempotency record as the log keeps it (a `rec` entry, after the operations of the write it answers). */
interface LoggedRecord {
  shop: string
  key: string
  status: number
  rawBody: string
  /** JSON, as the record's hash keeps them. */
  headers: string
  permission: string
  startedAt: number
  expiresAt: number
}

function claimAnswer(r: string[]): IdempotencyClaim {
  if (r[0] === 'started') return { kind: 'started' }
  if (r[0] === 'in-flight') return { kind: 'in-flight' }
  return { kind: 'replay', entry: entryOf(r[1]!, r[2]!, r[3]!, r[4]!, r[5]!, r[6]!) }
}

function entryOf(responseStatus: string, rawBody: string, headers: string, permission: string, startedAt: string, expiresAt: string): IdempotencyEntry {
  return {
    status: 'completed',
    startedAt: Number(startedAt),
    responseStatus: Number(responseStatus),
    rawBody,
    ...(headers && headers !== '{}' ? { headers: JSON.parse(headers) as Record<string, string> } : {}),
    expiresAt: Number(expiresAt),
    ...(permission ? { permission } : {}),
  }
}

/** Opens a twin on the store: connects, adopts or creates its settings; the state is made with them, then `start` replays the log. */
export async function openRedisTwin(url: string, name: string, flags: ReplicaFlags, options: RedisTwinOptions = {}) {
  const redis = await connectRedis(url)
  try {
    // Not an error: the replica serves on a store that may lose its twin, and says so once.
    for (const line of await durabilityLines(redis, name, redactStoreUrl(url))) (options.log ?? ((l: string) => console.error(l)))(line)
    const { config, created } = await adoptTwinConfig(redis, name, flags)
    // A twin made before epochs were kept gets its first here (whoever comes first).
    await redis.set(twinKeys(name).epoch, `${randomUUID().slice(0, 8)} - 0`, 'NX')
    const twin = createRedisTwin(redis, name, config, options)
    return {
      config,
      created,
      twin,
      /** The factory MockStateOptions.twin takes. */
      attach: (state: MockState) => {
        twin.attach(state)
        return twin
      },
      /** Replays the log (the replica is then the twin as it is). */
      start: async () => {
        try {
          await twin.sync()
          await twin.ready()
        } catch (error) {
          throw isPermissionRefusal(error) ? permissionRefusal(error, twinKeys(name).prefix) : error
        }
      },
    }
  } catch (error) {
    redis.disconnect()
    throw isPermissionRefusal(error) ? permissionRefusal(error, twinKeys(name).prefix) : error
  }
}
