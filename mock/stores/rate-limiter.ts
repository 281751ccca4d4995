/**
 * Request rate per key, measured per shop (spec: Limits): 10 per second (a sliding one-second
 * window, exact because the check and the count happen in one synchronous step) and 1,000,000
 * per UTC day on the mock clock.
 */
import type { Clock } from '../clock.ts'

export interface RateLimiterOptions {
  perSecond?: number
  perDay?: number
}

/** A refusal names the window that is full and that window's limit (the message says it). */
export type RateDecision = ({ allowed: true } | { allowed: false; retryAfterSeconds: number; window: 'second' | 'day'; limit: number }) & RateCounts

/** The (key, shop) counter after the decision, as traces show it. */
export interface RateCounts {
  /** Requests counted in the sliding second (this one included when allowed). */
  secondCount: number
  /** The oldest of them (epoch ms; now when none). */
  windowStart: number
  perSecond: number
  perDay: number
  dayCount: number
  /** The UTC day the day counter counts. */
  day: string
}

export interface RateLimiter {
  /** Counts the request if it is allowed (a shared store answers asynchronously). */
  take(apiKey: string, shopId: string): RateDecision | Promise<RateDecision>
  clear(): void | Promise<void>
  /** The counters of every (key, shop) pair tracked, as of the clock's now (the console reads them; the key as given to take). */
  list?(): Array<{ apiKey: string; shopId: string } & Omit<RateCounts, 'perSecond' | 'perDay'>>
  /** (key, shop) pairs with counters (in memory; -1 where the store does not count them). */
  readonly trackedPairs: number
  /** Requests accepted per second for one (key, shop). */
  readonly perSecond: number
  /** Requests accepted per UTC day for one (key, shop). */
  readonly perDay: number
}

/** The in-memory limiter answers at once. */
export interface MemoryRateLimiter extends RateLimiter {
  take(apiKey: string, shopId: string): RateDecision
  clear(): void
}

interface Usage {
  /** Accepted request times within the last second, oldest first (at most perSecond). */
  recent: number[]
  day: string
  dayCount: number
}

export function createRateLimiter(clock: Clock, { perSecond = 10, perDay = 1_000_000 }: RateLimiterOptions = {}): MemoryRateLimiter {
  const usage = new Map<string, Usage>()
  let lastPrune = 0

  const prune = (now: number) => {
    // Drop pairs idle for a day so memory follows the active (key, shop) pairs only.
    if (now - lastPrune < 60_000) return
    lastPrune = now
    const today = new Date(now).toISOString().slice(0, 10)
    for (const [id, u] of usage) if (u.day !== today && (u.recent.length === 0 || now - u.recent[u.recent.length - 1] >= 1000)) usage.delete(id)
  }

  return {
    take(apiKey, shopId) {
      const now = clock.nowMs()
      prune(now)
      const id = `${apiKey}\u0000${shopId}`
      const today = new Date(now).toISOString().slice(0, 10)
      let u = usage.get(id)
      if (!u) usage.set(id, (u = { recent: [], day: today, dayCount: 0 }))
      if (u.day !== today) {
        u.day = today
        u.dayCount = 0
      }
      // Terminates: each turn removes one of the finitely many recorded instants.
      while (u.recent.length && now - u.recent[0] >= 1000) u.recent.shift()
      // A clock set backwards must not leave future timestamps blocking the window forever.
      while (u.recent.length && u.recent[u.recent.length - 1] > now) u.recent.pop()
      if (u.dayCount >= perDay) {
        const midnight = Date.parse(`${today}T00:00:00Z`) + 86_400_000
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((midnight - now) / 1000)), window: 'day', limit: perDay, secondCount: u.recent.length, windowStart: u.recent[0] ?? now, perSecond, perDay, dayCount: u.dayCount, day: today }
      }
      if (u.recent.length >= perSecond) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((u.recent[0] + 1000 - now) / 1000)), window: 'second', limit: perSecond, secondCount: u.recent.length, windowStart: u.recent[0]!, perSecond, perDay, dayCount: u.dayCount, day: today }
      }
      u.recent.push(now)
      u.dayCount++
      return { allowed: true, secondCount: u.recent.length, windowStart: u.recent[0]!, perSecond, perDay, dayCount: u.dayCount, day: today }
    },
    clear() {
      usage.clear()
    },
    list() {
      const now = clock.nowMs()
      return [...usage].map(([id, u]) => {
        const [apiKey = '', shopId = ''] = id.split('\u0000')
        const recent = u.recent.filter((t) => now - t < 1000 && t <= now)
        return { apiKey, shopId, secondCount: recent.length, windowStart: recent[0] ?? now, dayCount: u.day === new Date(now).toISOString().slice(0, 10) ? u.dayCount : 0, day: u.day }
      })
    },
    get trackedPairs() {
      return usage.size
    },
    perSecond,
    perDay,
  }
}
