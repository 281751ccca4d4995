/**
 * Id indexes of a world, built once per world or shop data (a reset builds a new world, so new
 * indexes). The world the mock serves is a view as of its clock (fixtures/as-of.ts): views share the
 * generated lists they do not change, so the indexes key on those lists, not on the view.
 */
import { shopLookups, type Affiliate, type Creator, type ShopData, type ShopLookups, type Video } from '../../fixtures/index.ts'
import type { World } from '../world.ts'

const shopLookupCache = new WeakMap<ShopData, ShopLookups>()
/** The shop's id indexes (videos, slideshows, LIVEs, affiliates... by id and by creator), built once per shop data. */
export function shopLookupsOf(data: ShopData): ShopLookups {
  let lookups = shopLookupCache.get(data)
  if (!lookups) shopLookupCache.set(data, (lookups = shopLookups(data)))
  return lookups
}

/** The creator behind a CRM row. */
export const creatorOf = (world: World, affiliate: Affiliate): Creator => world.creators[affiliate.creator_index]!

/** The creator's videos, slideshows and LIVEs with the shop. */
export function creatorContent(data: ShopData, creatorId: string) {
  const shop = shopLookupsOf(data)
  return {
    videos: (shop.videosByCreator.get(creatorId) ?? []).map((i) => data.videos[i]!),
    slideshows: (shop.slideshowsByCreator.get(creatorId) ?? []).map((i) => data.slideshows[i]!),
    lives: (shop.livesByCreator.get(creatorId) ?? []).map((i) => data.lives[i]!),
  }
}

// Keyed on the list, which views of the world share until a video appears.
const videoIndexes = new WeakMap<readonly Video[], Map<string, Video>>()

/** The shop's video (content row) by id. */
export function videoOf(data: ShopData, videoId: string): Video | undefined {
  let index = videoIndexes.get(data.videos)
  if (!index) videoIndexes.set(data.videos, (index = new Map(data.videos.map((v) => [v.video_id, v]))))
  return index.get(videoId)
}
