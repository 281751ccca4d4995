import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const missingShopHeader: Rule = {
  id: 'auth.missing-shop-header',
  title: 'A request without x-shop-id gets 400 "Missing X-Shop-Id header"',
  spec: 'Errors; Sales-max ads: common error responses',
  level: 'MUST',
  quote: ['| 400 | missing shop header | `Missing X-Shop-Id header` |'],
  writes: false,
  operations: ['GET /shop/sps', 'POST /shop/products', 'POST /ads/campaigns'],
  async run(t) {
    for (const permission of this.operations) {
      const reply = await t.request(permission, { shopId: null, body: { date_range: { from: '2026-01-01', to: '2026-01-31' } } })
      expectError(t, reply, 400, 'Missing X-Shop-Id header')
    }
  },
}
