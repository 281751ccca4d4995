import { expectError, expectSuccess, recentRange } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const statsGrainTimezone: Rule = {
  id: 'dates.stats-grain-timezone',
  title: 'Shop stats refuse an unrecognised timezone and a grain other than day, week, month with 400',
  spec: 'POST /shop/stats rules 1-2; Errors',
  level: 'MUST',
  quote: ['An unrecognised value returns 400.', 'Any other grain value returns 400.', '| 400 | unrecognised `timezone` or `grain` other than day, week, month | validation error |'],
  writes: false,
  operations: ['POST /shop/stats'],
  async run(t) {
    const base = { date_range: recentRange(14), stats: ['total_gmv', 'videos_posted'], include_charts: true }
    for (const grain of ['day', 'week', 'month']) expectSuccess(t, await t.request('POST /shop/stats', { body: { ...base, grain } }), `grain ${grain} is served`)
    expectSuccess(t, await t.request('POST /shop/stats', { body: { ...base, timezone: 'America/New_York' } }), 'an IANA timezone is served')
    expectError(t, await t.request('POST /shop/stats', { body: { ...base, grain: 'year' } }), 400, undefined, 'grain "year" is refused')
    expectError(t, await t.request('POST /shop/stats', { body: { ...base, timezone: 'Mars/Olympus_Mons' } }), 400, undefined, 'an unrecognised timezone is refused')
  },
}
