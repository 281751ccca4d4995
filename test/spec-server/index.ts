/**
 * A second, small implementation of the service, written from the service document
 * (`../shared/spec/service-api.md`) alone, on Hono: the cross-cutting rules (authentication and
 * scopes, idempotency, the rate limit, paging caps, 412 on dashboards) over a tiny world of its own.
 * It shares no code with mock/, fixtures/ or openapi/ (an architecture rule checks the imports), so
 * the conformance suite can be run against a server it did not grow up with
 * (test/conformance-spec-server.test.ts).
 */
import { serve } from '@hono/node-server'
import { Hono, type Context } from 'hono'
import type { AddressInfo } from 'node:net'
import { ApiError } from './errors.ts'
import { authenticate, createIdempotencyStore, idempotency, jsonBody, rateLimit, shopScope, type Env, type IdempotencyStore, type RouteEntry, type RouteMeta } from './pipeline.ts'
import { accountRoutes } from './routes/account.ts'
import { automationRoutes, type Automation } from './routes/automations.ts'
import { dashboardRoutes, type Board } from './routes/dashboards.ts'
import { enterpriseRoutes } from './routes/enterprise.ts'
import { listingRoutes } from './routes/listings.ts'

export { KEYS, SHOPS, FOREIGN_SHOP } from './world.ts'

export interface SpecServerOptions {
  /** The clock (ms since the epoch): idempotency windows, rate-limit windows, updated_at. */
  now?: () => number
  /** The call every automation write makes to the platform: hold it to keep a request in flight, throw for an outage. */
  platform?: (operation: string) => Promise<void>
  /** Requests per second per key and shop (spec: Limits: 10). */
  perSecond?: number
  /** Requests per day per key and shop (spec: Limits: 1,000,000). */
  perDay?: number
  /**
   * The paths (`/enterprise/brands`...) this deployment serves its Enterprise endpoints at: the spec
   * says they exist and take `region`, but shows no path, so by default there are none.
   */
  enterprisePaths?: readonly string[]
}

/** What the routes share: the stores, the clock, the platform. */
export interface SpecState {
  now: () => number
  platform: (operation: string) => Promise<void>
  idempotency: IdempotencyStore
  automations: Map<string, Map<string, Automation>>
  dashboards: Map<string, Map<string, Board>>
  /** Source of ids, so that the same requests give the same ids. */
  sequence: number
}

type Handler = (c: Context<Env>) => Response | Promise<Response>
/** Registers a route under its permission name (`POST /dashboards/update`, `GET /idempotency/{key}`). */
export type Define = (method: 'GET' | 'POST' | 'DELETE', path: string, meta: Omit<RouteMeta, 'permission'>, handler: Handler) => void

/** The Hono app of the spec server and its state. */
export function createSpecApp(options: SpecServerOptions = {}) {
  const now = options.now ?? Date.now
  const state: SpecState = {
    now,
    platform: options.platform ?? (async () => {}),
    idempotency: createIdempotencyStore(now),
    automations: new Map(),
    dashboards: new Map(),
    sequence: 0,
  }
  const app = new Hono<Env>()
  const routes: RouteEntry[] = []
  // Before routing: the key, its routes, the rate limit (spec: Authentication 1-3; Limits).
  app.use('*', authenticate(routes), rateLimit({ perSecond: options.perSecond, perDay: options.perDay, now }))
  const define: Define = (method, path, partial, handler) => {
    const meta: RouteMeta = { ...partial, permission: `${method} ${path}` }
    routes.push({ method, pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`), meta })
    app.on([method], [path.replace(/\{(\w+)\}/g, ':$1')], shopScope(meta), jsonBody(), idempotency(meta, state.idempotency, now), handler)
  }
  accountRoutes(define, state)
  automationRoutes(define, state)
  dashboardRoutes(define, state)
  listingRoutes(define)
  enterpriseRoutes(define, options.enterprisePaths ?? [])

  app.notFound((c) => c.json({ error: `No such endpoint: ${c.req.method} ${new URL(c.req.url).pathname}` }, 404))
  // The one place an error becomes an answer: refusals with their status, anything else a 500.
  app.onError((error, c) => {
    if (error instanceof ApiError) return c.json({ error: error.message }, error.status as 400, error.headers)
    return c.json({ error: 'Internal server error' }, 500)
  })
  return { app, state }
}

export interface RunningSpecServer {
  url: string
  state: SpecState
  close(): Promise<void>
}

/** Starts the spec server on `host:port` (port 0: any free port). */
export async function startSpecServer(options: SpecServerOptions & { port?: number; host?: string } = {}): Promise<RunningSpecServer> {
  const { app, state } = createSpecApp(options)
  const host = options.host ?? '127.0.0.1'
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () => resolve(s))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${host}:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) (server as { closeAllConnections(): void }).closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
