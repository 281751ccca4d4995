import { expectSuccess, isNumber, near, recentRange, rowsOf } from '../../support.ts'
import type { Reply, Rule, RuleContext } from '../../types.ts'

/** A ratio field and how it is computed from its parts (0 or null where the divisor is 0). */
interface Ratio {
  field: string
  numerator: (row: Record<string, any>) => number
  denominator: (row: Record<string, any>) => number
  scale?: number
}

function checkRatios(t: RuleContext, reply: Reply, rows: Array<Record<string, any>>, ratios: Ratio[], read: (row: Record<string, any>, field: string) => unknown) {
  for (const [index, row] of rows.entries()) {
    for (const ratio of ratios) {
      const value = read(row, ratio.field)
      const num = ratio.numerator(row)
      const den = ratio.denominator(row)
      if (!isNumber(num) || !isNumber(den)) continue
      const expected = den === 0 ? 0 : (num / den) * (ratio.scale ?? 1)
      const ok = den === 0 ? value === 0 || value === null : isNumber(value) && near(value, expected)
      if (!t.check(ok, {
        operation: reply.op.permission,
        message: `${ratio.field} equals the ratio of its parts`,
        expected: `${ratio.field} = ${den === 0 ? '0 (no divisor)' : expected.toFixed(4)}`,
        received: `row ${index}: ${ratio.field} = ${JSON.stringify(value)} (parts ${num} / ${den})`,
        exchange: reply.exchange,
      })) return
    }
  }
}

export const ratioFields: Rule = {
  id: 'invariants.ratio-fields',
  title: 'Ratio fields equal the ratio of their parts (ad_roi, cost_per_order, roas, cost_per_purchase, engagement and conversion rates, averages)',
  spec: 'Resources: Sales-max ad campaign, Affiliate timeseries row; Social: common metric fields',
  level: 'MUST',
  quote: ['`ad_roi` (ad_revenue / ad_spend, 0 if no spend), `cost_per_order` (ad_spend / orders, 0 if no orders)', '`roas` (purchase_value / spend, 0 if no spend), `cost_per_purchase` (spend / purchases, 0 if none)', '`engagement_rate` ((likes+comments)/views, percent), `conversion_rate` (units_sold/views, percent), `avg_gmv_per_view` (gmv/views), `avg_order_value` (gmv/units_sold)', '`roi`, `cpa`, `click_rate` are ratio of sums', '`cost_per_order` (equals cpa)'],
  writes: false,
  operations: ['POST /ads/campaigns', 'POST /ads/creatives', 'POST /social/campaigns', 'POST /timeseries/affiliates'],
  async run(t) {
    const range = recentRange(90)
    const campaigns = await t.request('POST /ads/campaigns', { body: { date_range: range, page_size: 100 } })
    if (expectSuccess(t, campaigns, 'campaigns are served')) {
      checkRatios(t, campaigns, rowsOf(campaigns.json), [
        { field: 'ad_roi', numerator: (r) => r.ad_revenue, denominator: (r) => r.ad_spend },
        { field: 'cost_per_order', numerator: (r) => r.ad_spend, denominator: (r) => r.orders },
      ], (r, f) => r[f])
      const totals = campaigns.json.data?.totals
      if (totals) checkRatios(t, campaigns, [totals], [{ field: 'ad_roi', numerator: (r) => r.ad_revenue, denominator: (r) => r.ad_spend }], (r, f) => r[f])
    }
    const creatives = await t.request('POST /ads/creatives', { body: { page_size: 100 } })
    if (expectSuccess(t, creatives, 'creatives are served')) {
      checkRatios(t, creatives, rowsOf(creatives.json), [
        // spec: roi and cpa are ratios of sums; cost_per_order equals cpa.
        { field: 'roi', numerator: (r) => r.gross_revenue, denominator: (r) => r.ad_spend },
        { field: 'cpa', numerator: (r) => r.ad_spend, denominator: (r) => r.orders },
        { field: 'cost_per_order', numerator: (r) => r.ad_spend, denominator: (r) => r.orders },
      ], (r, f) => r[f])
    }
    const social = await t.request('POST /social/campaigns', { body: { date_range: range, page_size: 100 } })
    if (expectSuccess(t, social, 'social campaigns are served')) {
      const metric = (r: Record<string, any>) => r.metrics ?? r
      checkRatios(t, social, rowsOf(social.json), [
        { field: 'roas', numerator: (r) => metric(r).purchase_value, denominator: (r) => metric(r).spend },
        { field: 'cost_per_purchase', numerator: (r) => metric(r).spend, denominator: (r) => metric(r).purchases },
      ], (r, f) => metric(r)[f])
    }
    const affiliates = await t.request('POST /timeseries/affiliates', { body: { page_size: 100, page_number: 1, search_params: { date_range: range, sort_by: 'gmv', sort_direction: 'DESC' } } })
    if (expectSuccess(t, affiliates, 'the affiliate timeseries is served')) {
      checkRatios(t, affiliates, rowsOf(affiliates.json), [
        { field: 'engagement_rate', numerator: (r) => r.likes + r.comments, denominator: (r) => r.views, scale: 100 },
        { field: 'conversion_rate', numerator: (r) => r.units_sold, denominator: (r) => r.views, scale: 100 },
        { field: 'avg_gmv_per_view', numerator: (r) => r.gmv, denominator: (r) => r.views },
        { field: 'avg_order_value', numerator: (r) => r.gmv, denominator: (r) => r.units_sold },
      ], (r, f) => r[f])
    }
  },
}
