import type { OperationInfo } from '../../openapi/index.ts'
import { apiError } from '../respond.ts'
import type { Step } from './compose.ts'

/** The message a `Prefer: code=NNN` response carries: the spec's words where it has them. */
export function preferredMessage(op: OperationInfo, status: number): string {
  switch (status) {
    case 400:
      return op.idempotent ? 'Invalid idempotency key format' : op.auth === 'key+shop' ? 'Missing X-Shop-Id header' : 'Bad request'
    case 401:
      return 'Missing API key'
    case 403:
      return op.planGate === 'active-paid' ? 'This shop is not on an active paid plan' : 'Forbidden'
    case 404:
      return op.operationId === 'getIdempotencyRecord' ? 'No stored response for that key' : 'Not found'
    case 409:
      return op.idempotent ? 'A request with this Idempotency-Key is still in flight' : 'Conflict'
    case 412:
      return 'expected_updated_at is older than updated_at: re-read and reapply'
    case 429:
      return 'Too many requests: back off briefly and retry'
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
    if (status < 400 || !ctx.op.statuses.includes(status)) return next()
    return apiError(status, preferredMessage(ctx.op, status), status === 429 ? { 'retry-after': '1' } : undefined)
  }
