/**
 * spec: What the service does: "Actions by API key or connector are recorded in the account's activity
 * log." Every request that got past authentication (an actor is known) is recorded with its outcome;
 * the key itself never is, only an id derived from it (mock/connector/activity.ts).
 */
import { actorOf } from '../connector/activity.ts'
import type { ApiResult } from '../respond.ts'
import type { Step } from './compose.ts'

export const activity = (): Step =>
  function activity(ctx, next) {
    return Promise.resolve(next()).then((result: ApiResult) => {
      if (!ctx.apiKey) return result
      ctx.state.connector.apply('recordActivity', {
        time: ctx.receivedAt.toISOString(),
        actor: actorOf(ctx.apiKey, ctx.connector),
        shop_id: ctx.shop?.shop_id ?? null,
        operation_id: ctx.canonical.operationId,
        tool: ctx.connector ? ctx.canonical.operationId : null,
        status: result.status,
        idempotent_replay: result.headers?.['idempotent-replayed'] === 'true',
      })
      return result
    })
  }
