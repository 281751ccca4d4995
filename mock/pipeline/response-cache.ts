/**
 * The response cache (mock/stores/response-cache.ts), and the state version it keys on.
 *
 * `responseCache`, right after authentication and the rate limit: an operation the areas declare
 * `cacheable` (a read whose answer depends on nothing but the world, the shop's state, the request and
 * the clock's date) is answered from the cache when the same request (operation, key, shop, date,
 * query, body) got a 200 at the state's current version. Validation, paging and the handler are
 * pure functions of those, so they need not run again; the journal, faults, Prefer, auth and the rate
 * limit still see every request. A miss runs the rest of the pipeline and keeps a 200, unless the
 * version moved meanwhile.
 *
 * `writeVersion`, just before the handler: any other operation's handler may write, so the state's
 * version moves before it runs (a read computed meanwhile is not kept) and after.
 */
import type { ApiResult } from '../respond.ts'
import { serializeBody } from '../respond.ts'
import type { MockState } from '../state.ts'
import { DAY_MS } from '../../fixtures/days.ts'
import { refreshContext, type Next, type RequestContext, type Step } from './compose.ts'
import { cacheDecision } from '../trace/decisions.ts'

/** True when the handler dispatch will run is the one its area declared cacheable (not a replacement). */
function isCacheable(ctx: RequestContext): boolean {
  const { calledOp: op, op: canonical, state } = ctx
  const handler = state.handlers.get(op.operationId) ?? state.handlers.get(canonical.operationId)
  return handler !== undefined && handler === state.cacheableReads.get(canonical.operationId)
}

export const responseCache = (): Step =>
  function responseCache(ctx, next) {
    const cache = ctx.state.responseCache
    if (!cache || !isCacheable(ctx)) return next()
    // The clock's date as its UTC day number (formatting the date costs more than the rest of the key).
    const day = Math.floor(ctx.now.getTime() / DAY_MS)
    const request = `${ctx.calledOp.operationId}\u0000${ctx.apiKey?.key ?? ''}\u0000${ctx.shop?.shop_id ?? ''}\u0000${day}\u0000${ctx.method}\u0000${ctx.url.search}`
    const hit = cache.get(request, ctx.bodyText)
    ctx.trace?.decide(cacheDecision, hit !== undefined, ctx.state.version)
    return hit ?? remember(ctx.state, request, ctx.bodyText, next)
  }

/** Runs the rest of the pipeline and keeps a 200, unless the state's version moved meanwhile. */
async function remember(state: MockState, request: string, body: string, next: Next): Promise<ApiResult> {
  const version = state.version
  const result = await next()
  if (result.status !== 200) return result
  return state.responseCache!.set(request, body, { status: result.status, rawBody: serializeBody(result), headers: result.headers }, version)
}

export const writeVersion = (): Step =>
  function writeVersion(ctx, next) {
    // A read that writes after all (a halo snapshot, an event's ordinal) is run again as a write on a
    // shared store, which refuses the change before it is made (mock/twin/).
    if (isCacheable(ctx)) return ctx.state.twin.shared ? ctx.state.readOrWrite(next) : next()
    if (!ctx.state.twin.shared) return changingAround(ctx.state, next)
    // Any other operation runs first as a read (most are: lists, reports, stats): only one that
    // changes something takes the write lease, refused at its first change and run again under it.
    return ctx.state.readOrWrite(() => {
      refreshContext(ctx)
      return changingAround(ctx.state, next)
    })
  }

async function changingAround(state: MockState, next: Next): Promise<ApiResult> {
  state.changed()
  try {
    return await next()
  } finally {
    state.changed()
  }
}
