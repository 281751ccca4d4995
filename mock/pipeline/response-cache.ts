/**
 * The response cache step (mock/stores/response-cache.ts), just before the handler: every gate
 * (faults, Prefer, auth, rate limit, validation, paging, idempotency) has run for this request, and
 * the journal records it, whether the answer comes from the cache or not.
 *
 * Only the operations the areas declare `cacheable` are served from it: reads whose answer
 * depends on nothing but the world, the shop's state, the request and the clock's date. Every other
 * operation that reaches its handler may write, so it empties the cache, before it runs (a read
 * running meanwhile is not kept) and after.
 */
import type { ApiResult } from '../respond.ts'
import { serializeBody } from '../respond.ts'
import type { Step } from './compose.ts'

export const responseCache = (): Step =>
  async function responseCache(ctx, next) {
    const cache = ctx.state.responseCache
    if (!cache) return next()
    const { op, canonical, state } = ctx
    // The handler dispatch will run must be the one its area declared cacheable (not a replacement).
    const handler = state.handlers.get(op.operationId) ?? state.handlers.get(canonical.operationId)
    const declared = state.cacheableReads.get(canonical.operationId)
    if (!handler || handler !== declared) {
      cache.invalidate()
      try {
        return await next()
      } finally {
        cache.invalidate()
      }
    }
    const key = [op.operationId, ctx.apiKey?.key ?? '', ctx.shop?.shop_id ?? '', ctx.receivedAt.toISOString().slice(0, 10), ctx.method, ctx.url.search, ctx.bodyText].join('\u0000')
    const hit = cache.get(key)
    if (hit) return hit
    const generation = cache.generation
    const result: ApiResult = await next()
    if (result.status !== 200) return result
    return cache.set(key, { status: result.status, rawBody: serializeBody(result), headers: result.headers }, generation)
  }
