import { typicalRequest } from '../../examples.ts'
import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const enterpriseRefused: Rule = {
  id: 'auth.enterprise-refused',
  title: 'Enterprise endpoints refuse a standard key with 403',
  spec: 'What the service does; Authentication 4',
  level: 'MUST',
  quote: ['a standard key calling them gets an authorization error', 'workflow toggle below the Scale plan; Enterprise endpoint with a standard key | forbidden'],
  writes: false,
  operations: ['POST /enterprise/brands', 'POST /enterprise/products', 'POST /enterprise/creators'],
  async run(t) {
    const enterprise = t.operations().filter((op) => op.enterprise)
    if (!enterprise.length) return t.skip('the contract has no Enterprise operation')
    let judged = 0
    for (const op of enterprise) {
      const reply = await t.request(op, typicalRequest(t.contract, op))
      // The Enterprise paths are inferred: a target without them says 404, which is not a refusal to judge.
      if (op.inferred && reply.status === 404) {
        t.warn({ operation: op.permission, message: 'inferred Enterprise path not found on the target', expected: 'HTTP 403', received: `HTTP 404`, exchange: reply.exchange })
        continue
      }
      judged++
      expectError(t, reply, 403, undefined, 'a standard key is refused with 403')
    }
    // spec: "Enterprise brands, products, creators | Exist, take `region`. Paths, bodies and responses: not shown."
    if (!judged) t.notCheckable('the target serves none of the Enterprise paths the contract inferred (the spec shows none)')
  },
}
