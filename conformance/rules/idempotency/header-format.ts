import { automationBody, createAutomation } from '../../resources.ts'
import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const headerFormat: Rule = {
  id: 'idempotency.header-format',
  title: 'A write with a malformed Idempotency-Key header gets 400 "Invalid idempotency key format"',
  spec: 'Idempotency; Errors',
  level: 'MUST',
  quote: ['| 400 | idempotency key not matching `^[A-Za-z0-9-]{1,128}$` | `Invalid idempotency key format` |'],
  writes: true,
  operations: ['POST /automations/create'],
  async run(t) {
    const reply = await createAutomation(t, automationBody(t.name('automation')), { idempotencyKey: 'not valid!' })
    expectError(t, reply, 400, 'Invalid idempotency key format')
  },
}
