import { canonicalOf, typicalRequest } from '../../examples.ts'
import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const adsPlanGate: Rule = {
  id: 'auth.ads-plan-gate',
  title: 'A shop not on an active paid plan gets 403 "This shop is not on an active paid plan" from the ads endpoints',
  spec: 'Authentication 5; Sales-max ads: common error responses',
  level: 'MUST',
  quote: ['Plan gates: a shop not on an active paid plan gets 403 from the ads endpoints', '`{error: This shop is not on an active paid plan}`'],
  writes: false,
  operations: ['POST /ads/campaigns', 'POST /ads/creatives', 'POST /ads/excluded-creatives', 'POST /ads/boosted-creatives'],
  async run(t) {
    const inactive = await t.facts.inactiveShopId()
    if (!inactive) return t.skip('GET /account/shops lists no shop with is_active false')
    const gated = t.operations().filter((op) => op.planGate === 'active-paid' && !op.aliasOf)
    for (const op of gated) {
      const reply = await t.request(op, { ...typicalRequest(t.contract, canonicalOf(t.contract, op)), shopId: inactive })
      expectError(t, reply, 403, 'This shop is not on an active paid plan')
    }
  },
}
