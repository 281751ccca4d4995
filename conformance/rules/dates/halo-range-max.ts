import { daysAgo, expectError, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const haloRangeMax: Rule = {
  id: 'dates.halo-range-max',
  title: 'The halo report takes a date_range of at most 366 days: 366 served, 367 refused with 400',
  spec: 'Off-platform sales correlation; Limits: halo date range',
  level: 'MUST',
  writes: false,
  operations: ['POST /halo-effect'],
  async run(t) {
    // Inclusive ranges: from..to covers (to - from) + 1 days.
    const ok = await t.request('POST /halo-effect', { body: { date_range: { from: daysAgo(366), to: daysAgo(1) } } })
    expectSuccess(t, ok, 'a 366-day range is served')
    const tooLong = await t.request('POST /halo-effect', { body: { date_range: { from: daysAgo(367), to: daysAgo(1) } } })
    expectError(t, tooLong, 400, undefined, 'a 367-day range is refused')
  },
}
