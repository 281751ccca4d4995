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
    const served: typeof enterprise = []
    for (const op of enterprise) {
      const reply = await t.request(op, { ...typicalRequest(t.contract, op), apiKey: key })
      // The Enterprise paths are inferred (spec: "Paths, bodies and responses: not shown"): a target without them says 404.
      if (op.inferred && reply.status === 404) {
        t.warn({ operation: op.permission, message: 'inferred Enterprise path not found on the target', expected: 'HTTP 200', received: 'HTTP 404', exchange: reply.exchange })
        continue
      }
      served.push(op)
      expectSuccess(t, reply, 'an Enterprise key is served')
    }
    // spec: "Enterprise brands, products, creators | Exist, take `region`. Paths, bodies and responses: not shown."
    if (!served.length) return t.notCheckable('the target serves none of the Enterprise paths the contract inferred (the spec shows none)')
    // spec: every Enterprise endpoint takes exactly one region of the listed lowercase codes.
    const brands = served[0]
    for (const region of ['uk', 'jp']) {
      expectSuccess(t, await t.request(brands, { ...typicalRequest(t.contract, brands), body: { ...typicalRequest(t.contract, brands).body, region }, apiKey: key }), `region ${region} is accepted`)
    }
  },
}
