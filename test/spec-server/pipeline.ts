/**
 * The cross-cutting steps of the spec server, each a Hono middleware made from options:
 * authentication and scopes, the rate limit, idempotency, and the JSON body. Written from the
 * service document's Authentication, Errors, Limits and Idempotency sections alone.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { ApiError, apiError } from './errors.ts'
import { ACCOUNTS, API_KEYS, SHOP_ID, type ApiKey, type Shop } from './world.ts'

/** What the route declares about itself; the pipeline enforces it. */
export interface RouteMeta {
  /** The permission name, `<METHOD> <path>` (spec: Conventions 8, Authentication 3). */
  permission: string
  /** Needs `x-shop-id` (every route but `GET /account/shops` and `GET /health`: Authentication 1-2). */
  shop: boolean
  /** No key at all (`GET /health`). */
  public?: boolean
  /** An Enterprise endpoint: a standard key is refused (spec: Authentication 4). */
  enterprise?: boolean
  /** 403 for a shop not on an active paid plan (Authentication 5: the ads endpoints). */
  activePaidPlan?: boolean
  /** Accepts the Idempotency-Key header (spec: Idempotency, the list of write endpoints). */
  idempotent?: boolean
}

export interface Env {
  Variables: {
    apiKey: string
    key: ApiKey
    shop: Shop
    body: Record<string, any>
  }
}

/** A defined route: its method, its path as a pattern, what it declares. */
export interface RouteEntry {
  method: string
  pattern: RegExp
  meta: RouteMeta
}

/**
 * The key and its routes, for every request before routing (as a gateway does): a call outside
 * the key's routes gets 403 whether or not this small server serves that route
 * (spec: Authentication 3). Missing or unknown key: status not shown, 401 here.
 */
export const authenticate = (routes: readonly RouteEntry[]): MiddlewareHandler<Env> =>
  async function authenticateStep(c, next) {
    const path = new URL(c.req.url).pathname
    const meta = routes.find((r) => r.method === c.req.method && r.pattern.test(path))?.meta
    if (meta?.public) return next()
    const apiKey = c.req.header('x-api-key')
    if (!apiKey) throw apiError(401, 'Missing x-api-key header')
    const key = API_KEYS[apiKey]
    if (!key) throw apiError(401, 'Invalid API key')
    c.set('apiKey', apiKey)
    c.set('key', key)
    const permission = meta?.permission ?? `${c.req.method} ${path}`
    if (key.routes && !key.routes.includes(permission)) throw apiError(403, `Forbidden: this key is not allowed ${permission}`)
    if (meta?.enterprise && key.tier !== 'enterprise') throw apiError(403, 'Forbidden: Enterprise endpoints need an Enterprise plan')
    return next()
  }

/** spec: Authentication 1, 3, 5; Errors: the shop header (400), a shop outside the key's shops (403), the ads plan gate (403). */
export const shopScope = (meta: RouteMeta): MiddlewareHandler<Env> =>
  async function shopScopeStep(c, next) {
    if (!meta.shop) return next()
    const key = c.get('key')
    const shopId = c.req.header('x-shop-id')
    if (shopId === undefined || shopId === '') throw apiError(400, 'Missing X-Shop-Id header')
    if (!SHOP_ID.test(shopId)) throw apiError(400, 'Invalid shop_id')
    const shop = ACCOUNTS[key.account]?.find((s) => s.shop_id === shopId)
    if (!shop) throw apiError(403, 'Shop not found or not owned by user')
    if (key.shops && !key.shops.includes(shopId)) throw apiError(403, 'Forbidden: this key is not allowed on this shop')
    if (meta.activePaidPlan && !shop.is_active) throw apiError(403, 'This shop is not on an active paid plan')
    c.set('shop', shop)
    return next()
  }

/**
 * spec: Limits: "10 per second and 1,000,000 per day per key, measured per shop; excess gets 429".
 * Fixed windows (each wall-clock second, each UTC day), not the mock's sliding one: the spec does
 * not say which. Retry-After (not in the spec) says when the window ends.
 */
export const rateLimit = ({ perSecond = 10, perDay = 1_000_000, now = Date.now }: { perSecond?: number; perDay?: number; now?: () => number } = {}): MiddlewareHandler<Env> => {
  const seconds = new Map<string, { window: number; count: number }>()
  const days = new Map<string, { window: number; count: number }>()
  const take = (counts: Map<string, { window: number; count: number }>, id: string, window: number, limit: number) => {
    const entry = counts.get(id)
    if (!entry || entry.window !== window) {
      counts.set(id, { window, count: 1 })
      return true
    }
    if (entry.count >= limit) return false
    entry.count++
    return true
  }
  return async function rateLimitStep(c, next) {
    const apiKey = c.get('apiKey')
    if (!apiKey) return next()
    const id = `${apiKey}\n${c.req.header('x-shop-id') ?? ''}`
    const at = now()
    const second = Math.floor(at / 1000)
    const day = Math.floor(at / 86_400_000)
    if (!take(days, id, day, perDay)) {
      throw apiError(429, `Rate limit exceeded: ${perDay} requests per day per key and shop`, { 'retry-after': String(Math.ceil(((day + 1) * 86_400_000 - at) / 1000)) })
    }
    if (!take(seconds, id, second, perSecond)) {
      // The day counted this one; give it back, it was refused.
      days.get(id)!.count--
      throw apiError(429, `Rate limit exceeded: ${perSecond} requests per second per key and shop`, { 'retry-after': String(Math.max(1, Math.ceil(((second + 1) * 1000 - at) / 1000))) })
    }
    return next()
  }
}

/** The JSON body of a POST or DELETE as an object (an empty body is `{}`). */
export const jsonBody = (): MiddlewareHandler<Env> =>
  async function jsonBodyStep(c, next) {
    if (c.req.method === 'GET') {
      c.set('body', Object.fromEntries(new URL(c.req.url).searchParams))
      return next()
    }
    const text = await c.req.text()
    let body: unknown = {}
    if (text.trim()) {
      try {
        body = JSON.parse(text)
      } catch {
        throw apiError(400, 'Request body must be JSON')
      }
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw apiError(400, 'Request body must be a JSON object')
    c.set('body', body as Record<string, any>)
    return next()
  }

/** A stored idempotency record (spec: Resources: Idempotency record; States: processing, completed). */
export type IdempotencyRecord =
  | { status: 'processing'; startedAt: number }
  | { status: 'completed'; responseStatus: number; responseBody: string; completedAt: number }

/** spec: Limits: Idempotency: key pattern, cache 24 hours, in-flight conflict window 60 seconds. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9-]{1,128}$/
const CACHE_MS = 24 * 3600_000
const IN_FLIGHT_MS = 60_000

/** Idempotency records per shop and key; a record past its window reads as absent. */
export function createIdempotencyStore(now: () => number) {
  const records = new Map<string, IdempotencyRecord>()
  const id = (shopId: string, key: string) => `${shopId}\n${key}`
  return {
    get(shopId: string, key: string): IdempotencyRecord | undefined {
      const record = records.get(id(shopId, key))
      if (!record) return undefined
      const age = now() - (record.status === 'processing' ? record.startedAt : record.completedAt)
      // spec: "entry expires after 24 hours"; a request in flight for more than 60 s no longer blocks the key.
      if (age >= (record.status === 'processing' ? IN_FLIGHT_MS : CACHE_MS)) {
        records.delete(id(shopId, key))
        return undefined
      }
      return record
    },
    set: (shopId: string, key: string, record: IdempotencyRecord) => void records.set(id(shopId, key), record),
    delete: (shopId: string, key: string) => void records.delete(id(shopId, key)),
  }
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>

/**
 * spec: Idempotency: with the header, "response (status and body) cached 24 hours per shop and key;
 * replay returns the original response identically; a concurrent request with the same key gets
 * 409 for up to 60 seconds while the first is in flight; 5xx responses and uncaught exceptions are
 * not cached, so a retry can succeed".
 */
export const idempotency = (meta: RouteMeta, store: IdempotencyStore, now: () => number): MiddlewareHandler<Env> =>
  async function idempotencyStep(c, next) {
    const key = c.req.header('idempotency-key')
    if (!meta.idempotent || key === undefined) return next()
    if (!IDEMPOTENCY_KEY.test(key)) throw apiError(400, 'Invalid idempotency key format')
    const shopId = c.get('shop').shop_id
    const record = store.get(shopId, key)
    if (record?.status === 'completed') return replay(c, record)
    if (record?.status === 'processing') throw apiError(409, 'A request with this Idempotency-Key is still in flight; retry later')
    store.set(shopId, key, { status: 'processing', startedAt: now() })
    await next()
    const uncaught = c.error !== undefined && !(c.error instanceof ApiError)
    if (uncaught || c.res.status >= 500) {
      store.delete(shopId, key)
      return
    }
    store.set(shopId, key, { status: 'completed', responseStatus: c.res.status, responseBody: await c.res.clone().text(), completedAt: now() })
  }

function replay(c: Context<Env>, record: Extract<IdempotencyRecord, { status: 'completed' }>): Response {
  return c.body(record.responseBody, record.responseStatus as 200, { 'content-type': 'application/json' })
}
