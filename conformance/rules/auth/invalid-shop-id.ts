import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const invalidShopId: Rule = {
  id: 'auth.invalid-shop-id',
  title: 'A malformed x-shop-id gets 400 "Invalid shop_id"',
  spec: 'Errors; Sales-max ads: common error responses',
  level: 'MUST',
  quote: ['| 400 | malformed shop id | `Invalid shop_id` |'],
  writes: false,
  operations: ['GET /shop/sps', 'POST /ads/campaigns'],
  async run(t) {
    // No id format is shown; this one (spaces and punctuation) is malformed under any plausible one.
    for (const permission of this.operations) {
      const reply = await t.request(permission, { shopId: 'not a shop id!', body: { date_range: { from: '2026-01-01', to: '2026-01-31' } } })
      expectError(t, reply, 400, 'Invalid shop_id')
    }
  },
}
