import { daysAgo, describe, equivalentJson, isSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const sparkFlatDateKeys: Rule = {
  id: 'aliases.spark-flat-date-keys',
  title: 'The spark list answers flat date keys (shared_time_from/_to) and inline filters as their search_params forms',
  spec: 'Sponsored-video codes (flat keys; search filters inline at top level)',
  level: 'MUST',
  quote: ['search filters may also be sent inline at top level; each date-range filter also accepts flat keys such as `shared_time_from`, `shared_time_to`'],
  writes: false,
  operations: ['POST /spark/list'],
  async run(t) {
    const range = { from: daysAgo(60), to: daysAgo(0) }
    const nested = await t.request('POST /spark/list', { body: { page_size: 50, include_total: true, search_params: { shared_time: range, sort_by: 'shared_time', sort_direction: 'DESC' } } })
    const flat = await t.request('POST /spark/list', { body: { page_size: 50, include_total: true, search_params: { shared_time_from: range.from, shared_time_to: range.to, sort_by: 'shared_time', sort_direction: 'DESC' } } })
    const inline = await t.request('POST /spark/list', { body: { page_size: 50, include_total: true, shared_time: range, sort_by: 'shared_time', sort_direction: 'DESC' } })
    for (const [reply, what] of [[flat, 'flat shared_time_from/shared_time_to'], [inline, 'filters inline at the top level']] as const) {
      t.check(isSuccess(nested) && reply.status === nested.status && equivalentJson(reply.json, nested.json), {
        operation: reply.op.permission,
        message: `${what} answer as search_params.shared_time`,
        expected: describe(nested, 200),
        received: describe(reply, 200),
        exchange: reply.exchange,
      })
    }
    // A range that excludes everything must change the answer, or the keys were ignored.
    const none = await t.request('POST /spark/list', { body: { page_size: 50, include_total: true, search_params: { shared_time_from: '2001-01-01', shared_time_to: '2001-01-02' } } })
    t.check(isSuccess(none) && none.json?.data?.total_count === 0, { operation: none.op.permission, message: 'flat keys filter (a range in 2001 finds nothing)', expected: 'total_count: 0', received: describe(none, 200), exchange: none.exchange })
  },
}
