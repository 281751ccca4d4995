/**
 * The spec server's own tiny world, written from the service document alone: an account with
 * three shops (one on Scale, one active below it, one inactive), a shop of another account, three
 * keys (standard, Enterprise, limited), a few products, creators in the CRM and sample requests.
 * Nothing here comes from the mock or its fixtures.
 */

/** A shop as `GET /account/shops` lists it (spec: Resources: Shop). */
export interface Shop {
  shop_id: string
  shop_name: string
  is_active: boolean
  created_at: string
  plan: string
}

/** An API key: its tier and, when limited, its routes (`<METHOD> <path>`) and shops (spec: Authentication 3-4). */
export interface ApiKey {
  account: string
  tier: 'standard' | 'enterprise'
  routes?: readonly string[]
  shops?: readonly string[]
}

/**
 * The internal shop id format of this server. The spec shows none ("Identifiers are strings");
 * this one is deliberately not the mock's UUIDs, so a rule that assumes a format is caught.
 */
export const SHOP_ID = /^shop_[0-9a-f]{12}$/

export const SHOPS = {
  scale: { shop_id: 'shop_3f9a0c7e21b4', shop_name: 'Harbor Goods', is_active: true, created_at: '2024-03-11', plan: 'scale' },
  growth: { shop_id: 'shop_8d21e6b04a97', shop_name: 'North Loom', is_active: true, created_at: '2025-01-20', plan: 'growth' },
  paused: { shop_id: 'shop_c05b7f3e9d12', shop_name: 'Old Pantry', is_active: false, created_at: '2023-07-02', plan: 'growth' },
} as const satisfies Record<string, Shop>

/** A shop of another account: well-formed, but not the keys' own. */
export const FOREIGN_SHOP: Shop = { shop_id: 'shop_9e7d5c3b1a08', shop_name: 'Elsewhere', is_active: true, created_at: '2022-02-02', plan: 'scale' }

export const ACCOUNTS: Record<string, readonly Shop[]> = {
  'acct-harbor': [SHOPS.scale, SHOPS.growth, SHOPS.paused],
  'acct-elsewhere': [FOREIGN_SHOP],
}

export const KEYS = {
  standard: 'spec-standard-key-7c1e',
  enterprise: 'spec-enterprise-key-4b2a',
  limited: 'spec-limited-key-91d0',
} as const

export const API_KEYS: Record<string, ApiKey> = {
  [KEYS.standard]: { account: 'acct-harbor', tier: 'standard' },
  [KEYS.enterprise]: { account: 'acct-harbor', tier: 'enterprise' },
  // spec: Authentication 3: "each key may be limited to specific routes and shops".
  [KEYS.limited]: { account: 'acct-harbor', tier: 'standard', routes: ['GET /shop/sps', 'GET /account/shops'], shops: [SHOPS.scale.shop_id] },
}

/** Shop Performance Score per shop (spec: GET /shop/sps, scale 0-5). */
export const SPS: Record<string, number> = { [SHOPS.scale.shop_id]: 4.6, [SHOPS.growth.shop_id]: 3.2, [SHOPS.paused.shop_id]: 2.9, [FOREIGN_SHOP.shop_id]: 4.1 }

/** Products of the Scale shop (spec: Resources: Product). */
export const PRODUCTS = [
  { product_id: '1729384756', product_name: 'Linen apron', status: 1, is_open_plan: true, price: 34, units_sold: 412, stock: 88 },
  { product_id: '1729384757', product_name: 'Cedar cutting board', status: 1, is_open_plan: false, price: 58, units_sold: 129, stock: 40 },
  { product_id: '1729384758', product_name: 'Enamel mug', status: 2, is_open_plan: true, price: 18, units_sold: 977, stock: 0 },
]

/** Creators in the Scale shop's CRM (spec: Resources: Affiliate). */
const CREATORS = [
  { handle: 'maya.cooks', creator_id: '7300000000000000001', nickname: 'Maya', gmv: 1840.5, units_sold: 61, video_count: 9, live_count: 1, followers: 48200, category: 'Home & Kitchen' },
  { handle: 'tom_builds', creator_id: '7300000000000000002', nickname: 'Tom B', gmv: 912, units_sold: 30, video_count: 4, live_count: 0, followers: 12900, category: 'Tools' },
  { handle: 'lena.home', creator_id: '7300000000000000003', nickname: 'Lena', gmv: 0, units_sold: 0, video_count: 1, live_count: 0, followers: 3050, category: 'Home & Kitchen' },
  { handle: 'ravi.eats', creator_id: '7300000000000000004', nickname: 'Ravi', gmv: 4210.25, units_sold: 140, video_count: 22, live_count: 5, followers: 203400, category: 'Food' },
]

export const AFFILIATES = CREATORS.map((c) => ({
  shop_id: SHOPS.scale.shop_id,
  handle: c.handle,
  creator_id: c.creator_id,
  nickname: c.nickname,
  showcasing: c.gmv > 0,
  units_sold: c.units_sold,
  video_count: c.video_count,
  live_count: c.live_count,
  live_duration: c.live_count * 45,
  gmv: c.gmv,
  video_gmv: Math.round(c.gmv * 0.8 * 100) / 100,
  live_gmv: Math.round(c.gmv * 0.2 * 100) / 100,
  commission: Math.round(c.gmv * 0.15 * 100) / 100,
  last_post: c.video_count ? '2026-11-02' : null,
  last_live: c.live_count ? '2026-10-28' : null,
  email: null,
  phone_number: null,
  med_gmv_revenue: Math.round(c.gmv * 3),
  follower_cnt: c.followers,
  brand_collaborations: c.video_count + 2,
  post_rate: 60,
  video_engagement: 4.2,
  video_avg_view_cnt: Math.round(c.followers / 8),
  category: c.category,
  category_splits: { [c.category]: 1 },
  regional_geography: ['US'],
  gender: null,
  age: null,
  race: null,
  body_type: null,
  economic_status: null,
  top_follower_gender: 'female',
  top_follower_ages: '25-34',
  bio: `${c.nickname} makes videos`,
  tags: [] as string[],
}))

/** Sample requests of the Scale shop (spec: Resources: Sample request). */
export const SAMPLE_REQUESTS = CREATORS.map((c, i) => ({
  shop_id: SHOPS.scale.shop_id,
  creator_id: c.creator_id,
  sampled_product: PRODUCTS[i % PRODUCTS.length].product_id,
  status: ['To Review', 'Ready to Ship', 'Shipped', 'Content Pending'][i],
  campaign_id: null,
  timestamp: `2026-11-${String(10 + i).padStart(2, '0')}T09:30:00Z`,
  sample_approved: i > 0 ? `2026-11-${String(11 + i).padStart(2, '0')}T10:00:00Z` : null,
  sample_received: i > 2 ? `2026-11-${String(16 + i).padStart(2, '0')}T15:00:00Z` : null,
  expire_date: `2026-12-${String(10 + i).padStart(2, '0')}`,
  source: i % 2 ? 'Open' : 'TC',
  apply_id: `apply-${1001 + i}`,
  handle: c.handle,
  bio: `${c.nickname} makes videos`,
  follower_cnt: c.followers,
  post_rate: i === 2 ? 'N/A' : 55,
  video_engagement: 3.8,
  med_gmv_revenue: Math.round(c.gmv * 3),
  med_gmv_revenue_range: '1K-5K',
  pps: 4.1,
  gpm: 12.5,
  shop_gmv: c.gmv,
  average_gmv_per_video: c.video_count ? Math.round((c.gmv / c.video_count) * 100) / 100 : 0,
  previous_approved: false,
}))

/** Stat keys a dashboard widget may show (spec: POST /shop/stats, the stat key table). */
export const STAT_KEYS = new Set(
  (
    'affiliate_gmv total_gmv affiliate_units_sold total_units_sold videos_posted affiliate_videos_posted video_views likes comments gpm emv commission ' +
    'distinct_creators first_time_posters daily_active_affiliates dms_sent open_plan_cards_sent followup_dms_sent replies tc_invites_sent sample_requests ' +
    'tc_sample_requests open_sample_requests samples_approved samples_delivered gmv_per_sample_delivered live_gmv lives_posted slideshow_gmv slideshow_posts ' +
    'slideshow_views video_gmv shop_tab_gmv shop_tab_impressions ad_spend ad_roi refund_amount items_refunded gmv_with_cofunding platform_orders aov ' +
    'new_content_gmv emails_sent samples_shipped refundable_sample_requests refundable_samples_shipped refundable_samples_delivered samples_refunded ' +
    'sample_refund_amount customer_count add_to_cart_count shipping_fees product_impressions subscription_revenue one_time_purchase_gmv recurrent_order_gmv ' +
    'first_subscription_order_gmv non_recurring_gmv new_subscriptions active_subscribers active_subscriptions subscription_aov subscription_retention_rate ' +
    'subscription_take_rate avg_videos_per_creator avg_gmv_per_video sample_ratio reply_ratio sample_post_rate sample_spend wasted_sample_spend gmv_per_sample_dollar'
  ).split(' '),
)
