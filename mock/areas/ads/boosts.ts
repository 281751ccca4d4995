/** Boost sessions (spec: Sales-max ads: POST /ads/boosted-creatives; States: a boost is active until stopped or expired). */
import type { BoostSession, ShopData } from '../../../fixtures/index.ts'
import type { components } from '../../../openapi/types.ts'
import { defineAreaState, defineHandler, type AdminAction, type DeepReadonly } from '../../context.ts'
import type { MockState } from '../../state.ts'
import { apiError } from '../../respond.ts'
import { csvExport, wantsCsv } from '../../csv.ts'
import { contentStats } from '../../lib/figures.ts'
import { idSetOf } from '../../lib/filters.ts'
import { numberedPage } from '../../lib/pages.ts'
import { adminShop, shopDataFor, shopStates } from '../../lib/shop.ts'
import { sortKeyOr, sortRows, upperDirectionOf } from '../../lib/sort.ts'
import { campaignNameOf } from './campaigns.ts'

type Schemas = components['schemas']

const BOOSTED_SORT_KEYS = ['created_at', 'ended_at', 'budget_per_day', 'spend', 'revenue', 'orders', 'roas', 'active', 'campaign_id', 'video_id', 'handle'] as const
const BOOSTED_COLUMNS = [
  'session_id', 'rule_id', 'rule_name', 'campaign_id', 'campaign_name', 'video_id', 'product_id', 'handle', 'title', 'url', 'video_link',
  'budget_per_day', 'spend', 'revenue', 'orders', 'roas', 'active', 'created_at', 'ended_at', 'exit_reason', 'view_count', 'like_count',
  'comment_count', 'video_gmv', 'ctr', 'units_sold', 'post_time',
]

/** The shops' boost sessions: the world's, then the stops recorded by the control API (each replaces the session it ends). */
export const boostsState = defineAreaState('ads', (world) => shopStates(world, (data) => ({ sessions: data.boostSessions as readonly BoostSession[] })), {
  /** spec: States: a stopped boost is inactive from `at`, for `exitReason`; the ended session. */
  stop(shops, input: { shopId: string; sessionId: string; at: string; exitReason: string }): BoostSession {
    const shop = shops.of(input.shopId)
    const i = shop.sessions.findIndex((s) => s.session_id === input.sessionId)
    const ended: BoostSession = { ...shop.sessions[i]!, active: false, ended_at: input.at, exit_reason: input.exitReason }
    shop.sessions = shop.sessions.with(i, ended)
    return ended
  },
})

/** The shop's boost sessions as they stand now. */
const boostSessionsOf = (state: MockState, data: ShopData): DeepReadonly<BoostSession[]> => state.read(boostsState).of(data.shop.shop_id).sessions

// spec: Sales-max ads: POST /ads/boosted-creatives (and GET, /v1): active only unless include_ended.
export const listBoostedCreatives = defineHandler('listBoostedCreatives', (ctx) => {
  const data = shopDataFor(ctx)
  const { campaign_id, rule_id } = ctx.input
  const include_ended = ctx.input.include_ended === true
  const videoIds = idSetOf(ctx.input.video_ids)
  const matching = boostSessionsOf(ctx.state, data).filter(
    (s) => (include_ended || s.active) && (campaign_id === undefined || s.campaign_id === campaign_id) && (rule_id === undefined || s.rule_id === rule_id) && (!videoIds || videoIds.has(s.video_id)),
  )
  const sort_by = sortKeyOr(ctx.input.sort_by, BOOSTED_SORT_KEYS, 'created_at')
  const sort_direction = upperDirectionOf(ctx.input.sort_direction)
  const sorted = sortRows(matching, (s) => s[sort_by], sort_direction, (s) => s.session_id)
  const toRow = (s: (typeof sorted)[number]): Schemas['BoostSession'] => {
    const { ctr, ...content } = contentStats(data, s.video_id)
    return {
      session_id: s.session_id,
      rule_id: s.rule_id,
      rule_name: s.rule_name,
      campaign_id: s.campaign_id,
      // The spec does not let a boost session's campaign_name be null: an unnamed campaign shows ''.
      campaign_name: campaignNameOf(data, s.campaign_id) ?? '',
      video_id: s.video_id,
      product_id: s.product_id,
      handle: s.handle,
      title: s.title,
      url: s.url,
      video_link: s.url,
      budget_per_day: s.budget_per_day,
      spend: s.spend,
      revenue: s.revenue,
      orders: s.orders,
      roas: s.roas,
      active: s.active,
      created_at: s.created_at,
      ended_at: s.ended_at,
      exit_reason: s.exit_reason,
      ...content,
      ctr: ctr ?? 0,
    }
  }
  if (wantsCsv(ctx)) return csvExport(ctx, sorted.map(toRow), BOOSTED_COLUMNS)
  const { rows, page, page_size } = numberedPage(ctx, sorted)
  const sessions = rows.map(toRow)
  return { status: 200, body: { data: { sessions, total_count: matching.length, page, page_size, include_ended, sort_by, sort_direction } } }
})

/**
 * Control API `ads/boost-stop` `{shop_id, session_id, exit_reason?}`: spec: States: a boost is active
 * until stopped or expired; `ended_at` (the clock's now) and `exit_reason` are then set.
 */
export const stopBoost: AdminAction = (state, input) => {
  const data = adminShop(state, input)
  const session = boostSessionsOf(state, data).find((s) => s.session_id === input.session_id)
  if (!session) throw apiError(404, `No boost session ${String(input.session_id)}`)
  if (!session.active) throw apiError(409, `Boost session ${session.session_id} already ended`)
  const exitReason = typeof input.exit_reason === 'string' && input.exit_reason ? input.exit_reason : 'stopped_manually'
  return { ...state.write(boostsState, 'stop', { shopId: data.shop.shop_id, sessionId: session.session_id, at: state.clock.now().toISOString(), exitReason }) }
}
