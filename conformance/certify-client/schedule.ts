/**
 * The adversity schedule of a certification profile: which request meets which documented situation
 * (a 429 after a burst, a write fault, a 409 in flight, a board changed before its update).
 * Deterministic per seed: the seed places the 429 and orders the write faults. The twin applies it in
 * its pipeline (session.ts); `shoptwin proxy --inject` applies the same schedule in front of a real
 * server (proxy/inject.ts), so a client meets the same situations on the same requests either way.
 */
import type { OperationInfo } from '../../openapi/index.ts'
import type { Adversity, RecordedRequest } from '../../mock/pipeline/certification.ts'
import { KEY_PATTERN } from '../../mock/pipeline/idempotency.ts'
import { messages } from '../../mock/messages.ts'
import { seededRandom, type Profile } from './profile.ts'
import { safeJson } from './safe-json.ts'

/** What a request looks like to the schedule (a recorded request, before its answer). */
export type ScheduledRequest = Pick<RecordedRequest, 'keyId' | 'shopId' | 'idempotencyKey' | 'bodyText'>

export interface ScheduleOptions {
  /** Requests per second per key and shop (spec: Limits: 10), named in the 429's message. */
  perSecond?: number
  /** The situation for a dashboard update carrying expected_updated_at that the profile makes stale. */
  staleBoard(dashboardId: string): Adversity
}

/** The schedule: called once per request, in arrival order; the adversity for it, or undefined. */
export function createSchedule(profile: Profile, seed: number, { perSecond = 10, staleBoard }: ScheduleOptions): (request: Readonly<ScheduledRequest>, op: OperationInfo) => Adversity | undefined {
  const random = seededRandom(seed)
  const { after, every, times, retryAfterSeconds } = profile.burst429
  const first429 = after[0] + Math.floor(random() * (after[1] - after[0] + 1))
  const perPair = new Map<string, { count: number; sent: number }>()
  const writeFaults = profile.writeFaults.slice()
  // The seed shuffles the order the write faults come in (Fisher-Yates).
  for (let i = writeFaults.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[writeFaults[i], writeFaults[j]] = [writeFaults[j]!, writeFaults[i]!]
  }
  let inFlight = profile.inFlight409
  let stale = profile.stale412
  let keyedWrites = 0
  let faultsProduced = 0
  /** Writes seen, by operation, shop and body; true when the first attempt met the 409 (its retry may meet a fault). */
  const attempted = new Map<string, boolean>()

  const writeAdversity = (request: Readonly<ScheduledRequest>, retry: boolean): Adversity | undefined => {
    const keyed = request.idempotencyKey !== null && KEY_PATTERN.test(request.idempotencyKey)
    // The first keyed write always meets the 409, so a client with one meets it; later ones by the seed.
    const take409 = !retry && keyed && inFlight > 0 && (keyedWrites++ === 0 || writeFaults.length === 0 || random() < 0.4)
    if (take409) {
      inFlight--
      // spec: Idempotency: a concurrent request with the same key gets 409 while the first is in flight.
      return { kind: 'status', situation: '409 in flight', status: 409, message: messages.idempotencyInFlight }
    }
    // A retry after the 409 meets the first fault when none came yet (a client with one write meets both).
    if (retry && faultsProduced > 0) return undefined
    const fault = writeFaults.shift()
    if (fault === undefined) return undefined
    faultsProduced++
    if (fault === 'slow') return { kind: 'slow', situation: 'slow write (applied late)', ms: profile.slowMs }
    if (fault === 'drop' || fault === 'drop-applied') return { kind: 'drop', situation: `dropped connection${fault === 'drop-applied' ? ' (applied)' : ''}`, apply: fault === 'drop-applied' }
    const status = fault === '503' ? 503 : 500
    return { kind: 'status', situation: `${status}${fault === '500-applied' ? ' (applied)' : ''}`, status, message: status === 503 ? 'Service temporarily unavailable' : 'Internal error', apply: fault === '500-applied' }
  }

  return (request, op) => {
    if (op.auth === 'key+shop' && request.keyId && request.shopId) {
      const pair = `${request.keyId} ${request.shopId}`
      const usage = perPair.get(pair) ?? { count: 0, sent: 0 }
      perPair.set(pair, usage)
      usage.count++
      if (usage.sent < times && usage.count === first429 + usage.sent * every) {
        usage.sent++
        return { kind: 'status', situation: '429 after a burst', status: 429, message: messages.tooManyRequests('second', perSecond), headers: { 'retry-after': String(retryAfterSeconds) } }
      }
    }
    if (!op.idempotent && op.operationId !== 'updateDashboard') return undefined
    // A retry (same operation, shop and body) passes, but for the one after a 409: each situation comes once per write.
    const attempt = `${op.operationId} ${request.shopId} ${request.bodyText}`
    const seen = attempted.get(attempt)
    if (seen === false || (seen === true && !op.idempotent)) return undefined
    if (op.idempotent) {
      const adversity = writeAdversity(request, seen === true)
      attempted.set(attempt, seen === undefined && adversity?.situation === '409 in flight')
      return adversity
    }
    attempted.set(attempt, false)
    if (op.operationId === 'updateDashboard' && stale > 0) {
      const input = safeJson(request.bodyText)
      if (typeof input?.expected_updated_at === 'string' && typeof input.dashboard_id === 'string') {
        stale--
        return staleBoard(input.dashboard_id)
      }
    }
    return undefined
  }
}
