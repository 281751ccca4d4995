/**
 * On a shared store (mock/twin/), a request first catches up with what other replicas logged: one
 * round trip when nothing changed, so a write on one replica is read on every other from the next
 * request on. In memory there is nothing to do and this step costs nothing.
 *
 * What the request will ask the store next goes in that same round trip: the rate limit's slot of a
 * known key, for the rate-limit step, and a keyed write's idempotency claim (with the write lease),
 * for the idempotency step. If the request is refused before it gets there (its route, its shop, its
 * body, a fault), the slot is given back, as the rate limit would not have counted it, and the claim
 * is freed before the answer leaves, as the key was never used.
 */
import type { AheadAsk } from '../twin/store.ts'
import { refreshContext, type Next, type RequestContext, type Step } from './compose.ts'
import { KEY_PATTERN } from './idempotency.ts'

export const twinSync = (): Step =>
  function twinSync(ctx, next) {
    const ahead = syncAhead(ctx)
    if (ahead) return ahead.then((done) => (refreshContext(ctx), done ? withAhead(ctx, done, next) : next()))
    const synced = ctx.state.sync()
    if (!(synced instanceof Promise)) return next()
    return synced.then(() => {
      refreshContext(ctx)
      return next()
    })
  }

function syncAhead(ctx: RequestContext) {
  const { syncAhead } = ctx.state.twin
  if (!syncAhead || ctx.apiKey || ctx.calledOp.auth === 'none') return undefined
  const apiKey = ctx.headers.get('x-api-key')
  if (!apiKey || !ctx.state.world.apiKeys.some((k) => k.key === apiKey)) return undefined
  const shopId = ctx.calledOp.auth === 'key+shop' ? ctx.headers.get('x-shop-id')?.trim() : '-'
  if (!shopId) return undefined
  const key = ctx.calledOp.idempotent || ctx.op.idempotent ? ctx.headers.get('idempotency-key') : null
  const ask: AheadAsk = {
    ...(ctx.state.rateLimit ? { rate: { apiKey, shopId } } : {}),
    ...(key !== null && KEY_PATTERN.test(key) ? { claim: { shopId, key } } : {}),
  }
  if (!ask.rate && !ask.claim) return undefined
  return syncAhead(ask).then((done) => done && { apiKey, shopId, key: key ?? '', ...done })
}

async function withAhead(ctx: RequestContext, done: NonNullable<Awaited<ReturnType<typeof syncAhead>>>, next: Next) {
  const { apiKey, shopId, key, taken, claimed } = done
  if (taken) ctx.takenAhead = { apiKey, shopId, taken }
  if (claimed) ctx.claimedAhead = { shopId, key, claimed }
  try {
    return await next()
  } finally {
    // Still here: the rate-limit step never used the slot, the idempotency step never used the claim.
    if (ctx.takenAhead?.taken.decision.allowed) ctx.takenAhead.taken.giveBack()
    ctx.takenAhead = undefined
    const unused = ctx.claimedAhead
    ctx.claimedAhead = undefined
    if (unused) await unused.claimed.release()
  }
}
