/**
 * The world the mock serves: fixtures/'s createWorld({ seed, scale, today }). The pipeline reads
 * keys and shops; areas read `world.shopData[shop_id]` and the rest.
 */
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

/** The world for a seed, scale and today. */
export function buildWorld({ seed, scale, today, freeze = false }: WorldOptions): World {
  if (!isScale(scale)) throw new RangeError(`scale must be one of ${Object.keys(SCALES).join(', ')}; got ${scale}`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(today)) throw new RangeError(`today must be YYYY-MM-DD; got ${today}`)
  // Each shop's data is built on its first use (the same data as built at once): a server starts
  // without building shops no request has asked for.
  return createWorld({ seed, scale, today, lazyShops: true, freeze })
}
