/** Shop statistics: `POST /shop/stats` and its stat keys (spec: `POST /shop/stats`). */
import type { Area } from '../document.ts'
import { arr, body, bool, data, enumOf, num, obj, operation, ref, str } from '../dsl.ts'
import { dateRange } from '../common.ts'

/** Every stat key of the spec's table, in the table's order. */
export const STAT_KEYS = [
  'affiliate_gmv', 'total_gmv', 'affiliate_units_sold', 'total_units_sold', 'videos_posted', 'affiliate_videos_posted',
  'video_views', 'likes', 'comments', 'gpm', 'emv', 'commission', 'distinct_creators', 'first_time_posters',
  'daily_active_affiliates', 'dms_sent', 'open_plan_cards_sent', 'followup_dms_sent', 'replies', 'tc_invites_sent',
  'sample_requests', 'tc_sample_requests', 'open_sample_requests', 'samples_approved', 'samples_delivered',
  'gmv_per_sample_delivered', 'live_gmv', 'lives_posted', 'slideshow_gmv', 'slideshow_posts', 'slideshow_views',
  'video_gmv', 'shop_tab_gmv', 'shop_tab_impressions', 'ad_spend', 'ad_roi', 'refund_amount', 'items_refunded',
  'gmv_with_cofunding', 'platform_orders', 'aov', 'new_content_gmv', 'emails_sent', 'samples_shipped',
  'refundable_sample_requests', 'refundable_samples_shipped', 'refundable_samples_delivered', 'samples_refunded',
  'sample_refund_amount', 'customer_count', 'add_to_cart_count', 'shipping_fees', 'product_impressions',
  'subscription_revenue', 'one_time_purchase_gmv', 'recurrent_order_gmv', 'first_subscription_order_gmv',
  'non_recurring_gmv', 'new_subscriptions', 'active_subscribers', 'active_subscriptions', 'subscription_aov',
  'subscription_retention_rate', 'subscription_take_rate', 'avg_videos_per_creator', 'avg_gmv_per_video',
  'sample_ratio', 'reply_ratio', 'sample_post_rate', 'sample_spend', 'wasted_sample_spend', 'gmv_per_sample_dollar',
] as const

export type StatKey = (typeof STAT_KEYS)[number]

// spec: POST /shop/stats: stats with chart No return only total_count and percent_change even with charts.
export const CHARTLESS_STAT_KEYS = ['avg_videos_per_creator', 'avg_gmv_per_video', 'sample_ratio', 'reply_ratio'] as const satisfies readonly StatKey[]

export const stats: Area = {
  name: 'Shop stats',
  description: 'Shop-wide statistics over a date range, with optional daily (or weekly, monthly) charts.',
  schemas: {
    StatKey: enumOf(STAT_KEYS, { description: 'A stat key of POST /shop/stats (spec: `POST /shop/stats`, Stat keys). An unknown key is refused with 400, here and in dashboard widgets.' }),
  },
  operations: [
    operation({
      method: 'post',
      path: '/shop/stats',
      operationId: 'getShopStats',
      tag: 'Shop stats',
      specSection: '`POST /shop/stats`',
      summary: 'Totals, period-over-period change and optional charts for the requested stat keys',
      description: [
        '`daily_counts` appears only with `include_charts`, and never for the chartless keys (`avg_videos_per_creator`, `avg_gmv_per_video`, `sample_ratio`, `reply_ratio`).',
        '`grain` buckets `daily_counts` only; totals and `percent_change` cover the whole period.',
        'An unrecognised `timezone` or a `grain` other than day, week, month returns 400.',
        'A `date_range` longer than 3,660 days is refused with 400 (inferred: ten years, far beyond any shop\'s data).',
      ].join(' '),
      requestBody: body(
        {
          date_range: dateRange(),
          include_charts: bool({ description: 'Adds `daily_counts` to charted stats. Listed without "optional" in the spec; the mock reads a missing value as false (inferred).' }),
          stats: arr(ref('StatKey'), { description: 'Stat keys to compute; an unknown key is refused.' }),
          product_id: str(),
          campaign_id: str(),
          only_show_campaign_stats: bool(),
          cpm: num({ minimum: 0, default: 5, description: 'Cost per 1,000 views used by `emv`; a negative value is refused with 400 (inferred).' }),
          timezone: str({
            description: 'IANA time zone name; default the shop\'s registered zone. An unrecognised name returns 400 (checked by the server). Re-cuts days only for events timestamped by the service itself.',
          }),
          grain: { ...ref('Grain'), default: 'day', description: 'Bucket size of `daily_counts`; weeks start Monday, months are calendar months.' },
        },
        // spec: POST /shop/stats: date_range, include_charts and stats are listed without "optional". A missing
        // include_charts is read as false (lenient, inferred); date_range and stats are required.
        { required: ['date_range', 'stats'] },
      ),
      success: { status: 200, schema: data(obj({ stats: arr(ref('StatEntry')) })) },
    }),
  ],
}
