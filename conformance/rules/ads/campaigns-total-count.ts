import { daysAgo, describe, expectSuccess, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const campaignsTotalCount: Rule = {
  id: 'ads.campaigns-total-count',
  title: 'The campaign list counts all the shop\'s campaigns whatever the dates, and lists campaigns without spend with zero metrics',
  spec: 'Sales-max ads: POST /ads/campaigns',
  level: 'MUST',
  quote: ['Campaigns with no spend still appear with zero metrics. `total_count` counts all the shop\'s campaigns regardless of dates.'],
  writes: false,
  operations: ['POST /ads/campaigns'],
  async run(t) {
    const recent = await t.request('POST /ads/campaigns', { body: { date_range: { from: daysAgo(30), to: daysAgo(1) }, page_size: 100 } })
    const ancient = await t.request('POST /ads/campaigns', { body: { date_range: { from: '2001-01-01', to: '2001-01-31' }, page_size: 100 } })
    if (!expectSuccess(t, recent, 'campaigns are served') || !expectSuccess(t, ancient, 'campaigns of a range without activity are served')) return
    t.check(recent.json.data?.total_count === ancient.json.data?.total_count, {
      operation: recent.op.permission,
      message: 'total_count is the same for any date range',
      expected: `total_count ${recent.json.data?.total_count} for both ranges`,
      received: describe(ancient, 200),
      exchange: ancient.exchange,
    })
    const rows = rowsOf(ancient.json)
    t.check(rows.length === Math.min(100, ancient.json.data?.total_count ?? 0) && rows.every((c) => c.ad_spend === 0 && c.orders === 0), {
      operation: ancient.op.permission,
      message: 'campaigns with no spend in the range still appear, with zero metrics',
      expected: 'every campaign listed with ad_spend 0 and orders 0',
      received: describe(ancient, 300),
      exchange: ancient.exchange,
    })
  },
}
