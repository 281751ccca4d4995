/**
 * Service-timestamped events (spec: POST /shop/stats rule 1): the world's seeded log plus the
 * events the mock records at run time (a DM sent through POST /affiliate/message/dm, an email
 * campaign sent...). Writers call `recordEvent` (the named write `events.record` of a typed state
 * several areas share, so it lives here rather than in an area); the stats read both through
 * `forEachShopEvent` and `countShopEvents`, so a write is visible in `dms_sent` / `emails_sent` at once.
 */
import { countEvents, firstEventAt, type EventKind } from '../fixtures/facts.ts'
import { defineAreaState, type DeepReadonly } from './context.ts'
import { shopStates } from './lib/shop.ts'
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

/** A shop's campaign ordinals of one kind: `ids[ordinal]` is the campaign an event's `campaign` names. */
interface OrdinalTable {
  next: number
  byId: Map<string, number>
  ids: string[]
}

interface ShopEvents {
  /** In time order. */
  events: RecordedEvent[]
  /** By kind of campaign (`automations`, `emails`). */
  ordinals: Map<string, OrdinalTable>
}

/** An event as a write takes it: its time as ISO text (writes carry plain data). */
type EventInput = Omit<RecordedEvent, 'at'> & { at: string }

/** The events recorded at run time and the campaign ordinals, per shop (not the world's seeded log, which never changes). */
export const eventsState = defineAreaState('events', (world) => shopStates(world, (): ShopEvents => ({ events: [], ordinals: new Map() })), {
  record(shops, input: { shopId: string; event: EventInput }): void {
    const { events } = shops.of(input.shopId)
    const event: RecordedEvent = { ...input.event, at: Date.parse(input.event.at) }
    events.push(event)
    // The clock can be set backwards; keep the list sorted so range scans stay simple.
    if (events.length > 1 && events[events.length - 2]!.at > event.at) events.sort((a, b) => a.at - b.at)
  },
  /** Numbers the seeded campaigns of a kind (their positions), once: the first call wins. */
  numberSeeded(shops, input: { shopId: string; slot: string; campaignIds: string[] }): void {
    const { ordinals } = shops.of(input.shopId)
    if (ordinals.has(input.slot)) return
    ordinals.set(input.slot, { next: input.campaignIds.length, byId: new Map(input.campaignIds.map((id, i) => [id, i])), ids: [...input.campaignIds] })
  },
  /** The ordinal of a campaign, the next number for one not numbered yet. */
  number(shops, input: { shopId: string; slot: string; campaignId: string }): number {
    const table = shops.of(input.shopId).ordinals.get(input.slot)!
    let ordinal = table.byId.get(input.campaignId)
    if (ordinal === undefined) {
      table.byId.set(input.campaignId, (ordinal = table.next++))
      table.ids[ordinal] = input.campaignId
    }
    return ordinal
  },
}, { stableAcrossViews: true }) // recorded events and ordinals: nothing of the world's view

/** The events recorded on a shop since the state was created or reset, in time order. */
export function recordedEvents(state: MockState, shopId: string): readonly RecordedEvent[] {
  return state.read(eventsState).of(shopId).events
}

export function recordEvent(state: MockState, shopId: string, event: RecordedEvent): void {
  state.write(eventsState, 'record', { shopId, event: { ...event, at: new Date(event.at).toISOString() } })
}

/**
 * A shop's campaign ordinals of one kind (`automations`, `emails`): the `campaign` index its events
 * carry. A seeded record's ordinal is its position in `records` at the first call (so call it before
 * changing them), a created one the next number (`campaignOrdinal`); deleting a record does not
 * renumber the others, so `ids[ordinal]` keeps naming the campaign an event belongs to.
 */
export function campaignOrdinalTable(state: MockState, shopId: string, slot: string, records: ReadonlyArray<{ campaign_id: string }>): DeepReadonly<OrdinalTable> {
  const table = state.read(eventsState).of(shopId).ordinals.get(slot)
  if (table) return table
  state.write(eventsState, 'numberSeeded', { shopId, slot, campaignIds: records.map((r) => r.campaign_id) })
  return state.read(eventsState).of(shopId).ordinals.get(slot)!
}

/**
 * The campaign an ordinal names (null when none): the table's, or before any was numbered the
 * position in `records` the first numbering will give. Reads only, for the stats.
 */
export function campaignIdOf(state: MockState, shopId: string, slot: string, records: ReadonlyArray<{ campaign_id: string }>, ordinal: number): string | null {
  const table = state.read(eventsState).of(shopId).ordinals.get(slot)
  return (table ? table.ids[ordinal] : records[ordinal]?.campaign_id) ?? null
}

/** The ordinal of one campaign of a kind, numbering it when it has none yet (see campaignOrdinalTable). */
export function campaignOrdinal(state: MockState, shopId: string, slot: string, records: ReadonlyArray<{ campaign_id: string }>, campaignId: string): number {
  const known = campaignOrdinalTable(state, shopId, slot, records).byId.get(campaignId)
  return known ?? state.write(eventsState, 'number', { shopId, slot, campaignId })
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
