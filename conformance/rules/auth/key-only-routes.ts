import { expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const keyOnlyRoutes: Rule = {
  id: 'auth.key-only-routes',
  title: 'GET /account/shops needs only the key and GET /health needs no key',
  spec: 'Authentication 2',
  level: 'MUST',
  quote: ['`GET /account/shops` needs only `x-api-key`. `GET /health` needs no key.'],
  writes: false,
  operations: ['GET /account/shops', 'GET /health'],
  async run(t) {
    const shops = await t.request('GET /account/shops', { shopId: null })
    if (expectSuccess(t, shops, 'GET /account/shops with the key and no x-shop-id succeeds')) {
      const listed = (shops.json?.data ?? []) as Array<{ shop_id: string }>
      t.check(listed.some((s) => s.shop_id === t.options.shopId), {
        operation: shops.op.permission,
        message: 'lists the shop given with --shop-id (every shop on the account, active or not)',
        expected: `a shop with shop_id ${t.options.shopId}`,
        received: listed.map((s) => s.shop_id).join(', ') || 'no shops',
        exchange: shops.exchange,
      })
    }
    expectSuccess(t, await t.request('GET /health', { apiKey: null, shopId: null }), 'GET /health with no key succeeds')
  },
}
