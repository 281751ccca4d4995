import { describeAjvError } from '../../openapi/index.ts'
import { serializeBody } from '../respond.ts'
import type { ApiResult } from '../respond.ts'
import type { Next, RequestContext, Step } from './compose.ts'

/**
 * Strict mode (`createMockState({ strict: true })`): every response of a documented status must
 * validate against the contract, else the mock answers 500 naming the mismatch. For development
 * and tests; off by default.
 */
export const responseCheck = (): Step =>
  function responseCheck(ctx, next) {
    return ctx.state.strict ? checked(ctx, next) : next()
  }

async function checked(ctx: RequestContext, next: Next): Promise<ApiResult> {
  const result = await next()
  const check = ctx.state.contract.validators.response(ctx.calledOp, result.status)
  if (!check) return result
  const body = JSON.parse(serializeBody(result)) as unknown
  if (!check(body)) {
    throw new Error(`response ${result.status} of ${ctx.calledOp.operationId} does not match the contract: ${describeAjvError(check.errors![0], 'response')}`)
  }
  return result
}
