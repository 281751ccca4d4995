import type { RequestContext } from '../context.ts'
import type { ApiResult } from '../respond.ts'
import type { Awaitable, Final } from './compose.ts'

/** Calls the area handler of the operation (of the canonical one for aliases). */
export const dispatch = (): Final =>
  function dispatch(ctx): Awaitable<ApiResult> {
    const { state, canonical, op } = ctx
    // createMockState refuses a contract operation without a handler, so one is always found.
    const handler = (state.handlers.get(op.operationId) ?? state.handlers.get(canonical.operationId))!
    const requestContext: RequestContext = {
      state,
      world: state.world,
      op: canonical,
      calledOp: op,
      shop: ctx.shop,
      apiKey: ctx.apiKey,
      input: ctx.input,
      params: ctx.params,
      headers: ctx.headers,
      now: ctx.receivedAt,
      today: ctx.receivedAt.toISOString().slice(0, 10),
      page: ctx.page,
    }
    return handler(requestContext)
  }
