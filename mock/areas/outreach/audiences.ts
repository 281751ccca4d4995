/**
 * Lists, groups and tags (spec: Rules of the named resources; Endpoints whose shapes are incomplete
 * or absent: Lists, Groups, Tags; Limits: lists, tags).
 */
import type { Affiliate, CreatorGroup, ShopData } from '../../../fixtures/types.ts'
import { defineHandler, type DeepReadonly, type RequestContext } from '../../context.ts'
import { apiError } from '../../respond.ts'
import { checkedAfterDraw, deleteById, groupSize, knownCreator, nonBlank, resolveHandles } from './common.ts'
import { outreachRecords, outreachState, type OutreachRecords } from '../../lib/outreach.ts'
import { shopScope } from '../../lib/shop.ts'
import { affiliateTagCounts, affiliateTagsState } from '../../lib/tags.ts'

/** spec: Limits: at most 10,000 creators per list-creating call. */
export const MAX_LIST_CREATORS = 10_000

function requiredName(value: unknown, field: string): string {
  const name = nonBlank(value)
  if (!name) throw apiError(400, `${field} must not be blank`)
  return name
}

type ListRecord = DeepReadonly<OutreachRecords['lists'][number]>

function findList(lists: readonly ListRecord[], title: string): ListRecord {
  const list = lists.find((l) => l.title === title)
  if (!list) throw apiError(404, `No list titled "${title}" in this shop`)
  return list
}

/**
 * Appends the first 10,000 handles (spec: Limits) to the list titled `title`, created empty when the
 * shop has none (spec: creating into an existing title appends); a handle already present is a
 * silent no-op. Answers with the list as it is then.
 */
function appendToList(ctx: RequestContext & { shop: { shop_id: string } }, title: string, handles: readonly string[], unmatched: string[]) {
  const shopId = ctx.shop.shop_id
  const added = ctx.state.write(outreachState, 'addToList', { shopId, title, handles: handles.slice(0, MAX_LIST_CREATORS), now: ctx.now.toISOString() })
  const list = findList(outreachRecords(ctx.state, shopId).lists, title)
  return { title: list.title, added_count: added, unmatched, creator_count: list.handles.length }
}

// spec: Rules of the named resources: Lists. Handles beyond the first 10,000 of the call are not read at all.
const createList = defineHandler('createList', (ctx) => {
  const title = requiredName(ctx.input.title, 'title')
  const sent = ctx.input.handles.slice(0, MAX_LIST_CREATORS)
  const { found, unmatched } = resolveHandles(sent, knownCreator(ctx.world))
  return { status: 201, body: { data: appendToList(ctx, title, found.map((f) => f.match.handle), unmatched) } }
})

// Merge: the sources' creators are appended to the target (created if missing); the sources are kept.
const mergeLists = defineHandler('mergeLists', (ctx) => {
  const { lists } = outreachRecords(ctx.state, ctx.shop.shop_id)
  const sources = ctx.input.source_titles.map((t) => findList(lists, t.trim()))
  const target = requiredName(ctx.input.target_title, 'target_title')
  const handles = [...new Set(sources.flatMap((l) => l.handles))]
  return { status: 200, body: { data: appendToList(ctx, target, handles, []) } }
})

const deleteList = defineHandler('deleteList', (ctx) => {
  const shopId = ctx.shop.shop_id
  const { title } = findList(outreachRecords(ctx.state, shopId).lists, String(ctx.input.title).trim())
  ctx.state.write(outreachState, 'deleteList', { shopId, title })
  return { status: 200, body: { data: { title, deleted: true } } }
})

/** A group as answered: its saved filters and how many CRM creators they match now. */
function groupView(ctx: RequestContext, shopId: string, group: DeepReadonly<CreatorGroup>) {
  return { group_id: group.group_id, name: group.name, filters: group.filters, creator_count: groupSize(ctx.state, shopId, group.filters), created_at: group.created_at }
}

// A blank name is refused after the group's id is drawn.
const createGroup = defineHandler('createGroup', (ctx) => {
  const shopId = ctx.shop.shop_id
  const name = checkedAfterDraw(ctx, { shopId, ids: 1, codes: [] }, () => requiredName(ctx.input.name, 'name'))
  const group = ctx.state.write(outreachState, 'createGroup', { shopId, name, filters: ctx.input.filters ?? {}, now: ctx.now.toISOString() })
  return { status: 201, body: { data: groupView(ctx, shopId, group) } }
})

const listGroups = defineHandler('listGroups', (ctx) => {
  const shopId = ctx.shop.shop_id
  const groups = outreachRecords(ctx.state, shopId).groups.map((g) => groupView(ctx, shopId, g))
  return { status: 200, body: { data: { groups, total_count: groups.length } } }
})

const deleteGroup = defineHandler('deleteGroup', deleteById('groups', 'group'))

/** By the shop's affiliates (a view of the world keeps them): the affiliates by handle. */
const crmByHandle = new WeakMap<readonly Affiliate[], ReadonlyMap<string, Affiliate>>()

/** The shop's CRM creators by handle: tags address creators that are already in the CRM. */
function crmCreators(data: ShopData): (handle: string) => Affiliate | undefined {
  let byHandle = crmByHandle.get(data.affiliates)
  if (!byHandle) crmByHandle.set(data.affiliates, (byHandle = new Map(data.affiliates.map((a) => [a.handle, a]))))
  return (handle) => byHandle.get(handle)
}

const creatorIdsOf = (found: Array<{ match: Affiliate }>) => found.map((f) => f.match.creator_id)

// spec: Tags: names 1-60 characters, case preserved (VIP and vip differ). Surrounding blanks are trimmed.
const tagOf = (ctx: RequestContext) => requiredName(ctx.input.tag, 'tag')

// spec: Tags: tagging with a new name creates it. The tag state is what the CRM's include_tags / exclude_tags read, so they see it at once.
const addTag = defineHandler('addTag', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const tag = tagOf(ctx)
  const { found, unmatched } = resolveHandles(ctx.input.handles, crmCreators(data))
  const added = ctx.state.write(affiliateTagsState, 'tagAffiliates', { shopId, tag, creatorIds: creatorIdsOf(found) })
  return { status: 200, body: { data: { tag, added_count: added, unmatched } } }
})

// spec: Tags: a tag with no creators disappears (nothing else stores it).
const removeTag = defineHandler('removeTag', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const tag = tagOf(ctx)
  if (!affiliateTagCounts(ctx.state, shopId, data.affiliates).has(tag)) throw apiError(404, `No creator of this shop has the tag "${tag}"`)
  const { found, unmatched } = resolveHandles(ctx.input.handles, crmCreators(data))
  const removed = ctx.state.write(affiliateTagsState, 'untagAffiliates', { shopId, tag, creatorIds: creatorIdsOf(found) })
  return { status: 200, body: { data: { tag, removed_count: removed, unmatched } } }
})

// Tags in use, most used first (ties by name); `search` is a case-insensitive substring.
const listTags = defineHandler('listTags', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const search = ctx.input.search?.toLowerCase() ?? ''
  const tags = [...affiliateTagCounts(ctx.state, shopId, data.affiliates)]
    .filter(([tag]) => tag.toLowerCase().includes(search))
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
    .map(([tag, creator_count]) => ({ tag, creator_count }))
  return { status: 200, body: { data: { tags, total_count: tags.length } } }
})

export const audienceHandlers = { createList, mergeLists, deleteList, createGroup, listGroups, deleteGroup, addTag, removeTag, listTags }
