/**
 * Service-timestamped events (spec: POST /shop/stats rule 1): the world's seeded log plus the
 * events the mock records at run time (a DM sent through POST /affiliate/message/dm, an email
 * campaign sent...). Writers call `recordEvent`; the stats read both through `forEachShopEvent`
 * and `countShopEvents`, so a write is visible in `dms_sent` / `emails_sent` at once.
 */
import { countEvents, firstEventAt, type EventKind } from '../fixtures/facts.ts'
import type { MockState } from './state.ts'

export interface RecordedEvent {
  kind: EventKind
  /** Epoch milliseconds, from the mock clock. */
  at: number
  /** Index into world.creators, -1 when unknown. */
  creator: number
  /** Automation index (DMs, invites) or email campaign index (emails) in the shop's records, -1 when none. */
  campaign: number
}

const SLOT = 'events'

/** The events recorded on a shop since the state was created or reset, in time order. */
export function recordedEvents(state: MockState, shopId: string): RecordedEvent[] {
  return state.shopState(shopId, SLOT, () => [] as RecordedEvent[])
}

export function recordEvent(state: MockState, shopId: string, event: RecordedEvent): void {
  const events = recordedEvents(state, shopId)
  events.push(event)
  // The clock can be set backwards; keep the list sorted so range scans stay simple.
  if (events.length > 1 && events[events.length - 2]!.at > event.at) events.sort((a, b) => a.at - b.at)
}

/**
 * A shop's campaign ordinals of one kind (`automations`, `emails`): the `campaign` index its events
 * carry. A seeded record's ordinal is its position in the world's array (numbered at the first call,
 * so call it before changing `records`), a created one the next number; deleting a record does not
 * renumber the others, so `ids[ordinal]` keeps naming the campaign an event belongs to.
 */
export function campaignOrdinalTable(state: MockState, shopId: string, slot: string, records: ReadonlyArray<{ campaign_id: string }>) {
  return state.shopState(shopId, `events/ordinals/${slot}`, () => ({ next: records.length, byId: new Map(records.map((r, i) => [r.campaign_id, i])), ids: records.map((r) => r.campaign_id) }))
}

/** Number of events of `kind` in [fromMs, toMs), seeded and recorded. */
export function countShopEvents(state: MockState, shopId: string, kind: EventKind, fromMs: number, toMs: number, campaign?: number): number {
  const log = state.world.shopData[shopId]!.events
  let n = countEvents(log, kind, fromMs, toMs, campaign)
  for (const e of recordedEvents(state, shopId)) {
    if (e.kind === kind && e.at >= fromMs && e.at < toMs && (campaign === undefined || e.campaign === campaign)) n++
  }
  return n
}

/** Calls `fn` for every event of the given kinds in [fromMs, toMs), seeded first, then recorded. */
export function forEachShopEvent(
  state: MockState,
  shopId: string,
  kinds: readonly EventKind[],
  fromMs: number,
  toMs: number,
  fn: (event: RecordedEvent) => void,
): void {
  const log = state.world.shopData[shopId]!.events
  const wanted = new Set(kinds.map((k) => log.kinds.indexOf(k)))
  for (let i = firstEventAt(log, fromMs); i < log.count && log.at[i]! < toMs; i++) {
    if (wanted.has(log.kind[i]!)) fn({ kind: log.kinds[log.kind[i]!]!, at: log.at[i]!, creator: log.creator[i]!, campaign: log.campaign[i]! })
  }
  for (const e of recordedEvents(state, shopId)) {
    if (kinds.includes(e.kind) && e.at >= fromMs && e.at < toMs) fn(e)
  }
}
