/**
 * spec: Idempotency; States and transitions. On the write endpoints that accept `Idempotency-Key`:
 * the first request is `processing`, then `completed` with its status and body; a replay returns
 * the same bytes without running the operation again; a concurrent request gets 409 for up to
 * 60 seconds; 5xx responses and exceptions are not cached.
 */
import { messages } from '../messages.ts'
import type { IdempotencyEntry, IdempotencyStore } from '../stores/idempotency.ts'
import { apiError, isApiError, serializeBody, type ApiResult } from '../respond.ts'
import { refreshContext, type Next, type RequestContext, type Step } from './compose.ts'
import { StoreUnavailable } from '../twin/ops.ts'
import { INVALID_IDEMPOTENCY_KEY } from './validate.ts'
import { idempotencyCompleted, idempotencyDecision, idempotencyNoKey, idempotencyRefused, idempotencyReleased } from '../trace/decisions.ts'

export const KEY_PATTERN = /^[A-Za-z0-9-]{1,128}$/
export const IN_FLIGHT_MESSAGE = messages.idempotencyInFlight
/** The key was first used on another operation: its cached answer is not this operation's response. */
export const keyUsedElsewhere = messages.idempotencyKeyUsedElsewhere

export const idempotency = (): Step =>
  function idempotency(ctx, next) {
    if (!ctx.calledOp.idempotent && !ctx.op.idempotent) return next()
    const key = ctx.headers.get('idempotency-key')
    // spec: Idempotency: the header is optional; without it the endpoint behaves normally.
    return key === null ? (ctx.trace?.decide(idempotencyNoKey), next()) : withKey(ctx, key, next)
  }

async function withKey(ctx: RequestContext, key: string, next: Next): Promise<ApiResult> {
  if (!KEY_PATTERN.test(key)) {
    ctx.trace?.decide(idempotencyRefused('format', key, INVALID_IDEMPOTENCY_KEY))
    throw apiError(400, INVALID_IDEMPOTENCY_KEY)
  }
  const store = ctx.state.idempotency
  const shopId = ctx.shop?.shop_id ?? '-'

  const claim = (await claimedAhead(ctx, shopId, key)) ?? (await store.claim(shopId, key, ctx.trace?.id))
  ctx.trace?.decide(idempotencyDecision, key, claim)
  if (claim.kind === 'in-flight') throw apiError(409, IN_FLIGHT_MESSAGE)
  if (claim.kind === 'replay') return replay(ctx, key, claim.entry)

  // On a shared store the write and its record are committed together, or neither is (mock/twin/):
  // a write refused there (503, nothing written) frees the key for the retry.
  try {
    return await keyed(ctx, store, shopId, key, next)
  } catch (error) {
    // A commit that may have landed keeps its claim: the retry meets 409 in flight, then the record.
    if (error instanceof StoreUnavailable && error.outcomeUnknown) throw error
    await Promise.resolve(store.release(shopId, key)).catch(() => {})
    ctx.trace?.decide(idempotencyReleased(key, 'exception'))
    throw error
  }
}

/** A completed record's answer, byte for byte, if it answered this operation. */
function replay(ctx: RequestContext, key: string, entry: IdempotencyEntry): ApiResult {
  if (entry.permission !== undefined && entry.permission !== ctx.op.permission) {
    ctx.trace?.decide(idempotencyRefused('elsewhere', key, keyUsedElsewhere(entry.permission)))
    throw apiError(400, keyUsedElsewhere(entry.permission))
  }
  return { status: entry.responseStatus!, rawBody: entry.rawBody!, headers: { ...entry.headers, 'idempotent-replayed': 'true' } }
}

/** The claim a shared store made with the catch-up (twin-sync.ts), if it is this request's; another is freed. */
async function claimedAhead(ctx: RequestContext, shopId: string, key: string) {
  const ahead = ctx.claimedAhead
  if (!ahead) return undefined
  ctx.claimedAhead = undefined
  if (ahead.shopId === shopId && ahead.key === key) return ahead.claimed.claim
  await ahead.claimed.release()
  return undefined
}

function keyed(ctx: RequestContext, store: IdempotencyStore, shopId: string, key: string, next: Next) {
  return ctx.state.exclusive(async () => {
    // Another replica's write completed the key since this request claimed it (mock/twin/redis/).
    const settled = store.settled?.(shopId, key)
    if (settled?.kind === 'replay') {
      ctx.trace?.decide(idempotencyDecision, key, settled)
      return replay(ctx, key, settled.entry)
    }
    if (ctx.state.twin.shared) refreshContext(ctx)
    let result: ApiResult
    try {
      result = await next()
    } catch (error) {
      // An ApiError below 500 is an answer like any other and is cached; anything else is not.
      if (isApiError(error) && error.status < 500) result = error
      else throw error
    }
    // spec: Idempotency: 5xx responses are not cached, so a retry can succeed.
    if (result.status >= 500) {
      await store.release(shopId, key)
      ctx.trace?.decide(idempotencyReleased(key, result.status))
      return result
    }
    const rawBody = serializeBody(result)
    await store.complete(shopId, key, { status: result.status, rawBody, headers: result.headers, permission: ctx.op.permission })
    ctx.trace?.decide(idempotencyCompleted, key, result.status)
    return { status: result.status, rawBody, headers: result.headers }
  })
}
