/**
 * Lifetime and per-window figures of posts and creators summed from the daily facts, as several
 * areas show them (the CRM, videos, spark codes, social ads, sample lists). Each keeps its area's rounding.
 */
import { toUsDate, type Creator, type ShopData, type Video } from '../../fixtures/index.ts'
import type { FactTable } from '../../fixtures/facts.ts'
import type { World } from '../world.ts'
import { videoOf } from './lookups.ts'
import type { ShopLifetime } from './filters.ts'
import { rate4, round2 } from './numbers.ts'

/** `post_rate` as the contract types it: a number, or the text N/A when the platform has none. */
export const postRateOf = (creator: Creator): number | string => creator.post_rate ?? 'N/A'

/** The engagement, conversion and per-view/per-order ratios of content metrics (spec: Affiliate and Video timeseries rows). */
export function derivedRates(m: { gmv: number; views: number; likes: number; comments: number; units_sold: number }) {
  return {
    engagement_rate: rate4(m.likes + m.comments, m.views, 100),
    conversion_rate: rate4(m.units_sold, m.views, 100),
    avg_gmv_per_view: rate4(m.gmv, m.views),
    avg_order_value: rate4(m.gmv, m.units_sold),
  }
}

// A creator's lifetime reads facts up to the world's today, which never change: summed once per creator
// and fact table (views of the world share it), not at every request that lists the creator.
const shopLifetimeByTable = new WeakMap<FactTable, Map<string, ShopLifetime>>()

/** A creator's lifetime figures with the shop, to cents (spec: shop_performance); read-only. */
export function shopLifetime(world: World, data: ShopData, creatorId: string): ShopLifetime {
  const table = data.facts.affiliates as FactTable
  let byCreator = shopLifetimeByTable.get(table)
  if (!byCreator) shopLifetimeByTable.set(table, (byCreator = new Map()))
  let lifetime = byCreator.get(creatorId)
  if (!lifetime) {
    const sum = (metric: 'gmv' | 'video_gmv' | 'live_gmv' | 'units_sold') => round2(table.sum(metric, creatorId, 0, world.axis.todayIndex))
    byCreator.set(creatorId, (lifetime = Object.freeze({ gmv: sum('gmv'), video_gmv: sum('video_gmv'), live_gmv: sum('live_gmv'), units_sold: sum('units_sold') })))
  }
  return lifetime
}

/** A post's lifetime figures from its facts (ctr = clicks / views, percent, as LIVEs): the Video resource and spark's video_data. */
export type PostFigures = Readonly<ReturnType<typeof postFiguresOf>>

// Lifetime figures read facts up to the world's today, which never change: each post's are summed once
// per fact table (a world's), not at every request that lists it.
const postFiguresByTable = new WeakMap<FactTable, Map<string, PostFigures>>()

export function postFigures(world: World, data: ShopData, post: Video, kind: 'videos' | 'slideshows'): PostFigures {
  const table = data.facts[kind] as FactTable
  let byPost = postFiguresByTable.get(table)
  if (!byPost) postFiguresByTable.set(table, (byPost = new Map()))
  let figures = byPost.get(post.video_id)
  if (!figures) byPost.set(post.video_id, (figures = Object.freeze(postFiguresOf(world, data, post, kind))))
  return figures
}

function postFiguresOf(world: World, data: ShopData, post: Video, kind: 'videos' | 'slideshows') {
  const sum = (metric: 'gmv' | 'views' | 'likes' | 'comments' | 'units_sold' | 'commission' | 'clicks') => round2(data.facts[kind].sum(metric, post.video_id, 0, world.axis.todayIndex))
  const views = sum('views')
  const likes = sum('likes')
  const comments = sum('comments')
  return {
    gmv: sum('gmv'),
    view_count: views,
    units_sold: sum('units_sold'),
    ctr: rate4(sum('clicks'), views, 100),
    like_count: likes,
    comment_count: comments,
    commission: sum('commission'),
    engagement_rate: rate4(likes + comments, views, 100),
  }
}

/** A content row's lifetime numbers (every fact day up to today); zeros and no post time without a row. */
export interface ContentStats {
  view_count: number
  like_count: number
  comment_count: number
  video_gmv: number
  units_sold: number
  /** clicks / views x 100 (percent, as the Video resource), null without views. */
  ctr: number | null
  /** MM/DD/YYYY, as the Video resource shows post_time; '' without a content row. */
  post_time: string
}

// Read from the shop's videos and the video facts up to the world's today, which a list of videos never
// outlives: worked out once per video and list (a view of the world keeps the list until a video appears).
const contentStatsByVideos = new WeakMap<readonly Video[], Map<string, Readonly<ContentStats>>>()

/** Lifetime content numbers of a video from the video facts (social ads, ads creatives): counts rounded to units, GMV to cents, ctr unrounded; read-only. */
export function contentStats(data: ShopData, videoId: string): Readonly<ContentStats> {
  let byVideo = contentStatsByVideos.get(data.videos)
  if (!byVideo) contentStatsByVideos.set(data.videos, (byVideo = new Map()))
  let stats = byVideo.get(videoId)
  if (!stats) byVideo.set(videoId, (stats = Object.freeze(contentStatsOf(data, videoId))))
  return stats
}

function contentStatsOf(data: ShopData, videoId: string): ContentStats {
  const video = videoOf(data, videoId)
  const table = data.facts.videos
  if (!video || table.indexOf(videoId) < 0) {
    return { view_count: 0, like_count: 0, comment_count: 0, video_gmv: 0, units_sold: 0, ctr: null, post_time: video ? toUsDate(table.axis.date(video.post_day)) : '' }
  }
  const last = table.axis.todayIndex
  const sum = (metric: 'views' | 'likes' | 'comments' | 'gmv' | 'units_sold' | 'clicks') => table.sum(metric, videoId, 0, last)
  const views = Math.round(sum('views'))
  const clicks = Math.round(sum('clicks'))
  return {
    view_count: views,
    like_count: Math.round(sum('likes')),
    comment_count: Math.round(sum('comments')),
    video_gmv: round2(sum('gmv')),
    units_sold: Math.round(sum('units_sold')),
    ctr: views > 0 ? (clicks / views) * 100 : null,
    post_time: toUsDate(table.axis.date(video.post_day)),
  }
}
