/**
 * Shop statistics (spec: `POST /shop/stats`). The engine, which `POST /dashboards/data` uses too,
 * is mock/lib/stats/ (compute.ts).
 */
import type { AreaHandler, AreaModule } from '../context.ts'
import { requireShop } from '../lib/shop.ts'
import { computeShopStats, type ShopStatsRequest } from '../lib/stats/compute.ts'

const getShopStats: AreaHandler = (ctx) => {
  return { status: 200, body: { data: { stats: computeShopStats(ctx.state, requireShop(ctx), ctx.input as ShopStatsRequest) } } }
}

// The stats read the world, the shop's records and events and the request, never the clock.
export const stats: AreaModule = { handlers: { getShopStats }, cacheable: ['getShopStats'] }
