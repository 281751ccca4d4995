/**
 * The numbers a shared twin hands out from counters in the store: trace ids (the `x-shoptwin-trace`
 * header, `GET /__admin/traces/<id>`), the journal's entry ids (`GET /__admin/requests`) and the
 * activity log's (`GET /account/activity`). An operator or a client keeps them: one given twice names
 * two things. The store may lose its counters with the twin (index.ts: When the store loses the twin),
 * and a counter that started over would give them again.
 *
 * So every replica remembers, for each counter, the highest value the store had as it saw it (a
 * trace block's top, the last id a flush numbered, what its look each second read) and the highest
 * id it gave out. A counter behind what a replica saw was lost (a counter never goes back: ids go on
 * after a reset or a clear): the replica numbers nothing on it, and the twin is restored. The replica
 * that restores first asks every other for their highest (they may have given out ids it never saw:
 * the last flush before the loss may be another's), and the restore script sets each counter past the
 * highest any of them knows, with the log, in one step. A replica that does not answer (stopped) and
 * finds a counter behind its own later moves it past its own, in the same checked script.
 */

export type IdKind = 'trace' | 'journal' | 'activity'
export const ID_KINDS: readonly IdKind[] = ['trace', 'journal', 'activity']

/** What the counters are called in a line. */
const NAMES: Record<IdKind, string> = { trace: 'trace ids', journal: 'journal ids', activity: 'activity ids' }

/** The counters' keys under the twin's prefix (`trace:ids` the last trace id granted, `journal:id` and `activity:id` the last entry's). */
export function idKeys(prefix: string): Record<IdKind, string> {
  return { trace: `${prefix}trace:ids`, journal: `${prefix}journal:id`, activity: `${prefix}activity:id` }
}

/**
 * Lua for a script that numbers: refuses (an error reply, so the batch counts its entries lost and the
 * operator reads why) when the twin's settings are gone or the counter is behind what this replica saw.
 * `lostIds(cfg, counter, seen, name)` returns the error's text, or nil.
 */
export const LOST_IDS = `
local function lostIds(cfg, counter, seen, name)
  if redis.call('EXISTS', cfg) == 0 then
    return 'TWINLOST the store lost the twin (its settings are gone): no ' .. name .. ' numbered until a replica restores it'
  end
  local n = tonumber(redis.call('GET', counter) or '0')
  if n < tonumber(seen) then
    return "TWINLOST the store lost the " .. name .. " counter (" .. n .. ", behind the " .. seen .. " this replica saw): none numbered until a replica moves it past every replica's"
  end
  return nil
end
`

/** Lua: moves a counter to `high` if it is behind; returns its value and 1 when it moved. */
export const RAISE_IDS = `
local function raiseIds(counter, high)
  local n = tonumber(redis.call('GET', counter) or '0')
  if n < tonumber(high) then
    redis.call('SET', counter, high)
    return tonumber(high), 1
  end
  return n, 0
end
`

/** A replica's marks of the twin's counters. */
export interface IdMarks {
  /** The store's counter had `n` (a reply, a look): it is never behind it unless the store lost it. */
  saw(kind: IdKind, n: number): void
  /** This replica gave out id `n` (a trace numbered past its block while the store was away is not seen). */
  gave(kind: IdKind, n: number): void
  seen(kind: IdKind): number
  /** The highest this replica knows of: what it saw and what it gave out. */
  high(kind: IdKind): number
  /** Why a look at the counters (`null`: absent) shows them lost, or ''. */
  behind(values: Record<IdKind, number | null>, seen: Record<IdKind, number>): string
  /** The marks as one replica answers another's ask (`trace journal activity`). */
  answer(): string
  /** A snapshot of `seen`. */
  seenNow(): Record<IdKind, number>
}

export function createIdMarks(): IdMarks {
  const seen: Record<IdKind, number> = { trace: 0, journal: 0, activity: 0 }
  const given: Record<IdKind, number> = { trace: 0, journal: 0, activity: 0 }
  return {
    saw(kind, n) {
      if (n > seen[kind]) seen[kind] = n
    },
    gave(kind, n) {
      if (n > given[kind]) given[kind] = n
    },
    seen: (kind) => seen[kind],
    high: (kind) => Math.max(seen[kind], given[kind]),
    behind(values, before) {
      const kind = ID_KINDS.find((k) => (values[k] ?? 0) < before[k])
      if (!kind) return ''
      return `its ${NAMES[kind]} counter is ${values[kind] === null ? 'gone' : values[kind]}, behind the ${before[kind]} this replica saw`
    },
    answer: () => ID_KINDS.map((k) => Math.max(seen[k], given[k])).join(' '),
    seenNow: () => ({ ...seen }),
  }
}

/** The highest of each counter in the answers (`trace journal activity` each) and this replica's own. */
export function highestOf(own: IdMarks, answers: Iterable<string>): Record<IdKind, number> {
  const high: Record<IdKind, number> = { trace: own.high('trace'), journal: own.high('journal'), activity: own.high('activity') }
  for (const answer of answers) {
    const values = answer.split(' ').map(Number)
    ID_KINDS.forEach((k, i) => {
      const v = values[i]
      if (v !== undefined && Number.isSafeInteger(v) && v > high[k]) high[k] = v
    })
  }
  return high
}

/** "trace ids 2048, journal ids 57, activity ids 57": counters in a line. */
export function idsText(values: Record<IdKind, number>): string {
  return ID_KINDS.map((k) => `${NAMES[k]} ${values[k]}`).join(', ')
}

/** The counters a restore moved (the bits of its mask, 4 trace, 8 journal, 16 activity), in words. */
export function raisedText(mask: number, values: Record<IdKind, number>): string[] {
  return ID_KINDS.filter((_, i) => mask & (4 << i)).map((k) => `the ${NAMES[k]} counter (past ${values[k]})`)
}
