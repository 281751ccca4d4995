/**
 * A certification session on a mock state: prepares the world for the profile's situations (boards
 * opened, a sample list deeper than its cap, a slow halo build), attaches the recorder and the
 * adversity schedule to the pipeline (mock/pipeline/certification.ts), and hands back the recording.
 */
import { createHash } from 'node:crypto'
import { attachCertification, type RecordedRequest } from '../../mock/pipeline/certification.ts'
import type { MockState } from '../../mock/state.ts'
import type { Profile } from './profile.ts'
import { createSchedule } from './schedule.ts'

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

export function haloNote(body: string): string | undefined {
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

  const recording: Recording = {
    profile,
    seed,
    startedAt: state.clock.now().toISOString(),
    keys: Object.fromEntries(state.world.apiKeys.map((k) => [keyIdOf(k.key), { tier: k.tier, label: k.label }])),
    requests: [],
  }
  // A hash per request would cost more than the rest of the recording.
  const keyIds = new Map<string, string>()
  const adversity = createSchedule(profile, seed, {
    perSecond: state.rateLimiter.perSecond,
    // A real change by someone else between the client's read and its update: archived and restored.
    staleBoard: (dashboardId) => ({
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
    }),
  })

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

export { safeJson } from './safe-json.ts'
