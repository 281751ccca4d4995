/**
 * How a stat's daily data becomes a number over any run of days (spec: POST /shop/stats rules 2 and 3):
 * counts and currency are summed, ratios and averages recomputed, distinct counts re-counted, and the
 * point-in-time counts show the last level. The same function gives the totals, the previous period
 * and every chart bucket.
 */
import type { DayAxis } from '../../../fixtures/days.ts'
import { ratio, round2NoNegativeZero } from '../numbers.ts'
import type { DailyKeys } from './sources.ts'
import type { Daily } from './window.ts'

/** Window indexes, both inclusive. */
export interface DayRange {
  start: number
  end: number
}

export type StatShape =
  /** Summed per bucket; days with no report are skipped (no point at all when a bucket has none). */
  | { kind: 'sum'; daily: Daily }
  /** Ratio of sums x scale, recomputed per bucket; 0 on a zero denominator; null for a bucket with no report. */
  | { kind: 'ratio'; num: Daily; den: Daily; scale: number }
  /** Point-in-time level, already carried forward: the last day's level. */
  | { kind: 'level'; daily: Daily }
  /** Average of the nonzero daily values (aov); null for a bucket with no report. */
  | { kind: 'average'; daily: Daily }
  /** Distinct keys (creators) over the run of days. */
  | { kind: 'distinct'; keys: DailyKeys }
  /** A chartless stat computed from other stats' values over the run of days. */
  | { kind: 'composite'; value: (range: DayRange) => number }

/** The stat over a run of days; null when no day of it has a report. */
export function summarize(shape: StatShape, { start, end }: DayRange): number | null {
  switch (shape.kind) {
    case 'sum': {
      let total = 0
      let reported = false
      for (let i = start; i <= end; i++) {
        const v = shape.daily[i]!
        if (Number.isNaN(v)) continue
        total += v
        reported = true
      }
      return reported ? total : null
    }
    case 'ratio': {
      let num = 0
      let den = 0
      let reported = false
      for (let i = start; i <= end; i++) {
        const n = shape.num[i]!
        const d = shape.den[i]!
        if (Number.isNaN(n) || Number.isNaN(d)) continue
        num += n
        den += d
        reported = true
      }
      return reported ? ratio(num, den) * shape.scale : null
    }
    case 'level': {
      const v = shape.daily[end]!
      return Number.isNaN(v) ? null : v
    }
    case 'average': {
      let total = 0
      let nonzero = 0
      let reported = false
      for (let i = start; i <= end; i++) {
        const v = shape.daily[i]!
        if (Number.isNaN(v)) continue
        reported = true
        if (v !== 0) {
          total += v
          nonzero++
        }
      }
      return reported ? ratio(total, nonzero) : null
    }
    case 'distinct':
      return shape.keys.count(start, end)
    case 'composite':
      return shape.value({ start, end })
  }
}

/**
 * The stat on one day: what `summarize` gives for a run of one day, without its loops (a daily chart
 * asks it for every day of every stat). The same numbers: adding one value to 0 changes it only from
 * -0 to 0, which the answers' rounding (round2NoNegativeZero) makes the same.
 */
function dayValue(shape: StatShape, day: number): number | null {
  switch (shape.kind) {
    case 'sum':
    case 'level': {
      const v = shape.daily[day]!
      return Number.isNaN(v) ? null : v
    }
    case 'ratio': {
      const n = shape.num[day]!
      const d = shape.den[day]!
      return Number.isNaN(n) || Number.isNaN(d) ? null : ratio(n, d) * shape.scale
    }
    case 'average': {
      const v = shape.daily[day]!
      return Number.isNaN(v) ? null : v !== 0 ? v : 0
    }
    case 'distinct':
      return shape.keys.count(day, day)
    case 'composite':
      return shape.value({ start: day, end: day })
  }
}

/**
 * A stat's chart (spec: POST /shop/stats rules 2 and 3): a point per bucket, its value rounded;
 * summed stats skip the buckets with no report, rates and AOV give null there.
 */
export function chartPoints(shape: StatShape, points: readonly Bucket[]): Array<{ date: string; count: number | null }> {
  const out: Array<{ date: string; count: number | null }> = []
  for (const bucket of points) {
    const count = bucket.start === bucket.end ? dayValue(shape, bucket.start) : summarize(shape, bucket)
    if (count === null && shape.kind === 'sum') continue
    out.push({ date: bucket.date, count: count === null ? null : round2NoNegativeZero(count) })
  }
  return out
}

/**
 * Percent change of `now` against `before`, the equal-length period just before. With nothing
 * before: 0 when nothing now either, else +100 (or -100 for a negative value): growth from zero is
 * shown as a full step, never as an infinite or missing number.
 */
export function percentChange(now: number, before: number): number {
  if (before === 0) return now === 0 ? 0 : now > 0 ? 100 : -100
  return ((now - before) / Math.abs(before)) * 100
}

export type Grain = 'day' | 'week' | 'month'
export const GRAINS: readonly Grain[] = ['day', 'week', 'month']

/** A chart point's bucket: its date and its days as window indexes. */
export interface Bucket extends DayRange {
  date: string
}

/**
 * Buckets of the requested period (day indexes `from`..`to`, window index of `from` = `offset`):
 * spec: rule 2: weeks start Monday, months are calendar months, each point dated by its bucket's first
 * day except the first, dated `from`; the first and last buckets may be partial.
 */
export function buckets(axis: DayAxis, from: number, to: number, offset: number, grain: Grain): Bucket[] {
  const out: Bucket[] = []
  for (let d = from; d <= to; d++) {
    const date = axis.date(d)
    const starts =
      d === from || grain === 'day' || (grain === 'week' && new Date(`${date}T00:00:00Z`).getUTCDay() === 1) || (grain === 'month' && date.endsWith('-01'))
    if (starts) out.push({ date, start: d - from + offset, end: d - from + offset })
    else out[out.length - 1]!.end = d - from + offset
  }
  return out
}
