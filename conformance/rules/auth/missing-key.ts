import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const missingKey: Rule = {
  id: 'auth.missing-key',
  title: 'A request without x-api-key is refused with 401 and an {error} body',
  spec: 'Authentication 1; Errors (status for a missing key not shown: 401 inferred)',
  level: 'SHOULD',
  quote: ['Every request carries `x-api-key` (the API key)', 'Status codes and messages for a missing or invalid API key: not shown.'],
  inferred: 'the spec requires the key but does not show the answer without one; 401 with an {error} body is ours',
  writes: false,
  operations: ['GET /account/shops', 'GET /shop/sps'],
  async run(t) {
    for (const permission of this.operations) expectError(t, await t.request(permission, { apiKey: null }), 401)
  },
}
