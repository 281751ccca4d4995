/**
 * What the operator of a shared twin reads about a replica: the lines it logs when it loses the store
 * and finds it again, when what it appends beside its answers (journal, traces, activity log) does not
 * reach the store, and when it falls behind the twin's log; and each replica's applied head, which
 * every replica publishes so that the metrics of any one of them show the lag of all.
 *
 * One line when an episode starts, naming what failed and why; while it goes on the replica counts
 * (and says so again at most once a minute, never more); one line when it ends, with how long it
 * lasted and what it cost. A reason is the first line of the error the store or its client gave, the
 * store's password taken out: never a key, a header or a body (the entries themselves are never said).
 */
import type { Redis } from 'ioredis'
import type { AppendBatch, Lost } from './batch.ts'
import { GC_MS } from './scripts.ts'

/** Operations behind the log's head at which a replica says it fell behind (`SHOPTWIN_LAG_WARN`). */
export const LAG_WARN_OPS = 1000
/** How often a replica looks at its lag and reports its applied head (ms). */
export const WATCH_MS = 1000
/** A replica reports its head at least this often, even when it did not move (ms). */
export const REPORT_EVERY_MS = 5000
/** A replica not heard from for this long is dropped from the others' metrics (ms). */
export const REPORT_STALE_MS = 30_000
/** While an episode goes on, it is said again at most this often (ms). */
export const REMIND_MS = 60_000

/** What the client says of a command while it is not connected (the connection's reason says more). */
const OFFLINE = /enableOfflineQueue|maxRetriesPerRequest|Connection is closed/

/** The client refused the command before sending it (no connection, no offline queue): the store never saw it. */
export const notSent = (error: unknown) => error instanceof Error && /enableOfflineQueue/.test(error.message)

/** The longest reason a line gives (a Lua error can quote a whole script). */
const REASON_MAX = 200

/** An error's first line, short, without the given secrets (the store's password). */
export function reasonOf(error: unknown, secrets: Array<string | undefined> = []): string {
  let text = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim() || 'no reason given'
  for (const secret of secrets) if (secret) text = text.split(secret).join('REDACTED')
  // A URL with credentials, whoever wrote it in the message.
  text = text.replace(/\/\/([^:@/\s]*):[^@/\s]*@/g, '//$1:REDACTED@')
  return text.length > REASON_MAX ? `${text.slice(0, REASON_MAX - 1)}…` : text
}

/** Seconds, one decimal. */
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

export interface Episode {
  /**
   * Something failed: the first failure of an episode is said; the others are counted (and reminded
   * of, at most once a minute). `counted` false: a sign of it (a reconnection attempt), not a failure.
   */
  fail(reason: string, counted?: boolean): void
  /** It works again: the end of the episode is said, once. */
  ok(): void
  readonly active: boolean
  /** Episodes so far. */
  readonly episodes: number
}

export interface EpisodeText {
  start(reason: string): string
  /** Said at most once a minute while it goes on: `failures` since it started, `ms` it has lasted. */
  still(reason: string, failures: number, ms: number): string
  end(failures: number, ms: number): string
}

/** One kind of trouble, said once when it starts and once when it ends (`now`: wall clock ms, a test's clock). */
export function episode(log: (line: string) => void, text: EpisodeText, { now = Date.now, remindMs = REMIND_MS } = {}): Episode {
  let since = 0
  let said = 0
  let failures = 0
  let active = false
  let episodes = 0
  return {
    fail(reason, counted = true) {
      const t = now()
      if (!active) {
        active = true
        episodes++
        since = said = t
        failures = counted ? 1 : 0
        log(text.start(reason))
        return
      }
      if (counted) failures++
      if (t - said >= remindMs) {
        said = t
        log(text.still(reason, failures, t - since))
      }
    },
    ok() {
      if (!active) return
      active = false
      log(text.end(failures, now() - since))
    },
    get active() {
      return active
    },
    get episodes() {
      return episodes
    },
  }
}

/** "3 journal entries, 1 trace": what a failed append lost, in words. */
export function lostText(lost: Lost): string {
  const words = { journal: ['journal entry', 'journal entries'], traces: ['trace', 'traces'], activity: ['activity entry', 'activity entries'] } as const
  const parts = (Object.keys(words) as Array<keyof typeof words>).filter((k) => lost[k]).map((k) => `${lost[k]} ${words[k][lost[k] === 1 ? 0 : 1]}`)
  return parts.length ? parts.join(', ') : 'nothing'
}

/**
 * Publishes a replica's applied head and drops those of replicas not heard from for a while.
 * KEYS: the twin's replicas hash. ARGV: replica, applied head, stale ms, gc ms. The store's own clock
 * dates each report (replicas on other machines may disagree on the time).
 */
export const REPORT_HEAD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. now)
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local at = tonumber(string.match(all[i + 1], ' (%d+)$'))
  if at and now - at > tonumber(ARGV[3]) then redis.call('HDEL', KEYS[1], all[i]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`

/** One replica as the metrics show it. */
export interface ReplicaRow {
  replica: string
  /** Its applied head when it last reported (this replica's: now). */
  applied: number
  /** The log's head less `applied` (null when the head is not known: the store is away). */
  lag: number | null
  /** How long ago it reported (0 for this replica). */
  reported_ms_ago: number
}

export interface WatchOptions {
  redis: Redis
  batch: AppendBatch
  log: (line: string) => void
  /** The twin's key prefix, `st:{tw:NAME}:`. */
  prefix: string
  twin: string
  replica: string
  /** The store's URL as logs show it (its password hidden). */
  store: string
  /** What must never be said (the store's password). */
  secrets?: Array<string | undefined>
  /** What this replica applied of the log, and the log's head as it last heard it. */
  position(): { applied: number; seen: number }
  lagWarnOps?: number
  /** Called each WATCH_MS too (the replica's look at whether the store still holds its twin). */
  tick?: () => void
}

/** The lines and the head reports of one replica. */
export function createOperatorWatch({ redis, batch, log, prefix, twin, replica, store, secrets = [], position, lagWarnOps = LAG_WARN_OPS, tick = () => {} }: WatchOptions) {
  const who = `shoptwin: replica ${replica} of twin '${twin}'`
  // The connection's own reason (the last error it had) stands for the client's "not connected" messages.
  let lastError = ''
  const reason = (error: unknown) => {
    const text = reasonOf(error, secrets)
    return OFFLINE.test(text) ? `not connected: ${lastError || 'the connection closed'}` : text
  }

  /** A failure in the caller's words when it rephrased it (a cluster's master named), else the client's own ("not connected" with the connection's reason). */
  const plainly = (error: unknown, said?: { reason: string }) => (said && said.reason !== reasonOf(error, secrets) ? said.reason : reason(error))

  const storeEpisode = episode(log, {
    start: (why) => `${who}: the shared store ${store} is unreachable (${why}); requests get 503 until it is back`,
    still: (why, n, ms) => `${who}: the shared store ${store} is still unreachable after ${seconds(ms)} (${why}; ${n} calls to it failed so far)`,
    end: (n, ms) => `${who}: the shared store ${store} is back after ${seconds(ms)} (${n} calls to it failed meanwhile)`,
  })
  // The store answers as another kind of store than the replica connected to (store-errors.ts): said with what to do.
  let advice = ''
  const topologyEpisode = episode(log, {
    start: (why) => `${who}: ${why}; requests get 503 while it answers so. To do: ${advice}`,
    still: (why, n, ms) => `${who}: still after ${seconds(ms)}: ${why} (${n} calls to it failed so far). To do: ${advice}`,
    end: (n, ms) => `${who}: the shared store ${store} answers as the store it connected to again, after ${seconds(ms)} (${n} calls to it failed meanwhile)`,
  })
  let lostSoFar: Lost = {}
  const add = (lost: Lost) => {
    for (const [kind, n] of Object.entries(lost) as Array<[keyof Lost, number]>) lostSoFar[kind] = (lostSoFar[kind] ?? 0) + n
  }
  const appendEpisode = episode(log, {
    start: (why) => `${who}: its journal, trace and activity entries do not reach the shared store (${why}); lost: ${lostText(lostSoFar)}`,
    still: (why, n, ms) => `${who}: its journal, trace and activity entries still do not reach the shared store after ${seconds(ms)} (${why}); lost so far: ${lostText(lostSoFar)} in ${n} batches`,
    end: (n, ms) => `${who}: its journal, trace and activity entries reach the shared store again after ${seconds(ms)} (lost meanwhile: ${lostText(lostSoFar)} in ${n} batches)`,
  })
  const lagNow = () => {
    const { applied, seen } = position()
    return { applied, seen, lag: Math.max(0, seen - applied) }
  }
  /** The most it was behind in the episode. */
  let maxLag = 0
  const behindEpisode = episode(log, {
    start: (why) => `${who} is behind the log: ${why}; its requests wait until it catches up`,
    still: (why, _n, ms) => `${who} is still behind the log after ${seconds(ms)}: ${why}`,
    end: (_n, ms) => `${who} caught up with the log (head ${lagNow().applied}) after ${seconds(ms)} behind (at most ${maxLag} operations)`,
  })

  // The main connection: lost (ioredis reconnects: said once), found again.
  redis.on('error', (error: Error) => {
    lastError = reasonOf(error, secrets)
  })
  redis.on('reconnecting', () => storeEpisode.fail(lastError || 'the connection closed', false))
  redis.on('ready', () => {
    lastError = ''
    storeEpisode.ok()
  })

  let timer: ReturnType<typeof setInterval> | undefined
  let reported = { applied: -1, at: 0 }
  const hashKey = `${prefix}replicas`
  batch.define('twinReportHead', 1, REPORT_HEAD)
  const report = batch.lane<number>('heads', (pipeline, heads) => {
    ;(pipeline as unknown as { twinReportHead(key: string, ...args: Array<string | number>): void }).twinReportHead(hashKey, replica, heads.at(-1)!, REPORT_STALE_MS, GC_MS)
  })
  // The other replicas whose reports the store held lately (this replica's clock), kept here: the
  // store may lose their reports with the twin, and a replica that restores it asks each (ids.ts).
  const peers = new Map<string, number>()

  const watch = {
    /**
     * A call to the store failed (the request gets 503): `said`, what it means when the caller read it
     * (store-errors.ts), with `topology`, what the operator must do about a store that changed kind.
     */
    storeFailed(error: unknown, said?: { reason: string; topology?: string }) {
      if (said?.topology) {
        advice = said.topology
        topologyEpisode.fail(said.reason)
      } else storeEpisode.fail(plainly(error, said))
    },
    /** Calls to the store fail now (an episode goes on): a cluster client stays 'ready' while the twin's master is away. */
    get storeAway() {
      return storeEpisode.active || topologyEpisode.active
    },
    /** A call to the store answered: ends an episode its connection's return did not (a timeout, say). */
    storeAnswered() {
      if (storeEpisode.active && redis.status === 'ready') storeEpisode.ok()
      topologyEpisode.ok()
    },
    /** A flush failed: `said`, what it means (store-errors.ts), as for a call of the requests' connection. */
    appendFailed(error: unknown, lost: Lost, said?: { reason: string; topology?: string }) {
      if (!appendEpisode.active) lostSoFar = {}
      add(lost)
      appendEpisode.fail(said?.topology ? `${said.reason}. To do: ${said.topology}` : plainly(error, said))
    },
    appendFlushed() {
      appendEpisode.ok()
    },
    /** Looks at the lag (each second, and when a push says the head moved). */
    check() {
      if (!timer) return
      const { applied, seen, lag } = lagNow()
      if (lag >= lagWarnOps) {
        maxLag = behindEpisode.active ? Math.max(maxLag, lag) : lag
        behindEpisode.fail(`${lag} operations (applied ${applied} of ${seen})`)
      } else if (lag === 0) behindEpisode.ok()
      else if (behindEpisode.active) maxLag = Math.max(maxLag, lag)
    },
    /** From the first answer on: the lag is watched and the head reported. */
    start() {
      if (timer) return
      timer = setInterval(() => {
        watch.check()
        tick()
        const { applied } = position()
        if (applied !== reported.applied || Date.now() - reported.at >= REPORT_EVERY_MS) {
          reported = { applied, at: Date.now() }
          report(applied)
        }
      }, WATCH_MS)
      timer.unref()
    },
    /** Every replica heard from lately, by id (this one live), with its lag against `logHead`. */
    async replicas(logHead: number | null): Promise<ReplicaRow[]> {
      const rows = new Map<string, ReplicaRow>()
      try {
        const [[, time], [, all]] = ((await redis.pipeline().time().hgetall(hashKey).exec()) ?? []) as [[unknown, [string, string]], [unknown, Record<string, string>]]
        const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000)
        for (const [id, value] of Object.entries(all ?? {})) {
          const [applied, at] = value.split(' ').map(Number) as [number, number]
          if (now - at > REPORT_STALE_MS) continue
          rows.set(id, { replica: id, applied, lag: logHead === null ? null : Math.max(0, logHead - applied), reported_ms_ago: Math.max(0, now - at) })
        }
      } catch {
        // The store is away: this replica alone.
      }
      const { applied } = position()
      rows.set(replica, { replica, applied, lag: logHead === null ? null : Math.max(0, logHead - applied), reported_ms_ago: 0 })
      return [...rows.values()].sort((a, b) => (a.replica < b.replica ? -1 : 1))
    },
    /** The key of the replicas' head reports. */
    reportsKey: hashKey,
    /** Replicas heard from now: their head reports in the store (read each second), their answers to an ask. */
    heard(ids: string[]) {
      const now = Date.now()
      for (const id of ids) if (id !== replica) peers.set(id, now)
    },
    /** The other replicas of the twin heard from in the last REPORT_STALE_MS, as this replica last read their reports. */
    peers(): string[] {
      const now = Date.now()
      for (const [id, at] of peers) if (now - at > REPORT_STALE_MS) peers.delete(id)
      return [...peers.keys()]
    },
    metrics: () => ({ lag_warn_ops: lagWarnOps, store_episodes: storeEpisode.episodes, topology_episodes: topologyEpisode.episodes, append_episodes: appendEpisode.episodes, behind_episodes: behindEpisode.episodes }),
    /** Stops watching; the replica's report goes (it is not there any more), after any still in the batch. */
    async close() {
      if (timer) clearInterval(timer)
      timer = undefined
      await batch.flush()
      await redis.hdel(hashKey, replica).catch(() => {})
    },
  }
  return watch
}
