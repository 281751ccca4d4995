import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { Step } from './compose.ts'
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
    const decision = ctx.state.rateLimiter.take(ctx.apiKey.key, ctx.shop?.shop_id ?? '-')
    ctx.trace?.decide(rateLimitDecision, decision)
    if (!decision.allowed) {
      throw apiError(429, messages.tooManyRequests(decision.window, decision.limit), { 'retry-after': String(decision.retryAfterSeconds) })
    }
    return next()
  }
