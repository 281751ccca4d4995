import { describe, expectSuccess, recentRange, equivalentJson } from '../../support.ts'
import type { Rule } from '../../types.ts'

/** Where the spec says an invalid sort_by falls back, and to what. */
const fallbacks = [
  { permission: 'POST /ads/campaigns', to: 'ad_spend', body: { date_range: recentRange(60), page_size: 20 } },
  { permission: 'POST /ads/creatives', to: 'ad_spend', body: { page_size: 20 } },
  { permission: 'POST /social/campaigns', to: 'spend', body: { date_range: recentRange(60), page_size: 20 } },
]

export const invalidFallsBack: Rule = {
  id: 'sorting.invalid-falls-back',
  title: 'An invalid sort_by falls back to the documented default sort instead of being refused',
  spec: 'Sales-max ads (invalid falls back to ad_spend); Social-network partnership ads (falls back to spend)',
  level: 'MUST',
  quote: ['invalid falls back to `ad_spend`', 'fall back to `spend` sort on an invalid `sort_by`'],
  writes: false,
  operations: fallbacks.map((f) => f.permission),
  async run(t) {
    for (const { permission, to, body } of fallbacks) {
      const invalid = await t.request(permission, { body: { ...body, sort_by: 'conformance_not_a_field' } })
      const explicit = await t.request(permission, { body: { ...body, sort_by: to } })
      if (!expectSuccess(t, invalid, 'an invalid sort_by is served, not refused') || !expectSuccess(t, explicit, `sort_by ${to} is served`)) continue
      t.check(invalid.json.data?.sort_by === to && equivalentJson(invalid.json, explicit.json), {
        operation: permission,
        message: `an invalid sort_by answers as sort_by ${to}`,
        expected: describe(explicit, 200),
        received: describe(invalid, 200),
        exchange: invalid.exchange,
      })
    }
  },
}
