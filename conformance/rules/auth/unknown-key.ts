import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const unknownKey: Rule = {
  id: 'auth.unknown-key',
  title: 'A request with an unknown API key is refused with 401 and an {error} body',
  spec: 'Authentication 1; Errors (status for an invalid key not shown: 401 inferred)',
  level: 'SHOULD',
  quote: ['Every request carries `x-api-key` (the API key)', 'Status codes and messages for a missing or invalid API key: not shown.'],
  inferred: 'the spec does not show the answer to an unknown key; 401 with an {error} body is ours',
  writes: false,
  operations: ['GET /account/shops', 'GET /shop/sps'],
  async run(t) {
    for (const permission of this.operations) {
      expectError(t, await t.request(permission, { apiKey: 'conformance-unknown-key-0000' }), 401)
    }
  },
}
