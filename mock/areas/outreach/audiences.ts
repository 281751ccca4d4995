/**
 * Lists, groups and tags (spec: Rules of the named resources; Endpoints whose shapes are incomplete
 * or absent: Lists, Groups, Tags; Limits: lists, tags).
 */
import type { Affiliate, CreatorGroup, CreatorList, ShopData } from '../../../fixtures/types.ts'
import { defineHandler, type RequestContext } from '../../context.ts'
import { apiError } from '../../respond.ts'
import { deleteById, groupMembers, knownCreator, newId, nonBlank, resolveHandles } from './common.ts'
import { shopScope } from '../../lib/shop.ts'

/** spec: Limits: at most 10,000 creators per list-creating call. */
export const MAX_LIST_CREATORS = 10_000

function requiredName(value: unknown, field: string): string {
  const name = nonBlank(value)
  if (!name) throw apiError(400, `${field} must not be blank`)
  return name
}

function findList(data: ShopData, title: string): CreatorList {
  const list = data.lists.find((l) => l.title === title)
  if (!list) throw apiError(404, `No list titled "${title}" in this shop`)
  return list
}

/** The list titled `title`, created empty when the shop has none (spec: creating into an existing title appends). */
function listForWrite(ctx: RequestContext, data: ShopData, title: string): CreatorList {
  let list = data.lists.find((l) => l.title === title)
  if (!list) data.lists.push((list = { title, handles: [], created_at: ctx.now.toISOString() }))
  return list
}

/**
 * Appends the first 10,000 handles (spec: Limits) to the list; a handle already present is a silent
 * no-op. Returns how many were added.
 */
function appendHandles(list: CreatorList, handles: readonly string[]): number {
  const present = new Set(list.handles)
  let added = 0
  for (const handle of handles.slice(0, MAX_LIST_CREATORS)) {
    if (present.has(handle)) continue
    present.add(handle)
    list.handles.push(handle)
    added++
  }
  return added
}

const listResult = (list: CreatorList, added: number, unmatched: string[]) => ({ title: list.title, added_count: added, unmatched, creator_count: list.handles.length })

// spec: Rules of the named resources: Lists. Handles beyond the first 10,000 of the call are not read at all.
const createList = defineHandler('createList', (ctx) => {
  const { data } = shopScope(ctx)
  const title = requiredName(ctx.input.title, 'title')
  const sent = ctx.input.handles.slice(0, MAX_LIST_CREATORS)
  const { found, unmatched } = resolveHandles(sent, knownCreator(ctx.world))
  const list = listForWrite(ctx, data, title)
  const added = appendHandles(list, found.map((f) => f.match.handle))
  return { status: 201, body: { data: listResult(list, added, unmatched) } }
})

// Merge: the sources' creators are appended to the target (created if missing); the sources are kept.
const mergeLists = defineHandler('mergeLists', (ctx) => {
  const { data } = shopScope(ctx)
  const sources = ctx.input.source_titles.map((t) => findList(data, t.trim()))
  const target = listForWrite(ctx, data, requiredName(ctx.input.target_title, 'target_title'))
  const handles = [...new Set(sources.flatMap((l) => l.handles))]
  const added = appendHandles(target, handles)
  return { status: 200, body: { data: listResult(target, added, []) } }
})

const deleteList = defineHandler('deleteList', (ctx) => {
  const { data } = shopScope(ctx)
  const list = findList(data, String(ctx.input.title).trim())
  data.lists.splice(data.lists.indexOf(list), 1)
  return { status: 200, body: { data: { title: list.title, deleted: true } } }
})

/** A group as answered: its saved filters and how many CRM creators they match now. */
function groupView(ctx: RequestContext, shopId: string, group: CreatorGroup) {
  return { group_id: group.group_id, name: group.name, filters: group.filters, creator_count: groupMembers(ctx.state, shopId, group.filters).length, created_at: group.created_at }
}

const createGroup = defineHandler('createGroup', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const group: CreatorGroup = { group_id: newId(ctx, shopId, 'group'), name: requiredName(ctx.input.name, 'name'), filters: ctx.input.filters ?? {}, created_at: ctx.now.toISOString() }
  data.groups.push(group)
  return { status: 201, body: { data: groupView(ctx, shopId, group) } }
})

const listGroups = defineHandler('listGroups', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const groups = data.groups.map((g) => groupView(ctx, shopId, g))
  return { status: 200, body: { data: { groups, total_count: groups.length } } }
})

const deleteGroup = defineHandler('deleteGroup', deleteById((data) => data.groups, 'group_id', 'group'))

/** The shop's CRM creators by handle: tags address creators that are already in the CRM. */
function crmCreators(data: ShopData): (handle: string) => Affiliate | undefined {
  const byHandle = new Map(data.affiliates.map((a) => [a.handle, a]))
  return (handle) => byHandle.get(handle)
}

// spec: Tags: names 1-60 characters, case preserved (VIP and vip differ). Surrounding blanks are trimmed.
const tagOf = (ctx: RequestContext) => requiredName(ctx.input.tag, 'tag')

// spec: Tags: tagging with a new name creates it. The affiliate records change in place, so the CRM's include_tags / exclude_tags see it at once.
const addTag = defineHandler('addTag', (ctx) => {
  const { data } = shopScope(ctx)
  const tag = tagOf(ctx)
  const { found, unmatched } = resolveHandles(ctx.input.handles, crmCreators(data))
  let added = 0
  for (const { match: affiliate } of found) {
    if (affiliate.tags.includes(tag)) continue
    affiliate.tags.push(tag)
    added++
  }
  return { status: 200, body: { data: { tag, added_count: added, unmatched } } }
})

// spec: Tags: a tag with no creators disappears (nothing else stores it).
const removeTag = defineHandler('removeTag', (ctx) => {
  const { data } = shopScope(ctx)
  const tag = tagOf(ctx)
  if (!data.affiliates.some((a) => a.tags.includes(tag))) throw apiError(404, `No creator of this shop has the tag "${tag}"`)
  const { found, unmatched } = resolveHandles(ctx.input.handles, crmCreators(data))
  let removed = 0
  for (const { match: affiliate } of found) {
    const at = affiliate.tags.indexOf(tag)
    if (at < 0) continue
    affiliate.tags.splice(at, 1)
    removed++
  }
  return { status: 200, body: { data: { tag, removed_count: removed, unmatched } } }
})

// Tags in use, most used first (ties by name); `search` is a case-insensitive substring.
const listTags = defineHandler('listTags', (ctx) => {
  const { data } = shopScope(ctx)
  const search = ctx.input.search?.toLowerCase() ?? ''
  const counts = new Map<string, number>()
  for (const a of data.affiliates) for (const tag of new Set(a.tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1)
  const tags = [...counts]
    .filter(([tag]) => tag.toLowerCase().includes(search))
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
    .map(([tag, creator_count]) => ({ tag, creator_count }))
  return { status: 200, body: { data: { tags, total_count: tags.length } } }
})

export const audienceHandlers = { createList, mergeLists, deleteList, createGroup, listGroups, deleteGroup, addTag, removeTag, listTags }
