/**
 * The world the mock serves: fixtures/'s createWorld({ seed, scale, today }). The pipeline reads
 * keys and shops; areas read `world.shopData[shop_id]` and the rest.
 */
import { isCalendarDate } from './clock.ts'
import { createWorld, SCALES, type ApiKey, type Scale, type ShopRecord, type World } from '../fixtures/index.ts'

export type { World, ShopRecord, Scale }
/** An API key of the world (spec: Authentication). */
export type ApiKeyRecord = ApiKey
/** What the pipeline needs of a world. */
export type WorldLike = Pick<World, 'apiKeys' | 'shops' | 'foreignShops'>

export interface WorldOptions {
  seed: number
  scale: string
  today: string
  /** Freeze the world so an in-place edit throws (strict mode, tests). */
  freeze?: boolean
}

/** True when `scale` names one of the fixtures' scales. */
export const isScale = (scale: string): scale is Scale => Object.hasOwn(SCALES, scale)
/** The fixtures' scales, by name. */
export const SCALE_NAMES = Object.keys(SCALES)

/** What is wrong with a world's scale or last day (undefined: nothing); the control API's reset says it as a 400, buildWorld throws it. */
export function worldOptionsProblem({ scale, today }: { scale?: unknown; today?: unknown }): string | undefined {
  if (scale !== undefined && (typeof scale !== 'string' || !isScale(scale))) return `scale must be one of ${SCALE_NAMES.join(', ')}; got ${JSON.stringify(scale)}`
  if (today !== undefined && (typeof today !== 'string' || !isCalendarDate(today))) return `today must be a calendar date YYYY-MM-DD; got ${JSON.stringify(today)}`
  return undefined
}

/**
 * Frozen worlds by seed, scale and today, the most recently used last. A frozen world cannot change
 * (an edit throws), so the states built for the same three share one: tests and strict mode build
 * many (a state per test, every reset), each the same world. An unfrozen world is built anew each time.
 */
const frozenWorlds = new Map<string, World>()
const FROZEN_WORLDS_KEPT = 4

/** The world for a seed, scale and today. */
export function buildWorld({ seed, scale, today, freeze = false }: WorldOptions): World {
  const problem = worldOptionsProblem({ scale, today })
  if (problem) throw new RangeError(problem)
  const known = scale as Scale
  // Each shop's data is built on its first use (the same data as built at once): a server starts
  // without building shops no request has asked for.
  if (!freeze) return createWorld({ seed, scale: known, today, lazyShops: true, freeze })
  const key = `${seed} ${scale} ${today}`
  const world = frozenWorlds.get(key) ?? createWorld({ seed, scale: known, today, lazyShops: true, freeze })
  frozenWorlds.delete(key)
  frozenWorlds.set(key, world)
  if (frozenWorlds.size > FROZEN_WORLDS_KEPT) frozenWorlds.delete(frozenWorlds.keys().next().value!)
  return world
}
