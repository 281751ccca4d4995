/** Excluded creatives (spec: Sales-max ads: POST /ads/excluded-creatives, GET and /v1 forms): only active exclusions. */
import type { components } from '../../../openapi/types.ts'
import { defineHandler } from '../../context.ts'
import { csvExport, wantsCsv } from '../../csv.ts'
import { contentStats } from '../../lib/figures.ts'
import { idSetOf } from '../../lib/filters.ts'
import { numberedPage } from '../../lib/pages.ts'
import { shopDataFor } from '../../lib/shop.ts'
import { sortKeyOr, sortRows, upperDirectionOf } from '../../lib/sort.ts'
import { campaignNameOf } from './campaigns.ts'

type Schemas = components['schemas']

const EXCLUDED_SORT_KEYS = ['created_at', 'campaign_id', 'video_id', 'handle', 'rule_name'] as const
const EXCLUDED_COLUMNS = [
  'video_id', 'campaign_id', 'campaign_name', 'product_ids', 'handle', 'title', 'url', 'video_link', 'rule_id', 'rule_name', 'reason',
  'created_at', 'view_count', 'like_count', 'comment_count', 'video_gmv', 'units_sold', 'ctr', 'post_time',
]

// spec: Sales-max ads: POST /ads/excluded-creatives (and GET, /v1): only active exclusions.
export const listExcludedCreatives = defineHandler('listExcludedCreatives', (ctx) => {
  const data = shopDataFor(ctx)
  const { campaign_id, rule_id } = ctx.input
  const videoIds = idSetOf(ctx.input.video_ids)
  const active = data.exclusions.filter(
    (e) => e.active && (campaign_id === undefined || e.campaign_id === campaign_id) && (rule_id === undefined || e.rule_id === rule_id) && (!videoIds || videoIds.has(e.video_id)),
  )
  const sort_by = sortKeyOr(ctx.input.sort_by, EXCLUDED_SORT_KEYS, 'created_at')
  const sort_direction = upperDirectionOf(ctx.input.sort_direction)
  const sorted = sortRows(active, (e) => e[sort_by], sort_direction, (e) => `${e.campaign_id}:${e.video_id}`)
  const toRow = (e: (typeof sorted)[number]): Schemas['ExcludedCreative'] => {
    return {
      video_id: e.video_id,
      campaign_id: e.campaign_id,
      campaign_name: campaignNameOf(data, e.campaign_id),
      product_ids: [...e.product_ids],
      handle: e.handle,
      title: e.title,
      url: e.url,
      video_link: e.url,
      rule_id: e.rule_id,
      rule_name: e.rule_name,
      reason: e.reason,
      created_at: e.created_at,
      ...contentStats(data, e.video_id),
    }
  }
  if (wantsCsv(ctx)) return csvExport(ctx, sorted.map(toRow), EXCLUDED_COLUMNS)
  const { rows, page, page_size } = numberedPage(ctx, sorted)
  const exclusions = rows.map(toRow)
  return { status: 200, body: { data: { exclusions, total_count: active.length, page, page_size, sort_by, sort_direction } } }
})
