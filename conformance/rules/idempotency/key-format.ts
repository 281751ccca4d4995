import { expectError } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const keyFormat: Rule = {
  id: 'idempotency.key-format',
  title: 'An idempotency key not matching ^[A-Za-z0-9-]{1,128}$ gets 400 "Invalid idempotency key format" on lookup',
  spec: 'Idempotency; Errors',
  level: 'MUST',
  quote: ['`GET /idempotency/{key}` - key path segment matches `^[A-Za-z0-9-]{1,128}$`', '400 body `{error}` for invalid key format'],
  writes: false,
  operations: ['GET /idempotency/{key}'],
  async run(t) {
    for (const key of ['bad_key', 'a'.repeat(129), 'semi;colon']) {
      const reply = await t.request('GET /idempotency/{key}', { pathParams: { key } })
      expectError(t, reply, 400, 'Invalid idempotency key format', `key ${JSON.stringify(key.length > 20 ? `${key.slice(0, 8)}… (${key.length} chars)` : key)} is refused`)
    }
  },
}
