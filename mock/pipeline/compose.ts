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
import type { ApiKeyRecord, ShopRecord } from '../world.ts'
import type { PageWindow } from './paging.ts'
import type { ConnectorActor } from '../connector/activity.ts'

/**
 * The request headers as the pipeline reads them: a fetch `Headers` (MSW handlers) or the standalone
 * server's view of node's already-parsed headers, so no `Request` is built per request there.
 */
export interface RequestHeaders {
  /** The value of a header (name in any case), or null. */
  get(name: string): string | null
  forEach(fn: (value: string, name: string) => void): void
}

export interface PipelineContext {
  state: MockState
  /** The operation the client called. */
  op: OperationInfo
  /** The operation whose handler answers (differs for aliases). */
  canonical: OperationInfo
  method: string
  headers: RequestHeaders
  url: URL
  params: Record<string, string>
  /** The request body as text ('' when none). */
  bodyText: string
  /** Mock-clock time of arrival. */
  receivedAt: Date
  /** The caller's key; a connector call (mock/connector/mcp.ts) arrives with its connection's grant already here. */
  apiKey?: ApiKeyRecord
  /** Set for calls through the assistant connector: the connection acting. */
  connector?: ConnectorActor
  shop?: ShopRecord
  input: Record<string, any>
  page?: PageWindow
}

export type Awaitable<T> = T | Promise<T>
export type Next = () => Awaitable<ApiResult>
export type Step = (ctx: PipelineContext, next: Next) => Awaitable<ApiResult>
export type Final = (ctx: PipelineContext) => Awaitable<ApiResult>

/** Runs the steps in order around the final handler. */
export function compose(steps: Step[], final: Final): Final {
  return (ctx) => {
    const run = (i: number): Awaitable<ApiResult> => (i === steps.length ? final(ctx) : steps[i](ctx, () => run(i + 1)))
    return run(0)
  }
}
