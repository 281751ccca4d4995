/**
 * MSW request handlers for every operation of the contract, bound to a base URL, all answering
 * through the one pipeline. `server.use(...)` overrides single handlers as usual in MSW.
 */
import type { HttpHandler } from 'msw'
import { http } from './lib/msw.ts'
import type { OperationInfo } from '../openapi/index.ts'
import { methodFallback } from './method-fallback.ts'
import { pathMethods } from './methods.ts'
import { createPipeline, requestContext, type RequestHeaders } from './pipeline/index.ts'
import { toResponse, type ApiResult } from './respond.ts'
import type { MockState } from './state.ts'

export interface HandlersOptions {
  /** Where the client sends requests (default: the contract's server, `https://api.example.com`). `*` matches any origin. */
  baseUrl?: string
  /** Operations beyond the contract's (tests). */
  operations?: OperationInfo[]
  /** Where unexpected errors are logged. */
  log?: (error: unknown) => void
}

/** `/idempotency/{key}` → `/idempotency/:key` */
export const toMswPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1')

/** A request already taken apart: what the pipeline reads of it. */
export interface PipelineRequest {
  method: string
  url: URL
  headers: RequestHeaders
  /** The body as text ('' when none). */
  bodyText: string
  params?: Record<string, string>
}

export interface OperationRoute {
  op: OperationInfo
  /** The operation's MSW handler (made on first read). */
  readonly handler: HttpHandler
  /** Runs the operation's pipeline on a request taken apart (the standalone server's path: no fetch Request or Response per request). */
  run(request: PipelineRequest): Promise<ApiResult>
}

/** The operation handlers together with their operations (the standalone server routes on these). */
export function createOperationRoutes(state: MockState, { baseUrl, operations = [], log }: HandlersOptions = {}): OperationRoute[] {
  const contract = state.contract
  const base = (baseUrl ?? (contract.doc as unknown as { servers?: Array<{ url: string }> }).servers?.[0]?.url ?? '').replace(/\/$/, '')
  const pipeline = createPipeline(log ? { log } : {})
  const all = [...contract.operations, ...operations]
  const byId = new Map(all.map((o) => [o.operationId, o]))
  return all.map((op) => {
    let canonical = op
    for (let hops = 0; canonical.aliasOf && byId.has(canonical.aliasOf) && hops < 5; hops++) canonical = byId.get(canonical.aliasOf)!
    const method = op.method.toLowerCase() as 'get' | 'post' | 'delete'
    const run = ({ method: calledMethod, url, headers, bodyText, params = {} }: PipelineRequest): Promise<ApiResult> =>
      pipeline(requestContext(state, op, canonical, { method: calledMethod, headers, url, params, bodyText }))
    // Made on first use: the standalone server's fast path never needs it (nor msw, mock/lib/msw.ts).
    let handler: HttpHandler | undefined
    const makeHandler = () =>
      http[method](`${base}${toMswPath(op.path)}`, async ({ request, params }) =>
        toResponse(
          await run({
            method: request.method,
            url: new URL(request.url),
            headers: request.headers,
            params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v.join('/') : String(v)])),
            bodyText: method === 'get' ? '' : await request.text(),
          }),
        ),
      )
    return {
      op,
      get handler() {
        return (handler ??= makeHandler())
      },
      run,
    }
  })
}

/**
 * MSW handlers, one per operation, for `setupServer(...createHandlers(state, { baseUrl }))`, then one
 * answering a documented path's other methods (HEAD as GET, OPTIONS, 405 with Allow, 501: mock/methods.ts).
 */
export function createHandlers(state: MockState, options: HandlersOptions = {}): HttpHandler[] {
  const routes = createOperationRoutes(state, options)
  const handlers = routes.map((r) => r.handler)
  const base = options.baseUrl ?? (state.contract.doc as unknown as { servers?: Array<{ url: string }> }).servers?.[0]?.url ?? ''
  const methods = pathMethods(routes.map((r) => [r.op.path, r.op.method] as const))
  return [...handlers, ...methodFallback({ base, allowOf: (path) => methods.allowOf(path), handlers: () => handlers })]
}
