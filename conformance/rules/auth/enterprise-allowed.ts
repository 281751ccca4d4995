import { typicalRequest } from '../../examples.ts'
import { expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const enterpriseAllowed: Rule = {
  id: 'auth.enterprise-allowed',
  title: 'Enterprise endpoints answer an Enterprise key, for every region',
  spec: 'What the service does; Authentication 4',
  level: 'MUST',
  quote: ['Enterprise endpoints need an Enterprise plan', 'Every Enterprise endpoint takes a `region` field: exactly one of `us`, `uk`, `mx`, `es`, `de`, `ie`, `it`, `fr`, `nl`, `pt`, `gr`, `be`, `at`, `pl`, `hu`, `cz`, `br`, `jp` (lowercase country code).'],
  writes: false,
  operations: ['POST /enterprise/brands', 'POST /enterprise/products', 'POST /enterprise/creators'],
  async run(t) {
    const key = t.enterpriseKey()
    const enterprise = t.operations().filter((op) => op.enterprise)
    if (!enterprise.length) return t.skip('the contract has no Enterprise operation')
    for (const op of enterprise) {
      expectSuccess(t, await t.request(op, { ...typicalRequest(t.contract, op), apiKey: key }), 'an Enterprise key is served')
    }
    // spec: every Enterprise endpoint takes exactly one region of the listed lowercase codes.
    const brands = enterprise[0]
    for (const region of ['uk', 'jp']) {
      expectSuccess(t, await t.request(brands, { ...typicalRequest(t.contract, brands), body: { ...typicalRequest(t.contract, brands).body, region }, apiKey: key }), `region ${region} is accepted`)
    }
  },
}
