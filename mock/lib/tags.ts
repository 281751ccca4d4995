/**
 * The shop's creator tags (spec: Rules of the named resources: Tags): the affiliate records' seeded
 * tags, and the tags requests add and remove, held by the mock state rather than written into the
 * world. Outreach writes them (POST /tags/add, /tags/remove); the CRM (include_tags, exclude_tags and
 * the rows' `tags`) and the timeseries rows read them, hence a state of lib/ rather than of one area.
 */
import type { Affiliate } from '../../fixtures/types.ts'
import { defineAreaState, type DeepReadonly } from '../context.ts'
import type { MockState } from '../state.ts'
import type { World } from '../world.ts'

interface TagState {
  /** A shop's affiliate records as generated, by creator_id (a reset builds a new world, so a new state). */
  seeded: (shopId: string) => ReadonlyMap<string, Affiliate>
  /**
   * The tags of the affiliates a request has changed, by shop and creator_id; the others have their
   * seeded tags. A write that changes a tag replaces the shop's map (copy on write), so its identity
   * keys what the tags decide (affiliateTagsVersion).
   */
  changed: Map<string, ReadonlyMap<string, readonly string[]>>
}

/** One tag on some of a shop's CRM creators, by creator_id. */
interface TagInput {
  shopId: string
  tag: string
  creatorIds: string[]
}

function createTagState(world: World): TagState {
  const byShop = new Map<string, ReadonlyMap<string, Affiliate>>()
  const seeded = (shopId: string) => {
    let affiliates = byShop.get(shopId)
    if (!affiliates) byShop.set(shopId, (affiliates = new Map(world.shopData[shopId]!.affiliates.map((a) => [a.creator_id, a]))))
    return affiliates
  }
  return { seeded, changed: new Map() }
}

/** The tags of a shop's affiliate as they are now: changed by a request, else seeded. */
const tagsNow = (state: DeepReadonly<TagState>, shopId: string, affiliate: Pick<Affiliate, 'creator_id' | 'tags'>): readonly string[] =>
  state.changed.get(shopId)?.get(affiliate.creator_id) ?? affiliate.tags

/** Gives each affiliate of the input the tags `change` makes of its current ones (undefined: unchanged); returns how many changed. */
function retag(state: TagState, input: TagInput, change: (tags: readonly string[]) => readonly string[] | undefined): number {
  let shop: Map<string, readonly string[]> | undefined
  let count = 0
  for (const creatorId of input.creatorIds) {
    const next = change(tagsNow(state, input.shopId, state.seeded(input.shopId).get(creatorId)!))
    if (next === undefined) continue
    // The first change of the write copies the shop's map; a write that changes nothing keeps it.
    if (!shop) state.changed.set(input.shopId, (shop = new Map(state.changed.get(input.shopId))))
    shop.set(creatorId, next)
    count++
  }
  return count
}

export const affiliateTagsState = defineAreaState('tags', createTagState, {
  /** Adds the tag to each affiliate that does not have it yet; returns how many it was added to. */
  tagAffiliates: (state, input: TagInput): number => retag(state, input, (tags) => (tags.includes(input.tag) ? undefined : [...tags, input.tag])),
  /** Removes the tag from each affiliate that has it; returns how many it was removed from. */
  untagAffiliates: (state, input: TagInput): number =>
    retag(state, input, (tags) => (tags.includes(input.tag) ? tags.toSpliced(tags.indexOf(input.tag), 1) : undefined)),
}, { stableAcrossViews: true }) // the affiliates' tags do not come with the clock

/** The tags of the shop's affiliates as they are now (read per request: a tag write shows at once). */
export function affiliateTags(state: MockState, shopId: string): (affiliate: Pick<Affiliate, 'creator_id' | 'tags'>) => readonly string[] {
  const tags = state.read(affiliateTagsState)
  return (affiliate) => tagsNow(tags, shopId, affiliate)
}

/** The version of a shop's tags in a state with no tag changed by a request: its seeded tags. */
const SEEDED_TAGS: object = Object.freeze({})

/**
 * An object standing for the shop's tags as they are now: the same until a write changes one of
 * them (then a new one), so it keys caches of what the tags decide (a saved group's size).
 */
export function affiliateTagsVersion(state: MockState, shopId: string): object {
  return state.read(affiliateTagsState).changed.get(shopId) ?? SEEDED_TAGS
}

/** By the tags' version (affiliateTagsVersion), then by the shop's affiliates: how many affiliates have each tag. */
const tagCountsByVersion = new WeakMap<object, WeakMap<readonly Affiliate[], ReadonlyMap<string, number>>>()

/** How many of the shop's affiliates have each tag now (an affiliate counted once per tag), gathered once per version of the shop's tags. */
export function affiliateTagCounts(state: MockState, shopId: string, affiliates: readonly Affiliate[]): ReadonlyMap<string, number> {
  const version = affiliateTagsVersion(state, shopId)
  let byAffiliates = tagCountsByVersion.get(version)
  if (!byAffiliates) tagCountsByVersion.set(version, (byAffiliates = new WeakMap()))
  let counts = byAffiliates.get(affiliates)
  if (!counts) {
    const tagsOf = affiliateTags(state, shopId)
    const tally = new Map<string, number>()
    for (const a of affiliates) for (const tag of new Set(tagsOf(a))) tally.set(tag, (tally.get(tag) ?? 0) + 1)
    byAffiliates.set(affiliates, (counts = tally))
  }
  return counts
}
