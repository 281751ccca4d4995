import { describe, expectError, isSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

/**
 * Needs --limited-api-key: a key allowed GET /shop/sps and not POST /shop/stats (the demo
 * limited key of the mock is such a key, limited to its first shop).
 */
export const limitedKeyScope: Rule = {
  id: 'auth.limited-key-scope',
  title: 'A key limited to some routes and shops gets 403 outside them and succeeds inside',
  spec: 'Authentication 3',
  level: 'MUST',
  quote: ['Permissions: each key may be limited to specific routes and shops.', 'A call outside the key\'s routes or shops returns 403.'],
  writes: false,
  operations: ['GET /shop/sps', 'POST /shop/stats', 'GET /account/shops'],
  async run(t) {
    const key = t.limitedKey()
    const shops = await t.facts.shops()
    const allowed: string[] = []
    for (const shop of shops) {
      const reply = await t.request('GET /shop/sps', { apiKey: key, shopId: shop.shop_id })
      if (isSuccess(reply)) allowed.push(shop.shop_id)
      else expectError(t, reply, 403, undefined, `a shop outside the key's shops gets 403 (${shop.shop_id})`)
    }
    if (!allowed.length) {
      return t.fail({ operation: 'GET /shop/sps', message: 'the limited key is allowed GET /shop/sps on at least one shop', expected: 'HTTP 200 on one shop', received: 'no shop answered 200' })
    }
    if (allowed.length === shops.length && shops.length > 1) {
      t.warn({ message: 'the limited key reaches every shop: shop scoping was not observable', expected: 'a key limited to some shops', received: `${allowed.length} of ${shops.length} shops` })
    }
    const outside = await t.request('POST /shop/stats', {
      apiKey: key,
      shopId: allowed[0],
      body: { date_range: { from: '2026-01-01', to: '2026-01-07' }, stats: ['total_gmv'], include_charts: false },
    })
    expectError(t, outside, 403, undefined, 'a route outside the key\'s routes gets 403')
    const inside = await t.request('GET /account/shops', { apiKey: key })
    t.check(isSuccess(inside) || inside.status === 403, {
      operation: inside.op.permission,
      message: 'GET /account/shops with the limited key answers (200 when it is among its routes, else 403)',
      expected: 'HTTP 200 or 403',
      received: describe(inside),
      exchange: inside.exchange,
    })
  },
}
