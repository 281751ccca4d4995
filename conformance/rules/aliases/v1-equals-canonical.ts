import { canonicalOf, typicalRequest } from '../../examples.ts'
import { describe, isSuccess, equivalentJson } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const v1EqualsCanonical: Rule = {
  id: 'aliases.v1-equals-canonical',
  title: 'Every /v1/ads/... alias answers exactly as its canonical path',
  spec: 'Conventions 4; Versioning',
  level: 'MUST',
  quote: ['The ads endpoints are also reachable under a `/v1/` prefix (`/v1/ads/campaigns`, `/v1/ads/creatives`, `/v1/ads/excluded-creatives`, `/v1/ads/boosted-creatives`).'],
  writes: false,
  operations: ['POST /v1/ads/campaigns', 'POST /v1/ads/creatives', 'POST /v1/ads/excluded-creatives', 'POST /v1/ads/boosted-creatives'],
  async run(t) {
    const aliases = t.operations().filter((op) => op.path.startsWith('/v1/') && op.aliasOf)
    if (!aliases.length) return t.skip('the contract has no /v1 alias')
    for (const alias of aliases) {
      // The canonical twin has the same method and the path without /v1.
      const canonical = t.operations().find((op) => op.method === alias.method && op.path === alias.path.slice(3))
      if (!canonical) continue
      const minimal = typicalRequest(t.contract, canonicalOf(t.contract, alias))
      const params = { ...minimal.body, ...minimal.query, page_size: 3 }
      const options = alias.method === 'GET' ? { query: params } : { body: params }
      const viaCanonical = await t.request(canonical, options)
      const viaAlias = await t.request(alias, options)
      t.check(isSuccess(viaCanonical) && viaAlias.status === viaCanonical.status && equivalentJson(viaAlias.json, viaCanonical.json), {
        operation: alias.permission,
        message: `${alias.permission} answers as ${canonical.permission}`,
        expected: describe(viaCanonical),
        received: describe(viaAlias),
        exchange: viaAlias.exchange,
      })
    }
  },
}
