import type { ApiResult } from '../respond.ts'
import type { Awaitable, Final } from './compose.ts'

/** Calls the area handler of the operation called, else of its canonical operation (aliases). */
export const dispatch = (): Final =>
  function dispatch(ctx): Awaitable<ApiResult> {
    // createMockState refuses a contract operation without a handler, so one is always found.
    const handler = (ctx.state.handlers.get(ctx.calledOp.operationId) ?? ctx.state.handlers.get(ctx.op.operationId))!
    // Traced: the handler runs with its trace receiving the named writes it makes.
    return ctx.trace ? ctx.trace.handler(ctx.state.handlers.has(ctx.calledOp.operationId) ? ctx.calledOp.operationId : ctx.op.operationId, ctx.op.specSection, () => handler(ctx)) : handler(ctx)
  }
