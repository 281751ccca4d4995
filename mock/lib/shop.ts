/**
 * The asking shop and its data. Every key+shop operation has a shop by the time a handler runs (the
 * pipeline's auth step), and defineHandler types `ctx.shop` so: these helpers take that shop.
 */
import type { ShopData } from '../../fixtures/index.ts'
import { apiError } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { ShopRecord, World } from '../world.ts'

/** spec: Account and shop (GET /shop/sps): below 3.5 the shop is restricted from sending messages to creators. */
export const MIN_SPS_TO_MESSAGE = 3.5

/** The per-shop data of the world for a shop id. */
export function shopDataOf(world: World, shopId: string): ShopData {
  const data = world.shopData[shopId]
  if (!data) throw new Error(`the world has no data for shop ${shopId}`)
  return data
}

/**
 * What a shop-scoped handler has: the world and the shop of `x-shop-id`, which the pipeline resolved
 * before the handler ran (defineHandler types `ctx.shop` non-optional on these operations).
 */
export interface ShopScopedContext {
  world: World
  shop: ShopRecord
}

/** The data of the shop of a key+shop operation. */
export const shopDataFor = (ctx: ShopScopedContext): ShopData => shopDataOf(ctx.world, ctx.shop.shop_id)

/** The shop of a key+shop operation, its id and its data. */
export function shopScope(ctx: ShopScopedContext): { shop: ShopRecord; shopId: string; data: ShopData } {
  return { shop: ctx.shop, shopId: ctx.shop.shop_id, data: shopDataOf(ctx.world, ctx.shop.shop_id) }
}

/** The shop named by a control-API action (`shop_id` in its input): 400 without one, 404 when not on the account. */
export function adminShop(state: MockState, input: Record<string, unknown>): ShopData {
  const shopId = input.shop_id
  if (typeof shopId !== 'string') throw apiError(400, 'shop_id is required')
  const shop = state.findShop(shopId)
  if (!shop) throw apiError(404, `No shop ${shopId} on the account`)
  return state.world.shopData[shop.shop_id]!
}

/** Area state kept per shop: each shop's part is seeded from its world data on first use. */
export interface ShopStates<S> {
  /** The shop's part as writes left it (its seed until the first). */
  of(shopId: string): S
}

/**
 * Per-shop parts of an area state (`defineAreaState`), seeded lazily: building them for every shop at
 * once would build every shop's world data. A seed is a function of the (immutable) world alone, so
 * seeding on a read changes nothing a replay of the writes would not give.
 */
export function shopStates<S>(world: World, seed: (data: ShopData) => S): ShopStates<S> {
  const shops = new Map<string, S>()
  return {
    of(shopId) {
      let shop = shops.get(shopId)
      if (!shop) shops.set(shopId, (shop = seed(shopDataOf(world, shopId))))
      return shop
    },
  }
}
