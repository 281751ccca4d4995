import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const unknownKey: Rule = {
  id: 'idempotency.unknown-key',
  title: 'Looking up a key never used gets 404 "No stored response for that key"',
  spec: 'Idempotency; Errors',
  level: 'MUST',
  quote: ['| 404 | `No stored response for that key` | idempotency lookup after never made or expired |'],
  writes: false,
  operations: ['GET /idempotency/{key}'],
  async run(t) {
    const reply = await t.request('GET /idempotency/{key}', { pathParams: { key: t.name('never-used') } })
    expectError(t, reply, 404, 'No stored response for that key')
  },
}
