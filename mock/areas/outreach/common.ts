/**
 * What the outreach handlers share: record lookup and deletion, refused creates, creator handles
 * (spec: Rules of the named resources: Lists, Tags) and group resolution. The records themselves and
 * their writes are the outreach state (mock/lib/outreach.ts).
 */
import type { Creator } from '../../../fixtures/types.ts'
import type { ApiResult, DeepReadonly, RequestContext, ShopContext } from '../../context.ts'
import { campaignOrdinal, campaignOrdinalTable } from '../../events.ts'
import { apiError } from '../../respond.ts'
import type { MockState } from '../../state.ts'
import type { World } from '../../world.ts'
import { countCrmAffiliates, filterCrmAffiliates } from '../../lib/crm.ts'
import { listHandle } from '../../lib/handles.ts'
import { ID_FIELDS, outreachRecordById, outreachState, type Draws, type KeyedKind, type OutreachRecords } from '../../lib/outreach.ts'

/** The shop's record of `kind` whose id field (ID_FIELDS) is `id`; 404 `No <what> with <field> <id>` when there is none. */
export function findRecord<Kind extends KeyedKind>(state: MockState, shopId: string, kind: Kind, id: unknown, what: string): DeepReadonly<OutreachRecords[Kind][number]> {
  const record = outreachRecordById(state, shopId, kind, id)
  if (!record) throw apiError(404, `No ${what} with ${ID_FIELDS[kind]} ${String(id)}`)
  return record
}

/**
 * The body of a delete by id, for `defineHandler('deleteX', deleteById(...))`: removes the record of
 * `kind` whose id field (ID_FIELDS) is the input's (404 when unknown) and answers
 * `{data: {<field>: id, deleted: true}}`.
 */
export function deleteById<Kind extends KeyedKind, K extends (typeof ID_FIELDS)[Kind]>(kind: Kind, what: string): (ctx: ShopContext<Record<K, unknown>>) => ApiResult {
  const key = ID_FIELDS[kind] as K
  return (ctx) => {
    const shopId = ctx.shop.shop_id
    const id = (findRecord(ctx.state, shopId, kind, ctx.input[key], what) as Record<K, unknown>)[key] as string
    ctx.state.write(outreachState, 'deleteRecord', { shopId, kind, id })
    return { status: 200, body: { data: { [key]: id, deleted: true } } }
  }
}

/**
 * Runs the checks a create makes after it has drawn its id (and code): when one refuses, the draws
 * are written as used (`discardDraws`), as they were when the create drew before checking, so the
 * ids and codes of the next creates do not change.
 */
export function checkedAfterDraw<T>(ctx: Pick<RequestContext, 'state'>, draws: Draws, checks: () => T): T {
  try {
    return checks()
  } catch (error) {
    ctx.state.write(outreachState, 'discardDraws', draws)
    throw error
  }
}

const creatorIndexes = new WeakMap<World, Map<string, number>>()

/** Index into world.creators of the creator with this (normalised) handle. */
export function creatorIndexByHandle(world: World, handle: string): number | undefined {
  let byHandle = creatorIndexes.get(world)
  if (!byHandle) {
    byHandle = new Map(world.creators.map((c, i) => [c.handle, i]))
    creatorIndexes.set(world, byHandle)
  }
  return byHandle.get(handle)
}

/**
 * Resolves handles as sent against a lookup, in order: `found` keeps the first occurrence of each
 * match, `unmatched` the handles as sent that are invalid or unknown.
 */
export function resolveHandles<T>(handles: readonly string[], lookup: (handle: string) => T | undefined): { found: Array<{ handle: string; match: T }>; unmatched: string[] } {
  const found: Array<{ handle: string; match: T }> = []
  const unmatched: string[] = []
  const seen = new Set<string>()
  for (const raw of handles) {
    const handle = listHandle(raw)
    const match = handle === undefined ? undefined : lookup(handle)
    if (handle === undefined || match === undefined) unmatched.push(raw)
    else if (!seen.has(handle)) {
      seen.add(handle)
      found.push({ handle, match })
    }
  }
  return { found, unmatched }
}

/** A creator of the platform index by (normalised) handle. */
export const knownCreator = (world: World) => (handle: string): Creator | undefined => {
  const index = creatorIndexByHandle(world, handle)
  return index === undefined ? undefined : world.creators[index]
}

/** The CRM creators (handle, creator_id) a saved group's filters match now (spec: Groups: re-resolved dynamically). */
export function groupMembers(state: MockState, shopId: string, filters: Record<string, unknown>): Array<{ handle: string; creator_id: string }> {
  return filterCrmAffiliates(state, shopId, filters)
}

/** How many CRM creators a saved group's filters match now: groupMembers' length, without building the members. */
export function groupSize(state: MockState, shopId: string, filters: Record<string, unknown>): number {
  return countCrmAffiliates(state, shopId, filters)
}

/**
 * Stable ordinals of a shop's campaigns, the `campaign` index of their events (spec: POST /shop/stats
 * rule 1, events): a seeded record's position in the world's array, a created one the next number.
 * Deleting a record does not renumber the others, so recorded events stay attached to their
 * campaign. Call it before changing `records`: the first call numbers them.
 */
export function campaignOrdinals(state: MockState, shopId: string, slot: string, records: ReadonlyArray<{ campaign_id: string }>): (campaignId: string) => number {
  campaignOrdinalTable(state, shopId, slot, records)
  return (campaignId) => campaignOrdinal(state, shopId, slot, records, campaignId)
}

/** The trimmed text, or undefined when it is absent or blank. */
export function nonBlank(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  return trimmed === '' ? undefined : trimmed
}
