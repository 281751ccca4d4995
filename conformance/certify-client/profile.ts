/**
 * Adversity profiles: which documented situations the twin produces for a client under
 * certification, and how often. Deterministic per seed: the seed orders the write faults and places
 * the 429, so two runs of one client with one seed meet the same situations on the same requests.
 * Every situation comes on its first chance (the 429 on a client's first request to each shop, the 409
 * on its first keyed write, the 412 on its first conditional board update, `refreshing` on its first
 * halo read of any shop), so a client that makes a request of a kind meets its situation at least once.
 */
import { readFileSync } from 'node:fs'
import { unknownFieldsProblem } from '../../mock/lib/fields.ts'

/**
 * A fault on an idempotent write's first attempt: `503` (not applied), `500-applied`, `drop`,
 * `drop-applied`, or `slow` (held `slowMs` on the wall clock after claiming its key, then applied: a
 * client that times out and retries meets a real 409 in flight). `slow` is in no preset: it costs
 * wall time; name it in a profile file.
 */
export type WriteFault = '503' | '500-applied' | 'drop' | 'drop-applied' | 'slow'
const WRITE_FAULTS: WriteFault[] = ['503', '500-applied', 'drop', 'drop-applied', 'slow']

export interface Profile {
  name: string
  /**
   * A 429 with Retry-After on the Nth request to a key and shop (N drawn from `after`), `times` times,
   * `every` requests apart. The presets make it the first request (`after: [1, 1]`): a client that
   * makes one request to a shop meets it, and its retry is judged.
   */
  burst429: { after: [number, number]; every: number; times: number; retryAfterSeconds: number }
  /** Faults on the first attempts of idempotent writes, in the order the seed shuffles them. */
  writeFaults: WriteFault[]
  /** How long a `slow` write is held, wall-clock milliseconds (longer than the client's timeout). */
  slowMs: number
  /** How many keyed idempotent writes (first attempts) answer 409: a request with the same key in flight. */
  inFlight409: number
  /** How many dashboard updates carrying expected_updated_at meet a change of the board first (so 412). */
  stale412: number
  /** How long, on the twin's clock, a halo storefront build takes (the report stays `refreshing`). */
  haloRefreshMs: number
  /** Sample requests that arrive before the session, so the sample list reaches its 1,000-row depth cap. */
  deepListingRows: number
}

export const PROFILES: Record<'standard' | 'strict', Profile> = {
  standard: {
    name: 'standard',
    burst429: { after: [1, 1], every: 0, times: 1, retryAfterSeconds: 1 },
    writeFaults: ['503', '500-applied', 'drop-applied'],
    slowMs: 30_000,
    inFlight409: 1,
    stale412: 1,
    haloRefreshMs: 5_000,
    deepListingRows: 1_100,
  },
  strict: {
    name: 'strict',
    burst429: { after: [1, 1], every: 25, times: 3, retryAfterSeconds: 2 },
    writeFaults: ['503', '500-applied', 'drop', 'drop-applied', '503'],
    slowMs: 30_000,
    inFlight409: 2,
    stale412: 2,
    haloRefreshMs: 20_000,
    deepListingRows: 1_500,
  },
}

/** The fields a profile file may set (`name` too), each checked before the profile is used. */
const PROFILE_FIELDS = Object.keys(PROFILES.standard) as Array<keyof Profile>
const BURST_FIELDS = Object.keys(PROFILES.standard.burst429) as Array<keyof Profile['burst429']>
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0
const unknownFields = (value: object, known: readonly string[], where: string) => {
  const problem = unknownFieldsProblem(value, known, where)
  if (problem) throw new Error(problem)
}

/**
 * A preset by name, or a JSON file whose fields override the standard profile's (`burst429`'s one by
 * one). Every field is checked: a misspelt one is refused, not ignored (the client would be certified
 * without the situation it was meant to meet), and a wrong shape is said here, not thrown mid-session.
 */
export function loadProfile(nameOrFile: string): Profile {
  if (nameOrFile === 'standard' || nameOrFile === 'strict') return PROFILES[nameOrFile]
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(nameOrFile, 'utf8'))
  } catch (error) {
    throw new Error(`--profile must be standard, strict or a JSON file: ${(error as Error).message}`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('--profile file must hold a JSON object')
  const file = parsed as Record<string, unknown>
  unknownFields(file, PROFILE_FIELDS, 'a profile')
  const burst = file.burst429 ?? {}
  if (!burst || typeof burst !== 'object' || Array.isArray(burst)) throw new Error('burst429 must be an object')
  unknownFields(burst, BURST_FIELDS, 'burst429')
  const profile = { ...PROFILES.standard, name: nameOrFile, ...(file as Partial<Profile>), burst429: { ...PROFILES.standard.burst429, ...(burst as Partial<Profile['burst429']>) } }
  if (typeof profile.name !== 'string' || !profile.name) throw new Error('name must be a non-empty string')
  if (!Array.isArray(profile.writeFaults)) throw new Error(`writeFaults must be a list of ${WRITE_FAULTS.join(', ')}`)
  for (const fault of profile.writeFaults) if (!WRITE_FAULTS.includes(fault)) throw new Error(`writeFaults: ${String(fault)} is not one of ${WRITE_FAULTS.join(', ')}`)
  for (const field of ['inFlight409', 'stale412', 'haloRefreshMs', 'deepListingRows', 'slowMs'] as const) {
    if (!isCount(profile[field])) throw new Error(`${field} must be an integer >= 0`)
  }
  const { after, every, times, retryAfterSeconds } = profile.burst429
  if (!Array.isArray(after) || after.length !== 2 || !after.every((n) => isCount(n) && n >= 1) || after[0] > after[1]) throw new Error('burst429.after must be [first, last]: whole numbers from 1, first <= last (the 429 comes on a request drawn between them)')
  for (const [field, value] of [['every', every], ['times', times], ['retryAfterSeconds', retryAfterSeconds]] as const) {
    if (!isCount(value)) throw new Error(`burst429.${field} must be an integer >= 0`)
  }
  return profile
}

/** mulberry32: a small seeded generator, enough to place faults. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
