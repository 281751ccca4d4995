import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const missingRange: Rule = {
  id: 'dates.missing-range',
  title: 'A missing required date_range gets 400 "Missing date_range (from/to)"',
  spec: 'Sales-max ads: POST /ads/campaigns; Social-network partnership ads; Errors',
  level: 'MUST',
  quote: ['| 400 | missing required date range on campaign, creative-ads and social-ads endpoints | `Missing date_range (from/to)` |'],
  writes: false,
  operations: ['POST /ads/campaigns', 'POST /v1/ads/campaigns', 'POST /social/campaigns', 'POST /social/adsets', 'POST /social/ads'],
  async run(t) {
    for (const permission of this.operations) {
      const reply = await t.request(permission, { body: { page: 1 } })
      expectError(t, reply, 400, 'Missing date_range (from/to)')
    }
  },
}
