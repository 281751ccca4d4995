/**
 * Date windows and range checks: the day indexes a `{from, to}` range covers, and the one message
 * every range of the spec refuses a reversed range with.
 */
import { calendarDateOf, DAY_MS, timeZoneOffsetMs, toUsDate, type DayAxis, type ShopData } from '../../fixtures/index.ts'
import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { World } from '../world.ts'

/** 400 `<fromName> must not be after <toName>` when `from` is after `to` (ISO dates, day indexes or epoch ms). */
export function assertNotAfter<T extends number | string>(from: T, to: T, fromName: string, toName: string): void {
  if (from > to) throw apiError(400, messages.rangeOrder(fromName, toName))
}

/** 400 `<field>.from must not be after <field>.to` when `from` is after `to`. */
export const assertRangeOrder = <T extends number | string>(from: T, to: T, field: string): void => assertNotAfter(from, to, `${field}.from`, `${field}.to`)

/** Inclusive day indexes of a request's window; `ranged` false means all-time. */
export interface DayWindow {
  from: number
  to: number
  ranged: boolean
}

/**
 * The window of an optional `{from, to}` range: all-time (the whole axis) without one; 400 naming
 * the field when from is after to. Days outside the axis are kept as they are: they simply hold no facts.
 */
export function dayWindow(world: World, range: { from?: string; to?: string } | null | undefined, field = 'date_range'): DayWindow {
  if (!range) return { from: 0, to: world.axis.todayIndex, ranged: false }
  const from = range.from !== undefined ? world.axis.dayIndex(range.from) : 0
  const to = range.to !== undefined ? world.axis.dayIndex(range.to) : world.axis.todayIndex
  assertRangeOrder(from, to, field)
  return { from, to, ranged: true }
}

export const inWindow = (day: number, w: DayWindow): boolean => day >= w.from && day <= w.to

/** Day indexes of a required, inclusive `{from, to}` range on a fact axis; 400 when from is after to. */
export function dayIndexes(axis: DayAxis, range: { from: string; to: string }, field: string): { fromDay: number; toDay: number } {
  assertRangeOrder(range.from, range.to, field)
  return { fromDay: axis.dayIndex(range.from), toDay: axis.dayIndex(range.to) }
}

/** MM/DD/YYYY of a day index (Video post_time, LIVE start_time). */
export const usDateOf = (world: World, day: number): string => toUsDate(world.axis.date(day))

/** The calendar date (YYYY-MM-DD) of an instant in an IANA time zone. */
export function dateInZone(instant: Date, timeZone: string): string {
  return calendarDateOf(new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }), instant)
}

/** The shop's local date (its calendar) of an instant, plus `days`. */
export function shopLocalDate(data: ShopData, instant: Date, days = 0): string {
  return data.calendar.axis.date(data.calendar.dayOf(instant.getTime()) + days)
}

/** Formats kept by timezone for localDayStartMs (a timezone can be client input: bounded). */
const offsetFormats = new Map<string, Intl.DateTimeFormat>()

/** The format timeZoneOffsetMs reads a timezone's wall time with (its own options), built once per timezone. */
function offsetFormat(timeZone: string): Intl.DateTimeFormat {
  let format = offsetFormats.get(timeZone)
  if (!format) {
    if (offsetFormats.size >= 64) offsetFormats.clear()
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    offsetFormats.set(timeZone, format)
  }
  return format
}

/** Epoch ms of the start of the local day (in `timeZone`) that contains `ms`. */
export function localDayStartMs(timeZone: string, ms: number): number {
  const format = offsetFormat(timeZone)
  const offset = timeZoneOffsetMs(timeZone, ms, format)
  const wallMidnight = Math.floor((ms + offset) / DAY_MS) * DAY_MS
  return wallMidnight - timeZoneOffsetMs(timeZone, wallMidnight - offset, format)
}

// Building an Intl.DateTimeFormat costs more than the rest of a small stats request: answers are kept.
const knownTimeZones = new Map<string, boolean>()

/** True for a name Intl knows as an IANA timezone. */
export function isTimeZone(name: string): boolean {
  let known = knownTimeZones.get(name)
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: name })
      known = name.trim() !== ''
    } catch {
      known = false
    }
    // Bounded: names are client input.
    if (knownTimeZones.size >= 1000) knownTimeZones.clear()
    knownTimeZones.set(name, known)
  }
  return known
}

/** spec: POST /shop/stats rule 1 (and Dashboards: data): an unrecognised IANA timezone returns 400. */
export function assertTimeZone(value: unknown): asserts value is string {
  if (typeof value !== 'string' || !isTimeZone(value)) throw apiError(400, messages.unknownTimeZone(value))
}
