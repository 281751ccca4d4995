/**
 * The mock's one clock. Everything time-based (idempotency windows, rate-limit windows, halo
 * snapshot age, "today" for default date ranges) reads it, so tests advance it instead of sleeping.
 */
export interface Clock {
  /** The current instant. */
  now(): Date
  /** The current instant in epoch milliseconds. */
  nowMs(): number
  /** Today's date (YYYY-MM-DD, UTC) on this clock. */
  today(): string
  /** Sets the clock to an instant; it stays there (frozen) unless `running` is true. */
  set(instant: string | number | Date, options?: { running?: boolean }): void
  /** Moves the clock forward (or back, with a negative value) by `ms`. */
  advance(ms: number): void
  /** Back to the wall clock. */
  useRealTime(): void
  /** True when the clock only moves on set/advance. */
  readonly frozen: boolean
  /** The clock's setting as plain data (what a clock move logs: replayed, it gives the same instant). */
  setting(): ClockSetting
  /** Puts the clock back to a setting (a logged move, applied again); does not call `onMove`. */
  restore(setting: ClockSetting): void
}

/** Frozen at `frozenAt`, or running at the wall clock plus `offset` (ms). */
export interface ClockSetting {
  frozenAt: number | null
  offset: number
}

export interface ClockOptions {
  /** Start frozen at this instant; default: real time. */
  start?: string | number | Date
  /** With `start`: keep running from it instead of staying frozen. */
  running?: boolean
  /** The wall clock (for tests of the clock itself). */
  wallClock?: () => number
  /** Called after every set, advance and return to real time (the mock state's version follows it). */
  onMove?: () => void
  /** Called before every set, advance and return to real time changes anything (a shared store may refuse it). */
  beforeMove?: () => void
}

/**
 * The instants the clock may show: 1970-01-01 to 9999-12-31 (UTC). Past them a date has no four-digit
 * year (`toISOString` writes `+010000-…`), and past ±8.64e15 ms none at all: a clock moved there broke
 * every answer after it (the control API's `advance_ms: 1e20` made each request a 500).
 */
export const CLOCK_RANGE = { from: Date.UTC(1970, 0, 1), to: Date.UTC(9999, 11, 31, 23, 59, 59, 999) } as const

/** Why the clock may not show `ms` (undefined: it may). */
export function clockRangeProblem(ms: number): string | undefined {
  if (Number.isFinite(ms) && ms >= CLOCK_RANGE.from && ms <= CLOCK_RANGE.to) return undefined
  return `the clock stays between 1970-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z; this would put it at ${Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : `${ms} ms after 1970`}`
}

/** A real calendar date YYYY-MM-DD: 2026-02-30 and 2026-13-45 are not. */
export function isCalendarDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false
  const ms = Date.parse(`${date}T00:00:00Z`)
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === date
}

/** A clock that runs in real time by default and can be set, frozen or advanced. */
export function createClock({ start, running = false, wallClock = Date.now, onMove, beforeMove }: ClockOptions = {}): Clock {
  // Running: now = wallClock() + offset. Frozen: now = frozenAt.
  let offset = 0
  let frozenAt: number | undefined

  const toMs = (instant: string | number | Date): number => {
    const ms = instant instanceof Date ? instant.getTime() : typeof instant === 'number' ? instant : Date.parse(instant)
    if (!Number.isFinite(ms)) throw new TypeError(`not a valid instant: ${String(instant)}`)
    return ms
  }
  const nowMs = () => (frozenAt !== undefined ? frozenAt : wallClock() + offset)

  const clock: Clock = {
    now: () => new Date(nowMs()),
    nowMs,
    today: () => new Date(nowMs()).toISOString().slice(0, 10),
    set(instant, { running: keepRunning = false } = {}) {
      const ms = toMs(instant)
      const problem = clockRangeProblem(ms)
      if (problem) throw new RangeError(problem)
      beforeMove?.()
      if (keepRunning) {
        frozenAt = undefined
        offset = ms - wallClock()
      } else {
        frozenAt = ms
      }
      onMove?.()
    },
    advance(ms) {
      if (!Number.isFinite(ms)) throw new TypeError(`advance needs a number of milliseconds, got ${String(ms)}`)
      const problem = clockRangeProblem(nowMs() + ms)
      if (problem) throw new RangeError(problem)
      beforeMove?.()
      if (frozenAt !== undefined) frozenAt += ms
      else offset += ms
      onMove?.()
    },
    useRealTime() {
      beforeMove?.()
      frozenAt = undefined
      offset = 0
      onMove?.()
    },
    get frozen() {
      return frozenAt !== undefined
    },
    setting: () => ({ frozenAt: frozenAt ?? null, offset }),
    restore(setting) {
      frozenAt = setting.frozenAt ?? undefined
      offset = setting.offset
    },
  }
  if (start !== undefined) clock.set(start, { running })
  return clock
}
