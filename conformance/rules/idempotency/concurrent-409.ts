import { automationBody, automationsTitled, cleanupAutomationsTitled, createAutomation, idempotencyKey } from '../../resources.ts'
import { describe, errorMessage, isSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const concurrent409: Rule = {
  id: 'idempotency.concurrent-409',
  title: 'Concurrent requests with one key: one acts, the others get 409 while it is in flight or its replay after',
  spec: 'Idempotency; Errors (409 in flight); Limits (60-second window)',
  level: 'MUST',
  quote: ['a concurrent request with the same key gets 409 for up to 60 seconds while the first is in flight'],
  writes: true,
  operations: ['POST /automations/create', 'POST /automations/list'],
  async run(t) {
    const title = t.name('concurrent')
    cleanupAutomationsTitled(t, title)
    const key = idempotencyKey(t)
    const body = automationBody(title)
    await t.quiet()
    const replies = await Promise.all([0, 1, 2, 3].map(() => createAutomation(t, body, { idempotencyKey: key, unthrottled: true })))
    const successes = replies.filter(isSuccess)
    if (!t.check(successes.length >= 1, { operation: 'POST /automations/create', message: 'one of the concurrent requests acts', expected: 'at least one success', received: replies.map((r) => r.status).join(', ') })) return
    for (const reply of replies) {
      const ok = reply.status === 409 ? errorMessage(reply) !== undefined : isSuccess(reply) && reply.text === successes[0].text && reply.status === successes[0].status
      t.check(ok, {
        operation: reply.op.permission,
        message: 'each concurrent request gets 409 {error} or the one original answer',
        expected: `HTTP 409 {"error": …} or ${describe(successes[0], 120)}`,
        received: describe(reply),
        exchange: reply.exchange,
      })
    }
    const created = await automationsTitled(t, title)
    if (created) {
      t.check(created.length === 1, { operation: 'POST /automations/create', message: 'concurrent requests with one key created one automation', expected: '1', received: String(created.length) })
    }
  },
}
