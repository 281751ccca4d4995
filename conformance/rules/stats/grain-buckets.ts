import { daysAgo, describe, expectSuccess } from '../../support.ts'
import type { Rule } from '../../types.ts'

/** Monday on or before a YYYY-MM-DD date. */
const mondayOf = (date: string) => {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7))
  return d.toISOString().slice(0, 10)
}

export const grainBuckets: Rule = {
  id: 'stats.grain-buckets',
  title: 'With grain week or month, each point is its bucket\'s first day (Mondays, first of month) except the first, which is the from date',
  spec: 'POST /shop/stats rule 2 (grain)',
  level: 'MUST',
  quote: ['Weeks start Monday; months are calendar months; each point\'s date is its bucket\'s first day except the first point, which is the `from` date (partial first and last buckets possible).'],
  writes: false,
  operations: ['POST /shop/stats'],
  async run(t) {
    // A range starting mid-week and mid-month, so the first bucket is partial.
    const to = daysAgo(2)
    const from = daysAgo(75)
    for (const grain of ['week', 'month'] as const) {
      const reply = await t.request('POST /shop/stats', { body: { date_range: { from, to }, stats: ['total_gmv'], include_charts: true, grain } })
      if (!expectSuccess(t, reply, `grain ${grain} is served`)) continue
      const points = ((reply.json.data?.stats ?? [])[0]?.daily_counts ?? []) as Array<{ date: string }>
      const dates = points.map((p) => p.date)
      const expected: string[] = [from]
      for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d.setUTCDate(d.getUTCDate() + 1)) {
        const day = d.toISOString().slice(0, 10)
        const starts = grain === 'week' ? mondayOf(day) === day : day.endsWith('-01')
        if (starts && day !== from) expected.push(day)
      }
      t.check(dates.join() === expected.join(), {
        operation: reply.op.permission,
        message: `points of grain ${grain} start at from, then on each ${grain === 'week' ? 'Monday' : 'first of the month'}`,
        expected: expected.join(', '),
        received: dates.join(', ') || describe(reply, 200),
        exchange: reply.exchange,
      })
    }
  },
}
