/**
 * The account's activity log as a store (spec: What the service does: "Actions by API key or
 * connector are recorded in the account's activity log"). Like the journal, it is not part of the
 * twin's log of changes: one entry per request would make every read a write. In memory it is the
 * connector data's list; on a shared store, a capped stream every replica appends to.
 */
import type { Awaitable } from '../pipeline/compose.ts'
import type { ActivityEntry } from '../connector/store.ts'

export interface ActivityStore {
  record(input: Omit<ActivityEntry, 'id'>): void
  /** The log, oldest first (at most ACTIVITY_MAX entries). */
  entries(): Awaitable<readonly ActivityEntry[]>
}

/** The in-memory store: the entries live with the connector's data (replaced by reset). */
export function createMemoryActivity(connector: () => { recordActivity(input: Omit<ActivityEntry, 'id'>): ActivityEntry; data: { activity: ActivityEntry[] } }): ActivityStore {
  return {
    record(input) {
      connector().recordActivity(input)
    },
    entries: () => connector().data.activity,
  }
}
