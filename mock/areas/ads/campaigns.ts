/** Sales-max campaigns (spec: Sales-max ads: POST /ads/campaigns): every metric summed from the daily facts for the window. */
import type { ShopData } from '../../../fixtures/index.ts'
import type { components } from '../../../openapi/types.ts'
import { defineHandler } from '../../context.ts'
import { requireDateRange } from '../../pipeline/validate.ts'
import { dayIndexes } from '../../lib/dates.ts'
import { positiveRatio, round2 } from '../../lib/numbers.ts'
import { numberedPage } from '../../lib/pages.ts'
import { shopDataFor } from '../../lib/shop.ts'
import { sortKeyOr, sortRows, upperDirectionOf } from '../../lib/sort.ts'

type Schemas = components['schemas']

const CAMPAIGN_SORT_KEYS = ['ad_spend', 'ad_revenue', 'orders', 'campaign_name', 'operation_status', 'budget', 'roas_target'] as const

interface SpendSums {
  ad_spend: number
  ad_revenue: number
}

/** Spend and revenue of the campaigns over [fromDay, toDay], with ad_roi = revenue / spend (0 with no spend). */
function campaignTotals(data: ShopData, fromDay: number, toDay: number): SpendSums & { ad_roi: number } {
  const table = data.facts.campaigns
  let spend = 0
  let revenue = 0
  for (const c of data.campaigns) {
    spend += table.sum('ad_spend', c.campaign_id, fromDay, toDay)
    revenue += table.sum('ad_revenue', c.campaign_id, fromDay, toDay)
  }
  const ad_spend = round2(spend)
  const ad_revenue = round2(revenue)
  return { ad_spend, ad_roi: positiveRatio(ad_revenue, ad_spend), ad_revenue }
}

// spec: Sales-max ads: POST /ads/campaigns.
export const listAdCampaigns = defineHandler('listAdCampaigns', (ctx) => {
  const data = shopDataFor(ctx)
  const { fromDay, toDay } = dayIndexes(data.facts.campaigns.axis, requireDateRange(ctx.input), 'date_range')
  const table = data.facts.campaigns
  const campaigns: Array<Schemas['AdCampaign']> = data.campaigns.map((c) => {
    const ad_spend = round2(table.sum('ad_spend', c.campaign_id, fromDay, toDay))
    const ad_revenue = round2(table.sum('ad_revenue', c.campaign_id, fromDay, toDay))
    const orders = Math.round(table.sum('orders', c.campaign_id, fromDay, toDay))
    return { ...c, item_group_ids: [...c.item_group_ids], ad_spend, ad_revenue, orders, ad_roi: positiveRatio(ad_revenue, ad_spend), cost_per_order: positiveRatio(ad_spend, orders) }
  })
  const sort_by = sortKeyOr(ctx.input.sort_by, CAMPAIGN_SORT_KEYS, 'ad_spend')
  const sort_direction = upperDirectionOf(ctx.input.sort_direction)
  const sorted = sortRows(campaigns, (c) => c[sort_by], sort_direction, (c) => c.campaign_id)
  // spec: prev covers the equal-length period immediately before the range.
  const length = toDay - fromDay + 1
  const { ad_spend, ad_roi, ad_revenue } = campaignTotals(data, fromDay, toDay)
  const prev = campaignTotals(data, fromDay - length, fromDay - 1)
  const { rows, page, page_size } = numberedPage(ctx, sorted)
  return {
    status: 200,
    body: {
      data: {
        totals: { ad_spend, ad_roi, ad_revenue, prev },
        campaigns: rows,
        total_count: data.campaigns.length,
        page,
        page_size,
        sort_by,
        sort_direction,
      },
    },
  }
})

/** The name of one of the shop's campaigns (null for an id it does not know). */
export const campaignNameOf = (data: ShopData, campaignId: string): string | null => data.campaigns.find((c) => c.campaign_id === campaignId)?.campaign_name ?? null
