import { expectError, lookalikeId } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const shopNotOwned: Rule = {
  id: 'auth.shop-not-owned',
  title: 'A well-formed shop id that is not the account\'s gets 403 "Shop not found or not owned by user"',
  spec: 'Sales-max ads: common error responses; Errors',
  level: 'MUST',
  quote: ['403 `{error: Shop not found or not owned by user}`', 'A call outside the key\'s routes or shops returns 403.'],
  writes: false,
  operations: ['POST /ads/campaigns', 'GET /shop/sps'],
  async run(t) {
    const owned = new Set((await t.facts.shops()).map((s) => s.shop_id))
    // Same shape as the configured id (so well-formed whatever the format), but not one of the account's.
    let foreign = lookalikeId(t.options.shopId)
    if (owned.has(foreign) || foreign === t.options.shopId) foreign = lookalikeId(foreign)
    if (owned.has(foreign)) return t.skip('could not make a shop id that is not the account\'s')
    const ads = await t.request('POST /ads/campaigns', { shopId: foreign, body: { date_range: { from: '2026-01-01', to: '2026-01-31' } } })
    expectError(t, ads, 403, 'Shop not found or not owned by user')
    // Elsewhere the spec says only "forbidden": the status is checked, not the words.
    const sps = await t.request('GET /shop/sps', { shopId: foreign })
    expectError(t, sps, 403)
  },
}
