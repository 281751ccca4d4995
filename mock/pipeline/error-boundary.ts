import { apiError, isApiError } from '../respond.ts'
import { StoreUnavailable } from '../twin/ops.ts'
import type { Step } from './compose.ts'

/** The one place that turns a thrown ApiError into its response and anything else into a 500. */
export const errorBoundary = ({ log = (error: unknown) => console.error('shoptwin: unexpected error', error) } = {}): Step =>
  async function errorBoundary(ctx, next) {
    try {
      const result = await next()
      return result
    } catch (error) {
      if (isApiError(error)) return error
      // The shared store is away or fenced this replica out: a 503 the client can retry, never a wrong answer.
      if (error instanceof StoreUnavailable) return apiError(503, error.message)
      log(error)
      return apiError(500, `Internal error in the mock (${ctx.calledOp.operationId}): ${error instanceof Error ? error.message : String(error)}`)
    }
  }
