/**
 * spec: What the service does: "Actions by API key or connector are recorded in the account's activity
 * log." Every request that got past authentication (an actor is known) is recorded with its outcome;
 * the key itself never is, only an id derived from it (mock/connector/activity.ts).
 */
import { actorOf } from '../connector/activity.ts'
import type { ApiResult } from '../respond.ts'
import type { RequestContext, Step } from './compose.ts'

export const activity = (): Step => {
  // Requests come in bursts within one millisecond (and a frozen clock never moves): the time's ISO
  // string is made once per millisecond.
  let lastMs = Number.NaN
  let lastIso = ''
  const record = (ctx: RequestContext, result: ApiResult): ApiResult => {
    if (!ctx.apiKey) return result
    const ms = ctx.now.getTime()
    if (ms !== lastMs) {
      lastMs = ms
      lastIso = ctx.now.toISOString()
    }
    ctx.state.activity.record({
      time: lastIso,
      actor: actorOf(ctx.apiKey, ctx.connector),
      shop_id: ctx.shop?.shop_id ?? null,
      operation_id: ctx.op.operationId,
      tool: ctx.connector ? ctx.op.operationId : null,
      status: result.status,
      idempotent_replay: result.headers?.['idempotent-replayed'] === 'true',
    })
    return result
  }
  return function activity(ctx, next) {
    const result = next()
    return result instanceof Promise ? result.then((r) => record(ctx, r)) : record(ctx, result)
  }
}
