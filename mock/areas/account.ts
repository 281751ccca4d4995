/**
 * Account and shop (spec: Account and shop; Idempotency): health, the account's shops, SPS,
 * products, SKUs and the idempotency lookup. The example area: handlers are closures over the
 * request context; they read the world and refuse with apiError.
 */
import { defineHandler, type AreaModule } from '../context.ts'
import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import { fuzzyMatch } from '../lib/filters.ts'
import { shopDataFor } from '../lib/shop.ts'
import { sortRows } from '../lib/sort.ts'

// spec: Health is not shown; `{status: "ok", time}` is inferred.
const getHealth = defineHandler('getHealth', ({ now }) => ({ status: 200, body: { status: 'ok', time: now.toISOString() } }))

// spec: Account and shop: every shop on the account, active or not.
const listAccountShops = defineHandler('listAccountShops', ({ world, apiKey }) => {
  const visible = world.shops.filter((s) => !apiKey || apiKey.shops === '*' || apiKey.shops.includes(s.shop_id))
  return {
    status: 200,
    body: { data: visible.map(({ shop_id, shop_name, is_active, created_at, plan }) => ({ shop_id, shop_name, is_active, created_at, plan })) },
  }
})

const getShopSps = defineHandler('getShopSps', (ctx) => ({ status: 200, body: { data: { sps: ctx.shop.sps } } }))

const listShopProducts = defineHandler('listShopProducts', (ctx) => {
  const { search, is_open_plan = null, sort_by = 'units_sold', sort_direction = 'desc' } = ctx.input
  const products = shopDataFor(ctx).products
    .filter((p) => fuzzyMatch(p.product_name, search))
    .filter((p) => is_open_plan === null || p.is_open_plan === is_open_plan)
  const data = sortRows(products, (p) => p[sort_by], sort_direction, (p) => p.product_id).map(({ product_id, product_name, status, is_open_plan, price, units_sold, stock }) => ({
    product_id, product_name, status, is_open_plan, price, units_sold, stock,
  }))
  return { status: 200, body: { data } }
})

const listShopSkus = defineHandler('listShopSkus', (ctx) => {
  const { search, product_id = null, sort_by = 'stock', sort_direction = 'desc' } = ctx.input
  const skus = shopDataFor(ctx).skus
    .filter((s) => fuzzyMatch(`${s.sku_name} ${s.product_name}`, search))
    .filter((s) => product_id === null || s.product_id === product_id)
  const data = sortRows(skus, (k) => k[sort_by], sort_direction, (k) => k.sku_id).map(({ sku_id, sku_name, product_id, product_name, price, custom_cogs, stock }) => ({
    sku_id, sku_name, product_id, product_name, price, custom_cogs, stock,
  }))
  return { status: 200, body: { data } }
})

// spec: Idempotency: scoped to the shop in x-shop-id; 404 when never made or expired.
const getIdempotencyRecord = defineHandler('getIdempotencyRecord', async (ctx) => {
  const entry = await ctx.state.idempotency.lookup(ctx.shop.shop_id, ctx.params.key)
  if (!entry) return apiError(404, messages.noStoredResponse)
  const idempotency =
    entry.status === 'completed'
      ? { status: 'completed', response_status: entry.responseStatus, response_body: JSON.parse(entry.rawBody!) as unknown }
      : { status: 'processing' }
  return { status: 200, body: { idempotency } }
})

export const account: AreaModule = {
  handlers: { getHealth, listAccountShops, getShopSps, listShopProducts, listShopSkus, getIdempotencyRecord },
}
