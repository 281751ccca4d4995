import { isWrite, minimalRequest } from '../../examples.ts'
import { describe, isSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const writesAnswer: Rule = {
  id: 'contract.writes-answer',
  title: 'Every writing operation answers a minimal request (on conformance-named or non-existent resources) with a documented status, never 5xx',
  spec: 'Endpoints (every operation of the contract)',
  level: 'MUST',
  quote: ['A machine-readable OpenAPI 3.1 description exists; each operation has a unique operationId and names the permission it needs.', '5xx responses and uncaught exceptions are not cached'],
  writes: true,
  operations: ['every writing operation'],
  timeoutSeconds: 240,
  async run(t) {
    const writes = t.operations().filter(isWrite)
    // Creations first so each is followed by its own clean-up; deletes of missing resources last.
    for (const op of writes) {
      const names = { name: t.name('sweep'), title: t.name('sweep'), tag: t.name('sweep') }
      const { body } = minimalRequest(t.contract, op, names)
      const reply = await t.request(op, { body, idempotencyKey: op.idempotent ? t.name('sweep') : undefined })
      t.check(reply.status < 500 && op.statuses.includes(reply.status), {
        operation: op.permission,
        message: 'answers with a documented status',
        expected: `one of HTTP ${op.statuses.join(', ')}`,
        received: describe(reply),
        exchange: reply.exchange,
      })
      if (!isSuccess(reply) || !op.path.endsWith('/create') && !op.path.endsWith('/create-custom')) continue
      // Remove what the creation made through the area's delete, addressed by its documented key.
      const area = op.path.slice(0, op.path.lastIndexOf('/'))
      const remove = t.operations().find((o) => o.method === 'DELETE' && o.path === `${area}/delete`)
      const keyField = (remove?.requestSchema?.required as string[] | undefined)?.[0]
      if (!remove || !keyField) continue
      const value = reply.json?.data?.[keyField] ?? reply.json?.data?.id ?? (body ?? {})[keyField]
      if (value !== undefined) t.cleanup(() => t.request(remove, { body: { [keyField]: value } }))
    }
  },
}
