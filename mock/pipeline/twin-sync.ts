/**
 * On a shared store (mock/twin/), a request first catches up with what other replicas logged: one
 * round trip when nothing changed, so a write on one replica is read on every other from the next
 * request on. In memory there is nothing to do and this step costs nothing.
 *
 * A request that will meet the rate limit (a known key, the limit on) has its slot taken in that same
 * round trip, for the rate-limit step; if it is refused before it gets there (its route, its shop, a
 * fault), the slot is given back, as the rate limit would not have counted it.
 */
import { refreshContext, type Next, type RequestContext, type Step } from './compose.ts'

export const twinSync = (): Step =>
  function twinSync(ctx, next) {
    const ahead = takeAhead(ctx)
    if (ahead) return ahead.then((taken) => (refreshContext(ctx), taken ? withTaken(ctx, taken, next) : next()))
    const synced = ctx.state.sync()
    if (!(synced instanceof Promise)) return next()
    return synced.then(() => {
      refreshContext(ctx)
      return next()
    })
  }

function takeAhead(ctx: RequestContext) {
  const { syncTaking } = ctx.state.twin
  if (!syncTaking || !ctx.state.rateLimit || ctx.apiKey || ctx.calledOp.auth === 'none') return undefined
  const apiKey = ctx.headers.get('x-api-key')
  if (!apiKey || !ctx.state.world.apiKeys.some((k) => k.key === apiKey)) return undefined
  const shopId = ctx.calledOp.auth === 'key+shop' ? ctx.headers.get('x-shop-id')?.trim() : '-'
  if (!shopId) return undefined
  return syncTaking(apiKey, shopId).then((taken) => taken && { apiKey, shopId, taken })
}

async function withTaken(ctx: RequestContext, takenAhead: NonNullable<RequestContext['takenAhead']>, next: Next) {
  ctx.takenAhead = takenAhead
  try {
    return await next()
  } finally {
    // Still here: the rate-limit step never used it.
    if (ctx.takenAhead && takenAhead.taken.decision.allowed) takenAhead.taken.giveBack()
    ctx.takenAhead = undefined
  }
}
