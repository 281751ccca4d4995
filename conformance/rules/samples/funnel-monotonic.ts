import { describe, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

const STAGES = ['requested', 'approved', 'shipped', 'delivered', 'posted']

export const funnelMonotonic: Rule = {
  id: 'samples.funnel-monotonic',
  title: 'The sample funnel lists its five stages in order with counts that never increase; by_status is ordered by count',
  spec: 'Samples: POST /affiliate/samples/funnel',
  level: 'MUST',
  quote: ['`funnel[]`: stages `requested`, `approved`, `shipped`, `delivered`, `posted`', 'Counts are cumulative (a request counts at every stage it ever passed, derived from timestamps and status) so they never increase down the list.', 'Ordered by count descending.'],
  writes: false,
  operations: ['POST /affiliate/samples/funnel'],
  async run(t) {
    for (const body of [{}, { time_field: 'approved' }, { source: 'TC' }]) {
      const reply = await t.request('POST /affiliate/samples/funnel', { body })
      if (!expectSuccess(t, reply, 'the funnel is served')) continue
      const data = reply.json.data ?? {}
      const funnel = (data.funnel ?? []) as Array<Record<string, any>>
      if (funnel.length === 0 && data.total_count === 0) continue
      const fail = (message: string, expected: string) => t.fail({ operation: reply.op.permission, message, expected, received: describe(reply, 600), exchange: reply.exchange })
      if (funnel.map((s) => s.stage).join() !== STAGES.join()) fail('the stages come in order', STAGES.join(', '))
      const increase = funnel.findIndex((s, i) => i > 0 && s.count > funnel[i - 1].count)
      if (increase > 0) fail(`counts never increase down the funnel (${funnel[increase].stage})`, 'non-increasing counts')
      if (funnel[0] && (funnel[0].conversion_from_previous_pct !== null || funnel[0].dropped_from_previous !== null)) {
        fail('the entry stage has null conversion_from_previous_pct and dropped_from_previous', 'null on the entry stage')
      }
      const dropMismatch = funnel.findIndex((s, i) => i > 0 && s.dropped_from_previous !== funnel[i - 1].count - s.count)
      if (dropMismatch > 0) fail('dropped_from_previous is the previous count less this one', `${funnel[dropMismatch - 1].count - funnel[dropMismatch].count} at ${funnel[dropMismatch].stage}`)
      const byStatus = (data.by_status ?? []) as Array<Record<string, any>>
      if (byStatus.some((s, i) => i > 0 && s.count > byStatus[i - 1].count)) fail('by_status is ordered by count descending', 'non-increasing counts')
    }
  },
}
