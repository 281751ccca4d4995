import { canonicalOf, typicalRequest } from '../../examples.ts'
import { describe, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const justCount: Rule = {
  id: 'paging.just-count',
  title: 'Listings with just_count: true return only total_count, the same count the listing reports',
  spec: 'Conventions 3; Samples: POST /affiliate/samples/list',
  level: 'MUST',
  quote: ['Listing endpoints with `just_count: true` return only `total_count`.', 'count-only returns `{data: {total_count}}`'],
  writes: false,
  operations: ['POST /affiliate/samples/list', 'POST /affiliate/crm/list', 'POST /spark/list'],
  async run(t) {
    const counting = t.operations().filter((op) => !op.aliasOf && !op.enterprise && op.method === 'POST' && (op.requestSchema?.properties as Record<string, unknown> | undefined)?.just_count)
    if (!counting.length) return t.skip('no operation of the contract takes just_count')
    for (const op of counting) {
      const base = typicalRequest(t.contract, canonicalOf(t.contract, op)).body
      const reply = await t.request(op, { body: { ...base, just_count: true } })
      if (!expectSuccess(t, reply, 'just_count is served')) continue
      const holder = reply.json.data && typeof reply.json.data === 'object' && !Array.isArray(reply.json.data) ? reply.json.data : reply.json
      const keys = Object.keys(holder)
      t.check(Number.isInteger(holder.total_count) && keys.every((k) => k === 'total_count'), {
        operation: op.permission,
        message: 'the answer has only total_count',
        expected: '{"data": {"total_count": <integer>}}',
        received: describe(reply, 200),
        exchange: reply.exchange,
      })
      if (op.permission === 'POST /affiliate/samples/list') {
        // spec: total_count is filled on page 1.
        const page = await t.request(op, { body: { ...base, page_size: 10, page_number: 1 } })
        if (expectSuccess(t, page, 'page 1 is served')) {
          t.check(page.json.data?.total_count === holder.total_count, { operation: op.permission, message: 'just_count equals the total_count of page 1', expected: String(holder.total_count), received: String(page.json.data?.total_count), exchange: page.exchange })
        }
      }
    }
  },
}
