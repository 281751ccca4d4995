/**
 * A certification session on a mock state: prepares the world for the profile's situations (boards
 * opened, a sample list deeper than its cap, a slow halo build), attaches the recorder and the
 * adversity schedule to the pipeline (mock/pipeline/certification.ts), and hands back the recording.
 */
import { createHash } from 'node:crypto'
import type { OperationInfo } from '../../openapi/index.ts'
import { attachCertification, type Adversity, type RecordedRequest } from '../../mock/pipeline/certification.ts'
import { KEY_PATTERN } from '../../mock/pipeline/idempotency.ts'
import { messages } from '../../mock/messages.ts'
import type { MockState } from '../../mock/state.ts'
import { seededRandom, type Profile } from './profile.ts'

/** Everything a grading needs: the requests in arrival order and what the session knew. */
export interface Recording {
  profile: Profile
  seed: number
  startedAt: string
  finishedAt?: string
  /** Key ids and their tiers (never the keys). */
  keys: Record<string, { tier: string; label: string }>
  requests: RecordedRequest[]
}

export interface CertificationSession {
  readonly recording: Recording
  /** Stops recording; the recording is final. */
  finish(): Recording
}

/** A short, stable id of an API key: enough to tell keys apart in a report, not to use one. */
export const keyIdOf = (key: string): string => `key-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`

const HALO_PATH = '/halo-effect'

function haloNote(body: string): string | undefined {
  try {
    const platforms = (JSON.parse(body) as { data?: { platforms?: Record<string, { status?: string }> } }).data?.platforms ?? {}
    return Object.values(platforms).some((p) => p?.status === 'refreshing') ? 'refreshing' : 'ok'
  } catch {
    return undefined
  }
}

/** Starts a session: the world is prepared now, and every request from here on is recorded. */
export async function startCertification(state: MockState, profile: Profile, seed: number): Promise<CertificationSession> {
  const main = state.world.shops[0]!
  if (profile.haloRefreshMs > 0) {
    // No shop's storefront was ever built: the first report call for any shop starts a build that
    // answers `refreshing` for haloRefreshMs (spec: States and transitions: Halo platform block refreshing).
    for (const shop of state.world.shops) await state.admin.run('halo/drop-snapshot', { shop_id: shop.shop_id })
  }
  for (const shop of state.world.shops) if (shop.is_active) await state.admin.run('dashboards/open', { shop_id: shop.shop_id })
  for (let i = 0; i < profile.deepListingRows; i++) await state.admin.run('samples/arrive', { shop_id: main.shop_id })
  await state.admin.run('halo/config', { refresh_ms: profile.haloRefreshMs })
  // Those preparations are not the client's requests.
  state.journal.clear()

  const random = seededRandom(seed)
  const recording: Recording = {
    profile,
    seed,
    startedAt: state.clock.now().toISOString(),
    keys: Object.fromEntries(state.world.apiKeys.map((k) => [keyIdOf(k.key), { tier: k.tier, label: k.label }])),
    requests: [],
  }
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
  // A hash per request would cost more than the rest of the recording.
  const keyIds = new Map<string, string>()

  const writeAdversity = (request: RecordedRequest, retry: boolean): Adversity | undefined => {
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

  const adversity = (request: Readonly<RecordedRequest>, op: OperationInfo): Adversity | undefined => {
    if (op.auth === 'key+shop' && request.keyId && request.shopId) {
      const pair = `${request.keyId} ${request.shopId}`
      const usage = perPair.get(pair) ?? { count: 0, sent: 0 }
      perPair.set(pair, usage)
      usage.count++
      if (usage.sent < times && usage.count === first429 + usage.sent * every) {
        usage.sent++
        return { kind: 'status', situation: '429 after a burst', status: 429, message: messages.tooManyRequests('second', state.rateLimiter.perSecond), headers: { 'retry-after': String(retryAfterSeconds) } }
      }
    }
    if (!op.idempotent && op.operationId !== 'updateDashboard') return undefined
    // A retry (same operation, shop and body) passes, but for the one after a 409: each situation comes once per write.
    const attempt = `${op.operationId} ${request.shopId} ${request.bodyText}`
    const seen = attempted.get(attempt)
    if (seen === false || (seen === true && !op.idempotent)) return undefined
    if (op.idempotent) {
      const adversity = writeAdversity(request as RecordedRequest, seen === true)
      attempted.set(attempt, seen === undefined && adversity?.situation === '409 in flight')
      return adversity
    }
    attempted.set(attempt, false)
    if (op.operationId === 'updateDashboard' && stale > 0) {
      const input = safeJson(request.bodyText)
      if (typeof input?.expected_updated_at === 'string' && typeof input.dashboard_id === 'string') {
        stale--
        const dashboardId = input.dashboard_id
        // A real change by someone else between the client's read and its update: archived and restored.
        return {
          kind: 'before',
          situation: 'board changed before the update',
          run: async () => {
            try {
              await state.admin.run('dashboards/archive', { dashboard_id: dashboardId, archived: true })
              await state.admin.run('dashboards/archive', { dashboard_id: dashboardId, archived: false })
            } catch {
              // An unknown board: the update answers 404 as it would have.
            }
          },
        }
      }
    }
    return undefined
  }

  let detach: (() => void) | undefined = attachCertification(state, {
    adversity,
    note: (op, body) => (op.path === HALO_PATH ? haloNote(body()) : undefined),
    record: (entry) => recording.requests.push(entry),
    keyId: (key) => {
      let id = keyIds.get(key)
      if (id === undefined) keyIds.set(key, (id = keyIdOf(key)))
      return id
    },
  })
  return {
    recording,
    finish() {
      detach?.()
      detach = undefined
      recording.finishedAt ??= state.clock.now().toISOString()
      recording.requests.sort((a, b) => a.seq - b.seq)
      return recording
    },
  }
}

export function safeJson(text: string): Record<string, any> | undefined {
  if (!text) return undefined
  try {
    const value = JSON.parse(text) as unknown
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, any>) : undefined
  } catch {
    return undefined
  }
}
