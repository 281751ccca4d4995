/**
 * What the outreach handlers share: the asking shop's records, new ids and codes, creator handles
 * (spec: Rules of the named resources: Lists, Tags) and group resolution.
 */
import type { Creator, ShopData } from '../../../fixtures/types.ts'
import type { ApiResult, RequestContext, ShopContext } from '../../context.ts'
import { campaignOrdinal, campaignOrdinalTable } from '../../events.ts'
import { apiError } from '../../respond.ts'
import type { MockState } from '../../state.ts'
import type { World } from '../../world.ts'
import { filterCrmAffiliates } from '../../lib/crm.ts'
import { fnv1a, hex32 } from '../../lib/digest.ts'
import { listHandle } from '../../lib/handles.ts'
import { shopScope } from '../../lib/shop.ts'

/** The record whose `key` is `id`; 404 `No <what> with <key> <id>` when there is none. */
export function findRecord<T, K extends keyof T & string>(records: readonly T[], key: K, id: unknown, what: string): T {
  const record = records.find((r) => r[key] === id)
  if (!record) throw apiError(404, `No ${what} with ${key} ${String(id)}`)
  return record
}

/**
 * The body of a delete by id, for `defineHandler('deleteX', deleteById(...))`: removes the record
 * (404 when unknown) and answers `{data: {<key>: id, deleted: true}}`.
 */
export function deleteById<K extends string>(recordsOf: (data: ShopData) => Array<Record<K, unknown>>, key: K, what: string): (ctx: ShopContext<Record<K, unknown>>) => ApiResult {
  return (ctx) => {
    const records = recordsOf(shopScope(ctx).data)
    const record = findRecord(records, key, ctx.input[key], what)
    records.splice(records.indexOf(record), 1)
    return { status: 200, body: { data: { [key]: record[key], deleted: true } } }
  }
}

/** The next number of the shop's write sequence (one sequence for every outreach id and code). */
function nextSequence(ctx: Pick<RequestContext, 'state'>, shopId: string): number {
  const counter = ctx.state.shopState(shopId, 'outreach/sequence', () => ({ next: 0 }))
  return counter.next++
}

/** A new UUID-shaped id, deterministic for the world's seed and the shop's sequence of writes. */
export function newId(ctx: Pick<RequestContext, 'state'>, shopId: string, kind: string): string {
  const seed = `${ctx.state.seed}/${shopId}/${kind}/${nextSequence(ctx, shopId)}`
  const h = [0, 1, 2, 3].map((i) => hex32(`${seed}#${i}`)).join('')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz'
/** Codes one shop can make of each kind; a shop's codes are a block of the code space of this size. */
const CODES_PER_SHOP = 1 << 20

/**
 * A new public code of `length` characters ([a-z0-9], or hex), unique across the world and unused by
 * `taken` (codes made by the fixtures). Made by construction, never by retrying at random: the
 * shop's position and its own counter of this kind name one number of the code space, and an affine
 * bijection of the code space (a multiplier coprime with its size, an offset from the seed) turns it
 * into the code. Distinct (shop, counter) pairs give distinct codes, so the loop below skips at most
 * `taken.size` codes before it finds a free one.
 */
export function newCode(ctx: Pick<RequestContext, 'state' | 'world'>, shopId: string, kind: string, length: number, taken: ReadonlySet<string>, alphabet: 'hex' | 'base36'): string {
  const letters = alphabet === 'hex' ? BASE36.slice(0, 16) : BASE36
  const size = BigInt(letters.length) ** BigInt(length)
  const shopIndex = BigInt(ctx.world.shops.findIndex((s) => s.shop_id === shopId))
  const counter = ctx.state.shopState(shopId, `outreach/code/${kind}`, () => ({ next: 0 }))
  // Coprime with 16^n and 36^n (odd, not a multiple of 3); the offset makes codes differ per seed.
  const multiplier = (BigInt(fnv1a(`${ctx.state.seed}/${kind}/multiplier`)) * 6n + 1n) % size
  const offset = BigInt(fnv1a(`${ctx.state.seed}/${kind}/offset`)) % size
  for (let skipped = 0; skipped <= taken.size; skipped++) {
    if (counter.next >= CODES_PER_SHOP || (shopIndex + 1n) * BigInt(CODES_PER_SHOP) > size) {
      throw apiError(400, `No ${kind} code is left for this shop (${CODES_PER_SHOP} per shop)`)
    }
    let value = (shopIndex * BigInt(CODES_PER_SHOP) + BigInt(counter.next++)) * multiplier + offset
    value %= size
    let code = ''
    for (let i = 0; i < length; i++) {
      code = letters[Number(value % BigInt(letters.length))] + code
      value /= BigInt(letters.length)
    }
    if (!taken.has(code)) return code
  }
  throw new Error(`newCode: ${taken.size + 1} distinct codes were all taken (the bijection is broken)`)
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
