/**
 * What a replica keeps of the twin's log to write it back when the store loses the twin (index.ts:
 * the store restarted without persistence, flushed, its keys evicted or deleted, a failover to an
 * empty replica): every entry it knows the store had, from the twin's creation on, as the log holds
 * them (the operation's or the record's JSON). The store's copy is the twin; this one is its spare.
 *
 * It costs about what the log costs in the store (the entries' text; measured in the README), so it
 * is bounded: past `maxBytes` the replica drops its copy and says so once; a loss of the store is
 * then answered 503 until a replica that still keeps its copy restores the twin (this one then
 * rebuilds from the store's log: index.ts, rejoin) or the operator restarts the replicas.
 */

/** The default bound of a replica's copy of the log (`SHOPTWIN_RESTORE_MAX_MB`). */
export const KEPT_MAX_BYTES = 256 * 1024 * 1024

export interface KeptLog {
  /** Entries the replica knows the store had (kept or not): a store whose head is behind it lost the twin. */
  readonly count: number
  /** The copy is whole (not dropped past the bound). */
  readonly whole: boolean
  readonly bytes: number
  /** The entry after the last reset (the current generation's records start after it). */
  readonly lastReset: number
  /** Adds the entry `seq` (the next one; another is ignored: the replica rebuilds from the log anyway). */
  push(seq: number, field: string, value: string, reset: boolean): void
  /** The entries in order, `[field, value]`. */
  entries(): Iterable<[string, string]>
  /** The last entry's value (entry `count`), while the copy is whole. */
  last(): string | undefined
}

/** A copy from the twin's creation; `onDropped` is told once when it passes the bound. */
export function createKeptLog({ maxBytes = KEPT_MAX_BYTES, onDropped = (_bytes: number) => {} } = {}): KeptLog {
  let fields: string[] = []
  let values: string[] = []
  let count = 0
  let bytes = 0
  let lastReset = 0
  let whole = true
  return {
    get count() {
      return count
    },
    get whole() {
      return whole
    },
    get bytes() {
      return bytes
    },
    get lastReset() {
      return lastReset
    },
    push(seq, field, value, reset) {
      if (seq !== count + 1) return
      count = seq
      if (reset) lastReset = seq
      if (!whole) return
      // UTF-16 in V8 at worst: two bytes a character, the field shared.
      bytes += value.length * 2 + 16
      if (bytes > maxBytes) {
        whole = false
        fields = []
        values = []
        onDropped(bytes)
        return
      }
      fields.push(field)
      values.push(value)
    },
    *entries() {
      for (let i = 0; i < values.length; i++) yield [fields[i]!, values[i]!]
    },
    last: () => (whole ? values.at(-1) : undefined),
  }
}
