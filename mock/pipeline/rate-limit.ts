import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { RateDecision } from '../stores/rate-limiter.ts'
import type { Next, RequestContext, Step } from './compose.ts'
import { rateLimitDecision, rateLimitOff } from '../trace/decisions.ts'

/**
 * spec: Limits: 10 requests per second and 1,000,000 per day per key, measured per shop; the
 * excess gets 429 with Retry-After. `state.rateLimit = false` turns it off.
 */
export const rateLimit = (): Step =>
  function rateLimit(ctx, next) {
    if (!ctx.state.rateLimit || !ctx.apiKey) {
      if (ctx.apiKey) ctx.trace?.decide(rateLimitOff)
      return next()
    }
    const shopId = ctx.shop?.shop_id ?? '-'
    const ahead = ctx.takenAhead
    if (ahead) {
      // Taken with the catch-up (twin-sync.ts): used if it is this request's pair (else given back there).
      ctx.takenAhead = undefined
      if (ahead.apiKey === ctx.apiKey.key && ahead.shopId === shopId) return decide(ctx, ahead.taken.decision, next)
      if (ahead.taken.decision.allowed) ahead.taken.giveBack()
    }
    const decision = ctx.state.rateLimiter.take(ctx.apiKey.key, shopId)
    // In memory the decision is at hand; a shared store's comes back from one round trip.
    return decision instanceof Promise ? decision.then((d) => decide(ctx, d, next)) : decide(ctx, decision, next)
  }

function decide(ctx: RequestContext, decision: RateDecision, next: Next) {
  ctx.trace?.decide(rateLimitDecision, decision)
  if (!decision.allowed) {
    throw apiError(429, messages.tooManyRequests(decision.window, decision.limit), { 'retry-after': String(decision.retryAfterSeconds) })
  }
  return next()
}
