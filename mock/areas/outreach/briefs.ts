/**
 * Creator briefs (spec: Rules of the named resources: Creator briefs; Limits: creator briefs): static
 * (`video_mode` `manual` picks videos, `auto` shows the shop's top videos) or dynamic (per product),
 * each a public page with a short code. The Scale plan gate is the pipeline's.
 */
import type { CreatorBrief, ShopData } from '../../../fixtures/types.ts'
import { defineHandler, type DeepReadonly } from '../../context.ts'
import { apiError } from '../../respond.ts'
import { deleteById, findRecord, nonBlank } from './common.ts'
import { outreachRecords, outreachState } from '../../lib/outreach.ts'
import { shopScope } from '../../lib/shop.ts'

/** spec: Limits: at most 500 creator briefs per shop. */
export const MAX_BRIEFS = 500
export const BRIEF_LIMIT_REACHED = `Creator brief limit reached (${MAX_BRIEFS} per shop)`

type BriefContent = Pick<CreatorBrief, 'video_mode' | 'video_ids' | 'product_id'>

/**
 * What a brief of `type` shows, checked against the shop: a manual static brief needs at least one
 * of the shop's videos; an auto one takes no video_ids; a dynamic one needs one of its products.
 */
function briefContent(data: ShopData, type: CreatorBrief['type'], wanted: { video_mode?: 'manual' | 'auto' | null; video_ids?: readonly string[]; product_id?: string | null }): BriefContent {
  if (type === 'dynamic') {
    if (wanted.video_mode || wanted.video_ids?.length) throw apiError(400, 'video_mode and video_ids are only for static briefs')
    const productId = wanted.product_id
    if (!productId) throw apiError(400, 'product_id is required for a dynamic brief')
    if (!data.products.some((p) => p.product_id === productId)) throw apiError(400, `product_id: no product ${productId} in this shop`)
    return { video_mode: null, video_ids: [], product_id: productId }
  }
  if (wanted.product_id) throw apiError(400, 'product_id is only for dynamic briefs')
  const mode = wanted.video_mode ?? 'auto'
  const videoIds = [...new Set(wanted.video_ids ?? [])]
  if (mode === 'auto') {
    if (videoIds.length > 0) throw apiError(400, 'video_ids are only read with video_mode manual (auto shows the shop\'s top videos)')
    return { video_mode: 'auto', video_ids: [], product_id: null }
  }
  if (videoIds.length === 0) throw apiError(400, 'video_ids: a manual brief needs at least one video')
  const known = new Set(data.videos.map((v) => v.video_id))
  const unknown = videoIds.filter((id) => !known.has(id))
  if (unknown.length > 0) throw apiError(400, `video_ids: no video ${unknown.join(', ')} in this shop`)
  return { video_mode: 'manual', video_ids: videoIds, product_id: null }
}

const briefView = (b: DeepReadonly<CreatorBrief>) => ({ ...b, updated_at: b.updated_at ?? b.created_at })

// The short code is a public link: the write makes it unique across every shop of the world.
const createCreatorBrief = defineHandler('createCreatorBrief', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  if (outreachRecords(ctx.state, shopId).briefs.length >= MAX_BRIEFS) throw apiError(400, BRIEF_LIMIT_REACHED)
  const content = briefContent(data, input.type, input)
  const brief = ctx.state.write(outreachState, 'createBrief', { shopId, title: nonBlank(input.title) ?? null, type: input.type, ...content, now: ctx.now.toISOString() })
  return { status: 201, body: { data: briefView(brief) } }
})

// The type is fixed; a static brief may switch mode (switching to auto clears its videos), a dynamic one its product.
const updateCreatorBrief = defineHandler('updateCreatorBrief', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const brief = findRecord(ctx.state, shopId, 'briefs', input.brief_id, 'creator brief')
  if (input.title !== undefined && !nonBlank(input.title)) throw apiError(400, 'title must not be blank')
  const mode = input.video_mode ?? brief.video_mode
  const content = briefContent(
    data,
    brief.type,
    brief.type === 'dynamic'
      ? { video_mode: input.video_mode, video_ids: input.video_ids, product_id: input.product_id ?? brief.product_id }
      : { video_mode: mode, video_ids: input.video_ids ?? (mode === 'manual' ? brief.video_ids : []), product_id: input.product_id },
  )
  const changes = { ...content, ...(input.title !== undefined ? { title: nonBlank(input.title) } : {}) }
  const updated = ctx.state.write(outreachState, 'updateBrief', { shopId, id: brief.brief_id, changes, now: ctx.now.toISOString() })
  return { status: 200, body: { data: briefView(updated) } }
})

const deleteCreatorBrief = defineHandler('deleteCreatorBrief', deleteById('briefs', 'creator brief'))

export const briefHandlers = { createCreatorBrief, updateCreatorBrief, deleteCreatorBrief }
