/**
 * Shop statistics (spec: `POST /shop/stats`). The engine, which `POST /dashboards/data` uses too,
 * is mock/lib/stats/ (compute.ts).
 */
import { defineHandler, type AreaModule } from '../context.ts'
import { computeShopStats } from '../lib/stats/compute.ts'

const getShopStats = defineHandler('getShopStats', (ctx) => {
  return { status: 200, body: { data: { stats: computeShopStats(ctx.state, ctx.shop, ctx.input) } } }
})

// The stats read the world, the shop's records and events and the request, never the clock.
export const stats: AreaModule = { handlers: { getShopStats }, cacheable: ['getShopStats'] }
