/**
 * The request pipeline: hono-style steps `(ctx, next) => ApiResult | Promise<ApiResult>` composed in
 * one place (mock/pipeline/index.ts). A step refuses by throwing or returning `apiError(...)`.
 *
 * A step that only looks at the request and passes it on is a plain function returning `next()`:
 * an async function per step would cost a promise and a suspended frame on every request, the
 * larger part of what a cached answer costs. Only the steps that work on the answer (the journal,
 * the error boundary, the response cache filling, idempotency) await it. A plain step may throw:
 * the error boundary's `await next()` catches it like a rejection.
 */
import type { OperationInfo } from '../../openapi/index.ts'
import type { ApiResult } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { RequestContext } from '../context.ts'

/**
 * The request headers as the pipeline reads them: a fetch `Headers` (MSW handlers) or the standalone
 * server's view of node's already-parsed headers, so no `Request` is built per request there.
 */
export interface RequestHeaders {
  /** The value of a header (name in any case), or null. */
  get(name: string): string | null
  forEach(fn: (value: string, name: string) => void): void
}

/** The request as the steps and the handler see it: one type from arrival to the area (mock/context.ts). */
export type { RequestContext } from '../context.ts'

/** A new request's context: the operation called, the one whose handler answers (differs for aliases), the mock clock's time of arrival. */
export function requestContext(
  state: MockState,
  calledOp: OperationInfo,
  op: OperationInfo,
  request: Pick<RequestContext, 'method' | 'headers' | 'url' | 'params' | 'bodyText'> & Partial<Pick<RequestContext, 'apiKey' | 'connector'>>,
): RequestContext {
  const now = state.clock.now()
  return { state, world: state.world, op, calledOp, now, today: now.toISOString().slice(0, 10), shop: undefined, input: {}, page: undefined, apiKey: undefined, trace: undefined, ...request }
}

export type Awaitable<T> = T | Promise<T>
export type Next = () => Awaitable<ApiResult>
export type Step = (ctx: RequestContext, next: Next) => Awaitable<ApiResult>
export type Final = (ctx: RequestContext) => Awaitable<ApiResult>

/** Runs the steps in order around the final handler. */
export function compose(steps: Step[], final: Final): Final {
  return (ctx) => {
    const run = (i: number): Awaitable<ApiResult> => (i === steps.length ? final(ctx) : steps[i](ctx, () => run(i + 1)))
    return run(0)
  }
}

/**
 * The world, clock and date a request sees, read again from the state: on a shared store, after the
 * request caught up with the log or took the write lease (another replica may have moved the clock,
 * reset the twin or written meanwhile).
 */
export function refreshContext(ctx: RequestContext): void {
  ctx.world = ctx.state.world
  ctx.now = ctx.state.clock.now()
  ctx.today = ctx.now.toISOString().slice(0, 10)
}
