import type { OperationInfo } from '../../openapi/index.ts'
import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { Step } from './compose.ts'
import { preferDecision } from '../trace/decisions.ts'

/**
 * The message a `Prefer: code=NNN` response carries: the one the real code path answers with
 * (mock/messages.ts) for the likeliest cause of that status on this operation. `perSecond` is the
 * rate limiter's, so a simulated 429 reads like a real one.
 */
export function preferredMessage(op: OperationInfo, status: number, perSecond = 10): string {
  switch (status) {
    case 400:
      return op.idempotent ? messages.invalidIdempotencyKey : op.auth === 'key+shop' ? messages.missingShopHeader : 'Bad request'
    case 401:
      return messages.missingApiKey
    case 403:
      return op.planGate === 'active-paid' ? messages.notOnPaidPlan : 'Forbidden'
    case 404:
      return op.operationId === 'getIdempotencyRecord' ? messages.noStoredResponse : 'Not found'
    case 409:
      return op.idempotent ? messages.idempotencyInFlight : 'Conflict'
    case 412:
      return messages.dashboardChanged()
    case 429:
      return messages.tooManyRequests('second', perSecond)
    default:
      return `Error ${status}`
  }
}

/**
 * Prism's `Prefer: code=NNN`: answers with that documented error response of the operation, so
 * clients can test their error handling. Undocumented or success codes are ignored.
 */
export const prefer = (): Step =>
  function prefer(ctx, next) {
    const header = ctx.headers.get('prefer')
    const match = header && /(?:^|[\s,;])code=(\d{3})\b/.exec(header)
    if (!match) return next()
    const status = Number(match[1])
    if (status < 400 || !ctx.calledOp.statuses.includes(status)) return next()
    ctx.trace?.decide(preferDecision(status))
    return apiError(status, preferredMessage(ctx.calledOp, status, ctx.state.rateLimiter.perSecond), status === 429 ? { 'retry-after': '1' } : undefined)
  }
