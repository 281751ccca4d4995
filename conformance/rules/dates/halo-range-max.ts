import { daysAgo, describe, expectRefusal, expectSuccess, isSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const haloRangeMax: Rule = {
  id: 'dates.halo-range-max',
  title: 'The halo report takes a date_range of at most 366 days: 366 served, 367 never served as such (refused, 400 inferred)',
  spec: 'Off-platform sales correlation; Limits: halo date range',
  level: 'MUST',
  quote: ['`date_range` {from, to} inclusive, at most 366 days', '| Halo date range | at most 366 days;'],
  writes: false,
  operations: ['POST /halo-effect'],
  async run(t) {
    // Inclusive ranges: from..to covers (to - from) + 1 days.
    const ok = await t.request('POST /halo-effect', { body: { date_range: { from: daysAgo(366), to: daysAgo(1) } } })
    expectSuccess(t, ok, 'a 366-day range is served')
    const tooLong = await t.request('POST /halo-effect', { body: { date_range: { from: daysAgo(367), to: daysAgo(1) } } })
    if (tooLong.status >= 400) {
      expectRefusal(t, tooLong, 400, 'a 367-day range is refused', 'the spec gives the 366-day limit, not the answer past it')
      return
    }
    // Served: only if the report covers at most 366 days (a server may shorten the range).
    const data = tooLong.json?.data
    const days = data?.date_from && data?.date_to ? (Date.parse(data.date_to) - Date.parse(data.date_from)) / 86_400_000 + 1 : Number.NaN
    t.check(isSuccess(tooLong) && days <= 366, { operation: tooLong.op.permission, message: 'a 367-day range is refused or shortened to at most 366 days', expected: 'a 4xx, or date_from..date_to within 366 days', received: describe(tooLong, 200), exchange: tooLong.exchange })
    t.warn({ operation: tooLong.op.permission, message: 'a 367-day range is served, not refused (inferred: the spec gives the 366-day limit, not the answer past it; 400 is ours)', expected: 'HTTP 400', received: describe(tooLong, 200), exchange: tooLong.exchange })
  },
}
