/** Id indexes of a world, built once per world or shop data (a reset builds a new world, so new indexes). */
import { buildLookups, type Affiliate, type Creator, type ShopData, type Video, type WorldLookups } from '../../fixtures/index.ts'
import type { World } from '../world.ts'

const lookupCache = new WeakMap<World, WorldLookups>()
/** Id indexes of a world, built once per world. */
export function lookupsOf(world: World): WorldLookups {
  let lookups = lookupCache.get(world)
  if (!lookups) lookupCache.set(world, (lookups = buildLookups(world)))
  return lookups
}

/** The creator behind a CRM row. */
export const creatorOf = (world: World, affiliate: Affiliate): Creator => world.creators[affiliate.creator_index]!

/** The creator's videos, slideshows and LIVEs with the shop. */
export function creatorContent(world: World, data: ShopData, creatorId: string) {
  const shop = lookupsOf(world).shop(data.shop.shop_id)!
  return {
    videos: (shop.videosByCreator.get(creatorId) ?? []).map((i) => data.videos[i]!),
    slideshows: (shop.slideshowsByCreator.get(creatorId) ?? []).map((i) => data.slideshows[i]!),
    lives: (shop.livesByCreator.get(creatorId) ?? []).map((i) => data.lives[i]!),
  }
}

const videoIndexes = new WeakMap<ShopData, Map<string, Video>>()

/** The shop's video (content row) by id. */
export function videoOf(data: ShopData, videoId: string): Video | undefined {
  let index = videoIndexes.get(data)
  if (!index) videoIndexes.set(data, (index = new Map(data.videos.map((v) => [v.video_id, v]))))
  return index.get(videoId)
}
