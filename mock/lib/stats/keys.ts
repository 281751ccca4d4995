/**
 * The stat-key table of spec `POST /shop/stats`: for each key its title and how it is computed under
 * the filters. Filter rules, in the table's words: the subscription and shop-wide keys ignore
 * `campaign_id`; `refund_amount`, `items_refunded`, `gmv_with_cofunding`, `platform_orders` give 0 with
 * `product_id`; the other keys narrow to what the record carries (a post's campaign and primary
 * product, a sample's campaign and product, a LIVE's campaign and product stats, an event's automation
 * or email campaign, an ad campaign and a creative's product). Pre-summarised product metrics with no
 * campaign dimension (shop tab, customers, carts, shipping, impressions, aov) ignore `campaign_id`;
 * events carry no product and ignore `product_id`.
 */
import type { StatKey } from '../../../openapi/index.ts'
import type { FactTable } from '../../../fixtures/facts.ts'
import { cents } from '../../../fixtures/random.ts'
import type { RefundableSample, SampleRequest } from '../../../fixtures/types.ts'
import { sampleRequestsOf } from '../sample-requests.ts'
import {
  attributedDaily,
  carriedDaily,
  carriedTotalDaily,
  contentTotalsDaily,
  countsOverWindow,
  creatorKey,
  creatorKeyCount,
  dailyKeys,
  keysFrom,
  eventDaily,
  factDaily,
  keysOverWindow,
  keptRecordDaily,
  liveFactsDaily,
  postFactsDaily,
  postFeatures,
  postMatches,
  productDaily,
  recordDaily,
  sampleCost,
  sampleMatches,
  shopDaily,
  tableDaily,
  videoCreatorKeys,
  videoEntities,
  videoDays,
  videoPostIndex,
  videoPostMs,
  videoWindowSeries,
  type DailyKeys,
} from './sources.ts'
import { ratio } from '../numbers.ts'
import { summarize, type StatShape } from './shapes.ts'
import { combine, memo, zerosOnAxis, zoneDay, type Daily, type StatWindow } from './window.ts'

interface StatDefinition {
  title: string
  shape: (w: StatWindow) => StatShape
}

const sum = (daily: Daily): StatShape => ({ kind: 'sum', daily })
const ratioOf = (num: Daily, den: Daily, scale = 1): StatShape => ({ kind: 'ratio', num, den, scale })
const filtered = (w: StatWindow) => w.productId !== null || w.campaignId !== null

/** The memoised shape of a key for this request. */
export function statShape(w: StatWindow, key: StatKey): StatShape {
  return memo(w, `stat:${key}`, () => STATS[key].shape(w))
}

export function statTitle(key: StatKey): string {
  return STATS[key].title
}

/** The daily values of a summed stat (for ratios built on it). */
function daily(w: StatWindow, key: StatKey): Daily {
  const shape = statShape(w, key)
  if (shape.kind !== 'sum') throw new Error(`${key} is not a summed stat`)
  return shape.daily
}

/** A chartless ratio of two other stats' values over the same days (0 on a zero denominator). */
const compositeRatio = (num: StatKey, den: StatKey) => (w: StatWindow): StatShape => ({
  kind: 'composite',
  value: (range) => ratio(summarize(statShape(w, num), range) ?? 0, summarize(statShape(w, den), range) ?? 0),
})

/** spec: "shop-wide; ignores campaign_id; product_id gives 0": the shop report, zeroed for a product. */
const shopWideZeroForProduct = (metric: 'refund_amount' | 'items_refunded' | 'gmv_with_cofunding' | 'platform_orders') => (w: StatWindow): StatShape => {
  const values = shopDaily(w, metric)
  return sum(w.productId === null ? values : values.map((v) => (Number.isNaN(v) ? NaN : 0)))
}

// ---- posts ----

/** Videos posted per day of the requested timezone (brand posts too unless affiliateOnly). */
function videosPosted(w: StatWindow, affiliateOnly: boolean): Daily {
  const perDay = videoDays(w, affiliateOnly ? 'affiliate-videos-posted' : 'videos-posted', (days) => {
    const counts = new Map<number, number>()
    w.data.videos.forEach((video, k) => {
      if ((!affiliateOnly || !video.is_brand) && postFeatures(w, video)) counts.set(days[k]!, (counts.get(days[k]!) ?? 0) + 1)
    })
    return counts
  })
  return countsOverWindow(w, perDay)
}

/** Affiliate creators who posted a video, per day of the requested timezone. */
function postingCreators(w: StatWindow): DailyKeys {
  const perDay = videoDays(w, 'posting-creators', (days) => {
    const keys = new Map<number, number[]>()
    const creators = videoCreatorKeys(w)
    w.data.videos.forEach((video, k) => {
      if (video.is_brand || !postFeatures(w, video)) return
      let day = keys.get(days[k]!)
      if (!day) keys.set(days[k]!, (day = []))
      day.push(creators[k]!)
    })
    return keys
  })
  return keysOverWindow(w, perDay, creatorKeyCount(w))
}

/** Affiliates whose first video with the shop (for the filters) was posted that day. */
function firstTimePosters(w: StatWindow): Daily {
  const perDay = videoDays(w, 'first-time-posters', () => {
    const first = new Map<string, number>()
    const posted = videoPostMs(w)
    w.data.videos.forEach((video, k) => {
      if (video.is_brand || !postFeatures(w, video)) return
      const seen = first.get(video.creator_id)
      if (seen === undefined || posted[k]! < seen) first.set(video.creator_id, posted[k]!)
    })
    const counts = new Map<number, number>()
    for (const ms of first.values()) {
      if (Number.isNaN(ms)) continue
      const day = zoneDay(w, ms)
      counts.set(day, (counts.get(day) ?? 0) + 1)
    }
    return counts
  })
  return countsOverWindow(w, perDay)
}

/**
 * spec: daily_active_affiliates: creators with nonzero GMV; unfiltered attribution based (the affiliate
 * facts, LIVEs and showcase included), with a campaign or product filter only video-attributed sales.
 */
function activeAffiliates(w: StatWindow): DailyKeys {
  const length = w.hi - w.lo + 1
  if (!filtered(w)) {
    // The affiliate facts never change: their active creators by day are listed once per shop.
    const table = w.data.facts.affiliates
    return keysFrom(activeAffiliatesByDay(table), w.lo, table.axis.count)
  }
  const keys: number[][] = Array.from({ length }, () => [])
  const table = w.data.facts.videos
  const gmv = table.columns.gmv
  for (const video of w.data.videos) {
    if (!postMatches(w, video, { affiliateOnly: true })) continue
    const key = creatorKey(w, video.creator_id)
    const [a, b] = table.rowRange(table.indexOf(video.video_id), w.lo, w.hi)
    for (let r = a; r < b; r++) if (gmv[r]! > 0) keys[table.days[r]! - w.lo]!.push(key)
  }
  return dailyKeys(keys, creatorKeyCount(w))
}

const activeByDay = new WeakMap<FactTable, DailyKeys>()

/** The affiliate fact table turned day-major: for each day of the axis, the entities with GMV > 0 that day. */
function activeAffiliatesByDay<M extends string>(table: FactTable<M | 'gmv'>): DailyKeys {
  let byDay = activeByDay.get(table as FactTable)
  if (byDay) return byDay
  const gmv = table.columns.gmv
  const count = table.axis.count
  const offsets = new Int32Array(count + 1)
  for (let r = 0; r < table.rowCount; r++) if (gmv[r]! > 0 && table.days[r]! < count) offsets[table.days[r]! + 1]!++
  for (let d = 0; d < count; d++) offsets[d + 1]! += offsets[d]!
  const entities = new Int32Array(offsets[count]!)
  const fill = offsets.slice(0, count)
  for (let e = 0; e < table.entityCount; e++) {
    for (let r = table.offsets[e]!; r < table.offsets[e + 1]!; r++) if (gmv[r]! > 0 && table.days[r]! < count) entities[fill[table.days[r]!]!++] = e
  }
  const days = Array.from({ length: count }, (_, d) => entities.subarray(offsets[d]!, offsets[d + 1]!))
  activeByDay.set(table as FactTable, (byDay = dailyKeys(days, table.entityCount)))
  return byDay
}

/** spec: new_content_gmv: GMV, within a period, of the videos posted in that same period. */
function newContentGmv(w: StatWindow): Daily {
  return videoWindowSeries(w, 'new-content-gmv', () => newContentGmvOf(w))
}

function newContentGmvOf(w: StatWindow): Daily {
  // Every day of the axis is known (0) already: the rows with GMV are all that adds anything.
  const out = zerosOnAxis(w)
  const table = w.data.facts.videos.nonzero('gmv')
  const current = w.from - w.lo
  const days = videoPostIndex(w)
  const entities = videoEntities(w)
  const videos = w.data.videos
  for (let k = 0; k < videos.length; k++) {
    const i = days[k]!
    if (i < 0 || !postMatches(w, videos[k]!)) continue
    if (i >= current) table.addDays('gmv', entities[k]!, w.from, w.hi, out, w.lo)
    else table.addDays('gmv', entities[k]!, w.lo, w.from - 1, out, w.lo)
  }
  return out
}

/** Commission: the content totals; for a product its affiliate GMV at its rate; for a campaign its content. */
function commission(w: StatWindow): Daily {
  if (w.campaignId !== null) return attributedDaily(w, 'commission', { affiliateOnly: true })
  if (w.productId === null) return contentTotalsDaily(w, 'commission')
  const rate = (w.data.products.find((p) => p.product_id === w.productId)?.commission_rate ?? 0) / 10_000
  return productDaily(w, 'affiliate_gmv').map((v) => (Number.isNaN(v) ? NaN : cents(v * rate)))
}

// ---- ads ----

/** Sales-max spend or revenue: the campaigns' facts, or the creatives of the product; a campaign_id names a sales-max campaign. */
function adDaily(w: StatWindow, metric: 'spend' | 'revenue'): Daily {
  return memo(w, `ads:${metric}`, () => {
    const out = zerosOnAxis(w)
    if (w.productId === null) {
      const table = w.data.facts.campaigns
      const column = metric === 'spend' ? 'ad_spend' : 'ad_revenue'
      return w.campaignId === null ? tableDaily(w, table, column, out) : factDaily(w, table, column, [table.indexOf(w.campaignId)], out)
    }
    const table = w.data.facts.creatives
    const entities = w.data.creatives
      .filter((c) => c.product_id === w.productId && (w.campaignId === null || c.campaign_id === w.campaignId))
      .map((c) => table.indexOf(c.creative_id))
    return factDaily(w, table, metric, entities, out)
  })
}

/** spec: ad_roi = GMV / ad spend; under a sales-max campaign filter the GMV is what the campaign's ads drove. */
function adRoi(w: StatWindow): StatShape {
  const salesMax = w.campaignId !== null && w.data.campaigns.some((c) => c.campaign_id === w.campaignId)
  return ratioOf(salesMax ? adDaily(w, 'revenue') : daily(w, 'total_gmv'), adDaily(w, 'spend'))
}

// ---- samples ----

type SampleTimestamp = 'timestamp' | 'sample_approved' | 'sample_shipped' | 'sample_received'

/**
 * Sample requests (matching the filters) counted on the day of one of their timestamps. `name` tells
 * `where`s apart: the days are kept per list of requests under it.
 */
function samples(w: StatWindow, at: SampleTimestamp, name: string, where?: (s: SampleRequest) => boolean): Daily {
  return keptRecordDaily(w, sampleRequestsOf(w.state, w.data.shop.shop_id), at, name, { where: (s) => sampleMatches(w, s) && (!where || where(s)) })
}

/**
 * Shipped samples (matching the filters) weighted by their cost on their shipping day, summed per
 * request: the cost reads the shop's SKUs and products, which an editable world's test rewrites in
 * place between requests (test/mock-stats.test.ts, sample_spend cost basis).
 */
function sampleCosts(w: StatWindow, where?: (s: SampleRequest) => boolean): Daily {
  return recordDaily(w, sampleRequestsOf(w.state, w.data.shop.shop_id), 'sample_shipped', { where: (s) => sampleMatches(w, s) && (!where || where(s)), weight: sampleCost(w) })
}

const isPosted = (s: SampleRequest) => s.sample_posted !== null

/** spec: samples_shipped also respects only_show_campaign_stats: then only samples that came through a campaign. */
const campaignSamplesOnly = (w: StatWindow) => (s: SampleRequest) => !w.onlyCampaignStats || s.campaign_id !== null

const refundables = (w: StatWindow, at: 'timestamp' | 'sample_shipped' | 'sample_received') =>
  keptRecordDaily(w, w.data.refundableSamples, at, 'count', { where: (s) => sampleMatches(w, s) })

/** spec: bucketed by refund date: refunds are the platform's, on its own days. `name` tells `weight`s apart. */
const refunds = (w: StatWindow, name: string, weight?: (s: RefundableSample) => number) =>
  keptRecordDaily(w, w.data.refundableSamples, 'refund_time', name, { where: (s) => sampleMatches(w, s), weight, platformDays: true })

// ---- subscriptions (spec: rule 3: they ignore campaign_id; only three respond to product_id) ----

const weighted = (w: StatWindow, rate: 'subscription_retention_rate' | 'subscription_take_rate', weight: 'active_subscribers' | 'subscription_revenue') => {
  const weights = shopDaily(w, weight)
  return ratioOf(combine(shopDaily(w, rate), weights, (r, x) => r * x), weights)
}

export const STATS: Record<StatKey, StatDefinition> = {
  affiliate_gmv: {
    title: 'Affiliate GMV',
    shape: (w) => sum(w.campaignId === null ? productDaily(w, 'affiliate_gmv') : attributedDaily(w, 'gmv', { affiliateOnly: true })),
  },
  total_gmv: { title: 'Total GMV', shape: (w) => sum(w.campaignId === null ? productDaily(w, 'total_gmv') : attributedDaily(w, 'gmv')) },
  affiliate_units_sold: {
    title: 'Affiliate units sold',
    shape: (w) => sum(w.campaignId === null ? productDaily(w, 'affiliate_units_sold') : attributedDaily(w, 'units_sold', { affiliateOnly: true })),
  },
  total_units_sold: { title: 'Total units sold', shape: (w) => sum(w.campaignId === null ? productDaily(w, 'units_sold') : attributedDaily(w, 'units_sold')) },
  videos_posted: { title: 'Videos posted', shape: (w) => sum(videosPosted(w, false)) },
  affiliate_videos_posted: { title: 'Affiliate videos posted', shape: (w) => sum(videosPosted(w, true)) },
  video_views: {
    title: 'Video views',
    shape: (w) => sum(memo(w, 'video_views', () => (filtered(w) ? postFactsDaily(w, 'videos', 'views') : contentTotalsDaily(w, 'video_views')))),
  },
  likes: {
    title: 'Likes',
    shape: (w) => sum(filtered(w) ? postFactsDaily(w, 'videos', 'likes', { affiliateOnly: true }) : contentTotalsDaily(w, 'affiliate_video_likes')),
  },
  comments: {
    title: 'Comments',
    shape: (w) => sum(filtered(w) ? postFactsDaily(w, 'videos', 'comments', { affiliateOnly: true }) : contentTotalsDaily(w, 'affiliate_video_comments')),
  },
  gpm: { title: 'GMV per 1,000 views', shape: (w) => ratioOf(daily(w, 'video_gmv'), daily(w, 'video_views'), 1000) },
  emv: { title: 'Earned media value', shape: (w) => sum(daily(w, 'video_views').map((views) => (views / 1000) * w.cpm)) },
  commission: { title: 'Commission', shape: (w) => sum(commission(w)) },
  distinct_creators: { title: 'Distinct posting creators', shape: (w) => ({ kind: 'distinct', keys: postingCreators(w) }) },
  first_time_posters: { title: 'First-time posters', shape: (w) => sum(firstTimePosters(w)) },
  daily_active_affiliates: { title: 'Daily active affiliates', shape: (w) => ({ kind: 'distinct', keys: activeAffiliates(w) }) },
  dms_sent: { title: 'DMs sent', shape: (w) => sum(eventDaily(w, ['dm_sent', 'open_plan_card'])) },
  open_plan_cards_sent: { title: 'Open plan cards sent', shape: (w) => sum(eventDaily(w, ['open_plan_card'])) },
  followup_dms_sent: { title: 'Follow-up DMs sent', shape: (w) => sum(eventDaily(w, ['followup_dm'])) },
  replies: { title: 'Creator replies', shape: (w) => sum(eventDaily(w, ['reply'])) },
  tc_invites_sent: { title: 'Target collaboration invites sent', shape: (w) => sum(eventDaily(w, ['tc_invite'])) },
  sample_requests: { title: 'Sample requests', shape: (w) => sum(samples(w, 'timestamp', 'all')) },
  tc_sample_requests: { title: 'Target collaboration sample requests', shape: (w) => sum(samples(w, 'timestamp', 'tc', (s) => s.source === 'TC')) },
  open_sample_requests: { title: 'Open collaboration sample requests', shape: (w) => sum(samples(w, 'timestamp', 'open', (s) => s.source === 'Open')) },
  samples_approved: { title: 'Samples approved', shape: (w) => sum(samples(w, 'sample_approved', 'all')) },
  samples_delivered: { title: 'Samples delivered', shape: (w) => sum(samples(w, 'sample_received', 'all')) },
  gmv_per_sample_delivered: { title: 'GMV per sample delivered', shape: (w) => ratioOf(daily(w, 'affiliate_gmv'), daily(w, 'samples_delivered')) },
  live_gmv: { title: 'LIVE GMV', shape: (w) => sum(filtered(w) ? liveFactsDaily(w, 'gmv') : productDaily(w, 'live_gmv')) },
  lives_posted: {
    title: 'LIVEs',
    shape: (w) =>
      sum(
        recordDaily(w, w.data.lives, 'started_at', {
          where: (l) => (w.campaignId === null || l.campaign_id === w.campaignId) && (w.productId === null || l.products.includes(w.productId)),
        }),
      ),
  },
  slideshow_gmv: { title: 'Slideshow GMV', shape: (w) => sum(filtered(w) ? postFactsDaily(w, 'slideshows', 'gmv') : contentTotalsDaily(w, 'slideshow_gmv')) },
  slideshow_posts: { title: 'Slideshows posted', shape: (w) => sum(recordDaily(w, w.data.slideshows, 'posted_at', { where: (s) => postFeatures(w, s) })) },
  slideshow_views: {
    title: 'Slideshow views',
    shape: (w) => sum(filtered(w) ? postFactsDaily(w, 'slideshows', 'views') : contentTotalsDaily(w, 'slideshow_views')),
  },
  video_gmv: { title: 'Video GMV', shape: (w) => sum(w.campaignId === null ? productDaily(w, 'video_gmv') : postFactsDaily(w, 'videos', 'gmv')) },
  shop_tab_gmv: { title: 'Shop tab GMV', shape: (w) => sum(productDaily(w, 'shop_tab_gmv')) },
  shop_tab_impressions: { title: 'Shop tab impressions', shape: (w) => sum(productDaily(w, 'shop_tab_impressions')) },
  ad_spend: { title: 'Ad spend', shape: (w) => sum(adDaily(w, 'spend')) },
  ad_roi: { title: 'Ad ROI', shape: adRoi },
  refund_amount: { title: 'Refund amount', shape: shopWideZeroForProduct('refund_amount') },
  items_refunded: { title: 'Items refunded', shape: shopWideZeroForProduct('items_refunded') },
  gmv_with_cofunding: { title: 'GMV with co-funding', shape: shopWideZeroForProduct('gmv_with_cofunding') },
  platform_orders: { title: 'Platform orders', shape: shopWideZeroForProduct('platform_orders') },
  aov: {
    title: 'Average order value',
    shape: (w) => ({
      kind: 'average',
      daily:
        w.productId === null
          ? combine(shopDaily(w, 'platform_gmv'), shopDaily(w, 'platform_orders'), ratio)
          : combine(productDaily(w, 'total_gmv'), productDaily(w, 'orders'), ratio),
    }),
  },
  new_content_gmv: { title: 'New content GMV', shape: (w) => sum(newContentGmv(w)) },
  emails_sent: { title: 'Emails sent', shape: (w) => sum(eventDaily(w, ['email_sent'])) },
  samples_shipped: { title: 'Samples shipped', shape: (w) => sum(samples(w, 'sample_shipped', 'campaign-only', campaignSamplesOnly(w))) },
  refundable_sample_requests: { title: 'Refundable sample requests', shape: (w) => sum(refundables(w, 'timestamp')) },
  refundable_samples_shipped: { title: 'Refundable samples shipped', shape: (w) => sum(refundables(w, 'sample_shipped')) },
  refundable_samples_delivered: { title: 'Refundable samples delivered', shape: (w) => sum(refundables(w, 'sample_received')) },
  samples_refunded: { title: 'Samples refunded', shape: (w) => sum(refunds(w, 'count')) },
  sample_refund_amount: { title: 'Sample refund amount', shape: (w) => sum(refunds(w, 'amount', (s) => s.refund_amount ?? 0)) },
  customer_count: { title: 'Customers', shape: (w) => sum(productDaily(w, 'customers')) },
  add_to_cart_count: { title: 'Add-to-carts', shape: (w) => sum(productDaily(w, 'add_to_cart')) },
  shipping_fees: { title: 'Shipping fees', shape: (w) => sum(productDaily(w, 'shipping_fees')) },
  product_impressions: { title: 'Product impressions', shape: (w) => sum(productDaily(w, 'impressions')) },
  subscription_revenue: {
    title: 'Subscription revenue',
    shape: (w) => sum(w.productId === null ? shopDaily(w, 'subscription_revenue') : productDaily(w, 'subscription_gmv')),
  },
  one_time_purchase_gmv: { title: 'One-time purchase GMV', shape: (w) => sum(shopDaily(w, 'one_time_purchase_gmv')) },
  recurrent_order_gmv: { title: 'Recurring order GMV', shape: (w) => sum(shopDaily(w, 'recurrent_order_gmv')) },
  first_subscription_order_gmv: { title: 'First subscription order GMV', shape: (w) => sum(shopDaily(w, 'first_subscription_order_gmv')) },
  non_recurring_gmv: {
    title: 'Non-recurring GMV',
    shape: (w) => sum(combine(shopDaily(w, 'one_time_purchase_gmv'), shopDaily(w, 'first_subscription_order_gmv'), (a, b) => a + b)),
  },
  new_subscriptions: { title: 'New subscriptions', shape: (w) => sum(productDaily(w, 'new_subscriptions')) },
  active_subscribers: { title: 'Active subscribers', shape: (w) => ({ kind: 'level', daily: carriedTotalDaily(w, w.data.facts.shop, 'active_subscribers') }) },
  active_subscriptions: {
    title: 'Active subscriptions',
    shape: (w) => {
      const table = w.data.facts.products
      const daily = w.productId === null ? carriedTotalDaily(w, table, 'active_subscriptions') : carriedDaily(w, table, 'active_subscriptions', [table.indexOf(w.productId)])
      return { kind: 'level', daily }
    },
  },
  subscription_aov: { title: 'Subscription AOV', shape: (w) => ratioOf(shopDaily(w, 'subscription_revenue'), shopDaily(w, 'subscription_orders')) },
  subscription_retention_rate: { title: 'Subscription retention rate', shape: (w) => weighted(w, 'subscription_retention_rate', 'active_subscribers') },
  subscription_take_rate: { title: 'Subscription take rate', shape: (w) => weighted(w, 'subscription_take_rate', 'subscription_revenue') },
  avg_videos_per_creator: { title: 'Average videos per creator', shape: compositeRatio('affiliate_videos_posted', 'distinct_creators') },
  avg_gmv_per_video: { title: 'Average GMV per video', shape: compositeRatio('video_gmv', 'videos_posted') },
  sample_ratio: { title: 'Sample requests per target collaboration invite', shape: compositeRatio('sample_requests', 'tc_invites_sent') },
  reply_ratio: { title: 'Replies per DM sent', shape: compositeRatio('replies', 'dms_sent') },
  sample_post_rate: {
    title: 'Sample post rate',
    shape: (w) => ratioOf(samples(w, 'sample_received', 'posted', isPosted), daily(w, 'samples_delivered'), 100),
  },
  sample_spend: { title: 'Sample spend', shape: (w) => sum(sampleCosts(w)) },
  wasted_sample_spend: { title: 'Wasted sample spend', shape: (w) => sum(sampleCosts(w, (s) => !isPosted(s))) },
  gmv_per_sample_dollar: { title: 'GMV per sample dollar', shape: (w) => ratioOf(daily(w, 'affiliate_gmv'), daily(w, 'sample_spend')) },
}
