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

/** The route of a method and path, with the path's parameters. */
export interface RouteMatch {
  route: OperationRoute
  /** `{key}` of `/idempotency/{key}`, percent-decoded as MSW decodes it (kept as sent when it does not decode). */
  params: Record<string, string>
}

export interface OperationRouter {
  find(method: string, path: string): RouteMatch | undefined
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

const decoded = (value: string): string => {
  if (!value.includes('%')) return value
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * Routes by method and path to the one operation (the standalone server's map, and a HEAD's GET in the
 * MSW handlers): a fixed path by lookup, a path with parameters by its pattern; a trailing slash is ignored.
 */
export function operationRouter(routes: readonly OperationRoute[]): OperationRouter {
  const exact = new Map<string, OperationRoute>()
  const patterns: Array<{ method: string; regex: RegExp; names: string[]; route: OperationRoute }> = []
  for (const route of routes) {
    const { method, path } = route.op
    if (path.includes('{')) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')
      patterns.push({ method, regex: new RegExp(`^${source}/?$`), names, route })
    } else {
      exact.set(`${method} ${path}`, route)
    }
  }
  return {
    find(method, path) {
      const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
      const route = exact.get(`${method} ${trimmed}`)
      if (route) return { route, params: NO_PARAMS }
      for (const p of patterns) {
        const match = p.method === method ? p.regex.exec(path) : null
        if (match) return { route: p.route, params: Object.fromEntries(p.names.map((name, i) => [name, decoded(match[i + 1]!)])) }
      }
      return undefined
    },
  }
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
  const router = operationRouter(routes)
  // A HEAD runs its GET's operation as a HEAD: the operation answers as its GET would, changing nothing.
  const head = async (request: Request, path: string): Promise<Response | undefined> => {
    const found = router.find('GET', path)
    if (!found) return undefined
    return toResponse(await found.route.run({ method: 'HEAD', url: new URL(request.url), headers: request.headers, bodyText: '', params: found.params }))
  }
  return [...handlers, ...methodFallback({ base, allowOf: (path) => methods.allowOf(path), handlers: () => handlers, head, cors: true })]
}
