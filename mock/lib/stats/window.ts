/**
 * The request window of `POST /shop/stats`: the previous period and the requested one as one run of
 * day indices (`lo` .. `hi` on the world's day axis), the filters, and the two calendars of rule 1:
 * pre-summarised facts stay on the platform's days (the axis), service-timestamped records are cut
 * into the calendar days of the requested timezone.
 */
import { calendarDateOf, ShopCalendar, type DayAxis } from '../../../fixtures/days.ts'
import type { ShopData } from '../../../fixtures/types.ts'
import type { MockState } from '../../state.ts'

/**
 * Daily values over the window, index `day - lo`. NaN marks a day with no report (spec: POST /shop/stats
 * rule 3: skipped, not zero).
 */
export type Daily = Float64Array

export interface StatWindow {
  state: MockState
  data: ShopData
  axis: DayAxis
  /** First day of the previous period (the equal-length period just before `from`). */
  lo: number
  /** The `to` day. */
  hi: number
  /** Days per period. */
  days: number
  /** Day index of `from`. */
  from: number
  /** Calendar of the requested timezone: the days service-timestamped records fall on. */
  zone: ShopCalendar
  productId: string | null
  campaignId: string | null
  onlyCampaignStats: boolean
  cpm: number
  /** Per-request memo of intermediate series, so shared parts (affiliate GMV, video views...) are computed once. */
  memo: Map<string, unknown>
}

const calendars = new WeakMap<DayAxis, Map<string, ShopCalendar>>()

/** The calendar of a timezone on a world's axis (the shop's own is the world's; others are built once per axis). */
export function zoneCalendar(data: ShopData, axis: DayAxis, timeZone: string): ShopCalendar {
  if (timeZone === data.calendar.timeZone) return data.calendar
  let byZone = calendars.get(axis)
  if (!byZone) calendars.set(axis, (byZone = new Map()))
  let calendar = byZone.get(timeZone)
  if (!calendar) byZone.set(timeZone, (calendar = new ShopCalendar(axis, timeZone)))
  return calendar
}

export function memo<T>(w: StatWindow, key: string, build: () => T): T {
  if (!w.memo.has(key)) w.memo.set(key, build())
  return w.memo.get(key) as T
}

/** Every day of the window without a report. */
export function noReports(w: StatWindow): Daily {
  return new Float64Array(w.hi - w.lo + 1).fill(NaN)
}

/** Zero on every day of the window: counts of the service's own records, known for every day. */
export function zeros(w: StatWindow): Daily {
  return new Float64Array(w.hi - w.lo + 1)
}

/** Zero on the days the world has facts for (the axis), no report outside it. */
export function zerosOnAxis(w: StatWindow): Daily {
  const out = noReports(w)
  for (let d = Math.max(w.lo, 0); d <= Math.min(w.hi, w.axis.count - 1); d++) out[d - w.lo] = 0
  return out
}

/** Adds to one day, turning "no report" into a report. */
export function addTo(daily: Daily, i: number, amount: number): void {
  if (i < 0 || i >= daily.length) return
  daily[i] = Number.isNaN(daily[i]!) ? amount : daily[i]! + amount
}

/** Element-wise combination; NaN when either side has no report. */
export function combine(a: Daily, b: Daily, fn: (x: number, y: number) => number): Daily {
  return a.map((x, i) => (Number.isNaN(x) || Number.isNaN(b[i]!) ? NaN : fn(x, b[i]!)))
}

/** Window index of a service timestamp cut in the requested timezone (-1 outside the window or when null). */
export function zoneIndex(w: StatWindow, at: string | number | null | undefined): number {
  return timestampIndex(w, w.zone, at)
}

/** Window index of a timestamp on the platform's (shop's registered) days. */
export function platformIndex(w: StatWindow, at: string | number | null | undefined): number {
  return timestampIndex(w, w.data.calendar, at)
}

/** Day index (on the axis, maybe outside it) of an instant in the requested timezone. */
export function zoneDay(w: StatWindow, ms: number): number {
  return localDay(w, w.zone, ms)
}

// Records carry their timestamps as ISO text, read again by every stat key of every request: each
// distinct text is parsed once (a pure function of the text).
const parsedTimestamps = new Map<string, number>()

function parseTimestamp(text: string): number {
  let ms = parsedTimestamps.get(text)
  if (ms === undefined) {
    ms = Date.parse(text)
    if (parsedTimestamps.size >= 50_000) parsedTimestamps.clear()
    parsedTimestamps.set(text, ms)
  }
  return ms
}

function timestampIndex(w: StatWindow, calendar: ShopCalendar, at: string | number | null | undefined): number {
  if (at === null || at === undefined || at === '') return -1
  const ms = typeof at === 'number' ? at : parseTimestamp(at)
  if (Number.isNaN(ms)) return -1
  const i = localDay(w, calendar, ms) - w.lo
  return i >= 0 && i <= w.hi - w.lo ? i : -1
}

// Record lists are never edited: the world's are frozen and an area state replaces its list on each
// write (mock/lib/sample-requests.ts), so a list's days, once worked out, hold as long as the list.
const stampColumns = new WeakMap<readonly object[], Map<ShopCalendar, Map<string, Int32Array>>>()

/** The day of records without a valid timestamp: outside every window. */
export const NO_DAY = -0x40000000

/**
 * Each record's timestamp (a field holding ISO text, or null) as a day index of a calendar (NO_DAY
 * when null or not a date). Worked out once per list, calendar and field.
 */
export function stampDays<T extends object>(w: StatWindow, records: readonly T[], field: keyof T & string, calendar: ShopCalendar): Int32Array {
  let byCalendar = stampColumns.get(records)
  if (!byCalendar) stampColumns.set(records, (byCalendar = new Map()))
  let byField = byCalendar.get(calendar)
  if (!byField) byCalendar.set(calendar, (byField = new Map()))
  let days = byField.get(field)
  if (!days) byField.set(field, (days = Int32Array.from(records, (record) => dayOfStamp(w, record[field], calendar))))
  return days
}

function dayOfStamp(w: StatWindow, text: unknown, calendar: ShopCalendar): number {
  const ms = typeof text === 'string' && text !== '' ? parseTimestamp(text) : NaN
  return Number.isNaN(ms) ? NO_DAY : localDay(w, calendar, ms)
}

/** Day index of an instant in a calendar; past the axis (records made after the world's today) by the zone's own date. */
function localDay(w: StatWindow, calendar: ShopCalendar, ms: number): number {
  const starts = calendar.starts
  if (ms >= starts[0]! && ms < starts[starts.length - 1]!) return calendar.dayOf(ms)
  let format = dateFormats.get(calendar.timeZone)
  if (!format) dateFormats.set(calendar.timeZone, (format = new Intl.DateTimeFormat('en-US', { timeZone: calendar.timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })))
  return w.axis.dayIndex(calendarDateOf(format, ms))
}

const dateFormats = new Map<string, Intl.DateTimeFormat>()

/** Epoch range surely covering the window's days in any timezone (records are then placed by day). */
export function windowMs(w: StatWindow): [number, number] {
  const margin = 2 * 86_400_000
  return [w.axis.dayStartMs(w.lo) - margin, w.axis.dayStartMs(w.hi + 1) + margin]
}
